/**
 * Retention (cleanup.policy delete): which sealed segments to delete, oldest first, and
 * where the log then starts (ARCHITECTURE.md decision 6). Kafka's DeleteRecords is the same
 * step with a start asked for (`logStartOffset`). Pure: the partition object deletes the
 * objects, swaps its manifest and advances logStartOffset.
 */
import type { SegmentManifest, SegmentManifestEntry } from "./segment-manifest.ts";

export interface RetentionOptions {
  /** retention.ms; −1 keeps segments whatever their age. */
  retentionMs: number;
  /** retention.bytes; −1 keeps segments whatever the log's size. */
  retentionBytes: number;
  nowMs: number;
  /** Bytes in the SQLite tier: they count toward retention.bytes but are never deleted here. */
  activeBytes: number;
  /**
   * Where the log is to start at least (its current start, or a DeleteRecords' offset): segments
   * wholly below it go whatever the rules say, and the plan's start is never below it.
   */
  logStartOffset?: number;
}

export interface RetentionPlan {
  /** Leading entries of the manifest to delete, oldest first. */
  deleted: SegmentManifestEntry[];
  /**
   * The log's new start (the last deleted segment's lastOffset + 1, or the start asked for when
   * larger), or undefined when nothing is deleted and no start was asked for.
   */
  logStartOffset: number | undefined;
  /** How many leading segments each rule alone would delete; `deleted` is the longer prefix. */
  byTime: number;
  bySize: number;
}

/**
 * Whole sealed segments only, and only a prefix of the manifest, as Kafka: the log keeps no
 * hole, and the active (SQLite) segment is never deleted here.
 * - By time: leading segments whose maxTimestamp is more than retention.ms before now
 *   (Kafka: now − largestTimestamp > retention.ms), stopping at the first younger one.
 * - By size: while the whole log (sealed objects + SQLite tier) exceeds retention.bytes,
 *   the oldest segment goes if the log stays at or above retention.bytes without it — Kafka's
 *   rule, so the log never shrinks below retention.bytes and exceeds it by less than a
 *   segment.
 * Deleting the longer of the two prefixes is what applying both rules in turn gives.
 * - Below the start asked for: every segment that ends before it (Kafka deletes a segment
 *   once its next one starts at or below the log start); one that holds it stays.
 */
export function planRetention(manifest: SegmentManifest, options: RetentionOptions): RetentionPlan {
  const { retentionMs, retentionBytes, nowMs, activeBytes } = options;
  if (!Number.isSafeInteger(retentionMs) || retentionMs < -1) throw new RangeError(`retentionMs ${retentionMs}`);
  if (!Number.isSafeInteger(retentionBytes) || retentionBytes < -1) throw new RangeError(`retentionBytes ${retentionBytes}`);
  if (!Number.isSafeInteger(activeBytes) || activeBytes < 0) throw new RangeError(`activeBytes ${activeBytes}`);

  let byTime = 0;
  if (retentionMs >= 0) {
    while (byTime < manifest.length && nowMs - manifest[byTime]!.maxTimestamp > retentionMs) byTime++;
  }

  let bySize = 0;
  if (retentionBytes >= 0) {
    let excess = activeBytes - retentionBytes;
    for (const entry of manifest) excess += entry.bytes;
    while (bySize < manifest.length && excess - manifest[bySize]!.bytes >= 0) {
      excess -= manifest[bySize]!.bytes;
      bySize++;
    }
  }

  const floor = options.logStartOffset;
  if (floor !== undefined && (!Number.isSafeInteger(floor) || floor < 0)) throw new RangeError(`logStartOffset ${floor}`);
  let count = Math.max(byTime, bySize);
  while (floor !== undefined && count < manifest.length && manifest[count]!.lastOffset < floor) count++;
  const deleted = manifest.slice(0, count);
  const last = deleted.at(-1);
  const after = last === undefined ? undefined : last.lastOffset + 1;
  const logStartOffset = floor === undefined ? after : Math.max(floor, after ?? 0);
  return { deleted, logStartOffset, byTime, bySize };
}
