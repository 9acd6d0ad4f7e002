import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32c } from "../../../src/protocol/crc32c.ts";
import { BatchFormatError, batchByteLength, batchHeaderBytes, encodeRecordBatch, encodedRecordSize, readBatchHeader, setBaseOffset, setPartitionLeaderEpoch, splitBatches, timestampTypeLogAppendTime, verifyBatchCrc } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import type { EncodeOptions, RecordInput } from "../../../src/protocol/record-batch.ts";
import { hexBytes, twoRecordsHex, twoRecordsInput, twoRecordsOptions } from "./fixtures/record-batch-v2.ts";

const text = (value: string) => new TextEncoder().encode(value);
/** What a header key becomes on the wire and back: itself, unless it holds a lone surrogate. */
const utf8Decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const utf8RoundTrip = (key: string) => utf8Decoder.decode(text(key));
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");

/** Rewrites the CRC after a deliberate edit inside the CRC-covered range. */
function refreshCrc(bytes: Uint8Array, at = 0): void {
  const end = at + batchByteLength(bytes, at);
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(at + 17, crc32c(bytes, at + 21, end));
}

function expectFormatError(action: () => unknown): BatchFormatError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(BatchFormatError);
    return error as BatchFormatError;
  }
  throw new Error("expected a BatchFormatError, nothing was thrown");
}

const field = fc.option(fc.uint8Array({ maxLength: 40 }), { nil: null, freq: 4 });
const headerKey = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom("", "\ufeffbom", "ключ", "🔑"),
);
const timestamp = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 31 }).map((delta) => 1_700_000_000_000 + delta),
  // Within ±2^51, so that any two differ by a safe integer (the varlong timestamp delta).
  fc.maxSafeInteger().map((value) => Math.trunc(value / 4) + 0), // + 0 turns −0 into 0
  fc.constantFrom(-1, 0, 2 ** 51, -(2 ** 51)),
);
const recordArbitrary: fc.Arbitrary<RecordInput> = fc.record({
  key: field,
  value: field,
  headers: fc.array(fc.record({ key: headerKey, value: field }), { maxLength: 4 }),
  timestamp,
});
const optionsArbitrary: fc.Arbitrary<EncodeOptions> = fc.record(
  {
    baseOffset: fc.oneof(
      fc.maxSafeNat().map((n) => Math.max(0, n - 64)),
      fc.constant(Number.MAX_SAFE_INTEGER - 63),
    ),
    partitionLeaderEpoch: fc.integer(),
    logAppendTime: fc.boolean(),
    producerId: fc.maxSafeInteger(),
    producerEpoch: fc.integer({ min: -32768, max: 32767 }),
    baseSequence: fc.integer(),
  },
  { requiredKeys: [] },
);
const batchArbitrary = fc.tuple(fc.array(recordArbitrary, { minLength: 1, maxLength: 12 }), optionsArbitrary);

describe("record batch v2: golden bytes", () => {
  it("encodes the two-record fixture byte for byte", () => {
    expect(hex(encodeRecordBatch(twoRecordsInput, twoRecordsOptions))).toBe(hex(hexBytes(twoRecordsHex)));
    expect(hex(encodeRecordBatch(twoRecordsInput))).toBe(hex(hexBytes(twoRecordsHex)));
  });

  it("decodes the fixture: null key, empty value, null header value", () => {
    const { header, records } = decodeRecordBatch(hexBytes(twoRecordsHex));
    expect(header).toEqual({
      baseOffset: 0,
      batchLength: 72,
      partitionLeaderEpoch: -1,
      magic: 2,
      crc: 0x13318759,
      attributes: 0,
      lastOffsetDelta: 1,
      baseTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_001,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      recordCount: 2,
    });
    expect(records).toEqual([
      { ...twoRecordsInput[0], offset: 0 },
      { ...twoRecordsInput[1], offset: 1 },
    ]);
    expect(records[0]!.key).toBeNull();
    expect(records[1]!.value).toEqual(new Uint8Array(0));
    expect(records[1]!.headers[1]!.value).toBeNull();
  });

  it("sizes each record as it encodes it", () => {
    expect(encodedRecordSize(twoRecordsInput[0]!, 0, 0)).toBe(8);
    expect(encodedRecordSize(twoRecordsInput[1]!, 1, 1)).toBe(15);
    expect(batchHeaderBytes + 8 + 15).toBe(hexBytes(twoRecordsHex).length);
  });

  it("sets the log-append-time bit and reports maxTimestamp for every record", () => {
    const bytes = encodeRecordBatch(twoRecordsInput, { logAppendTime: true });
    const { header, records } = decodeRecordBatch(bytes);
    expect(header.attributes).toBe(timestampTypeLogAppendTime);
    expect(records.map((record) => record.timestamp)).toEqual([1_700_000_000_001, 1_700_000_000_001]);
  });

  it("verifies the CRC, and notices one flipped bit in a value", () => {
    const bytes = hexBytes(twoRecordsHex);
    expect(verifyBatchCrc(bytes)).toBe(true);
    bytes[67]! ^= 0x01; // "a" becomes "`"
    expect(verifyBatchCrc(bytes)).toBe(false);
    expect(expectFormatError(() => decodeRecordBatch(bytes)).message).toMatch(/CRC-32C/);
  });

  it("skips only the CRC with checkCrc false (stored batches): the structure is still checked", () => {
    const bytes = hexBytes(twoRecordsHex);
    bytes[67]! ^= 0x01;
    expect(decodeRecordBatch(bytes, 0, { checkCrc: false }).records).toHaveLength(2);
    expectFormatError(() => decodeRecordBatch(bytes.subarray(0, bytes.length - 1), 0, { checkCrc: false }));
  });

  it("returns keys and values as views into the input", () => {
    const bytes = hexBytes(twoRecordsHex);
    const { records } = decodeRecordBatch(bytes);
    expect(records[0]!.value!.buffer).toBe(bytes.buffer);
  });
});

