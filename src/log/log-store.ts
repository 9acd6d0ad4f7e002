/**
 * The storage a partition log runs on. Synchronous, because a Durable Object's SQLite API is
 * synchronous and writes without an `await` between them commit together. Two
 * implementations pass one conformance suite (test/log-store.cases.ts): an in-memory store
 * for the pure core's tests and simulations, and the SQLite store of the partition object.
 */

/** One record batch as stored: its bytes in Kafka's RecordBatch v2 format, and the header fields reads need. */
export interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  recordCount: number;
  bytes: Uint8Array;
}

/** The log's bounds. `logEndOffset` is the offset the next appended record gets. */
export interface LogBounds {
  logStartOffset: number;
  logEndOffset: number;
}

export interface LogStore {
  /** The bounds last written, or `{0, 0}` for a new log. */
  readBounds(): LogBounds;

  /** Appends batches (ascending, contiguous after the current end) and the new bounds, atomically. */
  append(batches: readonly StoredBatch[], bounds: LogBounds): void;

  /** Batches whose last offset is at or after `offset`, in offset order; iterate lazily. */
  batchesFrom(offset: number): Iterable<StoredBatch>;

  /** The first batch (lowest offsets) whose max timestamp is at or after `timestampMs`. */
  firstBatchWithTimestampAtOrAfter(timestampMs: number): StoredBatch | undefined;

  /** Number of batches and their bytes, for describe and bounds on storage. */
  size(): { batches: number; bytes: number };
}
