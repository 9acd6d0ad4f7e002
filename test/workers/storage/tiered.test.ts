/**
 * Tiered storage through the router (issue 5): sealing into R2 keeps SQLite bounded,
 * reads cross the tiers seamlessly, retention by time and size, topic deletion removes the
 * objects, and followers mirror their leader's tier.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unsealedBytesBound } from "../../../src/log/seal-plan.ts";
import { encodeBase64 } from "../../../src/protocol/base64.ts";
import { eventually, produceRetrying } from "./support.ts";
import { api, createTopic, describeTopic, expectError, uniqueTopic } from "../support/http.ts";

const mib = 1024 * 1024;

/** Deterministic bytes for record `index`: every value differs, so a misplaced record shows. */
function valueBytes(index: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = (index + 1) * 2654435761;
  for (let at = 0; at < length; at++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bytes[at] = state >>> 24;
  }
  return bytes;
}

async function readAllBase64(topic: string, from: number): Promise<{ offset: number; value: string }[]> {
  const records: { offset: number; value: string }[] = [];
  let offset = from;
  for (let round = 0; round < 10_000; round++) {
    const response = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxBytes=${8 * mib}&maxRecords=10000&encoding=base64`);
    expect(response.status, response.text).toBe(200);
    for (const record of response.body.records) records.push({ offset: record.offset, value: record.value });
    if (response.body.nextOffset >= response.body.highWatermark) break;
    offset = response.body.nextOffset;
  }
  return records;
}

async function storageOf(topic: string) {
  return (await describeTopic(topic)).partitions[0]!;
}

describe("sealing into R2", () => {
  it("keeps SQLite bounded under 50 MB into one partition, and every record reads back in order, byte for byte", async () => {
    const topic = uniqueTopic("tiered-50mb");
    await createTopic(topic, { configs: { "segment.bytes": String(mib) } });
    const valueLength = 10_000;
    const perRequest = 400; // 4 MB a request
    const total = 5_200; // 52 MB
    let sqliteBytesMax = 0;
    for (let start = 0; start < total; start += perRequest) {
      const records = Array.from({ length: perRequest }, (_, index) => ({ value: encodeBase64(valueBytes(start + index, valueLength)) }));
      await produceRetrying(topic, { records, acks: 1, encoding: "base64" });
      sqliteBytesMax = Math.max(sqliteBytesMax, (await storageOf(topic)).storage.sqliteBytes);
    }
    const bound = unsealedBytesBound(mib) + 5 * mib; // the bound, plus one request's batches accepted just under it
    expect(sqliteBytesMax).toBeLessThanOrEqual(bound);
    await eventually(async () => (await storageOf(topic)).storage.sqliteBytes < 2 * mib);
    const partition = await storageOf(topic);
    expect(partition.storage.r2Segments).toBeGreaterThanOrEqual(40);
    expect(partition.highWatermark).toBe(total);
    const records = await readAllBase64(topic, 0);
    expect(records.map((record) => record.offset)).toEqual([...Array(total).keys()]);
    for (const record of records) expect(record.value).toBe(encodeBase64(valueBytes(record.offset, valueLength)));
  }, 60_000); // 52 MB in and out: about 20 s alone on two cores, more beside other suites
});

describe("offsets by time across tiers", () => {
  it("finds the first record at or after a timestamp in a sealed segment, and in the rows past it", async () => {
    const topic = uniqueTopic("tiered-time");
    await createTopic(topic, { configs: { "segment.bytes": "65536" } });
    const base = Date.now() - 1_000_000;
    for (let request = 0; request < 30; request++) {
      const records = Array.from({ length: 10 }, (_, index) => ({ value: "t".repeat(1_000), timestamp: base + (request * 10 + index) * 1_000 }));
      await produceRetrying(topic, { records, acks: 1 });
    }
    await eventually(async () => (await storageOf(topic)).storage.r2Segments >= 2);
    const sealed = await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=${base + 42_500}`);
    expect(sealed.body).toEqual({ offset: 43, timestamp: base + 43_000 });
    const held = await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=${base + 298_000}`);
    expect(held.body).toEqual({ offset: 298, timestamp: base + 298_000 });
    const none = await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=${base + 10_000_000}`);
    expect(none.body).toEqual({ offset: 300 });
    // Kafka's KIP-734 and KIP-405 specs: the record with the largest timestamp, and the first offset held outside R2.
    // Sealed segments hold the first records: the partition's own rows start past them.
    const local = await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=earliest-local`);
    expect(local.body.offset).toBeGreaterThan(0);
    expect(local.body.offset).toBeLessThan(300);
    expect((await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=earliest`)).body).toEqual({ offset: 0 });
    expect((await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=max-timestamp`)).body).toEqual({ offset: 299, timestamp: base + 299_000 });
    // KIP-1005's and KIP-1023's: the last offset sealed to R2, and the first not sealed yet (where the rows start).
    const tiered = await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=latest-tiered`);
    const pending = await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=earliest-pending-upload`);
    const localNow = (await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=earliest-local`)).body.offset;
    expect(pending.body).toEqual({ offset: tiered.body.offset + 1 });
    expect(pending.body.offset).toBe(localNow);
  });

  it("finds the record with the largest timestamp in a sealed segment when later records are older", async () => {
    const topic = uniqueTopic("tiered-max-time");
    await createTopic(topic, { configs: { "segment.bytes": "65536" } });
    const base = Date.now() - 1_000_000;
    // Record 15's timestamp is the largest; everything after it is older.
    for (let request = 0; request < 30; request++) {
      const records = Array.from({ length: 10 }, (_, index) => {
        const offset = request * 10 + index;
        return { value: "t".repeat(1_000), timestamp: base + (offset === 15 ? 900_000 : offset * 1_000) };
      });
      await produceRetrying(topic, { records, acks: 1 });
    }
    await eventually(async () => (await storageOf(topic)).storage.r2Segments >= 2);
    expect((await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=max-timestamp`)).body).toEqual({ offset: 15, timestamp: base + 900_000 });
    const empty = uniqueTopic("tiered-max-time-empty");
    await createTopic(empty);
    expect((await api("GET", `/v1/topics/${empty}/partitions/0/offsets?at=max-timestamp`)).body).toEqual({ offset: 0 });
    expect((await api("GET", `/v1/topics/${empty}/partitions/0/offsets?at=earliest-local`)).body).toEqual({ offset: 0 });
    // Nothing sealed: no last sealed offset; the first not sealed is the log start.
    expect((await api("GET", `/v1/topics/${empty}/partitions/0/offsets?at=latest-tiered`)).body).toEqual({ offset: -1 });
    expect((await api("GET", `/v1/topics/${empty}/partitions/0/offsets?at=earliest-pending-upload`)).body).toEqual({ offset: 0 });
  });
});

describe("retention", () => {
  async function sealedTopic(prefix: string, configs: Record<string, string>, timestampMs: (index: number) => number) {
    const topic = uniqueTopic(prefix);
    await createTopic(topic, { configs: { "segment.bytes": "65536", ...configs } });
    // 40 requests of 10 × 1,000-byte records: about six 64 KiB segments, and a remainder in SQLite.
    for (let request = 0; request < 40; request++) {
      const records = Array.from({ length: 10 }, (_, index) => ({ key: `k${request * 10 + index}`, value: "x".repeat(1_000), timestamp: timestampMs(request * 10 + index) }));
      await produceRetrying(topic, { records, acks: 1 });
    }
    await eventually(async () => (await storageOf(topic)).storage.r2Segments >= 5);
    return topic;
  }

  it("by time: deletes whole old segments once retention.ms is lowered, and a fetch below the new start is 416", async () => {
    const old = Date.now() - 3_600_000;
    const topic = await sealedTopic("retention-time", {}, (index) => (index < 200 ? old : Date.now()));
    expect((await storageOf(topic)).logStartOffset).toBe(0);
    const altered = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "retention.ms": "600000" } });
    expect(altered.status).toBe(200);
    const after = await storageOf(topic);
    expect(after.logStartOffset).toBeGreaterThan(0);
    expect(after.logStartOffset).toBeLessThanOrEqual(200);
    const error = expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`), 416, "OFFSET_OUT_OF_RANGE");
    expect(error).toMatchObject({ logStartOffset: after.logStartOffset, highWatermark: 400 });
    const earliest = await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=earliest`);
    expect(earliest.body.offset).toBe(after.logStartOffset);
    const first = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=${after.logStartOffset}&maxRecords=1`);
    expect(first.body.records[0].offset).toBe(after.logStartOffset);
  });

  it("by size: keeps the log at or above retention.bytes, deleting the oldest segments", async () => {
    const topic = await sealedTopic("retention-size", {}, () => Date.now());
    const before = await storageOf(topic);
    const altered = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "retention.bytes": "200000" } });
    expect(altered.status).toBe(200);
    const after = await storageOf(topic);
    expect(after.logStartOffset).toBeGreaterThan(0);
    expect(after.storage.r2Segments).toBeLessThan(before.storage.r2Segments);
    expect(after.storage.r2Bytes + after.storage.sqliteBytes).toBeGreaterThanOrEqual(200_000);
  });

  it("leaves a compact-only topic's segments to compaction, not to retention", async () => {
    const topic = await sealedTopic("retention-compact", { "cleanup.policy": "compact" }, () => Date.now() - 3_600_000);
    const altered = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "retention.ms": "60000", "retention.bytes": "1000" } });
    expect(altered.status).toBe(200);
    expect((await storageOf(topic)).logStartOffset).toBe(0);
  });
});