describe("record batch v2: properties", () => {
  it("round-trips any records and options", () => {
    fc.assert(
      fc.property(batchArbitrary, ([records, options]) => {
        const bytes = encodeRecordBatch(records, options);
        let size = batchHeaderBytes;
        records.forEach((record, i) => {
          size += encodedRecordSize(record, record.timestamp - records[0]!.timestamp, i);
        });
        expect(bytes.length).toBe(size);
        const { header, records: decoded } = decodeRecordBatch(bytes);
        const baseOffset = options.baseOffset ?? 0;
        const maxTimestamp = Math.max(...records.map((record) => record.timestamp));
        expect(header).toMatchObject({
          baseOffset,
          batchLength: bytes.length - 12,
          partitionLeaderEpoch: options.partitionLeaderEpoch ?? -1,
          magic: 2,
          attributes: options.logAppendTime ? timestampTypeLogAppendTime : 0,
          lastOffsetDelta: records.length - 1,
          baseTimestamp: records[0]!.timestamp,
          maxTimestamp,
          producerId: options.producerId ?? -1,
          producerEpoch: options.producerEpoch ?? -1,
          baseSequence: options.baseSequence ?? -1,
          recordCount: records.length,
        });
        const expected = records.map((record, i) => ({
          ...record,
          headers: record.headers.map((h) => ({ key: utf8RoundTrip(h.key), value: h.value })),
          timestamp: options.logAppendTime ? maxTimestamp : record.timestamp,
          offset: baseOffset + i,
        }));
        expect(decoded).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("holds timestamps out to ±(2^53 − 1), and refuses deltas beyond", () => {
    for (const timestamp of [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      const records = [{ key: null, value: null, headers: [], timestamp }];
      expect(decodeRecordBatch(encodeRecordBatch(records)).records[0]!.timestamp).toBe(timestamp);
    }
    const apart = [0, 2 ** 52].map((timestamp) => ({ key: null, value: null, headers: [], timestamp }));
    expect(decodeRecordBatch(encodeRecordBatch(apart)).records[1]!.timestamp).toBe(2 ** 52);
    apart[0]!.timestamp = -(2 ** 52);
    expect(() => encodeRecordBatch(apart)).toThrow(RangeError);
  });

  it("keeps unicode header keys exactly, a leading BOM included", () => {
    const keys = ["", "\ufeffbom", "ключ", "🔑 key", "日本語", "a\u0000b"];
    const headers = keys.map((key) => ({ key, value: null }));
    const records = [{ key: null, value: null, headers, timestamp: 0 }];
    const { records: decoded } = decodeRecordBatch(encodeRecordBatch(records));
    expect(decoded[0]!.headers.map((h) => h.key)).toEqual(keys);
  });

  it("keeps long header keys, ASCII or not, and many distinct short ones", () => {
    const long = ["k".repeat(100), "ключ".repeat(30), "🔑".repeat(40)];
    // 2,000 short keys over a 256-slot key cache: colliding slots must never mix keys up.
    const short = Array.from({ length: 2000 }, (_, i) => `key-${i.toString(36)}`);
    const accented = short.map((key) => `é${key.slice(2)}`); // same byte length, not ASCII
    const keys = [...long, ...short, ...accented, ...short];
    const headers = keys.map((key) => ({ key, value: null }));
    const records = [{ key: null, value: null, headers, timestamp: 0 }];
    const { records: decoded } = decodeRecordBatch(encodeRecordBatch(records));
    expect(decoded[0]!.headers.map((h) => h.key)).toEqual(keys);
  });

  it("writes a lone surrogate in a header key as U+FFFD, as TextEncoder does", () => {
    const records = [{ key: null, value: null, headers: [{ key: "a\ud800b", value: null }], timestamp: 0 }];
    const { records: decoded } = decodeRecordBatch(encodeRecordBatch(records));
    expect(decoded[0]!.headers[0]!.key).toBe("a\ufffdb");
  });

  it("catches any single flipped byte from batchLength on (all but baseOffset and leader epoch)", () => {
    const flips = fc.integer({ min: 1, max: 255 });
    fc.assert(
      fc.property(batchArbitrary, fc.nat(), flips, ([records, options], n, flip) => {
        const bytes = encodeRecordBatch(records, options);
        const positions = bytes.length - 16 + 4;
        const at = n % positions;
        const index = at < 4 ? 8 + at : 16 + at - 4;
        bytes[index]! ^= flip;
        expectFormatError(() => decodeRecordBatch(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it("rejects every truncation with a BatchFormatError", () => {
    fc.assert(
      fc.property(batchArbitrary, fc.nat(), ([records, options], cut) => {
        const bytes = encodeRecordBatch(records, options);
        const prefix = bytes.subarray(0, cut % bytes.length);
        expectFormatError(() => decodeRecordBatch(prefix));
        if (prefix.length > 0) expectFormatError(() => [...splitBatches(prefix)]);
      }),
    );
  });

  it("throws only BatchFormatError on CRC-valid garbage after the header", () => {
    const noise = fc.uint8Array({ minLength: 1, maxLength: 64 });
    fc.assert(
      fc.property(batchArbitrary, noise, fc.nat(), ([records], garbage, at) => {
        const bytes = encodeRecordBatch(records);
        const start = batchHeaderBytes + (at % (bytes.length - batchHeaderBytes));
        bytes.set(garbage.subarray(0, bytes.length - start), start);
        refreshCrc(bytes);
        for (const checkCrc of [true, false]) {
          try {
            decodeRecordBatch(bytes, 0, { checkCrc });
          } catch (error) {
            expect(error).toBeInstanceOf(BatchFormatError);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("throws only BatchFormatError on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expectFormatError(() => decodeRecordBatch(bytes));
      }),
    );
  });

  it("leaves the CRC valid when the leader stamps baseOffset and epoch", () => {
    fc.assert(
      fc.property(batchArbitrary, fc.maxSafeNat(), fc.integer(), ([records, options], offset, epoch) => {
        const bytes = encodeRecordBatch(records, options);
        const baseOffset = Math.max(0, offset - records.length);
        setBaseOffset(bytes, 0, baseOffset);
        setPartitionLeaderEpoch(bytes, 0, epoch);
        expect(verifyBatchCrc(bytes)).toBe(true);
        const { header, records: decoded } = decodeRecordBatch(bytes);
        expect(header.partitionLeaderEpoch).toBe(epoch);
        expect(decoded.map((record) => record.offset)).toEqual(records.map((_, i) => baseOffset + i));
      }),
    );
  });
});

describe("record batch v2: headers, positions and concatenation", () => {
  const first = encodeRecordBatch(twoRecordsInput, { baseOffset: 10 });
  const single = [{ key: text("x"), value: text("y"), headers: [], timestamp: 5 }];
  const second = encodeRecordBatch(single, { baseOffset: 12 });

  it("splits concatenated batches, inside a larger buffer too", () => {
    const backing = new Uint8Array(3 + first.length + second.length);
    backing.set(first, 3);
    backing.set(second, 3 + first.length);
    const both = backing.subarray(3);
    const spans = [...splitBatches(both)].map(({ header, start, end }) => [header.baseOffset, start, end]);
    expect(spans).toEqual([
      [10, 0, first.length],
      [12, first.length, first.length + second.length],
    ]);
    expect(decodeRecordBatch(both, first.length).records[0]!.offset).toBe(12);
    setBaseOffset(both, first.length, 100);
    setPartitionLeaderEpoch(both, first.length, 7);
    expect(verifyBatchCrc(both, first.length)).toBe(true);
    expect(readBatchHeader(both, first.length)).toMatchObject({ baseOffset: 100, partitionLeaderEpoch: 7 });
    expect(decodeRecordBatch(both).header.baseOffset).toBe(10);
    expect([...splitBatches(new Uint8Array(0))]).toEqual([]);
  });

  it("sizes a batch from its first 12 bytes alone", () => {
    expect(batchByteLength(first.subarray(0, 12))).toBe(first.length);
    expectFormatError(() => batchByteLength(first.subarray(0, 11)));
  });

  it("refuses a wrong magic, an empty batch and a lastOffsetDelta that does not match", () => {
    const cases: [number, (view: DataView) => void, RegExp][] = [
      [16, (view) => view.setInt8(16, 1), /magic 1/],
      [57, (view) => view.setInt32(57, 0), /recordCount 0/],
      [23, (view) => view.setInt32(23, 5), /lastOffsetDelta 5/],
      [8, (view) => view.setInt32(8, 48), /batchLength 48/],
      [0, (view) => view.setInt32(0, -1), /baseOffset/],
      [27, (view) => view.setUint32(27, 0x00400000), /baseTimestamp/],
    ];
    for (const [, edit, message] of cases) {
      const bytes = first.slice();
      edit(new DataView(bytes.buffer));
      expect(expectFormatError(() => readBatchHeader(bytes)).message).toMatch(message);
    }
  });

  it("refuses a batch that says gzip over records that are not (compressed-batches.test.ts has the codecs)", () => {
    const bytes = first.slice();
    new DataView(bytes.buffer).setInt16(21, 1);
    refreshCrc(bytes);
    expect(verifyBatchCrc(bytes)).toBe(true);
    const error = expectFormatError(() => decodeRecordBatch(bytes));
    expect(error.message).toMatch(/gzip: not a gzip member/);
  });

  it("carries transactional and control bits in the header", () => {
    const bytes = first.slice();
    new DataView(bytes.buffer).setInt16(21, 0x30);
    refreshCrc(bytes);
    expect(decodeRecordBatch(bytes).header.attributes).toBe(0x30);
  });

  it("refuses a record whose offsetDelta skips", () => {
    const bytes = first.slice();
    bytes[72] = 0x04; // record 1's offsetDelta: 2 instead of 1
    refreshCrc(bytes);
    expect(expectFormatError(() => decodeRecordBatch(bytes)).message).toMatch(/record 1: offsetDelta 2/);
  });

  it("refuses bytes left over inside a record or after the last one", () => {
    const longer = new Uint8Array(first.length + 1);
    longer.set(first);
    const view = new DataView(longer.buffer);
    view.setInt32(8, first.length - 12 + 1);
    refreshCrc(longer);
    expect(expectFormatError(() => decodeRecordBatch(longer)).message).toMatch(/1 bytes after the records/);
    longer[61] = 0x10; // record 0's length: 8 instead of 7
    refreshCrc(longer);
    expect(expectFormatError(() => decodeRecordBatch(longer)).message).toMatch(/record 0/);
  });

  it("refuses bad arguments to the encoder and the in-place setters", () => {
    expect(() => encodeRecordBatch([])).toThrow(RangeError);
    expect(() => encodeRecordBatch([{ ...twoRecordsInput[0]!, timestamp: 2 ** 53 }])).toThrow(RangeError);
    expect(() => encodeRecordBatch(twoRecordsInput, { baseOffset: -1 })).toThrow(RangeError);
    const pastSafe = { baseOffset: Number.MAX_SAFE_INTEGER }; // its second offset is not safe
    expect(() => encodeRecordBatch(twoRecordsInput, pastSafe)).toThrow(RangeError);
    expect(() => encodeRecordBatch(twoRecordsInput, { producerEpoch: 40_000 })).toThrow(RangeError);
    expect(() => setBaseOffset(first.slice(), 0, 1.5)).toThrow(RangeError);
    expect(() => setBaseOffset(first.slice(), first.length - 4, 1)).toThrow(RangeError);
    expect(() => setPartitionLeaderEpoch(first.slice(), 0, 2 ** 31)).toThrow(RangeError);
  });
});
