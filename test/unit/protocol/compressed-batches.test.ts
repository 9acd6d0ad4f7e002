/**
 * Compressed RecordBatch v2 (issue 27) against batches other Kafka clients write and read:
 * kafkajs's gzip, @platformatic/kafka's snappy, lz4 and zstd; fast-check over records and
 * codecs; re-encoding between codecs keeps every header field; a corrupt compressed body
 * under a valid CRC, a bomb and an unknown codec are error values.
 */
import { createRecordsBatch, readRecordsBatch, Reader } from "@platformatic/kafka";
import fc from "fast-check";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { compressionCodecs, type CompressionCodec } from "../../../src/protocol/compression/codecs.ts";
import { CompressionError } from "../../../src/protocol/compression/compression-error.ts";
import { batchHeaderBytes, encodeRecordBatch, readBatchHeader, verifyBatchCrc, writeBatchCrc, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { batchCodec, compressBatch, recompressBatch } from "../../../src/protocol/record-batch-compression.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { scanRecordBatch } from "../../../src/protocol/record-scan.ts";

const require = createRequire(import.meta.url);
const { RecordBatch: KafkajsRecordBatch } = require("kafkajs/src/protocol/recordBatch/v0") as { RecordBatch: (batch: Record<string, unknown>) => Promise<{ buffer: Buffer }> };
const KafkajsRecord = require("kafkajs/src/protocol/recordBatch/record/v0") as (record: Record<string, unknown>) => unknown;
const KafkajsDecoder = require("kafkajs/src/protocol/decoder") as new (buffer: Buffer) => unknown;
const decodeKafkajsBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder") as (decoder: unknown) => Promise<{ records: { key: Buffer | null; value: Buffer | null; offset: string }[] }>;

const utf8 = new TextEncoder();
const codecs = compressionCodecs.filter((codec) => codec !== "none");
const field = fc.option(fc.uint8Array({ maxLength: 60 }), { nil: null, freq: 5 });
const records = fc.array(
  fc.record({
    key: field,
    value: field,
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: field }), { maxLength: 3 }),
    timestamp: fc.integer({ min: 0, max: 2 ** 30 }).map((delta) => 1_700_000_000_000 + delta),
  }),
  { minLength: 1, maxLength: 40 },
);

function jsonRecords(count: number): RecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: utf8.encode(`user-${i % 50}`),
    value: utf8.encode(JSON.stringify({ id: i, event: "page_view", path: `/products/${i % 30}`, ms: 120 + (i % 17) })),
    headers: [{ key: "source", value: utf8.encode("web") }],
    timestamp: 1_700_000_000_000 + i,
  }));
}

describe("compressed batches round-trip through every codec", () => {
  it.each(codecs)("%s: decode and scan read back what was encoded; only the codec bits and the length change in the header", (codec) => {
    fc.assert(
      fc.property(records, fc.integer({ min: 0, max: 1000 }), (input, producerId) => {
        const plain = encodeRecordBatch(input, { producerId, producerEpoch: 3, baseSequence: 17, baseOffset: 5 });
        const compressed = compressBatch(plain, codec);
        expect(verifyBatchCrc(compressed)).toBe(true);
        const { header, records: decoded } = decodeRecordBatch(compressed);
        expect(batchCodec(header)).toBe(codec);
        expect({ ...header, attributes: 0, batchLength: 0, crc: 0 }).toEqual({ ...readBatchHeader(plain), attributes: 0, batchLength: 0, crc: 0 });
        expect(decoded).toEqual(decodeRecordBatch(plain).records);
        let scanned = 0;
        scanRecordBatch(compressed, 0, () => scanned++);
        expect(scanned).toBe(input.length);
      }),
      { numRuns: 60 },
    );
  });

  it("re-encoding between codecs keeps the records and the header's fields (a topic's compression.type)", () => {
    const plain = encodeRecordBatch(jsonRecords(200), { producerId: 9, producerEpoch: 1, baseSequence: 40 });
    let batch = compressBatch(plain, "lz4");
    for (const codec of ["zstd", "gzip", "snappy", "none", "lz4"] as CompressionCodec[]) {
      const next = recompressBatch(batch, codec);
      expect(batchCodec(readBatchHeader(next))).toBe(codec);
      expect(verifyBatchCrc(next)).toBe(true);
      expect(decodeRecordBatch(next).records).toEqual(decodeRecordBatch(plain).records);
      expect(readBatchHeader(next)).toMatchObject({ producerId: 9, producerEpoch: 1, baseSequence: 40, recordCount: 200 });
      batch = next;
    }
    expect(recompressBatch(batch, "lz4")).toBe(batch); // already in it: the same bytes
    expect(recompressBatch(plain, "none")).toBe(plain);
  });
});

