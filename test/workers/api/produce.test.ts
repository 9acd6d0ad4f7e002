/**
 * Produce over HTTP (API.md, Produce): offsets, partition choice (Kafka's murmur2 partitioner,
 * explicit partitions, sticky keyless), encodings, null versus empty, headers, timestamps,
 * acks, concurrency and requests larger than one batch. Refusals are in produce-errors.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { partitionForKey } from "../../../src/protocol/partitioner.ts";
import {
  api,
  createTopic,
  fetchOk,
  highWatermarks,
  produce,
  readAll,
  uniqueTopic,
  type ProducedOffset,
} from "../support/http.ts";

const utf8 = new TextEncoder();

function base64(bytes: Uint8Array | number[]): string {
  return btoa(String.fromCharCode(...bytes));
}

describe("offsets", () => {
  it("answers one offset per record, in request order, consecutive within the partition", async () => {
    const topic = uniqueTopic("order");
    await createTopic(topic);
    const first = await produce(topic, [{ value: "a" }, { value: "b" }, { value: "c" }]);
    expect(first.map(({ partition, offset }) => ({ partition, offset }))).toEqual([
      { partition: 0, offset: 0 },
      { partition: 0, offset: 1 },
      { partition: 0, offset: 2 },
    ]);
    const second = await produce(topic, [{ value: "d" }, { value: "e" }]);
    expect(second.map((entry) => entry.offset)).toEqual([3, 4]);
    expect((await readAll(topic, 0)).map((record) => [record.offset, record.value])).toEqual([
      [0, "a"], [1, "b"], [2, "c"], [3, "d"], [4, "e"],
    ]);
    expect(await highWatermarks(topic)).toEqual([5]);
  });

  it("keeps request order per partition when records of several partitions interleave", async () => {
    const topic = uniqueTopic("interleave");
    await createTopic(topic, { partitions: 3 });
    const offsets = await produce(topic, [
      { value: "p2-a", partition: 2 },
      { value: "p0-a", partition: 0 },
      { value: "p2-b", partition: 2 },
      { value: "p1-a", partition: 1 },
      { value: "p2-c", partition: 2 },
      { value: "p0-b", partition: 0 },
    ]);
    expect(offsets.map(({ partition, offset }) => [partition, offset])).toEqual([
      [2, 0], [0, 0], [2, 1], [1, 0], [2, 2], [0, 1],
    ]);
    expect((await readAll(topic, 2)).map((record) => record.value)).toEqual(["p2-a", "p2-b", "p2-c"]);
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["p0-a", "p0-b"]);
    expect(await highWatermarks(topic)).toEqual([2, 1, 3]);
  });
});

describe("partition choice", () => {
  it("puts a keyed record where Kafka's default partitioner does (known values)", async () => {
    // (murmur2(key) & 0x7fffffff) % 7, from Kafka's UtilsTest hashes (see test/unit/protocol/partitioner.test.ts).
    const topic = uniqueTopic("murmur-known");
    await createTopic(topic, { partitions: 7 });
    const keys = { "21": 3, foobar: 0, "a-little-bit-long-string": 1, "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": 3, abc: 4 };
    const offsets = await produce(topic, Object.keys(keys).map((key) => ({ key, value: key })));
    expect(offsets.map((entry) => entry.partition)).toEqual(Object.values(keys));
    expect((await readAll(topic, 3)).map((record) => record.key)).toEqual(["21", "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"]);
  });

  it("puts every keyed record on partitionForKey(key bytes), stably across requests", async () => {
    const topic = uniqueTopic("murmur");
    await createTopic(topic, { partitions: 6 });
    const keys = Array.from({ length: 40 }, (_, index) => `user-${index}`);
    const expected = keys.map((key) => partitionForKey(utf8.encode(key), 6));
    expect(new Set(expected).size).toBeGreaterThan(3);
    const first = await produce(topic, keys.map((key) => ({ key, value: "1" })));
    const second = await produce(topic, keys.map((key) => ({ key, value: "2" })));
    expect(first.map((entry) => entry.partition)).toEqual(expected);
    expect(second.map((entry) => entry.partition)).toEqual(expected);
  });

  it("hashes the decoded bytes of a base64 key", async () => {
    const topic = uniqueTopic("murmur-bytes");
    await createTopic(topic, { partitions: 13 });
    const keys = [[0x00, 0x20], [0xff, 0xfe, 0xfd, 0xfc, 0xfb], [0x80], []].map((bytes) => new Uint8Array(bytes));
    const offsets = await produce(topic, keys.map((key) => ({ key: base64(key), value: "" })), { encoding: "base64" });
    expect(offsets.map((entry) => entry.partition)).toEqual(keys.map((key) => partitionForKey(key, 13)));
  });

  it("sends a record to its explicit partition, whatever its key", async () => {
    const topic = uniqueTopic("explicit");
    await createTopic(topic, { partitions: 4 });
    const key = "21";
    const hashed = partitionForKey(utf8.encode(key), 4);
    const explicit = (hashed + 1) % 4;
    const offsets = await produce(topic, [{ key, value: "v", partition: explicit }, { value: "w", partition: 0 }]);
    expect(offsets.map((entry) => entry.partition)).toEqual([explicit, 0]);
    expect((await readAll(topic, explicit)).map((record) => record.key)).toEqual([key]);
  });

  it("sends every keyless record of one request to one partition, and spreads requests", async () => {
    const topic = uniqueTopic("sticky");
    await createTopic(topic, { partitions: 8 });
    const offsets = await produce(topic, [
      { value: "0" }, { key: "a", value: "k" }, { value: "1" }, { key: null, value: "2" }, { value: "3" },
    ]);
    const keyless = [0, 2, 3, 4].map((index) => offsets[index]!);
    expect(new Set(keyless.map((entry) => entry.partition)).size).toBe(1);
    const sticky = keyless[0]!.partition;
    const keyedSame = offsets[1]!.partition === sticky ? 1 : 0;
    expect(keyless.map((entry) => entry.offset)).toEqual(
      keyedSame ? [0, 2, 3, 4] : [0, 1, 2, 3],
    );
    const partitions = new Set<number>();
    for (let request = 0; request < 40; request++) {
      const [entry] = await produce(topic, [{ value: `r${request}` }]);
      partitions.add(entry!.partition);
    }
    // 40 uniform draws over 8 partitions all landing on one: probability 8^-39.
    expect(partitions.size).toBeGreaterThan(1);
  });
});

describe("payloads", () => {
  it("round-trips binary keys and values as base64", async () => {
    const topic = uniqueTopic("base64");
    await createTopic(topic);
    const everyByte = Array.from({ length: 256 }, (_, index) => index);
    const records = [
      { key: base64([0xff, 0x00, 0xfe]), value: base64(everyByte), headers: { "content-type": "application/octet-stream" } },
      { key: base64([]), value: base64([0xc3, 0x28]) }, // invalid UTF-8 on purpose
      { key: null, value: null },
    ];
    await produce(topic, records, { encoding: "base64" });
    const fetched = await fetchOk(topic, 0, { offset: 0, encoding: "base64" });
    expect(fetched.records.map(({ key, value, headers }) => ({ key, value, headers }))).toEqual([
      { key: "/wD+", value: base64(everyByte), headers: { "content-type": "application/octet-stream" } },
      { key: "", value: "wyg=", headers: {} },
      { key: null, value: null, headers: {} },
    ]);
    // Bytes that are not UTF-8, fetched as utf8, decode lossily (U+FFFD), never fail.
    const asText = await fetchOk(topic, 0, { offset: 1, maxRecords: 1 });
    expect(asText.records.map(({ key, value }) => ({ key, value }))).toEqual([{ key: "", value: "\uFFFD(" }]);
  });

  it("keeps null keys and values distinct from empty strings", async () => {
    const topic = uniqueTopic("nulls");
    await createTopic(topic);
    await produce(topic, [
      { key: null, value: null },
      { key: "", value: "" },
      { value: "no key" },
      { key: "k", value: null },
      { key: "", value: null },
    ]);
    expect((await readAll(topic, 0)).map(({ key, value }) => ({ key, value }))).toEqual([
      { key: null, value: null },
      { key: "", value: "" },
      { key: null, value: "no key" },
      { key: "k", value: null },
      { key: "", value: null },
    ]);
  });

  it("accepts tombstones and empty keys on a compacted topic", async () => {
    const topic = uniqueTopic("compacted-ok");
    await createTopic(topic, { configs: { "cleanup.policy": "compact" } });
    await produce(topic, [{ key: "k", value: "v" }, { key: "k", value: null }, { key: "", value: "empty key" }]);
    expect((await readAll(topic, 0)).map(({ key, value }) => [key, value])).toEqual([["k", "v"], ["k", null], ["", "empty key"]]);
  });

  it("stores headers as UTF-8 strings, also under base64 encoding", async () => {
    const topic = uniqueTopic("headers");
    await createTopic(topic);
    const headers = { trace: "abc", empty: "", unicode: "naïve ☃ 𝄞", "with space": "x y" };
    await produce(topic, [{ value: "h", headers }, { value: "none" }, { value: "empty-map", headers: {} }]);
    const records = await readAll(topic, 0);
    expect(records.map((record) => record.headers)).toEqual([headers, {}, {}]);
    expect(records[2]!.value).toBe("empty-map");
    await produce(topic, [{ value: base64([1, 2, 3]), headers: { h: "ü" } }], { encoding: "base64" });
    const binary = await fetchOk(topic, 0, { offset: 3, encoding: "base64" });
    expect(binary.records[0]).toMatchObject({ value: "AQID", headers: { h: "ü" } });
  });

  it("keeps a header named __proto__ as a header", async () => {
    const topic = uniqueTopic("proto-header");
    await createTopic(topic);
    // Raw JSON: an object literal would set the prototype instead of a property.
    const response = await api("POST", `/v1/topics/${topic}/records`, '{"records": [{"value": "v", "headers": {"__proto__": "x", "a": "b"}}]}');
    expect(response.status).toBe(200);
    const [record] = await readAll(topic, 0);
    expect(Object.entries(record!.headers)).toEqual([["__proto__", "x"], ["a", "b"]]);
  });

  it("keeps unicode values intact", async () => {
    const topic = uniqueTopic("unicode");
    await createTopic(topic);
    const value = "héllo wörld — 日本語 🚀";
    await produce(topic, [{ key: "ключ", value }]);
    expect((await readAll(topic, 0)).map(({ key, value }) => [key, value])).toEqual([["ключ", value]]);
  });
});

describe("timestamps", () => {
  it("keeps a given timestamp and defaults to now", async () => {
    const topic = uniqueTopic("timestamps");
    await createTopic(topic);
    const before = Date.now();
    const offsets = await produce(topic, [{ value: "given", timestamp: 1764673200000 }, { value: "now" }, { value: "zero", timestamp: 0 }]);
    const after = Date.now();
    expect(offsets[0]!.timestamp).toBe(1764673200000);
    expect(offsets[1]!.timestamp).toBeGreaterThanOrEqual(before);
    expect(offsets[1]!.timestamp).toBeLessThanOrEqual(after);
    expect(offsets[2]!.timestamp).toBe(0);
    expect((await readAll(topic, 0)).map((record) => record.timestamp)).toEqual(offsets.map((entry) => entry.timestamp));
  });

  it("stamps the append time on a LogAppendTime topic, ignoring the given timestamps", async () => {
    const topic = uniqueTopic("log-append-time");
    await createTopic(topic, {
      configs: { "message.timestamp.type": "LogAppendTime", "message.timestamp.before.max.ms": "1000" },
    });
    const before = Date.now();
    const offsets = await produce(topic, [{ value: "old", timestamp: 1000 }, { value: "none" }]);
    const after = Date.now();
    for (const entry of offsets) {
      expect(entry.timestamp).toBeGreaterThanOrEqual(before);
      expect(entry.timestamp).toBeLessThanOrEqual(after);
    }
    expect((await readAll(topic, 0)).map((record) => record.timestamp)).toEqual(offsets.map((entry) => entry.timestamp));
  });

  it("accepts timestamps inside message.timestamp.before/after.max.ms", async () => {
    const topic = uniqueTopic("window-ok");
    await createTopic(topic, {
      configs: { "message.timestamp.before.max.ms": "3600000", "message.timestamp.after.max.ms": "3600000" },
    });
    const now = Date.now();
    const offsets = await produce(topic, [{ value: "past", timestamp: now - 60_000 }, { value: "future", timestamp: now + 60_000 }]);
    expect(offsets.map((entry) => entry.timestamp)).toEqual([now - 60_000, now + 60_000]);
  });
});

describe("acks", () => {
  it("answers acks 0 with 202 {} and the records become readable", async () => {
    const topic = uniqueTopic("acks0");
    await createTopic(topic);
    const response = await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "a" }, { value: "b" }], acks: 0 });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({});
    const fetched = await fetchOk(topic, 0, { offset: 0, waitMs: 5000 });
    // Both records are one batch, appended atomically: the long-poll sees both at once.
    expect(fetched.records.map((record) => [record.offset, record.value])).toEqual([[0, "a"], [1, "b"]]);
  });

  it.each([1, "all"])("answers acks %s with 200 and the offsets", async (acks) => {
    const topic = uniqueTopic("acks");
    await createTopic(topic);
    const offsets = await produce(topic, [{ value: "a" }], { acks });
    expect(offsets.map(({ partition, offset }) => [partition, offset])).toEqual([[0, 0]]);
    expect(await highWatermarks(topic)).toEqual([1]);
  });
});

describe("concurrency and size", () => {
  it("gives 20 concurrent requests to one partition offsets 0..n-1, each request's records contiguous", async () => {
    const topic = uniqueTopic("concurrent");
    await createTopic(topic, { partitions: 2 });
    const requests = Array.from({ length: 20 }, (_, request) =>
      Array.from({ length: 5 }, (_, index) => ({ value: `r${request}-${index}`, partition: 1 })),
    );
    const answers: ProducedOffset[][] = await Promise.all(requests.map((records, index) => produce(topic, records, { acks: index % 2 ? 1 : "all" })));
    const all = answers.flat().map((entry) => entry.offset).sort((a, b) => a - b);
    expect(all).toEqual([...Array(100).keys()]);
    for (const offsets of answers) {
      expect(offsets.every((entry) => entry.partition === 1)).toBe(true);
      expect(offsets.map((entry) => entry.offset - offsets[0]!.offset)).toEqual([0, 1, 2, 3, 4]);
    }
    const byOffset = new Map(answers.flatMap((offsets, request) => offsets.map((entry, index) => [entry.offset, `r${request}-${index}`])));
    expect((await readAll(topic, 1)).map((record) => record.value)).toEqual([...Array(100).keys()].map((offset) => byOffset.get(offset)));
    expect(await highWatermarks(topic)).toEqual([0, 100]);
  });

  it("splits a request of several MiB into batches, written together and read back in order", async () => {
    const topic = uniqueTopic("split");
    const created = await createTopic(topic);
    const recordCount = 24;
    const valueBytes = 256 * 1024;
    const records = Array.from({ length: recordCount }, (_, index) => ({
      key: `k${index}`,
      value: `${index}:`.padEnd(valueBytes, String.fromCharCode(97 + (index % 26))),
    }));
    const offsets = await produce(topic, records);
    expect(offsets.map((entry) => entry.offset)).toEqual([...Array(recordCount).keys()]);
    const stored = await replicaStub(env, created.topicId, 0, created.partitions[0]!.leader).state({ topicId: created.topicId, partition: 0, region: created.partitions[0]!.leader });
    expect(stored.ok).toBe(true);
    if (!stored.ok) return;
    expect(stored.value.storage.sqliteBatches).toBeGreaterThanOrEqual(6); // 6 MiB in batches of at most ~1 MiB
    const read = await readAll(topic, 0);
    expect(read.map((record) => record.offset)).toEqual([...Array(recordCount).keys()]);
    expect(read.map((record) => record.key)).toEqual(records.map((record) => record.key));
    expect(read.every((record, index) => record.value === records[index]!.value)).toBe(true);
  });

  it("accepts one record of exactly max.message.bytes (1 MiB)", async () => {
    const topic = uniqueTopic("one-mib");
    await createTopic(topic);
    const value = "v".repeat(1024 * 1024);
    await produce(topic, [{ value }]);
    const fetched = await fetchOk(topic, 0, { offset: 0, maxBytes: 1 });
    expect(fetched.records).toHaveLength(1);
    expect(fetched.records[0]!.value).toBe(value);
  });
});
