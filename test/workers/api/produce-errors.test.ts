/**
 * Produce requests that are refused (API.md, Produce and Errors): validation covers the
 * whole request before anything is written, so after each refusal the high watermarks are
 * exactly what they were.
 */
import { describe, expect, it } from "vitest";
import { produceRecordsMax, produceRequestBytesMax } from "../../../src/limits.ts";
import { api, createTopic, expectError, highWatermarks, produce, uniqueTopic } from "../support/http.ts";

/** A topic with one record already in each of its partitions, so "nothing written" is visible. */
async function seededTopic(prefix: string, options: { partitions?: number; configs?: Record<string, string> } = {}) {
  const topic = uniqueTopic(prefix);
  const partitions = options.partitions ?? 2;
  await createTopic(topic, { partitions, configs: options.configs });
  await produce(topic, Array.from({ length: partitions }, (_, partition) => ({ key: "seed", value: "seed", partition })), { acks: 1 });
  expect(await highWatermarks(topic)).toEqual(Array(partitions).fill(1));
  return topic;
}

async function expectRefused(topic: string, body: unknown, status: number, code: string) {
  const before = await highWatermarks(topic);
  const error = expectError(await api("POST", `/v1/topics/${topic}/records`, body), status, code);
  expect(await highWatermarks(topic)).toEqual(before);
  return error;
}

const ok = { value: "fine", partition: 0 };

describe("400 INVALID_REQUEST: the request's shape", () => {
  it.each([
    ["malformed JSON", '{"records": [{"value": "a"}'],
    ["a JSON array", '[{"value": "a"}]'],
    ["no records field", { acks: 1 }],
    ["an empty records list", { records: [] }],
    ["records not a list", { records: { value: "a" } }],
    ["a record without value", { records: [ok, { key: "k" }] }],
    ["a numeric value", { records: [ok, { value: 42 }] }],
    ["a numeric key", { records: [ok, { key: 7, value: "v" }] }],
    ["a non-string header value", { records: [ok, { value: "v", headers: { h: 1 } }] }],
    ["a null header value", { records: [ok, { value: "v", headers: { h: null } }] }],
    ["a negative partition", { records: [ok, { value: "v", partition: -1 }] }],
    ["a fractional partition", { records: [ok, { value: "v", partition: 0.5 }] }],
    ["a string partition", { records: [ok, { value: "v", partition: "0" }] }],
    ["a fractional timestamp", { records: [ok, { value: "v", timestamp: 1.5 }] }],
    ["a string timestamp", { records: [ok, { value: "v", timestamp: "1764673200000" }] }],
    ["acks 2", { records: [ok], acks: 2 }],
    ["acks -1", { records: [ok], acks: -1 }],
    ["acks \"none\"", { records: [ok], acks: "none" }],
    ["acks \"1\"", { records: [ok], acks: "1" }],
    ["acks null", { records: [ok], acks: null }],
    ["encoding hex", { records: [ok], encoding: "hex" }],
    ["encoding UTF8", { records: [ok], encoding: "UTF8" }],
  ])("refuses %s and writes nothing", async (_what, body) => {
    const topic = await seededTopic("shape");
    await expectRefused(topic, body, 400, "INVALID_REQUEST");
  });

  it("refuses a bad request with acks 0 too (validated before the 202)", async () => {
    const topic = await seededTopic("acks0-bad");
    await expectRefused(topic, { records: [ok, { value: "%%%" }], acks: 0, encoding: "base64" }, 400, "INVALID_RECORD");
    await expectRefused(topic, { records: [{ value: "v", partition: 9 }], acks: 0 }, 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });
});

describe("400 INVALID_RECORD", () => {
  it.each([
    ["a value that is not base64", { value: "not base64!" }],
    ["a key that is not base64", { key: "a b", value: "AAAA" }],
    ["unpadded base64", { value: "YQ" }],
    ["base64url", { value: "-_-_" }],
  ])("refuses %s under encoding base64", async (_what, record) => {
    const topic = await seededTopic("bad-base64");
    const error = await expectRefused(topic, { records: [{ value: "AAAA", partition: 1 }, record], encoding: "base64" }, 400, "INVALID_RECORD");
    expect(error.message).toContain("base64");
  });

  it("refuses a null or missing key on a compacted topic", async () => {
    const topic = await seededTopic("compacted", { configs: { "cleanup.policy": "compact" } });
    await expectRefused(topic, { records: [{ key: "k", value: "v" }, { key: null, value: "v" }] }, 400, "INVALID_RECORD");
    await expectRefused(topic, { records: [{ key: "k", value: "v" }, { value: "v" }] }, 400, "INVALID_RECORD");
    const mixed = await seededTopic("compacted-delete", { configs: { "cleanup.policy": "compact,delete" } });
    await expectRefused(mixed, { records: [{ value: "v" }] }, 400, "INVALID_RECORD");
  });

  it("takes a record with any number of headers, as Kafka does (its size bounds them)", async () => {
    const topic = await seededTopic("many-headers");
    const headers = Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`h${index}`, "v"]));
    expect(await produce(topic, [{ value: "v", headers, partition: 0 }])).toHaveLength(1);
  });
});

