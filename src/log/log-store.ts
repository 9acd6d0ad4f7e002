import type { ProducerEntry } from "./producer-state.ts";

/**
 * The storage a partition log runs on. Synchronous, because a Durable Object's SQLite API is
 * synchronous and writes without an `await` between them commit together. Two
 * implementations pass one conformance suite (test/shared/log-store.cases.ts): an in-memory
 * store for the pure core's tests and simulations, and the SQLite store of the partition
 * object.
 */

/** One record batch as stored: its bytes in Kafka's RecordBatch v2 format, and the header fields reads need. */
export interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  /** The leader epoch that wrote it (the batch's partitionLeaderEpoch): the epoch cache derives from it. */
  leaderEpoch: number;
  maxTimestamp: number;
  recordCount: number;
  bytes: Uint8Array;
}

/** A stored batch's header fields and size, without its bytes. */
export interface BatchSize extends Omit<StoredBatch, "bytes"> {
  byteLength: number;
}

/**
 * The log's bounds. `logEndOffset` is the offset the next appended record gets;
 * `highWatermark` the first offset not yet known to be on every in-sync replica.
 * logStartOffset ≤ highWatermark ≤ logEndOffset.
 */
export interface LogBounds {
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
}

/** Where a leader epoch's batches begin (Kafka's leader-epoch cache, KIP-101). */
export interface EpochStart {
  epoch: number;
  startOffset: number;
}

export interface LogStore {
  /** The bounds last written, or all zero for a new log. */
  readBounds(): LogBounds;

  /** Appends batches (ascending, contiguous after the current end) and the new bounds, atomically. */
  append(batches: readonly StoredBatch[], bounds: LogBounds): void;

  /** Writes new bounds alone (the high watermark moved). */
  writeBounds(bounds: LogBounds): void;

  /** Deletes every batch at or after `offset` (a batch boundary), and the epochs starting there, with the new bounds, atomically. */
  truncateFrom(offset: number, bounds: LogBounds): void;

  /** Deletes every batch that ends before `offset` (they were sealed into a segment), with the new bounds, atomically. */
  deleteBefore(offset: number, bounds: LogBounds): void;

  /** Replaces the leader-epoch cache (a follower adopting its leader's, below a restart point). */
  replaceEpochStarts(starts: readonly EpochStart[]): void;

  /** Batches whose last offset is at or after `offset`, in offset order; iterate lazily. */
  batchesFrom(offset: number): Iterable<StoredBatch>;

  /** The same batches' header fields and byte lengths, without their bytes (planning a seal). */
  batchSizesFrom(offset: number): Iterable<BatchSize>;

  /** The first batch (lowest offsets) whose max timestamp is at or after `timestampMs`. */
  firstBatchWithTimestampAtOrAfter(timestampMs: number): StoredBatch | undefined;

  /** The largest max timestamp of the batches that start below `offset`; undefined when none does. */
  maxTimestampBelow(offset: number): number | undefined;

  /**
   * The first offset of each leader epoch in the log, ascending. Kept apart from the
   * batches (appends record new epochs; truncation removes them), so sealing batches away
   * into segments does not forget them.
   */
  epochStarts(): EpochStart[];

  /** The base offset of the first batch held, or undefined when none is. */
  firstBatchOffset(): number | undefined;

  /** Number of batches and their bytes, for describe and bounds on storage. */
  size(): { batches: number; bytes: number };

  // ---- idempotent producers (src/log/producer-state.ts) --------------------------------
  // Written by the log in the same synchronous turn as the batches they describe, so both
  // commit together.

  /** A producer's state, or undefined when it is unknown here (never seen, or forgotten). */
  readProducer(producerId: number): ProducerEntry | undefined;

  /** Writes producers' states, replacing what was there. */
  writeProducers(entries: readonly ProducerEntry[]): void;

  deleteProducer(producerId: number): void;

  /** Every producer known here, by id (forgetProducers keeps them at most producersPerPartitionMax): Kafka's DescribeProducers. */
  readProducers(): ProducerEntry[];

  /** The producers whose last run ends at or after `offset`: those a truncation there changes. */
  producersEndingAtOrAfter(offset: number): ProducerEntry[];

  /** Forgets the producers last active at or before `idleSinceMs`, then the idlest beyond `keepAtMost`. */
  forgetProducers(idleSinceMs: number, keepAtMost: number): void;

  producerCount(): number;
}

export const emptyBounds: LogBounds = { logStartOffset: 0, logEndOffset: 0, highWatermark: 0 };
