/**
 * Fetch from one partition and list offsets over HTTP (API.md, Fetch from one partition):
 * the answer's shape, limits, offsets out of range, long-polling, and offsets by time.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, fetchOk, fetchRecords, produce, uniqueTopic } from "../support/http.ts";

async function topicWith(prefix: string, values: string[], options: { partitions?: number } = {}): Promise<string> {
  const topic = uniqueTopic(prefix);
  await createTopic(topic, { partitions: options.partitions ?? 1 });
  if (values.length > 0) await produce(topic, values.map((value) => ({ value, partition: 0 })));
  return topic;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("GET .../records", () => {
  it("answers {records: [{offset, timestamp, key, value, headers}], nextOffset, highWatermark, logStartOffset}", async () => {
    const topic = uniqueTopic("shape");
    await createTopic(topic);
    await produce(topic, [
      { key: "k1", value: "v1", headers: { trace: "t1" }, timestamp: 1764673200000 },
      { value: null, timestamp: 1764673200001 },
    ]);
    const response = await fetchRecords(topic, 0, { offset: 0 });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      records: [
        { offset: 0, timestamp: 1764673200000, key: "k1", value: "v1", headers: { trace: "t1" } },
        { offset: 1, timestamp: 1764673200001, key: null, value: null, headers: {} },
      ],
      nextOffset: 2,
      highWatermark: 2,
      lastStableOffset: 2,
      logStartOffset: 0,
    });
  });

  it("reads from the middle of a batch", async () => {
    const values = Array.from({ length: 10 }, (_, index) => `v${index}`);
    const topic = await topicWith("middle", values);
    const answer = await fetchOk(topic, 0, { offset: 4 });
    expect(answer.records.map((record) => [record.offset, record.value])).toEqual(
      values.slice(4).map((value, index) => [index + 4, value]),
    );
    expect(answer.nextOffset).toBe(10);
    const last = await fetchOk(topic, 0, { offset: 9 });
    expect(last.records.map((record) => record.value)).toEqual(["v9"]);
  });

  it("reads across batches of several requests", async () => {
    const topic = await topicWith("across", ["a", "b"]);
    await produce(topic, [{ value: "c" }]);
    await produce(topic, [{ value: "d" }, { value: "e" }]);
    const answer = await fetchOk(topic, 0, { offset: 1 });
    expect(answer.records.map((record) => record.value)).toEqual(["b", "c", "d", "e"]);
    expect(answer.nextOffset).toBe(5);
  });

  it("returns at most maxRecords records and continues from nextOffset", async () => {
    const values = Array.from({ length: 10 }, (_, index) => `v${index}`);
    const topic = await topicWith("max-records", values);
    const first = await fetchOk(topic, 0, { offset: 2, maxRecords: 3 });
    expect(first.records.map((record) => record.offset)).toEqual([2, 3, 4]);
    expect(first.nextOffset).toBe(5);
    const second = await fetchOk(topic, 0, { offset: first.nextOffset, maxRecords: 1 });
    expect(second.records.map((record) => record.offset)).toEqual([5]);
    expect(second.nextOffset).toBe(6);
    const rest = await fetchOk(topic, 0, { offset: 6, maxRecords: 10_000 });
    expect(rest.records.map((record) => record.offset)).toEqual([6, 7, 8, 9]);
  });

  it("bounds the answer by maxBytes, but returns one record even when it is larger", async () => {
    const values = Array.from({ length: 5 }, (_, index) => `${index}`.repeat(100));
    const topic = await topicWith("max-bytes", values);
    const bounded = await fetchOk(topic, 0, { offset: 0, maxBytes: 250 });
    expect(bounded.records.map((record) => record.value)).toEqual(values.slice(0, 2));
    expect(bounded.nextOffset).toBe(2);
    const one = await fetchOk(topic, 0, { offset: 1, maxBytes: 1 });
    expect(one.records.map((record) => record.value)).toEqual([values[1]]);
    expect(one.nextOffset).toBe(2);
    const big = "b".repeat(5000);
    await produce(topic, [{ value: big }]);
    const large = await fetchOk(topic, 0, { offset: 5, maxBytes: 100 });
    expect(large.records.map((record) => record.value)).toEqual([big]);
    expect(large.nextOffset).toBe(6);
  });

  it("answers an offset at the high watermark with no records at once", async () => {
    const topic = await topicWith("at-end", ["a", "b", "c"]);
    const started = Date.now();
    const answer = await fetchOk(topic, 0, { offset: 3 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(answer).toEqual({ records: [], nextOffset: 3, highWatermark: 3, lastStableOffset: 3, logStartOffset: 0 });
    const empty = await topicWith("empty", []);
    expect(await fetchOk(empty, 0, { offset: 0 })).toEqual({ records: [], nextOffset: 0, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0 });
  });

  it.each([
    ["past the log end", 4],
    ["far past the log end", 1_000_000],
    ["negative", -1],
  ])("answers an offset %s with 416 OFFSET_OUT_OF_RANGE and the log's bounds", async (_what, offset) => {
    const topic = await topicWith("out-of-range", ["a", "b", "c"]);
    const error = expectError(await fetchRecords(topic, 0, { offset }), 416, "OFFSET_OUT_OF_RANGE");
    expect(error).toMatchObject({ logStartOffset: 0, highWatermark: 3 });
  });

  it("answers offset 1 of an empty partition with 416", async () => {
    const topic = await topicWith("empty-416", []);
    const error = expectError(await fetchRecords(topic, 0, { offset: 1 }), 416, "OFFSET_OUT_OF_RANGE");
    expect(error).toMatchObject({ logStartOffset: 0, highWatermark: 0 });
  });

  it.each([
    ["maxRecords 0", { maxRecords: 0 }],
    ["maxRecords 10001", { maxRecords: 10_001 }],
    ["maxRecords 1.5", { maxRecords: "1.5" }],
    ["maxBytes 0", { maxBytes: 0 }],
    ["maxBytes over 8 MiB", { maxBytes: 8 * 1024 * 1024 + 1 }],
    ["waitMs -1", { waitMs: -1 }],
    ["waitMs 30001", { waitMs: 30_001 }],
    ["waitMs abc", { waitMs: "abc" }],
    ["a non-numeric offset", { offset: "abc" }],
    ["a fractional offset", { offset: "1.5" }],
    ["an offset in hex", { offset: "0x1" }],
    ["an offset beyond 2^53", { offset: "9007199254740993" }],
    ["encoding hex", { encoding: "hex" }],
    ["encoding BASE64", { encoding: "BASE64" }],
  ])("answers %s with 400 INVALID_REQUEST", async (_what, query) => {
    const topic = await topicWith("bad-params", ["a"]);
    expectError(await fetchRecords(topic, 0, { offset: 0, ...query }), 400, "INVALID_REQUEST");
  });

  it("accepts the edges of every parameter range", async () => {
    const topic = await topicWith("edges", ["a", "b"]);
    const low = await fetchOk(topic, 0, { offset: 0, maxRecords: 1, maxBytes: 1, waitMs: 0 });
    expect(low.records.map((record) => record.value)).toEqual(["a"]);
    const high = await fetchOk(topic, 0, { offset: 0, maxRecords: 10_000, maxBytes: 8 * 1024 * 1024, waitMs: 30_000 });
    expect(high.records.map((record) => record.value)).toEqual(["a", "b"]);
  });

  it("answers a missing offset with 400 and a non-numeric partition with 400", async () => {
    const topic = await topicWith("missing", ["a"]);
    expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records`), 400, "INVALID_REQUEST");
    expectError(await fetchRecords(topic, "x", { offset: 0 }), 400, "INVALID_REQUEST");
    expectError(await fetchRecords(topic, "-1", { offset: 0 }), 400, "INVALID_REQUEST");
  });

  it("answers an unknown partition or topic with 404 UNKNOWN_TOPIC_OR_PARTITION", async () => {
    const topic = await topicWith("unknown-partition", ["a"], { partitions: 2 });
    expectError(await fetchRecords(topic, 2, { offset: 0 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await fetchRecords(topic, 99, { offset: 0, waitMs: 1000 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await fetchRecords("no-such-topic", 0, { offset: 0 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });
});

describe("long-poll", () => {
  it("wakes a waiting fetch when a record is produced, well before waitMs", async () => {
    const topic = await topicWith("wake", ["a"]);
    const started = Date.now();
    const waiting = fetchOk(topic, 0, { offset: 1, waitMs: 5000 });
    await sleep(200);
    const [produced] = await produce(topic, [{ value: "b" }]);
    const answer = await waiting;
    const elapsed = Date.now() - started;
    expect(answer.records.map((record) => [record.offset, record.value])).toEqual([[1, "b"]]);
    expect(answer.records[0]!.timestamp).toBe(produced!.timestamp);
    expect(answer.nextOffset).toBe(2);
    expect(answer.highWatermark).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3000);
  });

  it("wakes several waiters of one partition with the same record", async () => {
    const topic = await topicWith("wake-many", []);
    const waiting = [0, 1, 2].map(() => fetchOk(topic, 0, { offset: 0, waitMs: 5000 }));
    await sleep(200);
    await produce(topic, [{ value: "x" }]);
    for (const answer of await Promise.all(waiting)) expect(answer.records.map((record) => record.value)).toEqual(["x"]);
  });

  it("answers records: [] after waitMs when nothing is produced", async () => {
    const topic = await topicWith("timeout", ["a", "b"]);
    const started = Date.now();
    const answer = await fetchOk(topic, 0, { offset: 2, waitMs: 300 });
    const elapsed = Date.now() - started;
    expect(answer).toEqual({ records: [], nextOffset: 2, highWatermark: 2, lastStableOffset: 2, logStartOffset: 0 });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
  });

  it("does not wait when records are already available", async () => {
    const topic = await topicWith("no-wait", ["a"]);
    const started = Date.now();
    const answer = await fetchOk(topic, 0, { offset: 0, waitMs: 5000 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(answer.records.map((record) => record.value)).toEqual(["a"]);
  });
});

describe("GET .../offsets", () => {
  async function offsets(topic: string, at: string, partition = 0) {
    return api("GET", `/v1/topics/${topic}/partitions/${partition}/offsets?at=${encodeURIComponent(at)}`);
  }

  it("answers earliest with the log start and latest with the high watermark", async () => {
    const topic = await topicWith("earliest-latest", ["a", "b", "c"]);
    expect((await offsets(topic, "earliest")).body).toEqual({ offset: 0 });
    expect((await offsets(topic, "latest")).body).toEqual({ offset: 3 });
    const empty = await topicWith("offsets-empty", []);
    expect((await offsets(empty, "earliest")).body).toEqual({ offset: 0 });
    expect((await offsets(empty, "latest")).body).toEqual({ offset: 0 });
    expect((await offsets(empty, "1000")).body).toEqual({ offset: 0 });
  });

  it("answers a timestamp with the first offset at or after it, and the high watermark when none", async () => {
    const topic = uniqueTopic("by-time");
    await createTopic(topic);
    await produce(topic, [{ value: "a", timestamp: 1000 }, { value: "b", timestamp: 2000 }]);
    await produce(topic, [{ value: "c", timestamp: 3000 }]);
    await produce(topic, [{ value: "d", timestamp: 2500 }, { value: "e", timestamp: 5000 }]);
    const expected: [string, unknown][] = [
      ["0", { offset: 0, timestamp: 1000 }],
      ["1000", { offset: 0, timestamp: 1000 }],
      ["1001", { offset: 1, timestamp: 2000 }],
      ["2000", { offset: 1, timestamp: 2000 }],
      ["2001", { offset: 2, timestamp: 3000 }],
      ["3001", { offset: 4, timestamp: 5000 }],
      ["5000", { offset: 4, timestamp: 5000 }],
      ["5001", { offset: 5 }],
    ];
    for (const [at, answer] of expected) {
      const response = await offsets(topic, at);
      expect({ at, status: response.status, body: response.body }).toEqual({ at, status: 200, body: answer });
    }
  });

  it.each(["", "now", "-1", "1.5", "EARLIEST", "1e3"])("answers at=%j with 400 INVALID_REQUEST", async (at) => {
    const topic = await topicWith("bad-at", ["a"]);
    expectError(await offsets(topic, at), 400, "INVALID_REQUEST");
  });

  it("answers a missing at with 400 and an unknown partition or topic with 404", async () => {
    const topic = await topicWith("offsets-404", ["a"]);
    expectError(await api("GET", `/v1/topics/${topic}/partitions/0/offsets`), 400, "INVALID_REQUEST");
    expectError(await offsets(topic, "latest", 1), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await offsets("no-such-topic", "earliest"), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });
});
