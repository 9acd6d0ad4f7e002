/**
 * Compressed record batches through the Worker (issue 27): taken by the binary route in every
 * codec and stored byte for byte, shown decoded by JSON reads; refused with CORRUPT_MESSAGE or
 * MESSAGE_TOO_LARGE when their compressed bytes cannot be read, writing nothing; a topic's
 * `compression.type` re-encoding what arrives (and JSON produce), alterable on a live topic.
 */
import { describe, expect, it } from "vitest";
import type { CompressionCodec } from "../../../src/protocol/compression/codecs.ts";
import { batchHeaderBytes, encodeRecordBatch, writeBatchCrc, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { batchCodec, compressBatch } from "../../../src/protocol/record-batch-compression.ts";
import { api, createTopic, expectError, highWatermarks, readAll, uniqueTopic } from "../support/http.ts";
import { jsonRecords, produceBinary, storedBatches } from "./support.ts";

const utf8 = new TextEncoder();

const codecOf = (batch: Uint8Array) => batchCodec({ attributes: (batch[21]! << 8) | batch[22]! });
const values = (records: { value: string | null }[]) => records.map((record) => record.value);
const expected = (records: RecordInput[]) => records.map((record) => new TextDecoder().decode(record.value!));

describe("compressed batches through the binary route", () => {
  it.each(["gzip", "snappy", "lz4", "zstd"] as CompressionCodec[])("%s: stored byte for byte as sent, read back as JSON", async (codec) => {
    const topic = uniqueTopic(`compressed-${codec}`);
    await createTopic(topic);
    const first = jsonRecords(50);
    const second = jsonRecords(20, 50);
    const sent = [compressBatch(encodeRecordBatch(first), codec), compressBatch(encodeRecordBatch(second), codec)];
    const answer = await produceBinary(topic, sent[0]!);
    expect(answer.body, answer.text).toEqual({ partition: 0, baseOffset: 0, lastOffset: 49 });
    expect((await produceBinary(topic, sent[1]!)).body).toMatchObject({ baseOffset: 50, lastOffset: 69 });
    const stored = await storedBatches(topic);
    expect(stored).toHaveLength(2);
    // Only the base offset and the leader epoch (bytes 0-7 and 12-15, outside the CRC) are the leader's.
    stored.forEach((batch, i) => expect([...batch.subarray(16)]).toEqual([...sent[i]!.subarray(16)]));
    expect(values(await readAll(topic, 0))).toEqual(expected([...first, ...second]));
  });

  function withBody(batch: Uint8Array, change: (records: Uint8Array) => void): Uint8Array {
    const copy = batch.slice();
    change(copy.subarray(batchHeaderBytes));
    writeBatchCrc(copy); // a valid CRC over the damage: only decompression tells
    return copy;
  }

  it("refuses corrupt compressed bytes, a bomb and an unknown codec, writing nothing, and keeps serving", async () => {
    const topic = uniqueTopic("compressed-refused");
    await createTopic(topic);
    const good = compressBatch(encodeRecordBatch(jsonRecords(30)), "lz4");
    expectError(await produceBinary(topic, withBody(good, (body) => body.fill(0x5a, 0, 8))), 400, "CORRUPT_MESSAGE");
    const unknown = good.slice();
    unknown[22] = (unknown[22]! & ~7) | 6;
    writeBatchCrc(unknown);
    expectError(await produceBinary(topic, unknown), 400, "CORRUPT_MESSAGE");
    const bomb = compressBatch(encodeRecordBatch([{ key: null, value: new Uint8Array(9 * 1024 * 1024), headers: [], timestamp: Date.now() }]), "zstd");
    expectError(await produceBinary(topic, bomb), 413, "MESSAGE_TOO_LARGE");
    expect(await highWatermarks(topic)).toEqual([0]);
    expect((await produceBinary(topic, good)).body).toMatchObject({ baseOffset: 0, lastOffset: 29 });
  });

  it("applies max.message.bytes to a compressed batch as sent, not to its records", async () => {
    const topic = uniqueTopic("compressed-max-bytes");
    await createTopic(topic, { configs: { "max.message.bytes": "2000" } });
    const large = { key: null, value: utf8.encode("x".repeat(5000)), headers: [], timestamp: Date.now() };
    expect((await produceBinary(topic, compressBatch(encodeRecordBatch([large]), "zstd"))).status).toBe(200);
    expectError(await produceBinary(topic, encodeRecordBatch([large])), 413, "MESSAGE_TOO_LARGE");
    const random = crypto.getRandomValues(new Uint8Array(3000));
    expectError(await produceBinary(topic, compressBatch(encodeRecordBatch([{ key: null, value: random, headers: [], timestamp: Date.now() }]), "lz4")), 413, "MESSAGE_TOO_LARGE");
  });
});

describe("compression.type", () => {
  it("re-encodes batches in another codec, compresses JSON produce, and applies a change to later batches", async () => {
    const topic = uniqueTopic("compression-type");
    await createTopic(topic, { configs: { "compression.type": "zstd" } });
    const described = await api("GET", `/v1/topics/${topic}`);
    expect(described.body.configs["compression.type"]).toBe("zstd");
    const sent = jsonRecords(40);
    expect((await produceBinary(topic, compressBatch(encodeRecordBatch(sent), "lz4"))).status).toBe(200);
    expect((await produceBinary(topic, encodeRecordBatch(jsonRecords(5, 40)))).status).toBe(200);
    const produced = await api("POST", `/v1/topics/${topic}/records`, { records: [{ key: "a", value: "json one" }, { value: "json two" }], acks: "all" });
    expect(produced.status, produced.text).toBe(200);
    expect((await storedBatches(topic)).map(codecOf)).toEqual(["zstd", "zstd", "zstd"]);

    const altered = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "compression.type": "uncompressed" } });
    expect(altered.status, altered.text).toBe(200);
    expect((await produceBinary(topic, compressBatch(encodeRecordBatch(jsonRecords(3, 45)), "gzip"))).status).toBe(200);
    expect((await storedBatches(topic)).map(codecOf)).toEqual(["zstd", "zstd", "zstd", "none"]);
    expect(values(await readAll(topic, 0))).toEqual([...expected(jsonRecords(45)), "json one", "json two", ...expected(jsonRecords(3, 45))]);
    expectError(await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "compression.type": "brotli" } }), 400, "INVALID_CONFIG");
  });
});
