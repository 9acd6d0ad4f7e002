import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredBatch } from "../../../src/log/log-store.ts";
import {
  appendSegment,
  byteRangeFor,
  checkManifest,
  findSegment,
  firstOffsetAtOrAfterTime,
  manifestTotals,
  nextGeneration,
  replaceSegments,
  segmentObjectKey,
  type SegmentManifestEntry,
} from "../../../src/log/segment-manifest.ts";
import { splitBatches } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { batchAt, record, sealedSegment } from "./fixtures/tier-batches.ts";

/** A batch of `count` records from `baseOffset`, timestamps `timestamp`, +1, … */
function batchOf(baseOffset: number, count: number, timestamp = 1_000): StoredBatch {
  return batchAt(
    baseOffset,
    Array.from({ length: count }, (_, i) => record(`k${baseOffset + i}`, `v${baseOffset + i}`, timestamp + i)),
  );
}

const entryOf = (batches: StoredBatch[], options: Parameters<typeof sealedSegment>[1] = {}) => sealedSegment(batches, options).entry;

describe("segment manifest", () => {
  it("names objects <topicId>/<partition>/<baseOffset>-<generation>.seg", () => {
    expect(segmentObjectKey("6c1f…", 3, 1200, 2)).toBe("6c1f…/3/1200-2.seg");
    const entry = entryOf([batchOf(10, 3), batchOf(13, 2, 5_000)], { generation: 1 });
    expect(entry).toMatchObject({ baseOffset: 10, lastOffset: 14, generation: 1, objectKey: "topic-id/0/10-1.seg", maxTimestamp: 5_001 });
    expect(entry.index.length).toBe(2);
    expect(entry.minTimestamp).toBeUndefined();
  });

  it("refuses an entry whose index leaves its offsets", () => {
    expect(() => entryOf([batchOf(10, 3)], { baseOffset: 11 })).toThrow(/invariant/);
    expect(() => entryOf([batchOf(10, 3)], { lastOffset: 11 })).toThrow(/invariant/);
  });

  it("appends after the last segment and swaps generations in, never overlapping", () => {
    const a = entryOf([batchOf(0, 10)]);
    const b = entryOf([batchOf(10, 10)]);
    const manifest = appendSegment(appendSegment([], a), b);
    expect(() => appendSegment(manifest, entryOf([batchOf(15, 10)]))).toThrow(/overlaps/);
    expect(nextGeneration(manifest)).toBe(1);
    const compacted = entryOf([batchOf(3, 2), batchOf(12, 1)], { baseOffset: 0, lastOffset: 19, generation: 1 });
    const swapped = replaceSegments(manifest, [a, b], [compacted]);
    expect(swapped).toEqual([compacted]);
    expect(nextGeneration(swapped)).toBe(2);
    expect(() => replaceSegments(manifest, [a], [compacted])).toThrow(/overlaps/);
    expect(() => replaceSegments(swapped, [a], [])).toThrow(/not in the manifest/);
    expect(replaceSegments(manifest, [a], [])).toEqual([b]);
    expect(manifest).toEqual([a, b]); // values: the input is untouched
  });

  it("finds the segment holding an offset, or the first after a gap", () => {
    const manifest = [entryOf([batchOf(0, 10)]), entryOf([batchOf(10, 10)]), entryOf([batchOf(30, 10)])];
    expect(findSegment(manifest, 0)?.baseOffset).toBe(0);
    expect(findSegment(manifest, 9)?.baseOffset).toBe(0);
    expect(findSegment(manifest, 10)?.baseOffset).toBe(10);
    expect(findSegment(manifest, 25)?.baseOffset).toBe(30);
    expect(findSegment(manifest, 39)?.baseOffset).toBe(30);
    expect(findSegment(manifest, 40)).toBeUndefined();
    expect(findSegment([], 0)).toBeUndefined();
  });

  it("reads whole runs from an offset within maxBytes and maxRecords, at least one run", () => {
    // Runs (one batch each): 0–3, 4–5, gap, 10–19, 20.
    const batches = [batchOf(0, 4), batchOf(4, 2), batchOf(10, 10), batchOf(20, 1)];
    const entry = entryOf(batches, { baseOffset: 0, lastOffset: 25 });
    const [r0, r1, r2, r3] = entry.index;
    const all = r0!.length + r1!.length + r2!.length + r3!.length;
    expect(byteRangeFor(entry, 0, 1 << 20, 1000)).toEqual({ position: 0, length: all, baseOffset: 0, nextOffset: 21 });
    expect(byteRangeFor(entry, 2, 1, 1000)).toEqual({ position: 0, length: r0!.length, baseOffset: 0, nextOffset: 4 });
    expect(byteRangeFor(entry, 2, r0!.length + r1!.length, 1000)).toEqual({ position: 0, length: r0!.length + r1!.length, baseOffset: 0, nextOffset: 6 });
    // 2 records from 2, then 2 more reach maxRecords 4.
    expect(byteRangeFor(entry, 2, 1 << 20, 4)).toEqual({ position: 0, length: r0!.length + r1!.length, baseOffset: 0, nextOffset: 6 });
    expect(byteRangeFor(entry, 7, 1 << 20, 5)).toEqual({ position: r2!.position, length: r2!.length, baseOffset: 10, nextOffset: 20 });
    expect(byteRangeFor(entry, 20, 1 << 20, 5)).toEqual({ position: r3!.position, length: r3!.length, baseOffset: 20, nextOffset: 21 });
    expect(byteRangeFor(entry, 21, 1 << 20, 5)).toBeUndefined();
  });

  it("locates the first record at or after a time, whatever the order of timestamps", () => {
    const manifest = [
      entryOf([batchOf(0, 2, 500), batchOf(2, 2, 100)]),
      entryOf([batchOf(4, 2, 300), batchOf(6, 2, 900), batchOf(8, 2, 2_000)]),
    ];
    const at = (timestampMs: number) => {
      const found = firstOffsetAtOrAfterTime(manifest, timestampMs);
      return found && [found.entry.baseOffset, found.run.baseOffset];
    };
    expect(at(0)).toEqual([0, 0]);
    expect(at(501)).toEqual([0, 0]);
    expect(at(502)).toEqual([4, 6]);
    expect(at(901)).toEqual([4, 6]);
    expect(at(902)).toEqual([4, 8]);
    expect(at(2_001)).toEqual([4, 8]);
    expect(at(2_002)).toBeUndefined();
  });

  it("totals segments and bytes", () => {
    const manifest = [entryOf([batchOf(0, 2)]), entryOf([batchOf(2, 2)])];
    expect(manifestTotals(manifest)).toEqual({ segments: 2, bytes: manifest[0]!.bytes + manifest[1]!.bytes });
    expect(manifestTotals([])).toEqual({ segments: 0, bytes: 0 });
  });
});

