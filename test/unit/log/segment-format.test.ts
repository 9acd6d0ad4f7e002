import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredBatch } from "../../../src/log/log-store.ts";
import {
  decodeSegmentIndex,
  encodeSegment,
  readSegmentFooter,
  segmentBatchBytes,
  segmentFooterBytes,
  SegmentFormatError,
  segmentIndexEntryBytes,
} from "../../../src/log/segment-format.ts";
import { segmentIndexIntervalBytes } from "../../../src/limits.ts";
import { crc32c } from "../../../src/protocol/crc32c.ts";
import { BatchFormatError, encodeRecordBatch, splitBatches } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { hexBytes } from "../protocol/fixtures/record-batch-v2.ts";
import { batchAt, record, storedBatch } from "./fixtures/tier-batches.ts";
import { fixtureBatches, offsetFiveBatchHex, offsetFiveTimestamp, segmentChecksum, segmentHex, segmentTailHex } from "./fixtures/segment-v1.ts";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");

function formatError(action: () => unknown): SegmentFormatError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(SegmentFormatError);
    return error as SegmentFormatError;
  }
  throw new Error("expected a SegmentFormatError, nothing was thrown");
}

const fixtureIndex = [
  { baseOffset: 0, lastOffset: 1, position: 0, length: 84, maxTimestamp: 1_700_000_000_001 },
  { baseOffset: 5, lastOffset: 5, position: 84, length: 70, maxTimestamp: offsetFiveTimestamp },
];

describe("segment format: golden bytes", () => {
  it("the second fixture batch is what the codec writes", () => {
    const bytes = encodeRecordBatch([record("k", "v", offsetFiveTimestamp)], { baseOffset: 5, partitionLeaderEpoch: 3 });
    expect(hex(bytes)).toBe(hex(hexBytes(offsetFiveBatchHex)));
  });

  it("encodes the two-batch fixture byte for byte, with its index and checksum", () => {
    const encoded = encodeSegment(fixtureBatches(), { indexIntervalBytes: 0 });
    expect(hex(encoded.bytes)).toBe(hex(hexBytes(segmentHex)));
    expect(encoded.index).toEqual(fixtureIndex);
    expect(encoded.checksum).toBe(segmentChecksum);
    expect(encoded.checksum).toBe(checksumByHand(encoded.bytes));
  });

  it("decodes the fixture's index from the whole object and from its tail", () => {
    const bytes = hexBytes(segmentHex);
    expect(decodeSegmentIndex(bytes)).toEqual(fixtureIndex);
    const tail = hexBytes(segmentTailHex);
    expect(tail.length).toBe(2 * segmentIndexEntryBytes + segmentFooterBytes);
    expect(decodeSegmentIndex(tail, bytes.length)).toEqual(fixtureIndex);
    expect(decodeSegmentIndex(bytes.subarray(100), bytes.length)).toEqual(fixtureIndex);
    expect(readSegmentFooter(bytes.subarray(-segmentFooterBytes), bytes.length)).toEqual({
      version: 1,
      entryCount: 2,
      indexStart: 154,
      indexCrc: 0x1c3c5fda,
      tailBytes: 94,
    });
    expect(segmentBatchBytes(bytes).length).toBe(154);
  });

  it("says how long a tail must be when the one given is too short", () => {
    const bytes = hexBytes(segmentHex);
    expect(formatError(() => decodeSegmentIndex(bytes.subarray(-60), bytes.length)).tailBytesNeeded).toBe(94);
    expect(formatError(() => decodeSegmentIndex(bytes.subarray(-10), bytes.length)).tailBytesNeeded).toBe(segmentFooterBytes);
  });

  it("a ranged read of an index entry yields whole Kafka batches", () => {
    const bytes = hexBytes(segmentHex);
    const [first, second] = decodeSegmentIndex(bytes);
    const range = bytes.slice(second!.position, second!.position + second!.length);
    expect(decodeRecordBatch(range).records.map((r) => r.offset)).toEqual([5]);
    expect(decodeRecordBatch(bytes.slice(first!.position, first!.position + first!.length)).records.length).toBe(2);
  });

  it("by default keeps one index entry per run of at least segmentIndexIntervalBytes", () => {
    const encoded = encodeSegment(fixtureBatches());
    expect(encoded.index).toEqual([{ baseOffset: 0, lastOffset: 5, position: 0, length: 154, maxTimestamp: offsetFiveTimestamp }]);
    const big = "x".repeat(segmentIndexIntervalBytes);
    const batches = [batchAt(0, [record("a", big, 1)]), batchAt(1, [record("b", "y", 2)]), batchAt(2, [record("c", "z", 3)]), batchAt(3, [record("d", big, 4)])];
    const index = encodeSegment(batches).index;
    expect(index.map((run) => [run.baseOffset, run.lastOffset])).toEqual([[0, 0], [1, 3]]);
    expect(decodeSegmentIndex(encodeSegment(batches).bytes)).toEqual(index);
  });
});