describe("400 INVALID_TIMESTAMP", () => {
  it("refuses timestamps outside message.timestamp.before.max.ms and after.max.ms", async () => {
    const topic = await seededTopic("window", {
      configs: { "message.timestamp.before.max.ms": "60000", "message.timestamp.after.max.ms": "60000" },
    });
    const now = Date.now();
    await expectRefused(topic, { records: [ok, { value: "old", timestamp: now - 3_600_000 }] }, 400, "INVALID_TIMESTAMP");
    await expectRefused(topic, { records: [ok, { value: "new", timestamp: now + 3_600_000 }] }, 400, "INVALID_TIMESTAMP");
    await expectRefused(topic, { records: [{ value: "epoch", timestamp: 0 }] }, 400, "INVALID_TIMESTAMP");
  });

  it("refuses a negative timestamp", async () => {
    const topic = await seededTopic("negative-time");
    await expectRefused(topic, { records: [ok, { value: "v", timestamp: -5 }] }, 400, "INVALID_TIMESTAMP");
  });

  it("applies a lowered window at once after PATCH", async () => {
    const topic = await seededTopic("window-patch");
    const old = Date.now() - 3_600_000;
    expect(await produce(topic, [{ value: "old", timestamp: old, partition: 0 }])).toHaveLength(1);
    const patched = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "message.timestamp.before.max.ms": "60000" } });
    expect(patched.status).toBe(200);
    await expectRefused(topic, { records: [{ value: "old", timestamp: old, partition: 0 }] }, 400, "INVALID_TIMESTAMP");
  });
});

describe("413 MESSAGE_TOO_LARGE and RECORD_LIST_TOO_LARGE", () => {
  it("refuses a record over the default max.message.bytes (1 MiB)", async () => {
    const topic = await seededTopic("too-large");
    const error = await expectRefused(topic, { records: [ok, { value: "x".repeat(1024 * 1024 + 1) }] }, 413, "MESSAGE_TOO_LARGE");
    expect(error.message).toContain("max.message.bytes");
  });

  it("counts key, value and headers against a lowered max.message.bytes", async () => {
    const topic = await seededTopic("lowered", { configs: { "max.message.bytes": "100" } });
    expect(await produce(topic, [{ key: "k", value: "v".repeat(99), partition: 0 }])).toHaveLength(1);
    expect(await highWatermarks(topic)).toEqual([2, 1]);
    await expectRefused(topic, { records: [{ key: "k", value: "v".repeat(100), partition: 0 }] }, 413, "MESSAGE_TOO_LARGE");
    await expectRefused(topic, { records: [{ value: "v".repeat(98), headers: { h: "ab" } }] }, 413, "MESSAGE_TOO_LARGE");
    // Bytes, not characters: 34 × "€" (3 bytes each) is 102 bytes.
    await expectRefused(topic, { records: [{ value: "€".repeat(34) }] }, 413, "MESSAGE_TOO_LARGE");
    await expectRefused(topic, { records: [{ value: btoa("v".repeat(101)) }], encoding: "base64" }, 413, "MESSAGE_TOO_LARGE");
  });

  it("applies a lowered max.message.bytes at once after PATCH", async () => {
    const topic = await seededTopic("lowered-patch");
    const patched = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "max.message.bytes": "10" } });
    expect(patched.status).toBe(200);
    await expectRefused(topic, { records: [{ value: "12345678901" }] }, 413, "MESSAGE_TOO_LARGE");
  });

  it(`refuses more than ${produceRecordsMax} records`, async () => {
    const topic = await seededTopic("too-many");
    const records = Array.from({ length: produceRecordsMax + 1 }, () => ({ value: "" }));
    await expectRefused(topic, { records }, 413, "RECORD_LIST_TOO_LARGE");
  });

  it(`refuses a body over ${produceRequestBytesMax} bytes`, async () => {
    const topic = await seededTopic("too-big");
    const value = "x".repeat(1000 * 1000);
    const records = Array.from({ length: Math.ceil(produceRequestBytesMax / 1e6) + 1 }, () => ({ value }));
    await expectRefused(topic, { records }, 413, "RECORD_LIST_TOO_LARGE");
  });
});

describe("503 NOT_ENOUGH_REPLICAS", () => {
  it("refuses acks all when min.insync.replicas exceeds the in-sync replicas, writing nothing; acks 1 still writes", async () => {
    const topic = await seededTopic("min-isr", { configs: { "min.insync.replicas": "2" } });
    const response = await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "v", partition: 0 }], acks: "all" });
    expectError(response, 503, "NOT_ENOUGH_REPLICAS");
    expect(response.headers.get("retry-after")).toBe("1");
    await expectRefused(topic, { records: [{ value: "default acks", partition: 1 }] }, 503, "NOT_ENOUGH_REPLICAS");
    expect(await produce(topic, [{ value: "v", partition: 0 }], { acks: 1 })).toHaveLength(1);
    expect(await highWatermarks(topic)).toEqual([2, 1]);
  });
});

describe("404 UNKNOWN_TOPIC_OR_PARTITION", () => {
  it("refuses an unknown topic", async () => {
    const error = expectError(await api("POST", "/v1/topics/no-such-topic/records", { records: [{ value: "v" }] }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(error.message).toContain("no-such-topic");
  });

  it("refuses a partition the topic does not have, writing nothing to the others", async () => {
    const topic = await seededTopic("no-partition");
    await expectRefused(topic, { records: [ok, { value: "v", partition: 1 }, { value: "v", partition: 2 }] }, 404, "UNKNOWN_TOPIC_OR_PARTITION");
    await expectRefused(topic, { records: [{ value: "v", partition: 1000 }] }, 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });
});

describe("idempotent produce fields (test/workers/api/idempotent.test.ts has the rest)", () => {
  it.each([["producerId", 1], ["producerEpoch", 0], ["sequences", { "0": 0 }]])(
    "refuses %s alone with 400 INVALID_REQUEST rather than ignoring it",
    async (field, value) => {
      const topic = await seededTopic("idempotent-alone");
      const error = await expectRefused(topic, { records: [ok], [field]: value }, 400, "INVALID_REQUEST");
      expect(error.message).toContain("together");
    },
  );
});
