/**
 * The manifest a partition's leader publishes to R2 for readers that are not the partition
 * object (ARCHITECTURE.md decisions 11 and 15): which sealed segment object holds which
 * offsets, the log start offset and the high watermark when it was written. Pure: the leader
 * (src/objects/segment-tier.ts) builds and writes it, the router (src/data-plane/sealed-reads.ts)
 * parses it and plans its reads with it.
 *
 * Each segment is listed without its index (a 64 MiB segment's index is ~590 KiB): a reader
 * fetches the index from the object's own tail (`indexBytes` long, immutable, cacheable), so
 * the published manifest stays ~150 bytes a segment.
 *
 * Ordering that keeps readers safe (the leader's side): a seal writes its object before the
 * manifest naming it; retention publishes the manifest with the new log start (and without the
 * deleted segments) before the log start moves in the object and before the objects are
 * deleted; compaction publishes the new generation before deleting the old one. So a reader
 * that read the manifest at time t serves what the log held at t.
 */
import { segmentFooterBytes, segmentIndexEntryBytes, type SegmentIndexEntry } from "./segment-format.ts";
import { findSegment, type SegmentManifest } from "./segment-manifest.ts";

export const sealedManifestFormat = 1;

export interface PublishedSegment {
  baseOffset: number;
  lastOffset: number;
  objectKey: string;
  /** The object's size. */
  bytes: number;
  /** Bytes of the index and footer at the object's end. */
  indexBytes: number;
}

export interface PublishedManifest {
  format: typeof sealedManifestFormat;
  /** Records below it are never served, whatever segment still lists them. */
  logStartOffset: number;
  /** The high watermark when the manifest was written: above every sealed offset, possibly below today's. */
  highWatermark: number;
  segments: PublishedSegment[];
}

/** A published manifest, or a segment's index, that does not hold together: readers ask the partition object instead. */
export class SealedManifestError extends Error {
  override readonly name = "SealedManifestError";
}

/** Where the leader of a partition publishes its manifest: beside the segment objects. */
export function sealedManifestKey(topicId: string, partition: number): string {
  return `${topicId}/${partition}/manifest.json`;
}

/** The manifest to publish for the leader's own manifest and log bounds. */
export function publishedManifest(manifest: SegmentManifest, logStartOffset: number, highWatermark: number): PublishedManifest {
  return {
    format: sealedManifestFormat,
    logStartOffset,
    highWatermark,
    segments: manifest.map((entry) => ({
      baseOffset: entry.baseOffset,
      lastOffset: entry.lastOffset,
      objectKey: entry.objectKey,
      bytes: entry.bytes,
      indexBytes: entry.index.length * segmentIndexEntryBytes + segmentFooterBytes,
    })),
  };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * A published manifest from its JSON text, checked: a known format, counts, segments ascending
 * without overlap, none ending below the log start, and below the high watermark. Throws a
 * SealedManifestError for anything else: a reader then asks the partition object.
 */
export function parsePublishedManifest(text: string): PublishedManifest {
  const fail = (why: string): never => {
    throw new SealedManifestError(`the published segment manifest is malformed: ${why}`);
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail("not JSON");
  }
  const manifest = value as Partial<PublishedManifest> | null;
  if (manifest?.format !== sealedManifestFormat) fail(`format ${String(manifest?.format)}`);
  const { logStartOffset, highWatermark, segments } = manifest!;
  if (!isCount(logStartOffset) || !isCount(highWatermark) || logStartOffset > highWatermark) fail("log bounds");
  if (!Array.isArray(segments)) fail("no segment list");
  let previousLast = -1;
  for (const segment of segments!) {
    const { baseOffset, lastOffset, objectKey, bytes, indexBytes } = (segment ?? {}) as Partial<PublishedSegment>;
    const counts = [baseOffset, lastOffset, bytes, indexBytes].every(isCount);
    if (!counts || typeof objectKey !== "string" || indexBytes! < segmentFooterBytes || indexBytes! >= bytes!) fail("a segment's fields");
    // The first may begin below the log start (DeleteRecords moves it to any offset), never end below it.
    const misplaced = baseOffset! <= previousLast || lastOffset! < Math.max(baseOffset!, logStartOffset!) || lastOffset! >= highWatermark!;
    if (misplaced) fail(`segment ${objectKey} at ${baseOffset}..${lastOffset}`);
    previousLast = lastOffset!;
  }
  return manifest as PublishedManifest;
}

/**
 * Where a fetch at `offset` is served: by the segment holding it (or the first after it,
 * across a range compaction emptied), or by the partition object — for an offset below the
 * log start (its 416 carries the current bounds) or past every sealed segment.
 */
export function planSealedRead(manifest: PublishedManifest, offset: number): PublishedSegment | undefined {
  if (offset < manifest.logStartOffset) return undefined;
  return findSegment(manifest.segments, offset);
}

/** The index decoded from a segment's tail must describe the segment the manifest lists. */
export function checkIndexFits(segment: PublishedSegment, index: readonly SegmentIndexEntry[]): void {
  const first = index[0];
  const last = index.at(-1);
  if (!first || !last || first.baseOffset < segment.baseOffset || last.lastOffset > segment.lastOffset) {
    throw new SealedManifestError(`the index of ${segment.objectKey} does not match its manifest entry`);
  }
}