describe("segment manifest: reading every record back", () => {
  it("findSegment and byteRangeFor from offset 0 read each record once, in order, under any limits", () => {
    const logArbitrary = fc.record({
      batches: fc.array(fc.record({ count: fc.integer({ min: 1, max: 6 }), gap: fc.nat({ max: 2 }) }), { minLength: 1, maxLength: 20 }),
      cuts: fc.array(fc.boolean(), { maxLength: 20 }),
      interval: fc.constantFrom(0, 200, 4096),
      maxBytes: fc.integer({ min: 1, max: 2_000 }),
      maxRecords: fc.integer({ min: 1, max: 30 }),
    });
    fc.assert(
      fc.property(logArbitrary, ({ batches: specs, cuts, interval, maxBytes, maxRecords }) => {
        let next = 0;
        const batches = specs.map(({ count, gap }) => {
          const batch = batchOf(next + gap, count);
          next = batch.lastOffset + 1;
          return batch;
        });
        const manifest: SegmentManifestEntry[] = [];
        const objects = new Map<string, Uint8Array>();
        let pending: StoredBatch[] = [];
        batches.forEach((batch, i) => {
          pending.push(batch);
          if (cuts[i] || i === batches.length - 1) {
            const { entry, bytes } = sealedSegment(pending, { indexIntervalBytes: interval });
            manifest.push(entry);
            objects.set(entry.objectKey, bytes);
            pending = [];
          }
        });
        checkManifest(manifest);
        const offsets: number[] = [];
        let offset = 0;
        for (let reads = 0; reads < 1_000; reads++) {
          const entry = findSegment(manifest, offset);
          if (!entry) break;
          const range = byteRangeFor(entry, offset, maxBytes, maxRecords)!;
          const bytes = objects.get(entry.objectKey)!.subarray(range.position, range.position + range.length);
          for (const { start } of splitBatches(bytes)) {
            for (const { offset: recordOffset } of decodeRecordBatch(bytes, start).records) {
              if (recordOffset >= offset) offsets.push(recordOffset);
            }
          }
          expect(range.nextOffset).toBeGreaterThan(offset);
          offset = range.nextOffset;
        }
        expect(offsets).toEqual(batches.flatMap((batch) => Array.from({ length: batch.recordCount }, (_, i) => batch.baseOffset + i)));
      }),
      { numRuns: 200 },
    );
  });
});