describe("batches other clients compressed", () => {
  it("kafkajs's gzip batches decode, and kafkajs reads ours", async () => {
    const input = jsonRecords(30);
    const theirs = await KafkajsRecordBatch({
      compression: 1,
      lastOffsetDelta: input.length - 1,
      firstTimestamp: input[0]!.timestamp,
      maxTimestamp: input.at(-1)!.timestamp,
      records: input.map((record, i) => KafkajsRecord({ key: Buffer.from(record.key!), value: Buffer.from(record.value!), headers: { source: Buffer.from("web") }, offsetDelta: i, timestampDelta: i })),
    });
    const bytes = new Uint8Array(theirs.buffer);
    expect(batchCodec(readBatchHeader(bytes))).toBe("gzip");
    expect(decodeRecordBatch(bytes).records.map((record) => record.value)).toEqual(input.map((record) => record.value));
    const ours = compressBatch(encodeRecordBatch(input), "gzip");
    const read = await decodeKafkajsBatch(new KafkajsDecoder(Buffer.from(ours)));
    expect(read.records.map((record) => record.value?.toString())).toEqual(input.map((record) => new TextDecoder().decode(record.value!)));
  });

  it.each(["snappy", "lz4", "zstd"] as const)("@platformatic/kafka's %s batches decode, and it reads ours", (codec) => {
    fc.assert(
      fc.property(records, (generated) => {
        // Its reader answers an empty value for a null one: values are never null here.
        const input = generated.map((record) => ({ ...record, value: record.value ?? new Uint8Array(0) }));
        const messages = input.map((record) => ({ topic: "t", key: record.key === null ? undefined : Buffer.from(record.key), value: Buffer.from(record.value ?? new Uint8Array(0)), timestamp: BigInt(record.timestamp) }));
        const theirs = new Uint8Array(createRecordsBatch(messages, { compression: codec }).buffer);
        expect(batchCodec(readBatchHeader(theirs))).toBe(codec);
        const decoded = decodeRecordBatch(theirs).records;
        expect(decoded.map((record) => [record.key, record.value, record.timestamp])).toEqual(messages.map((message) => [message.key === undefined ? null : new Uint8Array(message.key), new Uint8Array(message.value), Number(message.timestamp)]));
        const ours = compressBatch(encodeRecordBatch(input), codec);
        const read = readRecordsBatch(Reader.from(Buffer.from(ours)));
        expect(read.records.map((record) => new Uint8Array(record.value ?? []))).toEqual(input.map((record) => record.value));
      }),
      { numRuns: 40 },
    );
  });
});

describe("compressed batches that cannot be read are error values", () => {
  function withBody(batch: Uint8Array, change: (records: Uint8Array) => void): Uint8Array {
    const copy = batch.slice();
    change(copy.subarray(batchHeaderBytes));
    writeBatchCrc(copy); // a valid CRC over the damage: only decompression can tell
    return copy;
  }
  const failureOf = (batch: Uint8Array) => {
    try {
      decodeRecordBatch(batch);
    } catch (error) {
      expect(error).toBeInstanceOf(CompressionError);
      return (error as CompressionError).failure;
    }
    return "none";
  };

  it.each(codecs)("%s: corrupt compressed bytes under a valid CRC", (codec) => {
    const batch = compressBatch(encodeRecordBatch(jsonRecords(100)), codec);
    expect(failureOf(withBody(batch, (body) => body.fill(0x5a, 0, 8)))).toBe("corrupt");
  });

  it("a batch whose records inflate past the bound, and an unknown codec", () => {
    const big = jsonRecords(1).map((record) => ({ ...record, value: new Uint8Array(9 * 1024 * 1024) }));
    const bomb = compressBatch(encodeRecordBatch(big), "zstd");
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(failureOf(bomb)).toBe("too-large");
    expect(() => scanRecordBatch(bomb, 0, () => {})).toThrow(CompressionError);
    const unknown = compressBatch(encodeRecordBatch(jsonRecords(3)), "lz4");
    unknown[22] = (unknown[22]! & ~7) | 5;
    writeBatchCrc(unknown);
    expect(failureOf(unknown)).toBe("unknown-codec");
  });
});
