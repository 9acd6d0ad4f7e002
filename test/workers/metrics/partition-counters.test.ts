/**
 * A partition's lazily written counters (src/objects/replica-traffic.ts): what its row
 * holds is what GET /v1/metrics shows after the object restarts; and a leader that does not
 * answer leaves its partition out of one gathering (counted) without failing the scrape.
 */
import { createExecutionContext, evictDurableObject, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { replicaName } from "../../../src/contracts/stubs.ts";
import { openPartitionTraffic, writePartitionTraffic } from "../../../src/objects/replica-traffic.ts";
import { createApp } from "../../../src/app.ts";
import { api, createTopic, produce, readResponse, uniqueTopic, type Topic } from "../support/http.ts";
import { parseExposition, sampleValue } from "./support/parse-exposition.ts";

async function scrapeFresh() {
  const ctx = createExecutionContext();
  const response = await readResponse(await createApp().request("http://tributary.test/v1/metrics", {}, env, ctx));
  await waitOnExecutionContext(ctx);
  expect(response.status, response.text).toBe(200);
  return parseExposition(response.text);
}

function leaderObject(topic: Topic, partition: number) {
  return env.PARTITIONS.get(env.PARTITIONS.idFromName(replicaName(topic.topicId, partition, topic.partitions[partition]!.leader)));
}

describe("partition counters", () => {
  it("shows after a restart what the partition's counter row holds", async () => {
    const name = uniqueTopic("counters");
    const topic = await createTopic(name);
    await produce(name, [{ value: "a" }, { value: "b" }]);
    const stored = await runInDurableObject(leaderObject(topic, 0), async (_instance, state) => {
      const traffic = openPartitionTraffic(state.storage.sql, 0, Date.now()).snapshot();
      const written = { ...traffic, bytesAppended: 12_345, fetches: 6, recordsFetched: 9 };
      writePartitionTraffic(state.storage.sql, written);
      return written;
    });
    expect(stored.recordsBase).toBe(0); // created when the partition was: records appended counts from offset 0
    await evictDurableObject(leaderObject(topic, 0));
    const families = await scrapeFresh();
    const labels = { topic: name, partition: "0" };
    expect(sampleValue(families, "tributary_partition_bytes_appended_total", labels)).toBe(12_345);
    expect(sampleValue(families, "tributary_partition_fetches_total", labels)).toBe(6);
    expect(sampleValue(families, "tributary_partition_records_fetched_total", labels)).toBe(9);
    expect(sampleValue(families, "tributary_partition_records_appended_total", labels)).toBe(2);
  });

  it("leaves out a partition whose leader does not answer, counted as unavailable, and serves the rest", async () => {
    const name = uniqueTopic("down");
    const topic = await createTopic(name, { partitions: 2 });
    await produce(name, [{ value: "a", partition: 1 }]);
    const fault = (kind: string) => api("POST", "/v1/faults", { topic: name, partition: 0, replica: topic.partitions[0]!.leader, fault: kind });
    expect((await fault("down")).status).toBe(204);
    try {
      const families = await scrapeFresh();
      expect(() => sampleValue(families, "tributary_partition_high_watermark", { topic: name, partition: "0" })).toThrow(/0 samples/);
      expect(sampleValue(families, "tributary_partition_high_watermark", { topic: name, partition: "1" })).toBe(1);
      expect(sampleValue(families, "tributary_metrics_unavailable", { kind: "partitions" })).toBe(1);
    } finally {
      expect((await fault("none")).status).toBe(204);
    }
  });
});
