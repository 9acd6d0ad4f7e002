import { TributaryError } from "../errors.ts";
import {
  decodeRecordBatch,
  readBatchHeader,
  setBaseOffset,
  setPartitionLeaderEpoch,
} from "../protocol/record-batch.ts";
import type { LogBounds, LogStore, StoredBatch } from "./log-store.ts";

export interface ReadLimits {
  maxRecords: number;
  maxBytes: number;
}

export interface ReadResult {
  /** Whole stored batches; the first may start before the requested offset (readers skip those records). */
  batches: Uint8Array[];
  logStartOffset: number;
  highWatermark: number;
}

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
}

/**
 * One partition's log: offsets, appends and reads over a LogStore. Pure: no platform APIs.
 *
 * Invariants (asserted where breaking one would corrupt data):
 * - stored batches are contiguous: each batch's base offset is the previous one's last + 1;
 * - logStartOffset ≤ highWatermark ≤ logEndOffset.
 *
 * Until replication lands the high watermark is the log end offset: the leader's own
 * confirmed write is the only copy that counts (replication factor 1).
 */
export class PartitionLog {
  readonly #store: LogStore;
  #bounds: LogBounds;

  constructor(store: LogStore) {
    this.#store = store;
    this.#bounds = store.readBounds();
  }

  get logStartOffset(): number {
    return this.#bounds.logStartOffset;
  }

  get logEndOffset(): number {
    return this.#bounds.logEndOffset;
  }

  get highWatermark(): number {
    return this.#bounds.logEndOffset;
  }

  /**
   * Appends batches atomically, giving them the next offsets and the leader's epoch. Takes
   * ownership of the bytes: base offset and partition leader epoch are overwritten in place
   * (both lie outside the CRC, so the batch stays valid). The caller has validated the
   * batches' contents (CRC, records); here only their headers are read.
   */
  append(batches: readonly Uint8Array[], leaderEpoch: number): AppendResult {
    if (batches.length === 0) throw new TributaryError("INVALID_REQUEST", "an append needs at least one batch");
    const baseOffset = this.#bounds.logEndOffset;
    let nextOffset = baseOffset;
    const stored: StoredBatch[] = [];
    for (const bytes of batches) {
      const header = readBatchHeader(bytes, 0);
      setBaseOffset(bytes, 0, nextOffset);
      setPartitionLeaderEpoch(bytes, 0, leaderEpoch);
      const lastOffset = nextOffset + header.lastOffsetDelta;
      stored.push({
        baseOffset: nextOffset,
        lastOffset,
        maxTimestamp: header.maxTimestamp,
        recordCount: header.recordCount,
        bytes,
      });
      nextOffset = lastOffset + 1;
    }
    const bounds = { logStartOffset: this.#bounds.logStartOffset, logEndOffset: nextOffset };
    this.#store.append(stored, bounds);
    this.#bounds = bounds;
    return { baseOffset, lastOffset: nextOffset - 1 };
  }

  /**
   * Reads whole batches from `offset`, below the high watermark, within the limits: at least
   * one batch when a record is available, then more while both limits allow. An offset
   * before the log start or past the log end is OFFSET_OUT_OF_RANGE.
   */
  read(offset: number, limits: ReadLimits): ReadResult {
    this.#checkInRange(offset);
    const { logStartOffset, highWatermark } = this;
    const batches: Uint8Array[] = [];
    let records = 0;
    let bytes = 0;
    for (const batch of this.#store.batchesFrom(offset)) {
      if (batch.baseOffset >= highWatermark) break;
      if (batches.length > 0 && bytes + batch.bytes.byteLength > limits.maxBytes) break;
      batches.push(batch.bytes);
      bytes += batch.bytes.byteLength;
      records += Math.min(batch.lastOffset, highWatermark - 1) - Math.max(batch.baseOffset, offset) + 1;
      if (records >= limits.maxRecords || bytes >= limits.maxBytes) break;
    }
    return { batches, logStartOffset, highWatermark };
  }

  /**
   * The first offset whose record timestamp is at or after `timestampMs`, with that
   * timestamp; the high watermark (and no timestamp) when no such record is readable.
   * Decodes the one batch that holds it.
   */
  offsetForTimestamp(timestampMs: number): { offset: number; timestamp?: number } {
    const { logStartOffset, highWatermark } = this;
    const batch = this.#store.firstBatchWithTimestampAtOrAfter(timestampMs);
    if (batch && batch.baseOffset < highWatermark) {
      for (const record of decodeRecordBatch(batch.bytes).records) {
        if (record.offset < logStartOffset || record.offset >= highWatermark) continue;
        if (record.timestamp >= timestampMs) return { offset: record.offset, timestamp: record.timestamp };
      }
    }
    return { offset: highWatermark };
  }

  storage(): { batches: number; bytes: number } {
    return this.#store.size();
  }

  #checkInRange(offset: number): void {
    if (offset < this.logStartOffset || offset > this.logEndOffset) {
      throw new TributaryError(
        "OFFSET_OUT_OF_RANGE",
        `offset ${offset} is outside the log [${this.logStartOffset}, ${this.logEndOffset}]`,
        { logStartOffset: this.logStartOffset, highWatermark: this.highWatermark },
      );
    }
  }
}
