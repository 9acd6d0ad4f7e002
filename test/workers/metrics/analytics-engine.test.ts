/**
 * The optional METRICS Analytics Engine binding (docs/metrics.md): bound, the router writes one
 * data point per request in the documented schema; unbound (wrangler.toml binds none), the
 * same requests get the same answers and nothing is written. A partition leader's traffic
 * writes one point per append group and per fetch. Local workerd's own dataset
 * binding forwards nowhere, so the bound case records the points the router hands the
 * binding's writeDataPoint.
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { ReplicaTraffic } from "../../../src/objects/replica-traffic.ts";
import { replicaName } from "../../../src/contracts/stubs.ts";
import { createApp } from "../../../src/app.ts";
import { createTopic, readResponse, uniqueTopic } from "../support/http.ts";

async function call(app: ReturnType<typeof createApp>, path: string, bindings: Env) {
  const ctx = createExecutionContext();
  const response = await readResponse(await app.request(`http://tributary.test${path}`, {}, bindings, ctx));
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: response.body };
}

describe("the METRICS binding", () => {
  it("is absent from the test Worker, as from wrangler.toml", () => {
    expect(env.METRICS).toBeUndefined();
  });

  it("bound: one data point per request (route pattern, status, error code, duration); unbound: the same answers", async () => {
    const name = uniqueTopic("analytics");
    await createTopic(name);
    const points: AnalyticsEngineDataPoint[] = [];
    const recording = { writeDataPoint: (point?: AnalyticsEngineDataPoint) => void points.push(point!) } as AnalyticsEngineDataset;
    const paths = [`/v1/topics/${name}`, `/v1/topics/${uniqueTopic("absent")}`];
    const bound = [];
    const unbound = [];
    for (const path of paths) {
      bound.push(await call(createApp(), path, { ...env, METRICS: recording }));
      unbound.push(await call(createApp(), path, env));
    }
    expect(bound.map(({ status }) => status)).toEqual([200, 404]);
    expect(unbound).toEqual(bound);
    expect(points.map(({ indexes, blobs, doubles }) => ({ indexes, blobs, count: doubles?.[0], durationIsNumber: typeof doubles?.[1] === "number" }))).toEqual([
      { indexes: ["/v1/topics/:topic"], blobs: ["request", "GET", "/v1/topics/:topic", "200", "", ""], count: 1, durationIsNumber: true },
      { indexes: ["/v1/topics/:topic"], blobs: ["request", "GET", "/v1/topics/:topic", "404", "UNKNOWN_TOPIC_OR_PARTITION", ""], count: 1, durationIsNumber: true },
    ]);
  });
});

describe("the METRICS binding in a partition leader", () => {
  it("gets one data point per append group (records and bytes of the appends that were new) and per fetch", async () => {
    const name = uniqueTopic("analytics-partition");
    const topic = await createTopic(name);
    const leader = topic.partitions[0]!.leader;
    const replica = env.PARTITIONS.get(env.PARTITIONS.idFromName(replicaName(topic.topicId, 0, leader)));
    const points = await runInDurableObject(replica, (_instance, state) => {
      const written: AnalyticsEngineDataPoint[] = [];
      const recording = { writeDataPoint: (point?: AnalyticsEngineDataPoint) => void written.push(point!) } as AnalyticsEngineDataset;
      const traffic = new ReplicaTraffic(state.storage.sql, recording, { topicId: topic.topicId, partition: 0, region: leader }, 0);
      const batch = encodeRecordBatch([0, 1, 2].map((i) => ({ key: null, value: new Uint8Array([i]), headers: [], timestamp: 1 })));
      const request = { batches: [batch], acks: 1 as const } as unknown as Parameters<ReplicaTraffic["appendedAsLeader"]>[0][number];
      traffic.appendedAsLeader(
        [request, request],
        [
          { ok: true, value: { baseOffset: 0, lastOffset: 2, logAppendTime: null } as never },
          { ok: false, error: new Error("refused: not counted") },
        ],
        3,
      );
      traffic.fetched(1, { batches: [batch], logStartOffset: 0, highWatermark: 3 });
      return { written, batchBytes: batch.byteLength };
    });
    expect(points.written).toEqual([
      { indexes: [topic.topicId], blobs: ["append", topic.topicId, "0", leader], doubles: [3, points.batchBytes] },
      { indexes: [topic.topicId], blobs: ["fetch", topic.topicId, "0", leader], doubles: [2, points.batchBytes] },
    ]);
  });
});
