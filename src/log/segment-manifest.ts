/**
 * The manifest of a partition's sealed segments (ARCHITECTURE.md decision 6): which R2
 * objects hold which offsets, with their indexes, as a plain value. The partition object
 * stores it in its SQLite and swaps entries in one write; everything here is pure.
 *
 * Invariants (checkManifest): entries ascend by baseOffset and never overlap; each entry's
 * index lies inside its [baseOffset, lastOffset] and ends at its object's batch bytes. An
 * entry covers its whole offset range even where compaction left no record (its first batch
 * may start after baseOffset, and gaps may lie between batches); a range wholly emptied by
 * compaction has no entry, so ranges may also leave gaps between entries.
 */
import type { EncodedSegment, SegmentIndexEntry } from "./segment-format.ts";

export interface SegmentManifestEntry {
  baseOffset: number;
  lastOffset: number;
  /** 0 when sealed; each compaction writes the next generation (nextGeneration). */
  generation: number;
  objectKey: string;
  /** The object's size, index and footer included. */
  bytes: number;
  maxTimestamp: number;
  /** The smallest record timestamp, when whoever wrote the segment decoded its records (compaction does). */
  minTimestamp?: number;
  index: SegmentIndexEntry[];
}

export type SegmentManifest = readonly SegmentManifestEntry[];

/** A byte range of a segment object holding whole batches. */
export interface SegmentByteRange {
  position: number;
  length: number;
  /** The first batch's base offset: records before the offset asked for are the reader's to skip. */
  baseOffset: number;
  /** Where a reader continues after these batches: the last run's last offset + 1. */
  nextOffset: number;
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`segment manifest invariant broken: ${message}`);
}

/** The R2 key of a segment object: `<topicId>/<partition>/<baseOffset>-<generation>.seg`. */
export function segmentObjectKey(topicId: string, partition: number, baseOffset: number, generation: number): string {
  return `${topicId}/${partition}/${baseOffset}-${generation}.seg`;
}

/** The manifest entry of an encoded segment covering [baseOffset, lastOffset]. */
export function segmentManifestEntry(args: {
  topicId: string;
  partition: number;
  baseOffset: number;
  lastOffset: number;
  generation: number;
  encoded: EncodedSegment;
  minTimestamp?: number;
}): SegmentManifestEntry {
  const { baseOffset, lastOffset, generation, encoded } = args;
  const entry: SegmentManifestEntry = {
    baseOffset,
    lastOffset,
    generation,
    objectKey: segmentObjectKey(args.topicId, args.partition, baseOffset, generation),
    bytes: encoded.bytes.length,
    maxTimestamp: encoded.index.reduce((max, run) => Math.max(max, run.maxTimestamp), Number.MIN_SAFE_INTEGER),
    index: encoded.index.map((run) => ({ ...run })),
  };
  if (args.minTimestamp !== undefined) entry.minTimestamp = args.minTimestamp;
  checkEntry(entry);
  return entry;
}

function checkEntry(entry: SegmentManifestEntry): void {
  const first = entry.index[0];
  const last = entry.index.at(-1);
  assert(first !== undefined && last !== undefined, `${entry.objectKey} has an empty index`);
  assert(entry.baseOffset <= first.baseOffset && last.lastOffset <= entry.lastOffset, `${entry.objectKey}'s index leaves [${entry.baseOffset}, ${entry.lastOffset}]`);
  assert(last.position + last.length < entry.bytes, `${entry.objectKey}'s index runs past its ${entry.bytes} bytes`);
}

/** Asserts the manifest's invariants; a broken one would serve wrong records. */
export function checkManifest(manifest: SegmentManifest): void {
  let previous: SegmentManifestEntry | undefined;
  for (const entry of manifest) {
    checkEntry(entry);
    assert(!previous || previous.lastOffset < entry.baseOffset, `${entry.objectKey} overlaps ${previous?.objectKey}`);
    previous = entry;
  }
}

/** Appends a newly sealed segment after the last one (checking it against its predecessor only: the rest was checked). */
export function appendSegment(manifest: SegmentManifest, entry: SegmentManifestEntry): SegmentManifestEntry[] {
  checkEntry(entry);
  const previous = manifest.at(-1);
  assert(!previous || previous.lastOffset < entry.baseOffset, `${entry.objectKey} overlaps ${previous?.objectKey}`);
  return [...manifest, entry];
}

