import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeRecordBatch, verifyBatchCrc, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { fieldLength, RecordBatchBuilder, sealBatch, type HeaderField, type RecordField } from "../../../src/protocol/record-batch-builder.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { utf8Length } from "../../../src/protocol/utf8.ts";

const encoder = new TextEncoder();
const bytesOf = (field: RecordField): Uint8Array | null => (typeof field === "string" ? encoder.encode(field) : field);

interface Input {
  key: RecordField;
  value: RecordField;
  headers: HeaderField[] | undefined;
  timestamp: number;
}

function build(records: readonly Input[], limit = Number.MAX_SAFE_INTEGER, capacity = 64): { batches: Uint8Array[]; counts: number[] } {
  const batches: Uint8Array[] = [];
  const counts: number[] = [];
  let builder = new RecordBatchBuilder(capacity);
  for (const record of records) {
    const fields = { ...record, keyLength: fieldLength(record.key), valueLength: fieldLength(record.value) };
    if (!builder.tryAppend(fields, limit)) {
      counts.push(builder.count);
      batches.push(builder.finish());
      builder = new RecordBatchBuilder(capacity);
      expect(builder.tryAppend(fields, limit)).toBe(true);
    }
  }
  counts.push(builder.count);
  batches.push(builder.finish());
  return { batches, counts };
}

const asInput = (record: Input): RecordInput => ({
  key: bytesOf(record.key),
  value: bytesOf(record.value),
  headers: (record.headers ?? []).map((header) => ({ key: header.key, value: bytesOf(header.value) })),
  timestamp: record.timestamp,
});

// Strings include lone surrogates and astral characters: written as TextEncoder writes them.
const field = fc.oneof(fc.constant(null), fc.string({ maxLength: 80 }), fc.string({ unit: "binary", maxLength: 20 }), fc.uint8Array({ maxLength: 300 }));
const record = fc.record({
  key: field,
  value: field,
  headers: fc.option(fc.array(fc.record({ key: fc.string({ maxLength: 10 }), value: field }), { maxLength: 3 }), { nil: undefined }),
  timestamp: fc.integer({ min: 1_700_000_000_000 - 2 ** 20, max: 1_700_000_000_000 + 2 ** 40 }),
});

describe("RecordBatchBuilder", () => {
  it("builds the bytes encodeRecordBatch encodes for the same records, with and without a producer identity", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 30 }), fc.boolean(), (records, idempotent) => {
        const { batches } = build(records);
        expect(batches).toHaveLength(1);
        const identity = idempotent ? { producerId: 7, producerEpoch: 2, baseSequence: 41 } : undefined;
        sealBatch(batches[0]!, identity);
        expect(Buffer.from(batches[0]!).toString("hex")).toBe(Buffer.from(encodeRecordBatch(records.map(asInput), identity ?? {})).toString("hex"));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a record that would take a batch past the limit, but always takes a first one", () => {
    const value = "v".repeat(100);
    const records = Array.from({ length: 50 }, (_, index) => ({ key: `k${index}`, value, headers: undefined, timestamp: 1_700_000_000_000 + index }));
    const { batches, counts } = build(records, 1024);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(50);
    expect(batches.length).toBeGreaterThan(5);
    for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(1024);
    const decoded = batches.flatMap((batch) => {
      sealBatch(batch);
      expect(verifyBatchCrc(batch)).toBe(true);
      return decodeRecordBatch(batch).records;
    });
    expect(decoded.map((entry) => new TextDecoder().decode(entry.key!))).toEqual(records.map((entry) => entry.key));
    const large = build([{ key: null, value: "x".repeat(5000), headers: undefined, timestamp: 1 }], 1024);
    expect(large.counts).toEqual([1]);
    expect(decodeRecordBatch((sealBatch(large.batches[0]!), large.batches[0]!)).records[0]!.value!.length).toBe(5000);
  });

  it("refuses to finish an empty batch", () => {
    expect(() => new RecordBatchBuilder().finish()).toThrow(RangeError);
  });
});

describe("utf8Length", () => {
  it("is TextEncoder's length for any string, short or long, ASCII or not", () => {
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)), maxLength: 300 });
    fc.assert(
      fc.property(fc.oneof(ascii, fc.string({ maxLength: 300 }), fc.string({ unit: "binary", maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 100 })), (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 500 },
    );
    expect(utf8Length("a".repeat(100) + "é")).toBe(102);
    expect(utf8Length("a".repeat(100) + "\ud800")).toBe(103);
  });
});
