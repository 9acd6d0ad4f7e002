/**
 * Compressed batches where they are kept (issue 27): sealed to R2 and read back from there by
 * a catch-up fetch, compacted with their codec kept, copied to followers as they are, and
 * still there after a leader failover.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { batchCodec, compressBatch } from "../../../src/protocol/record-batch-compression.ts";
import { api, createTopic, describeTopic, expectError, readAll, uniqueTopic } from "../support/http.ts";
import { eventually, produceRetrying } from "../storage/support.ts";
import { jsonRecords, produceBinary, storedBatches } from "./support.ts";

const codecOf = (batch: Uint8Array) => batchCodec({ attributes: (batch[21]! << 8) | batch[22]! });

/** A value of random hex: it barely compresses, so the segments fill (compaction needs sealed ones). */
function value(key: number, version: number): string {
  const random = [...crypto.getRandomValues(new Uint8Array(120))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `k${key}v${version}:${random}`;
}

describe("compressed batches in storage", () => {
  it("seal to R2, read back from R2, and compact keeping their codec", async () => {
    const topic = uniqueTopic("compressed-compaction");
    await createTopic(topic, { configs: { "cleanup.policy": "compact", "segment.bytes": "65536", "compression.type": "zstd" } });
    const keys = 12;
    const versions = 60;
    const written: { offset: number; key: string; value: string }[] = [];
    for (let version = 0; version < versions; version++) {
      const records = Array.from({ length: keys }, (_, key) => ({ key: `k${key}`, value: value(key, version) }));
      await produceRetrying(topic, { records, acks: 1 });
      for (const record of records) written.push({ offset: written.length, ...record });
    }
    await eventually(async () => (await describeTopic(topic)).partitions[0]!.storage.r2Segments > 0).catch(async (error) => {
      throw new Error(`never sealed: ${JSON.stringify((await describeTopic(topic)).partitions[0])}`, { cause: error });
    });
    // The first batches now come from R2 (a catch-up read), compressed as stored.
    const fromR2 = await storedBatches(topic, 0);
    expect(fromR2.length).toBeGreaterThan(0);
    expect(new Set(fromR2.map(codecOf))).toEqual(new Set(["zstd"]));

    // A config change runs the cleaner at once (the seal may have run it already).
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "delete.retention.ms": "60000" } })).status).toBe(200);
    await eventually(async () => (await readAll(topic, 0)).length < written.length);
    const read = await readAll(topic, 0);
    for (const record of read) expect({ offset: record.offset, key: record.key, value: record.value }).toEqual(written[record.offset]);
    const lastOffsetOf = new Map(written.map((record) => [record.key, record.offset]));
    for (const offset of lastOffsetOf.values()) expect(read.some((record) => record.offset === offset)).toBe(true);
    const start = (await describeTopic(topic)).partitions[0]!.logStartOffset;
    expect(new Set((await storedBatches(topic, start)).map(codecOf))).toEqual(new Set(["zstd"]));
  });

  it("copies compressed batches to followers as they are, and keeps them through a leader failover", async () => {
    const topic = uniqueTopic("compressed-rf3");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const before = created.partitions[0]!;
    const sent = compressBatch(encodeRecordBatch(jsonRecords(30)), "lz4");
    expect((await produceBinary(topic, sent)).status).toBe(200);
    expect((await produceBinary(topic, compressBatch(encodeRecordBatch(jsonRecords(10, 30)), "snappy"))).status).toBe(200);
    const follower = before.replicas.find((region) => region !== before.leader)!;
    // The follower serves what it knows is committed: the first batch at least.
    const copied = await storedBatches(topic, 0, follower);
    expect(copied.map(codecOf)[0]).toBe("lz4");
    expect([...copied[0]!.subarray(16)]).toEqual([...sent.subarray(16)]);

    const down = await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "down" });
    expect(down.status).toBe(204);
    expectError(await produceBinary(topic, compressBatch(encodeRecordBatch(jsonRecords(1, 99)), "zstd")), 503, "LEADER_NOT_AVAILABLE");
    const elected = (await describeTopic(topic)).partitions[0]!;
    expect(elected.leader).not.toBe(before.leader);
    expect((await produceBinary(topic, compressBatch(encodeRecordBatch(jsonRecords(5, 40)), "gzip"))).body).toMatchObject({ baseOffset: 40, lastOffset: 44 });
    expect((await storedBatches(topic, 0)).map(codecOf)).toEqual(["lz4", "snappy", "gzip"]);
    expect((await readAll(topic, 0)).map((record) => JSON.parse(record.value!).n)).toEqual(Array.from({ length: 45 }, (_, i) => i));
    await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "none" });
    await runDurableObjectAlarm(replicaStub(env, created.topicId, 0, elected.leader));
  });
});
