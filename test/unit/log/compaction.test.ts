import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compactSegments, type CompactionInput, type CompactionOptions, type CompactionResult } from "../../../src/log/compaction.ts";
import type { StoredBatch } from "../../../src/log/log-store.ts";
import { decodeSegmentIndex, SegmentFormatError } from "../../../src/log/segment-format.ts";
import { checkManifest, nextGeneration, replaceSegments } from "../../../src/log/segment-manifest.ts";
import { crc32c } from "../../../src/protocol/crc32c.ts";
import { BatchFormatError, controlFlag, readBatchHeader, splitBatches, timestampTypeLogAppendTime, transactionalFlag, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { encodeControlBatch } from "../../../src/protocol/control-batch.ts";
import { batchAt, record, sealedSegment, storedBatch, text } from "./fixtures/tier-batches.ts";

const utf8 = new TextDecoder();

/** A batch moved to `offset` (its CRC covers from the attributes on, so the base offset needs no new one). */
function withBaseOffset(batch: Uint8Array, offset: number): Uint8Array {
  new DataView(batch.buffer, batch.byteOffset).setBigInt64(0, BigInt(offset));
  return batch;
}
const str = (bytes: Uint8Array | null) => (bytes === null ? null : utf8.decode(bytes));

/** What a reader sees, as plain values. */
interface Seen {
  offset: number;
  key: string | null;
  value: string | null;
  timestamp: number;
}

function recordsOfBatches(batches: readonly Uint8Array[]): Seen[] {
  return batches.flatMap((bytes) =>
    decodeRecordBatch(bytes).records.map((r) => ({ offset: r.offset, key: str(r.key), value: str(r.value), timestamp: r.timestamp })),
  );
}

function recordsOfSegments(inputs: readonly CompactionInput[]): Seen[] {
  return inputs.flatMap(({ bytes }) => {
    const last = decodeSegmentIndex(bytes).at(-1)!;
    const batches = bytes.subarray(0, last.position + last.length);
    return recordsOfBatches([...splitBatches(batches)].map(({ start, end }) => batches.slice(start, end)));
  });
}

function outputRecords(result: CompactionResult): Seen[] {
  return recordsOfBatches(result.segments.flatMap((segment) => segment.batches.map((batch) => batch.bytes)));
}

/** Segments of consecutive batches: `layout` lists each segment's batches' records. */
function segmentsOf(layout: RecordInput[][][], epoch = 0): CompactionInput[] {
  let offset = 0;
  return layout.map((batches) =>
    sealedSegment(
      batches.map((records) => {
        const batch = batchAt(offset, records, { partitionLeaderEpoch: epoch });
        offset = batch.lastOffset + 1;
        return batch;
      }),
    ),
  );
}

/** The result's segments as the next inputs, swapped in as the partition object would. */
function swapIn(inputs: readonly CompactionInput[], result: CompactionResult): CompactionInput[] {
  const generation = nextGeneration(inputs.map((input) => input.entry));
  const added = result.segments.map((segment) =>
    sealedSegment(segment.batches, { baseOffset: segment.baseOffset, lastOffset: segment.lastOffset, generation }),
  );
  const objects = new Map([...inputs, ...added].map((input) => [input.entry.objectKey, input.bytes]));
  const manifest = replaceSegments(inputs.map((input) => input.entry), result.replaced, added.map((input) => input.entry));
  return manifest.map((entry) => ({ entry, bytes: objects.get(entry.objectKey)! }));
}

const options: CompactionOptions = { nowMs: 1_000_000, deleteRetentionMs: 10_000, segmentBytes: 1 << 20 };

describe("compactSegments: what is kept", () => {
  it("keeps the last value of each key across all segments, at its own offset", () => {
    const inputs = segmentsOf([
      [[record("a", "1", 10), record("b", "1", 11)], [record("a", "2", 12)]],
      [[record("c", "1", 13), record("b", "2", 14)]],
      [[record("a", "3", 15)], [record("d", "1", 16)]],
    ]);
    const result = compactSegments(inputs, options);
    expect(outputRecords(result)).toEqual([
      { offset: 3, key: "c", value: "1", timestamp: 13 },
      { offset: 4, key: "b", value: "2", timestamp: 14 },
      { offset: 5, key: "a", value: "3", timestamp: 15 },
      { offset: 6, key: "d", value: "1", timestamp: 16 },
    ]);
    expect(result.replaced).toEqual(inputs.map((input) => input.entry));
    expect(result.firstDirtyOffset).toBe(7);
    expect(result.stats).toMatchObject({ recordsRead: 7, recordsKept: 4, recordsSuperseded: 3, tombstonesDropped: 0 });
    // One segment covering all the inputs' offsets.
    expect(result.segments.map((s) => [s.baseOffset, s.lastOffset, s.minTimestamp])).toEqual([[0, 6, 13]]);
  });

  it("compares keys byte for byte: an empty key is a key, and keys differing in one byte differ", () => {
    const bytesKey = (...bytes: number[]) => ({ key: new Uint8Array(bytes), value: text("v"), headers: [], timestamp: 1 });
    const inputs = segmentsOf([[[bytesKey(), bytesKey(0xff, 0), bytesKey(0xff, 1), bytesKey(), bytesKey(0xff, 0)]]]);
    expect(outputRecords(compactSegments(inputs, options)).map((r) => r.offset)).toEqual([2, 3, 4]);
  });

  it("keeps a tombstone until it is older than delete.retention.ms, then drops it and its key", () => {
    const inputs = segmentsOf([[[record("k", "old", 100)]], [[record("k", null, 5_000), record("x", "1", 5_001)]]]);
    const kept = compactSegments(inputs, { ...options, nowMs: 15_000 });
    expect(outputRecords(kept)).toEqual([
      { offset: 1, key: "k", value: null, timestamp: 5_000 },
      { offset: 2, key: "x", value: "1", timestamp: 5_001 },
    ]);
    expect(kept.stats.tombstonesDropped).toBe(0);
    const dropped = compactSegments(inputs, { ...options, nowMs: 15_001 });
    expect(outputRecords(dropped)).toEqual([{ offset: 2, key: "x", value: "1", timestamp: 5_001 }]);
    expect(dropped.stats).toMatchObject({ tombstonesDropped: 1, recordsSuperseded: 1 });
  });

  it("drops a superseded tombstone at once, and keeps records without a key", () => {
    const inputs = segmentsOf([
      [[record("k", null, 999_999), record(null, "no key", 1), record("k", "back", 999_999), record(null, null, 1)]],
    ]);
    expect(outputRecords(compactSegments(inputs, options))).toEqual([
      { offset: 1, key: null, value: "no key", timestamp: 1 },
      { offset: 2, key: "k", value: "back", timestamp: 999_999 },
      { offset: 3, key: null, value: null, timestamp: 1 },
    ]);
  });

  it("drops a whole segment's records and leaves no segment for a range with none", () => {
    const inputs = segmentsOf([[[record("a", "1", 1)]], [[record("a", "2", 2)]]]);
    const result = compactSegments(inputs, { ...options, segmentBytes: 1 });
    expect(result.segments.map((s) => [s.baseOffset, s.lastOffset])).toEqual([[0, 1]]);
    const gone = compactSegments(segmentsOf([[[record("a", null, 1)]]]), options);
    expect(gone).toMatchObject({ segments: [], firstDirtyOffset: 1 });
    expect(gone.replaced.length).toBe(1);
  });
});

describe("compactSegments: the batches written", () => {
  it("writes consecutive offsets per batch, keeping headers, timestamps, epoch and producer fields", () => {
    const headers = [{ key: "h", value: text("v") }, { key: "n", value: null }];
    const original = batchAt(
      10,
      [record("a", "1", 5), record("b", "1", 7, headers), record("a", "2", 6), record("c", "1", 9, headers), record("d", "1", 8)],
      { partitionLeaderEpoch: 7, producerId: 42, producerEpoch: 3, baseSequence: 100 },
    );
    const result = compactSegments([sealedSegment([original])], options);
    const batches = result.segments[0]!.batches;
    // Offset 10 is superseded: survivors 11 and 12–14 are one batch (consecutive), as it happens.
    expect(batches.map((b) => [b.baseOffset, b.lastOffset, b.recordCount, b.leaderEpoch])).toEqual([[11, 14, 4, 7]]);
    const { header, records } = decodeRecordBatch(batches[0]!.bytes);
    expect(header).toMatchObject({ baseOffset: 11, partitionLeaderEpoch: 7, producerId: 42, producerEpoch: 3, baseSequence: 101, maxTimestamp: 9 });
    expect(records.map((r) => [r.offset, str(r.key), r.timestamp, r.headers])).toEqual([
      [11, "b", 7, headers],
      [12, "a", 6, []],
      [13, "c", 9, headers],
      [14, "d", 8, []],
    ]);
    expect(storedBatch(batches[0]!.bytes)).toEqual(batches[0]);
  });

  it("splits survivors of one batch at each gap", () => {
    const original = batchAt(0, [record("a", "1", 1), record("b", "1", 1), record("a", "2", 1), record("c", "1", 1), record("c", "2", 1), record("d", "1", 1)]);
    const batches = compactSegments([sealedSegment([original])], options).segments[0]!.batches;
    expect(batches.map((b) => [b.baseOffset, b.lastOffset])).toEqual([[1, 2], [4, 5]]);
    for (const batch of batches) expect(decodeRecordBatch(batch.bytes).records.map((r) => r.offset)).toEqual([batch.baseOffset, batch.lastOffset]);
  });

  it("copies a batch whose records all survive byte for byte", () => {
    const inputs = segmentsOf([[[record("a", "1", 1)], [record("b", "1", 2), record("c", "1", 3)]], [[record("a", "2", 4)]]]);
    const original = recordsOfSegments(inputs);
    const result = compactSegments(inputs, options);
    const survivor = result.segments[0]!.batches[0]!;
    const [, second] = decodeSegmentIndex(inputs[0]!.bytes);
    expect(survivor.bytes).toEqual(inputs[0]!.bytes.slice(second!.position, second!.position + second!.length));
    expect(outputRecords(result)).toEqual(original.slice(1));
  });

  it("keeps log-append time: every record still reads the batch's append time", () => {
    const original = batchAt(0, [record("a", "1", 1), record("b", "1", 2), record("a", "2", 3)], { logAppendTime: true });
    const [batch] = compactSegments([sealedSegment([original])], options).segments[0]!.batches;
    const { header, records } = decodeRecordBatch(batch!.bytes);
    expect(header.attributes & timestampTypeLogAppendTime).toBe(timestampTypeLogAppendTime);
    expect(records.map((r) => [r.offset, r.timestamp])).toEqual([[1, 3], [2, 3]]);
  });

  it("drops an aborted transaction's batches unmapped, compacts a committed one's records keeping the flag, copies markers whole", () => {
    const aborted = { producerId: 7, producerEpoch: 0, baseSequence: 0, transactional: true };
    const committed = { producerId: 8, producerEpoch: 0, baseSequence: 0, transactional: true };
    const marker = (offset: number, producerId: number, result: "commit" | "abort") =>
      storedBatch(withBaseOffset(encodeControlBatch({ producerId, producerEpoch: 1, result, coordinatorEpoch: 0 }, 5), offset));
    const inputs = [
      sealedSegment([
        batchAt(0, [record("k", "committed", 1)]),
        batchAt(1, [record("k", "aborted", 2), record("x", "aborted", 2)], aborted),
        marker(3, 7, "abort"),
        batchAt(4, [record("j", "txn", 3), record("y", "txn", 3)], committed),
        marker(6, 8, "commit"),
        batchAt(7, [record("j", "later", 4)]),
      ]),
    ];
    // Markers within delete.retention.ms: copied whole (their removal is the next test's).
    const result = compactSegments(inputs, { ...options, deleteRetentionMs: options.nowMs, abortedTransactions: [{ producerId: 7, firstOffset: 1, lastOffset: 3 }] });
    // Mapped, the aborted "k" would have superseded the committed one, leaving a read_committed reader no "k" at all.
    expect(outputRecords(result).filter((r) => r.key !== null && r.value !== null && !r.key.startsWith("\0")).map((r) => [r.offset, r.key, r.value])).toEqual([
      [0, "k", "committed"],
      [5, "y", "txn"],
      [7, "j", "later"],
    ]);
    expect(result.stats.abortedDropped).toBe(2);
    const headers = result.segments[0]!.batches.map((batch) => readBatchHeader(batch.bytes));
    expect(headers.map((header) => [header.baseOffset, header.producerId, (header.attributes & transactionalFlag) !== 0])).toEqual([
      [0, -1, false],
      [3, 7, true], // the abort marker, whole
      [5, 8, true], // the committed transaction's survivor, still transactional
      [6, 8, true], // the commit marker, whole
      [7, -1, false],
    ]);
    // Without the index every transaction counts as committed (the behaviour before: the aborted "k" wins).
    expect(outputRecords(compactSegments(inputs, options)).some((r) => r.key === "k" && r.value === "committed")).toBe(false);
  });

  it("removes a marker (COMMIT or ABORT) once none of its transaction's records is left and delete.retention.ms has passed", () => {
    const first = { producerId: 8, producerEpoch: 0, baseSequence: 0, transactional: true };
    const second = { producerId: 8, producerEpoch: 1, baseSequence: 0, transactional: true };
    const aborted = { producerId: 7, producerEpoch: 0, baseSequence: 0, transactional: true };
    const marker = (offset: number, producerId: number, result: "commit" | "abort", timestamp: number) =>
      storedBatch(withBaseOffset(encodeControlBatch({ producerId, producerEpoch: 1, result, coordinatorEpoch: 0 }, timestamp), offset));
    const inputs = [
      sealedSegment([
        batchAt(0, [record("k", "txn", 1)], first),
        marker(1, 8, "commit", 5), // its transaction's "k" is superseded below: the marker may go
        batchAt(2, [record("j", "txn", 2)], second),
        marker(3, 8, "commit", 5), // its transaction's "j" survives: the marker stays
        batchAt(4, [record("x", "aborted", 3)], aborted),
        marker(5, 7, "abort", 5), // its records are dropped (aborted): the marker may go
        batchAt(6, [record("k", "later", 4)]),
      ]),
    ];
    const abortedTransactions = [{ producerId: 7, firstOffset: 4, lastOffset: 5 }];
    const markersOf = (result: CompactionResult) =>
      result.segments.flatMap((segment) => segment.batches.map((batch) => batch.bytes)).flatMap((bytes) => (readBatchHeader(bytes).attributes & controlFlag ? [readBatchHeader(bytes).baseOffset] : []));
    const deleteRetentionMs = 1_000;
    const early = compactSegments(inputs, { ...options, deleteRetentionMs, nowMs: 5 + deleteRetentionMs, abortedTransactions });
    expect([markersOf(early), early.stats.markersDropped]).toEqual([[1, 3, 5], 0]); // within delete.retention.ms of the marker
    const late = compactSegments(inputs, { ...options, deleteRetentionMs, nowMs: 6 + deleteRetentionMs, abortedTransactions });
    expect([markersOf(late), late.stats.markersDropped]).toEqual([[3], 2]);
    expect(outputRecords(late).filter((r) => !(r.key ?? "").startsWith("\0")).map((r) => [r.offset, r.key, r.value])).toEqual([
      [2, "j", "txn"],
      [6, "k", "later"],
    ]);
  });

  it("keeps an ABORT marker while a record of its transaction is left (outside the key map's range)", () => {
    const aborted = { producerId: 7, producerEpoch: 0, baseSequence: 0, transactional: true };
    const marker = storedBatch(withBaseOffset(encodeControlBatch({ producerId: 7, producerEpoch: 0, result: "abort", coordinatorEpoch: 0 }, 5), 1));
    const inputs = [sealedSegment([batchAt(0, [record("x", "aborted", 3)], aborted), marker])];
    // No index entry (the leader's index lost it): the records are kept as any, and so is their marker.
    const result = compactSegments(inputs, { ...options, deleteRetentionMs: 0, nowMs: 1_000, abortedTransactions: [] });
    expect(result.stats.markersDropped).toBe(0);
  });

  it("refuses a corrupt batch rather than rewrite it", () => {
    const corruptBatch = sealedSegment([batchAt(0, [record("a", "1", 1)])]);
    corruptBatch.bytes[65]! ^= 1; // inside the 70-byte batch's record
    expect(() => compactSegments([corruptBatch], options)).toThrow(BatchFormatError);
    const corruptIndex = sealedSegment([batchAt(0, [record("a", "1", 1)])]);
    corruptIndex.bytes[70]! ^= 1; // the index's first byte
    expect(() => compactSegments([corruptIndex], options)).toThrow(SegmentFormatError);
  });

  it("cuts output segments before a batch that would overflow segment.bytes, covering the inputs' offsets", () => {
    const inputs = segmentsOf([
      Array.from({ length: 10 }, (_, i) => [record(`k${i}`, "x".repeat(100), i)]),
      [[record("k0", "y", 99)]],
    ]);
    const size = inputs[0]!.entry.index[1]!.length;
    const result = compactSegments(inputs, { ...options, segmentBytes: 3 * size });
    // k0 at 0 is superseded by offset 10: nine batches of one size, then a smaller one that
    // would overflow the third segment. The first segment's range still starts at 0.
    expect(result.segments.map((s) => [s.baseOffset, s.lastOffset, s.batches.length])).toEqual([
      [0, 3, 3],
      [4, 6, 3],
      [7, 9, 3],
      [10, 10, 1],
    ]);
    const swapped = swapIn(inputs, result);
    checkManifest(swapped.map((input) => input.entry));
    expect(swapped.map((input) => input.entry.objectKey)).toEqual([
      "topic-id/0/0-1.seg",
      "topic-id/0/4-1.seg",
      "topic-id/0/7-1.seg",
      "topic-id/0/10-1.seg",
    ]);
    expect(recordsOfSegments(swapped).map((r) => r.offset)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe("compactSegments: passes and bounds", () => {
  it("a clean prefix keeps its keys unless a dirty record supersedes them", () => {
    const inputs = segmentsOf([[[record("a", "1", 1), record("b", "1", 2)]], [[record("a", "2", 3), record("c", "1", 4)]]]);
    const result = compactSegments(inputs, { ...options, firstDirtyOffset: 2 });
    expect(outputRecords(result).map((r) => [r.offset, r.key])).toEqual([[1, "b"], [2, "a"], [3, "c"]]);
  });

  it("stops mapping where the key map fills, keeps every record after, and continues there", () => {
    const inputs = segmentsOf([
      [[record("a", "1", 1), record("b", "1", 2), record("a", "2", 3)]],
      [[record("c", "1", 4), record("b", "2", 5)], [record("a", "3", 6)]],
    ]);
    const limits = { ...options, keysMax: 2 };
    // c at 3 would be a third key: the pass maps 0–2 and rewrites the one segment before 3.
    const first = compactSegments(inputs, limits);
    expect(first.firstDirtyOffset).toBe(3);
    expect(first.replaced).toEqual([inputs[0]!.entry]);
    expect(outputRecords(first).map((r) => [r.offset, r.key])).toEqual([[1, "b"], [2, "a"]]);
    // Maps c and b; a at 5 is a third key. Both segments start before 5: b at 1 goes, a at 5 stays unmapped.
    const afterFirst = swapIn(inputs, first);
    const second = compactSegments(afterFirst, { ...limits, firstDirtyOffset: first.firstDirtyOffset });
    expect(second.firstDirtyOffset).toBe(5);
    expect(outputRecords(second).map((r) => [r.offset, r.key])).toEqual([[2, "a"], [3, "c"], [4, "b"], [5, "a"]]);
    const third = compactSegments(swapIn(afterFirst, second), { ...limits, firstDirtyOffset: second.firstDirtyOffset });
    expect(third.firstDirtyOffset).toBe(6);
    expect(outputRecords(third).map((r) => [r.offset, r.key])).toEqual([[3, "c"], [4, "b"], [5, "a"]]);
  });

  it("a pass over a compacted log changes nothing", () => {
    const inputs = segmentsOf([[[record("a", "1", 1), record("b", null, 999_000)]], [[record("a", "2", 3)]]]);
    const first = compactSegments(inputs, options);
    const swapped = swapIn(inputs, first);
    const again = compactSegments(swapped, { ...options, firstDirtyOffset: first.firstDirtyOffset });
    expect(outputRecords(again)).toEqual(recordsOfSegments(swapped));
    expect(again.stats.recordsKept).toBe(again.stats.recordsRead);
    expect(compactSegments([], options)).toMatchObject({ replaced: [], segments: [] });
  });
});

/** Random logs: keys from a small alphabet (null among them), tombstones, timestamps around now. */
const logArbitrary = fc.record({
  segments: fc.array(
    fc.array(
      fc.array(
        fc.record({
          key: fc.constantFrom(null, "", "a", "b", "c", "d", "e"),
          value: fc.option(fc.string({ maxLength: 20 }), { nil: null, freq: 3 }),
          age: fc.integer({ min: 0, max: 20_000 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    { minLength: 1, maxLength: 5 },
  ),
  keysMax: fc.constantFrom(1, 2, 3, 100),
  segmentBytes: fc.integer({ min: 1, max: 600 }),
});

/** Kafka's rule, directly: the last record of each key unless an expired tombstone; keyless records stay. */
function model(records: Seen[], nowMs: number, deleteRetentionMs: number): Seen[] {
  const last = new Map<string, number>();
  for (const r of records) if (r.key !== null) last.set(r.key, r.offset);
  return records.filter((r) => r.key === null || (last.get(r.key) === r.offset && !(r.value === null && nowMs - r.timestamp > deleteRetentionMs)));
}

describe("compactSegments: against the rule", () => {
  it("passes until the whole log is clean give exactly Kafka's records, in dense batches within segment.bytes", () => {
    fc.assert(
      fc.property(logArbitrary, ({ segments, keysMax, segmentBytes }) => {
        const nowMs = 100_000;
        let inputs = segmentsOf(segments.map((batches) => batches.map((records) => records.map((r) => record(r.key, r.value, nowMs - r.age)))));
        const expected = model(recordsOfSegments(inputs), nowMs, 10_000);
        const end = inputs.at(-1)!.entry.lastOffset + 1;
        let firstDirtyOffset = 0;
        for (let pass = 0; firstDirtyOffset < end || pass === 0; pass++) {
          expect(pass).toBeLessThan(end + 1);
          const result = compactSegments(inputs, { nowMs, deleteRetentionMs: 10_000, segmentBytes, keysMax, firstDirtyOffset });
          expect(result.firstDirtyOffset).toBeGreaterThan(firstDirtyOffset);
          for (const segment of result.segments) {
            const bytes = segment.batches.reduce((sum, b: StoredBatch) => sum + b.bytes.length, 0);
            if (segment.batches.length > 1) expect(bytes).toBeLessThanOrEqual(segmentBytes);
            for (const batch of segment.batches) expect(readBatchHeader(batch.bytes).recordCount).toBe(batch.lastOffset - batch.baseOffset + 1);
          }
          firstDirtyOffset = result.firstDirtyOffset;
          inputs = swapIn(inputs, result);
          // Whatever the pass, nothing Kafka's rule keeps is ever lost.
          const seen = new Set(recordsOfSegments(inputs).map((r) => r.offset));
          for (const r of expected) expect(seen.has(r.offset)).toBe(true);
        }
        expect(recordsOfSegments(inputs)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