describe("deleting a topic", () => {
  it("deletes its segment objects", async () => {
    const topic = uniqueTopic("tiered-delete");
    const created = await createTopic(topic, { configs: { "segment.bytes": "65536" } });
    for (let request = 0; request < 20; request++) {
      await produceRetrying(topic, { records: Array.from({ length: 10 }, () => ({ value: "y".repeat(1_000) })), acks: 1 });
    }
    await eventually(async () => (await storageOf(topic)).storage.r2Segments >= 2);
    const prefix = `${created.topicId}/0/`;
    expect((await env.SEGMENTS.list({ prefix })).objects.length).toBeGreaterThanOrEqual(2);
    expect((await api("DELETE", `/v1/topics/${topic}`)).status).toBe(204);
    expect((await env.SEGMENTS.list({ prefix })).objects).toEqual([]);
  });
});

describe("followers", () => {
  it("mirror their leader's tier: the same segments, their sealed rows dropped", async () => {
    const topic = uniqueTopic("tiered-followers");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "segment.bytes": "65536" } });
    for (let request = 0; request < 20; request++) {
      await produceRetrying(topic, { records: Array.from({ length: 10 }, () => ({ value: "z".repeat(1_000) })), acks: "all" });
    }
    await eventually(async () => (await storageOf(topic)).storage.r2Segments >= 2);
    const { replicaStub } = await import("../../../src/contracts/stubs.ts");
    const leader = (await storageOf(topic)).storage;
    // One more write pushes the new tier to the followers.
    await produceRetrying(topic, { records: [{ value: "last" }], acks: "all" });
    for (const region of created.partitions[0]!.replicas.slice(1)) {
      const state = await replicaStub(env, created.topicId, 0, region).state({ topicId: created.topicId, partition: 0, region });
      expect(state.ok).toBe(true);
      if (!state.ok) continue;
      expect(state.value.storage.r2Segments, region).toBe(leader.r2Segments);
      expect(state.value.storage.sqliteBytes, region).toBeLessThan(200_000);
      expect(state.value.logEndOffset).toBe(201);
    }
  });
});
