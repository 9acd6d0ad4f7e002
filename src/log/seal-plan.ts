/**
 * When to seal: which leading batches of the SQLite tier become the next R2 segment
 * (ARCHITECTURE.md decision 6). Pure: the partition object reads batch metadata, asks, and
 * writes the segment, records it in its manifest and deletes the rows.
 */
import { unsealedBytesMax, unsealedSegmentsMax } from "../limits.ts";

/** One batch of the SQLite tier, without its bytes. */
export interface UnsealedBatch {
  baseOffset: number;
  lastOffset: number;
  /** Its byte length. */
  bytes: number;
  maxTimestamp: number;
  /** When the leader appended it, where the store keeps that. */
  appendedAtMs?: number;
}

export interface SealInput {
  /** The SQLite tier's batches in offset order; read lazily, and no further than the plan needs. */
  batches: Iterable<UnsealedBatch>;
  highWatermark: number;
  segmentBytes: number;
  segmentMs: number;
  nowMs: number;
}

export type SealPlan =
  | {
      seal: true;
      /** How many leading batches the segment takes. */
      count: number;
      baseOffset: number;
      lastOffset: number;
      bytes: number;
      reason: "segment.bytes" | "segment.ms";
    }
  | {
      seal: false;
      /** When segment.ms will seal the committed batches now waiting; undefined when none wait. */
      nextCheckAtMs: number | undefined;
    };

/**
 * The next segment to seal, or when to ask again. Only batches entirely below the high
 * watermark are sealed: a segment is immutable, and a follower may still truncate above
 * the high watermark (KIP-101). The leading committed batches are sealed
 * - once they reach segment.bytes: whole batches while they fit in segment.bytes (one batch
 *   at least, which may alone be larger), as Kafka rolls before an append that would
 *   overflow the segment; or
 * - once the first of them is segment.ms old: all of them, up to segment.bytes as above.
 *   Its age counts from `appendedAtMs` — the leader's clock, which producers cannot skew —
 *   and from its maxTimestamp when the store does not keep append times (Kafka counts from
 *   the segment's first batch's largest timestamp).
 * One segment a call: after sealing it, ask again. Reads at most the batches of one segment
 * and the one after them.
 */
export function planSeal(input: SealInput): SealPlan {
  const { highWatermark, segmentBytes, segmentMs, nowMs } = input;
  if (!Number.isSafeInteger(segmentBytes) || segmentBytes < 1) throw new RangeError(`segmentBytes ${segmentBytes}`);
  if (!Number.isSafeInteger(segmentMs) || segmentMs < 1) throw new RangeError(`segmentMs ${segmentMs}`);
  let first: UnsealedBatch | undefined;
  let last: UnsealedBatch | undefined;
  let count = 0;
  let bytes = 0;
  let full = false;
  for (const batch of input.batches) {
    if (batch.lastOffset >= highWatermark) break;
    if (last && batch.baseOffset <= last.lastOffset) {
      throw new RangeError(`batch at ${batch.baseOffset} does not follow offset ${last.lastOffset}`);
    }
    if (count > 0 && bytes + batch.bytes > segmentBytes) {
      full = true;
      break;
    }
    first ??= batch;
    last = batch;
    count++;
    bytes += batch.bytes;
    if (bytes >= segmentBytes) {
      full = true;
      break;
    }
  }
  if (!first || !last) return { seal: false, nextCheckAtMs: undefined };
  const sealed = { seal: true, count, baseOffset: first.baseOffset, lastOffset: last.lastOffset, bytes } as const;
  if (full) return { ...sealed, reason: "segment.bytes" };
  const dueAtMs = (first.appendedAtMs ?? first.maxTimestamp) + segmentMs;
  if (nowMs >= dueAtMs) return { ...sealed, reason: "segment.ms" };
  return { seal: false, nextCheckAtMs: dueAtMs };
}

/**
 * Unsealed bytes (the whole SQLite tier, committed or not) past which produce answers a
 * retriable 503 BROKER_BUSY: unsealedSegmentsMax segments, and never past unsealedBytesMax.
 */
export function unsealedBytesBound(segmentBytes: number): number {
  return Math.min(unsealedSegmentsMax * segmentBytes, unsealedBytesMax);
}
