/**
 * The binary transport (docs/api.md, "Binary record batches"): client-built Kafka record
 * batches produced to one partition, and stored batches fetched as they are.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { batchBytesMax, binaryFetchMaxRecordsMax, fetchMaxRecordsMax } from "../../../src/limits.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch, readBatchHeader, splitBatches, verifyBatchCrc, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { baseUrl, createTopic, expectError, highWatermarks, readAll, concat, readResponse, uniqueTopic } from "../support/http.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();

function records(values: string[], timestamp = Date.now()): RecordInput[] {
  return values.map((value, index) => ({
    key: utf8.encode(`k${index}`),
    value: utf8.encode(value),
    headers: [{ key: "h", value: utf8.encode(`v${index}`) }],
    timestamp: timestamp + index,
  }));
}

async function produceBinary(topic: string, partition: number, body: Uint8Array, query = "", contentType = recordBatchContentType) {
  const response = await exports.default.fetch(
    new Request(`${baseUrl}/v1/topics/${topic}/partitions/${partition}/records${query}`, {
      method: "POST",
      headers: { "content-type": contentType },
      body,
    }),
  );
  return readResponse(response);
}

async function fetchBinary(topic: string, partition: number, query: string) {
  const response = await exports.default.fetch(
    new Request(`${baseUrl}/v1/topics/${topic}/partitions/${partition}/records?${query}`, {
      headers: { accept: recordBatchContentType },
    }),
  );
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

describe("binary produce", () => {
  it("appends client batches with consecutive offsets, readable as JSON", async () => {
    const topic = uniqueTopic("binary-produce");
    await createTopic(topic, { partitions: 2 });
    const body = concat(encodeRecordBatch(records(["a", "b"])), encodeRecordBatch(records(["c"])));
    const answer = await produceBinary(topic, 1, body, "?acks=1");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ partition: 1, baseOffset: 0, lastOffset: 2 });
    const again = await produceBinary(topic, 1, encodeRecordBatch(records(["d"])));
    expect(again.body).toEqual({ partition: 1, baseOffset: 3, lastOffset: 3 });
    const read = await readAll(topic, 1);
    expect(read.map((record) => [record.offset, record.key, record.value, record.headers])).toEqual([
      [0, "k0", "a", { h: "v0" }],
      [1, "k1", "b", { h: "v1" }],
      [2, "k0", "c", { h: "v0" }],
      [3, "k0", "d", { h: "v0" }],
    ]);
  });

  it("answers acks=0 with 202 and writes the batch", async () => {
    const topic = uniqueTopic("binary-acks0");
    await createTopic(topic);
    const answer = await produceBinary(topic, 0, encodeRecordBatch(records(["x"])), "?acks=0");
    expect(answer.status).toBe(202);
    for (let attempt = 0; attempt < 50 && (await highWatermarks(topic))[0] === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await highWatermarks(topic)).toEqual([1]);
  });

  it("stamps the append time on a LogAppendTime topic, keeping the CRC valid", async () => {
    const topic = uniqueTopic("binary-append-time");
    await createTopic(topic, { configs: { "message.timestamp.type": "LogAppendTime" } });
    const before = Date.now();
    const answer = await produceBinary(topic, 0, encodeRecordBatch(records(["a", "b"], 1_000)));
    expect(answer.body.timestamp).toBeGreaterThanOrEqual(before);
    const { bytes } = await fetchBinary(topic, 0, "offset=0");
    expect(verifyBatchCrc(bytes)).toBe(true);
    const decoded = decodeRecordBatch(bytes);
    expect(decoded.records.map((record) => record.timestamp)).toEqual([answer.body.timestamp, answer.body.timestamp]);
  });

  it.each([
    ["a flipped byte after the CRC", (batch: Uint8Array) => (batch[70] = batch[70]! ^ 0xff), 400, "INVALID_RECORD"],
    ["a truncated batch", (batch: Uint8Array) => batch.subarray(0, batch.length - 3), 400, "INVALID_RECORD"],
    ["codec bits under a stale CRC", (batch: Uint8Array) => (batch[22] = batch[22]! | 0x01), 400, "INVALID_RECORD"],
  ])("refuses %s, writing nothing", async (_name, corrupt, status, code) => {
    const topic = uniqueTopic("binary-corrupt");
    await createTopic(topic);
    const batch = encodeRecordBatch(records(["a", "b"]));
    const result = corrupt(batch);
    const body = result instanceof Uint8Array ? result : batch;
    expectError(await produceBinary(topic, 0, body), status, code);
    expect(await highWatermarks(topic)).toEqual([0]);
  });

  it("refuses a producer id without acks=all or without a sequence, an empty body, a JSON content type, a bad acks", async () => {
    const topic = uniqueTopic("binary-refusals");
    await createTopic(topic);
    const idempotent = encodeRecordBatch(records(["a"]), { producerId: 7, producerEpoch: 0, baseSequence: 0 });
    expectError(await produceBinary(topic, 0, idempotent, "?acks=1"), 400, "INVALID_REQUEST");
    const noSequence = encodeRecordBatch(records(["a"]), { producerId: 7, producerEpoch: 0 });
    expectError(await produceBinary(topic, 0, noSequence), 400, "INVALID_REQUEST");
    expectError(await produceBinary(topic, 0, new Uint8Array(0)), 400, "INVALID_REQUEST");
    expectError(await produceBinary(topic, 0, encodeRecordBatch(records(["a"])), "", "application/json"), 400, "INVALID_REQUEST");
    expectError(await produceBinary(topic, 0, encodeRecordBatch(records(["a"])), "?acks=2"), 400, "INVALID_REQUEST");
    expect(await highWatermarks(topic)).toEqual([0]);
  });

  it("applies the topic's record rules: size, keys on compacted topics, timestamps", async () => {
    const topic = uniqueTopic("binary-rules");
    await createTopic(topic, { configs: { "max.message.bytes": "100", "cleanup.policy": "compact", "message.timestamp.before.max.ms": "60000" } });
    const big = encodeRecordBatch([{ key: utf8.encode("k"), value: new Uint8Array(200), headers: [], timestamp: Date.now() }]);
    expectError(await produceBinary(topic, 0, big), 413, "MESSAGE_TOO_LARGE");
    const keyless = encodeRecordBatch([{ key: null, value: utf8.encode("v"), headers: [], timestamp: Date.now() }]);
    expectError(await produceBinary(topic, 0, keyless), 400, "INVALID_RECORD");
    const old = encodeRecordBatch([{ key: utf8.encode("k"), value: utf8.encode("v"), headers: [], timestamp: Date.now() - 120_000 }]);
    expectError(await produceBinary(topic, 0, old), 400, "INVALID_TIMESTAMP");
    expect(await highWatermarks(topic)).toEqual([0]);
  });

  it("refuses a batch over the row bound with 413, and an unknown partition with 404", async () => {
    const topic = uniqueTopic("binary-bounds");
    await createTopic(topic);
    const values = Array.from({ length: 3 }, () => ({ key: null, value: new Uint8Array(batchBytesMax / 2), headers: [], timestamp: Date.now() }));
    expectError(await produceBinary(topic, 0, encodeRecordBatch(values)), 413, "MESSAGE_TOO_LARGE");
    expectError(await produceBinary(topic, 5, encodeRecordBatch(records(["a"]))), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(await highWatermarks(topic)).toEqual([0]);
  });
});

describe("binary fetch", () => {
  it("serves the stored batches as they are, with the offsets in headers", async () => {
    const topic = uniqueTopic("binary-fetch");
    await createTopic(topic);
    await produceBinary(topic, 0, concat(encodeRecordBatch(records(["a", "b", "c"])), encodeRecordBatch(records(["d"]))));
    const { response, bytes } = await fetchBinary(topic, 0, "offset=1");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(recordBatchContentType);
    expect(response.headers.get("tributary-high-watermark")).toBe("4");
    expect(response.headers.get("tributary-log-start-offset")).toBe("0");
    expect(response.headers.get("tributary-next-offset")).toBe("4");
    const batches = [...splitBatches(bytes)];
    expect(batches.map(({ header }) => [header.baseOffset, header.recordCount])).toEqual([[0, 3], [3, 1]]);
    // The first batch starts before the requested offset: the reader skips offset 0, as with Kafka.
    const values = batches.flatMap(({ start }) => decodeRecordBatch(bytes, start).records.map((record) => [record.offset, text.decode(record.value!)]));
    expect(values).toEqual([[0, "a"], [1, "b"], [2, "c"], [3, "d"]]);
  });

  it("answers empty at the high watermark, and JSON errors as the JSON fetch does", async () => {
    const topic = uniqueTopic("binary-fetch-edges");
    await createTopic(topic);
    await produceBinary(topic, 0, encodeRecordBatch(records(["a"])));
    const empty = await fetchBinary(topic, 0, "offset=1");
    expect(empty.bytes.byteLength).toBe(0);
    expect(empty.response.headers.get("tributary-next-offset")).toBe("1");
    const beyond = await exports.default.fetch(
      new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=5`, { headers: { accept: recordBatchContentType } }),
    );
    const error = expectError(await readResponse(beyond), 416, "OFFSET_OUT_OF_RANGE");
    expect(error).toMatchObject({ logStartOffset: 0, highWatermark: 1 });
    expect(readBatchHeader((await fetchBinary(topic, 0, "offset=0")).bytes).baseOffset).toBe(0);
  });

  it("takes maxRecords past the JSON fetch's bound, up to binaryFetchMaxRecordsMax, in whole batches; one more is refused", async () => {
    const topic = uniqueTopic("binary-fetch-records");
    await createTopic(topic);
    const perBatch = fetchMaxRecordsMax / 2;
    for (let batch = 0; batch < 3; batch++) {
      const batchRecords = Array.from({ length: perBatch }, () => ({ key: null, value: utf8.encode("x"), headers: [], timestamp: Date.now() }));
      expect((await produceBinary(topic, 0, encodeRecordBatch(batchRecords))).status).toBe(200);
    }
    const counted = async (query: string) => [...splitBatches((await fetchBinary(topic, 0, `offset=0&maxBytes=8388608&${query}`)).bytes)].map(({ header }) => header.recordCount);
    expect(await counted(`maxRecords=${fetchMaxRecordsMax}`)).toEqual([perBatch, perBatch]);
    expect(await counted(`maxRecords=${fetchMaxRecordsMax + 1}`)).toEqual([perBatch, perBatch, perBatch]);
    expect(await counted(`maxRecords=${binaryFetchMaxRecordsMax}`)).toEqual([perBatch, perBatch, perBatch]);
    const refused = await exports.default.fetch(
      new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=0&maxRecords=${binaryFetchMaxRecordsMax + 1}`, { headers: { accept: recordBatchContentType } }),
    );
    expectError(await readResponse(refused), 400, "INVALID_REQUEST");
  });
});
