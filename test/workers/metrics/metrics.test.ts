/**
 * GET /v1/metrics (docs/metrics.md, docs/api.md): the exposition a parser reads back holds the
 * numbers the API shows (high watermark, log start, group lag and committed offset), HELP and
 * TYPE for every family, the JSON twin carries the same families and each partition's
 * history, a gathering is reused for metricsCacheMs, the router counts requests by route
 * pattern, and records appended survive the partition object's restart.
 */
import { createExecutionContext, evictDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { metricsHistoryMinutes } from "../../../src/limits.ts";
import { replicaName } from "../../../src/contracts/stubs.ts";
import { createApp } from "../../../src/app.ts";
import { groupPath, join, uniqueGroup } from "../groups/support/groups.ts";
import { api, createTopic, describeTopic, fetchOk, produce, readResponse, uniqueTopic, type Topic } from "../support/http.ts";
import { parseExposition, sampleValue } from "./support/parse-exposition.ts";

const topicName = uniqueTopic("metrics");
const group = uniqueGroup("metrics");
let topic: Topic;

/** A router app of its own: its own per-isolate cache and counters, as a fresh isolate has. */
async function scrape(app: ReturnType<typeof createApp>, accept?: string) {
  const ctx = createExecutionContext();
  const response = await app.request("http://tributary.test/v1/metrics", { headers: accept ? { accept } : {} }, env, ctx);
  const read = await readResponse(response);
  await waitOnExecutionContext(ctx);
  return read;
}

function partitionObject(partition: number) {
  return env.PARTITIONS.get(env.PARTITIONS.idFromName(replicaName(topic.topicId, partition, topic.partitions[partition]!.leader)));
}

beforeAll(async () => {
  await createTopic(topicName, { partitions: 2 });
  await produce(topicName, [{ value: "a", partition: 0 }, { value: "b", partition: 0 }, { value: "c", partition: 0 }]);
  await produce(topicName, [{ value: "d", partition: 1 }, { value: "e", partition: 1 }]);
  await fetchOk(topicName, 0, { offset: 1 });
  const member = await join(group, [topicName], { sessionTimeoutMs: 1_800_000 });
  const commit = await api("POST", groupPath(group, "/offsets"), {
    memberId: member.memberId,
    memberEpoch: member.memberEpoch,
    offsets: [{ topic: topicName, partition: 0, offset: 1 }],
  });
  expect(commit.status, commit.text).toBe(204);
  topic = await describeTopic(topicName);
});

describe("GET /v1/metrics", () => {
  it("answers Prometheus text 0.0.4 whose values are the ones the API shows", async () => {
    const response = await scrape(createApp());
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const families = parseExposition(response.text);
    for (const family of families.values()) {
      expect(family.help.length, family.name).toBeGreaterThan(0);
      expect(["gauge", "counter", "histogram"], family.name).toContain(family.type);
      expect(family.name.startsWith("tributary_"), family.name).toBe(true);
      if (family.type === "counter") expect(family.name.endsWith("_total"), family.name).toBe(true);
    }
    for (const { partition, highWatermark, logStartOffset } of topic.partitions) {
      const labels = { topic: topicName, partition: String(partition) };
      expect(sampleValue(families, "tributary_partition_high_watermark", labels)).toBe(highWatermark);
      expect(sampleValue(families, "tributary_partition_log_start_offset", labels)).toBe(logStartOffset);
      expect(sampleValue(families, "tributary_partition_log_end_offset", labels)).toBe(highWatermark);
      expect(sampleValue(families, "tributary_partition_records_appended_total", labels)).toBe(highWatermark);
      expect(sampleValue(families, "tributary_partition_bytes_appended_total", labels)).toBeGreaterThan(0);
      expect(sampleValue(families, "tributary_partition_isr_size", labels)).toBe(topic.partitions[partition]!.isr.length);
      expect(sampleValue(families, "tributary_partition_under_replicated", labels)).toBe(0);
      expect(sampleValue(families, "tributary_partition_subscribers", labels)).toBe(0);
      expect(sampleValue(families, "tributary_partition_bytes", { ...labels, tier: "sqlite" })).toBeGreaterThan(0);
      expect(sampleValue(families, "tributary_partition_segments", { ...labels, tier: "r2" })).toBe(0);
    }
    expect(topic.partitions.map(({ highWatermark }) => highWatermark)).toEqual([3, 2]);
    expect(sampleValue(families, "tributary_partition_fetches_total", { topic: topicName, partition: "0" })).toBe(1);
    expect(sampleValue(families, "tributary_partition_records_fetched_total", { topic: topicName, partition: "0" })).toBe(2);
    expect(sampleValue(families, "tributary_partition_fetches_total", { topic: topicName, partition: "1" })).toBe(0);

    const offsets = (await api("GET", groupPath(group, "/offsets"))).body.offsets as { partition: number; offset: number | null; lag: number | null }[];
    const committed = offsets.find((entry) => entry.partition === 0)!;
    expect(committed).toMatchObject({ offset: 1, lag: 2 });
    const groupLabels = { group, topic: topicName, partition: "0" };
    expect(sampleValue(families, "tributary_group_lag", groupLabels)).toBe(committed.lag);
    expect(sampleValue(families, "tributary_group_committed_offset", groupLabels)).toBe(committed.offset);
    // Nothing committed on partition 1: no series rather than a made-up number.
    expect(() => sampleValue(families, "tributary_group_lag", { group, topic: topicName, partition: "1" })).toThrow(/0 samples/);
    expect(sampleValue(families, "tributary_metrics_omitted", { kind: "partitions" })).toBe(0);
    expect(sampleValue(families, "tributary_metrics_unavailable", { kind: "partitions" })).toBe(0);
  });

  it("answers the JSON twin with Accept: application/json: the same families and 15 minutes of history per partition", async () => {
    const app = createApp();
    const text = parseExposition((await scrape(app)).text);
    const response = await scrape(app, "application/json");
    expect(response.status, response.text).toBe(200);
    const twin = response.body as {
      generatedAt: number;
      families: { name: string; type: string; help: string; samples: { name: string; labels: Record<string, string>; value: number }[] }[];
      history: { partitions: { topic: string; partition: number; minuteStartMs: number[]; recordsIn: number[]; recordsOut: number[] }[] };
    };
    expect(typeof twin.generatedAt).toBe("number");
    const clusterFamilies = twin.families.filter((family) => !family.name.startsWith("tributary_router_"));
    for (const family of clusterFamilies) {
      expect({ name: family.name, type: family.type, help: family.help, samples: family.samples.map(({ labels, value }) => ({ labels, value })) }).toEqual({
        name: family.name,
        type: text.get(family.name)!.type,
        help: text.get(family.name)!.help,
        samples: text.get(family.name)!.samples.map(({ labels, value }) => ({ labels, value })),
      });
    }
    const history = twin.history.partitions.filter((entry) => entry.topic === topicName).sort((a, b) => a.partition - b.partition);
    expect(history.map((entry) => entry.partition)).toEqual([0, 1]);
    for (const entry of history) {
      expect(entry.minuteStartMs).toHaveLength(metricsHistoryMinutes);
      expect(entry.minuteStartMs.every((start, index) => index === 0 || start - entry.minuteStartMs[index - 1]! === 60_000)).toBe(true);
      expect(entry.minuteStartMs.at(-1)! <= twin.generatedAt && twin.generatedAt < entry.minuteStartMs.at(-1)! + 60_000).toBe(true);
    }
    expect(history.map((entry) => entry.recordsIn.reduce((sum, value) => sum + value, 0))).toEqual([3, 2]);
    expect(history.map((entry) => entry.recordsOut.reduce((sum, value) => sum + value, 0))).toEqual([2, 0]);
  });

  it("reuses one gathering for a few seconds: a produce right after shows in the next gathering, not this one", async () => {
    const app = createApp();
    const first = (await scrape(app, "application/json")).body;
    await produce(topicName, [{ value: "f", partition: 1 }]);
    const second = (await scrape(app, "application/json")).body;
    expect(second.generatedAt).toBe(first.generatedAt);
    const highWatermark = (body: { families: { name: string; samples: { labels: Record<string, string>; value: number }[] }[] }) =>
      body.families.find((family) => family.name === "tributary_partition_high_watermark")!.samples.find((sample) => sample.labels.topic === topicName && sample.labels.partition === "1")!.value;
    expect(highWatermark(second)).toBe(highWatermark(first));
    expect(highWatermark((await scrape(createApp(), "application/json")).body)).toBe(highWatermark(first) + 1);
  });

  it("counts the router's requests by route pattern and status, their latency, and errors by code", async () => {
    const app = createApp();
    const call = async (path: string) => {
      const ctx = createExecutionContext();
      await app.request(`http://tributary.test${path}`, {}, env, ctx);
      await waitOnExecutionContext(ctx);
    };
    await call(`/v1/topics/${topicName}`);
    await call(`/v1/topics/${topicName}`);
    await call(`/v1/topics/${uniqueTopic("missing")}`);
    await call("/v1/no-such-route");
    const families = parseExposition((await scrape(app)).text);
    const route = { method: "GET", route: "/v1/topics/:topic" };
    expect(sampleValue(families, "tributary_router_requests_total", { ...route, status: "200" })).toBe(2);
    expect(sampleValue(families, "tributary_router_requests_total", { ...route, status: "404" })).toBe(1);
    expect(sampleValue(families, "tributary_router_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(sampleValue(families, "tributary_router_request_duration_seconds_count", route)).toBe(3);
    expect(sampleValue(families, "tributary_router_request_duration_seconds_bucket", { ...route, le: "+Inf" })).toBe(3);
    expect(sampleValue(families, "tributary_router_errors_total", { code: "UNKNOWN_TOPIC_OR_PARTITION" })).toBe(1);
    expect(sampleValue(families, "tributary_router_errors_total", { code: "NOT_FOUND" })).toBe(1);
  });

  it("refuses query parameters it does not take", async () => {
    const response = await api("GET", "/v1/metrics?topic=x");
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("INVALID_REQUEST");
  });

  it("keeps records appended exact across the partition object's restart (derived from offsets)", async () => {
    await evictDurableObject(partitionObject(0));
    const families = parseExposition((await scrape(createApp())).text);
    const labels = { topic: topicName, partition: "0" };
    expect(sampleValue(families, "tributary_partition_records_appended_total", labels)).toBe(3);
    expect(sampleValue(families, "tributary_partition_high_watermark", labels)).toBe(3);
  });
});