describe("segment format: refusals", () => {
  it("refuses no batches, batches out of order or overlapping, and metadata that disagrees with the bytes", () => {
    const [a, b] = fixtureBatches();
    expect(() => encodeSegment([])).toThrow(RangeError);
    expect(() => encodeSegment([b!, a!])).toThrow(RangeError);
    expect(() => encodeSegment([a!, { ...a! }])).toThrow(RangeError);
    expect(() => encodeSegment([{ ...a!, lastOffset: 2 }])).toThrow(RangeError);
    expect(() => encodeSegment([{ ...a!, maxTimestamp: 0 }])).toThrow(RangeError);
    const twoInOne = new Uint8Array([...a!.bytes, ...b!.bytes]);
    expect(() => encodeSegment([{ ...a!, bytes: twoInOne }])).toThrow(RangeError);
    expect(() => encodeSegment([{ ...a!, bytes: a!.bytes.subarray(0, 70) }])).toThrow(BatchFormatError);
  });

  it("refuses another magic or version, a truncated object, and a short input", () => {
    const bytes = hexBytes(segmentHex);
    const magic = bytes.slice();
    magic[226] = 0x55;
    expect(formatError(() => decodeSegmentIndex(magic)).message).toMatch(/magic/);
    const version = bytes.slice();
    version[231] = 2;
    expect(formatError(() => decodeSegmentIndex(version)).message).toMatch(/version 2/);
    expect(formatError(() => decodeSegmentIndex(bytes.subarray(0, 247))).message).toMatch(/magic/);
    expect(formatError(() => decodeSegmentIndex(bytes.subarray(0, 21))).tailBytesNeeded).toBeUndefined();
  });

  it("checks the index's structure beyond its CRC", () => {
    const bytes = hexBytes(segmentHex);
    const view = new DataView(bytes.buffer);
    view.setInt32(154 + 24, 83); // first run one byte short: the second no longer follows it
    view.setUint32(244, crc32c(bytes, 154, 244));
    expect(formatError(() => decodeSegmentIndex(bytes)).message).toMatch(/index entry 1/);
    view.setInt32(154 + 24, 84);
    view.setUint32(190 + 4, 1); // second run's base offset 1: overlaps the first
    view.setUint32(244, crc32c(bytes, 154, 244));
    expect(formatError(() => decodeSegmentIndex(bytes)).message).toMatch(/offsets 1\.\.5 after 1/);
  });
});

/** Random stored batches: ascending offsets with random gaps, random epochs and sizes. */
const batchesArbitrary: fc.Arbitrary<StoredBatch[]> = fc
  .array(
    fc.record({
      gap: fc.nat({ max: 3 }),
      epoch: fc.integer({ min: -1, max: 5 }),
      values: fc.array(fc.option(fc.string({ maxLength: 300 }), { nil: null }), { minLength: 1, maxLength: 5 }),
      timestamp: fc.integer({ min: 0, max: 2 ** 40 }),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((specs) => {
    let next = 0;
    return specs.map(({ gap, epoch, values, timestamp }) => {
      const bytes = encodeRecordBatch(
        values.map((value, i) => record(`k${i}`, value, timestamp + i)),
        { baseOffset: next + gap, partitionLeaderEpoch: epoch },
      );
      const batch = storedBatch(bytes);
      next = batch.lastOffset + 1;
      return batch;
    });
  });
/** The checksum as the format defines it, walked here independently: each batch's 21-byte prefix, then the index and footer. */
function checksumByHand(bytes: Uint8Array): number {
  const indexStart = Number(new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 12, 8).getBigInt64(0));
  const parts: number[] = [];
  for (let at = 0; at < indexStart; at += 12 + new DataView(bytes.buffer, bytes.byteOffset + at + 8, 4).getInt32(0)) {
    parts.push(...bytes.subarray(at, at + 21));
  }
  parts.push(...bytes.subarray(indexStart));
  return crc32c(Uint8Array.from(parts));
}

const intervalArbitrary = fc.constantFrom(0, 1, 100, 400, 4096);

describe("segment format: properties", () => {
  it("round-trips: the index decodes as encoded, and every run reads back whole batches in order", () => {
    fc.assert(
      fc.property(batchesArbitrary, intervalArbitrary, (batches, indexIntervalBytes) => {
        const encoded = encodeSegment(batches, { indexIntervalBytes });
        expect(encoded.checksum).toBe(checksumByHand(encoded.bytes));
        expect(decodeSegmentIndex(encoded.bytes)).toEqual(encoded.index);
        const tail = encoded.bytes.subarray(encoded.bytes.length - readSegmentFooter(encoded.bytes).tailBytes);
        expect(decodeSegmentIndex(tail, encoded.bytes.length)).toEqual(encoded.index);
        const read: StoredBatch[] = [];
        for (const run of encoded.index) {
          const range = encoded.bytes.slice(run.position, run.position + run.length);
          const inRun = [...splitBatches(range)].map(({ start, end }) => storedBatch(range.slice(start, end)));
          expect(inRun[0]!.baseOffset).toBe(run.baseOffset);
          expect(inRun.at(-1)!.lastOffset).toBe(run.lastOffset);
          expect(Math.max(...inRun.map((batch) => batch.maxTimestamp))).toBe(run.maxTimestamp);
          read.push(...inRun);
        }
        expect(read).toEqual(batches);
        if (indexIntervalBytes === 0) expect(encoded.index.length).toBe(batches.length);
      }),
      { numRuns: 200 },
    );
  });

  it("catches any corrupted byte of the index or footer", () => {
    fc.assert(
      fc.property(batchesArbitrary, intervalArbitrary, fc.nat(), fc.integer({ min: 1, max: 255 }), (batches, indexIntervalBytes, at, flip) => {
        const { bytes } = encodeSegment(batches, { indexIntervalBytes });
        const indexStart = readSegmentFooter(bytes).indexStart;
        const position = indexStart + (at % (bytes.length - indexStart));
        const corrupted = bytes.slice();
        corrupted[position]! ^= flip;
        formatError(() => decodeSegmentIndex(corrupted));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses every truncation of an object", () => {
    fc.assert(
      fc.property(batchesArbitrary, fc.nat(), (batches, cut) => {
        const { bytes } = encodeSegment(batches);
        formatError(() => decodeSegmentIndex(bytes.subarray(0, cut % bytes.length)));
      }),
      { numRuns: 200 },
    );
  });
});