/**
 * The manifest with `removed` (by object key, all present) taken out and `added` put in:
 * compaction's swap of generations, or retention's deletion with nothing added.
 */
export function replaceSegments(
  manifest: SegmentManifest,
  removed: readonly SegmentManifestEntry[],
  added: readonly SegmentManifestEntry[],
): SegmentManifestEntry[] {
  const removedKeys = new Set(removed.map((entry) => entry.objectKey));
  const kept = manifest.filter((entry) => !removedKeys.has(entry.objectKey));
  assert(kept.length === manifest.length - removedKeys.size, "a removed segment is not in the manifest");
  const next = [...kept, ...added].sort((a, b) => a.baseOffset - b.baseOffset);
  checkManifest(next);
  return next;
}

/** The generation a compaction writes next: one past every generation in the manifest. */
export function nextGeneration(manifest: SegmentManifest): number {
  let generation = 0;
  for (const entry of manifest) generation = Math.max(generation, entry.generation + 1);
  return generation;
}

/** The first entry whose range ends at or after `offset`: the one holding it, or the first after a gap. */
export function findSegment<Entry extends Pick<SegmentManifestEntry, "lastOffset">>(manifest: readonly Entry[], offset: number): Entry | undefined {
  let low = 0;
  let high = manifest.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (manifest[middle]!.lastOffset < offset) low = middle + 1;
    else high = middle;
  }
  return manifest[low];
}

/** Index of the first run whose last offset is at or after `offset`; index.length when none. */
function firstRunEndingAtOrAfter(index: readonly SegmentIndexEntry[], offset: number): number {
  let low = 0;
  let high = index.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (index[middle]!.lastOffset < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The byte range of `entry`'s object to read from `offset`: whole runs of batches, the
 * first the one holding `offset` (or the first after it, across a compaction gap), then
 * more while both limits allow — as PartitionLog.read does with rows: at least one run,
 * then runs while the bytes stay within maxBytes, stopping once maxRecords or maxBytes is
 * reached. Records are counted from the index's offsets, an upper bound where compaction
 * left gaps. Undefined when no record at or after `offset` is in this segment.
 */
export function byteRangeFor(
  entry: Pick<SegmentManifestEntry, "index">,
  offset: number,
  maxBytes: number,
  maxRecords: number,
): SegmentByteRange | undefined {
  const index = entry.index;
  let at = firstRunEndingAtOrAfter(index, offset);
  const first = index[at];
  if (first === undefined) return undefined;
  let length = 0;
  let records = 0;
  let nextOffset = offset;
  for (; at < index.length; at++) {
    const run = index[at]!;
    if (length > 0 && length + run.length > maxBytes) break;
    length += run.length;
    records += run.lastOffset - Math.max(run.baseOffset, offset) + 1;
    nextOffset = run.lastOffset + 1;
    if (records >= maxRecords || length >= maxBytes) break;
  }
  return { position: first.position, length, baseOffset: first.baseOffset, nextOffset };
}

/**
 * Where the first record with a timestamp at or after `timestampMs` is, in offset order:
 * the first segment whose maxTimestamp reaches it, and in it the first run whose
 * maxTimestamp does. No earlier run can hold such a record, and this one does; the caller
 * decodes its [position, position + length) to find it. Undefined when no sealed record
 * is that late (the SQLite tier may hold one).
 */
export function firstOffsetAtOrAfterTime(
  manifest: SegmentManifest,
  timestampMs: number,
): { entry: SegmentManifestEntry; run: SegmentIndexEntry } | undefined {
  for (const entry of manifest) {
    if (entry.maxTimestamp < timestampMs) continue;
    const run = entry.index.find((candidate) => candidate.maxTimestamp >= timestampMs);
    assert(run !== undefined, `${entry.objectKey}'s maxTimestamp exceeds its index's`);
    return { entry, run };
  }
  return undefined;
}

/** Sealed segments and their bytes, for describe, retention.bytes and backpressure. */
export function manifestTotals(manifest: SegmentManifest): { segments: number; bytes: number } {
  let bytes = 0;
  for (const entry of manifest) bytes += entry.bytes;
  return { segments: manifest.length, bytes };
}
