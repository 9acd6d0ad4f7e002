/** Cluster: health, and the regions that hold replicas (leaders, replicas, partitions out of sync per region). */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, PageHeading, Status, useInterval, useLoad } from "../components/common.tsx";
import { describeTopics, listTopics } from "../data.ts";
import { describeIdentity } from "../identity.ts";
import { useIdentity } from "../session-identity.tsx";
import type { Topic } from "../types.ts";

interface RegionRow {
  region: string;
  leaders: number;
  replicas: number;
  outOfSync: number;
}

export function regionRows(topics: Iterable<Topic>): RegionRow[] {
  const rows = new Map<string, RegionRow>();
  const row = (region: string) => rows.get(region) ?? rows.set(region, { region, leaders: 0, replicas: 0, outOfSync: 0 }).get(region)!;
  for (const topic of topics) {
    for (const partition of topic.partitions) {
      row(partition.leader).leaders++;
      for (const replica of partition.replicas) {
        row(replica).replicas++;
        if (!partition.isr.includes(replica)) row(replica).outOfSync++;
      }
    }
  }
  return [...rows.values()].sort((a, b) => a.region.localeCompare(b.region));
}

export function ClusterPage() {
  const identity = useIdentity();
  const [latencyMs, setLatencyMs] = useState<number>();
  const health = useLoad(async () => {
    const started = performance.now();
    const answer = await api<{ status: string }>("GET", "/v1/health");
    setLatencyMs(Math.round(performance.now() - started));
    return answer;
  }, "health");
  const topics = useLoad(async () => describeTopics(await listTopics()), "cluster-topics");
  useInterval(() => { health.reload(); topics.reload(); }, 10_000);
  const regions = topics.data === undefined ? [] : regionRows(topics.data.values());
  return (
    <section>
      <PageHeading>Cluster</PageHeading>
      <h2>Health</h2>
      <ErrorMessage error={health.error} />
      {health.data !== undefined && <p>API <strong data-testid="health">{health.data.status}</strong>{latencyMs !== undefined && ` (answered in ${latencyMs} ms)`} · {describeIdentity(identity)}</p>}
      <h2>Regions</h2>
      <p class="meta">Regions holding replicas of the topics this token may describe; a replica out of the ISR counts as out of sync.</p>
      <ErrorMessage error={topics.error} />
      {topics.data === undefined && topics.loading && <Status>Loading…</Status>}
      {topics.data !== undefined && (
        <table>
          <thead><tr><th scope="col">Region</th><th scope="col" class="number">Leaders</th><th scope="col" class="number">Replicas</th><th scope="col" class="number">Out of sync</th></tr></thead>
          <tbody>
            {regions.length === 0 && <tr><td colSpan={4}>No replicas yet.</td></tr>}
            {regions.map((row) => (
              <tr key={row.region} class={row.outOfSync > 0 ? "warning" : undefined}>
                <th scope="row">{row.region}</th>
                <td class="number">{row.leaders}</td>
                <td class="number">{row.replicas}</td>
                <td class="number">{row.outOfSync}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
