import { Hono } from "hono";
import { clusterResourceName } from "../../auth/acl.ts";
import { metricsCacheMs } from "../../limits.ts";
import { clusterFamilies, partitionHistories, type PartitionHistory } from "../../metrics/cluster-families.ts";
import { expositionContentType, formatExposition, type MetricFamily } from "../../metrics/exposition.ts";
import type { RouterCounters } from "../../metrics/router-counters.ts";
import { authorize } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { gatherMetrics } from "../metrics-gather.ts";
import { routeQuery } from "../query.ts";

/** What one gathering produced, reused by this isolate for metricsCacheMs. */
interface ClusterSnapshot {
  generatedAt: number;
  families: MetricFamily[];
  history: { partitions: PartitionHistory[] };
}

/**
 * GET /v1/metrics (docs/api.md, docs/metrics.md): Prometheus text (version 0.0.4), or with
 * `Accept: application/json` its JSON twin for the console — the same families with a
 * per-partition history. Needs `describe` on the cluster. The partitions' and groups' numbers
 * are gathered on demand (src/router/metrics-gather.ts) and reused by this isolate for
 * metricsCacheMs; concurrent scrapes share one gathering. The router's own counters are this
 * isolate's, as of now.
 */
export function metricsRoutes(counters: RouterCounters) {
  let cached: ClusterSnapshot | undefined;
  let gathering: Promise<ClusterSnapshot> | undefined;

  async function snapshot(env: Env): Promise<ClusterSnapshot> {
    if (cached && Date.now() - cached.generatedAt < metricsCacheMs) return cached;
    gathering ??= (async () => {
      const generatedAt = Date.now();
      const gathered = await gatherMetrics(env);
      return { generatedAt, families: clusterFamilies(gathered), history: { partitions: partitionHistories(gathered) } };
    })().finally(() => (gathering = undefined));
    cached = await gathering;
    return cached;
  }

  return new Hono<RouterEnv>().get("/", async (c) => {
    authorize(c, "cluster", clusterResourceName, "describe");
    routeQuery(c.req.url, []);
    const cluster = await snapshot(c.env);
    const families = [...cluster.families, ...counters.families()];
    if (wantsJson(c.req.header("accept"))) {
      return c.json({ generatedAt: cluster.generatedAt, families, history: cluster.history });
    }
    return c.body(formatExposition(families), 200, { "Content-Type": expositionContentType });
  });
}

/** The JSON twin when Accept names application/json; Prometheus's own Accept (text, OpenMetrics) gets text. */
function wantsJson(accept: string | undefined): boolean {
  return (accept ?? "").split(",").some((part) => part.split(";")[0]!.trim().toLowerCase() === "application/json");
}
