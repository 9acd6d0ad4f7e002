import { TributaryError } from "../errors.ts";
import { producerIdleMsMax, producersPerPartitionMax } from "../limits.ts";
import { decodeControlBatch, isControlBatch, isTransactionalBatch } from "../protocol/control-batch.ts";
import { readBatchHeader, setBaseOffset, setPartitionLeaderEpoch, type BatchHeader } from "../protocol/record-batch.ts";
import { decodeRecordBatch } from "../protocol/record-batch-decode.ts";
import { withMarkersPresent } from "../protocol/aborted-transactions.ts";
import type { BatchSize, EpochStart, LogBounds, LogStore, StoredBatch } from "./log-store.ts";
import {
  checkEpochNotFenced,
  checkProducerAppend,
  producerAppendOf,
  recordProducerBatch,
  truncateProducerEntry,
  type ProducerEntry,
  type ProducerFields,
} from "./producer-state.ts";
import { markerDecision, MemoryTransactionStore, TransactionState, type AbortedTransaction, type TransactionStore } from "./transaction-state.ts";

export interface ReadLimits {
  maxRecords: number;
  maxBytes: number;
}

export interface ReadResult {
  /** Whole stored batches; the first may start before the requested offset (readers skip those records). */
  batches: Uint8Array[];
  logStartOffset: number;
  highWatermark: number;
  /** The first offset of the oldest open transaction, else the high watermark (docs/transactions.md). */
  lastStableOffset?: number;
  /** The aborted transactions meeting the batches read, by first offset; absent when none does. */
  abortedTransactions?: AbortedTransaction[];
}

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  /** An idempotent producer's retry: these records were written before (at these offsets), nothing now. */
  duplicate?: true;
}

export interface AppendOptions {
  /** Moves the high watermark to the new log end in the same write (a leader alone in its ISR). */
  commit?: boolean;
  /** The appending replica's clock: an idempotent producer's last activity. Default: the batch's max timestamp. */
  nowMs?: number;
}

/** Where a leader epoch's records end in this log: KIP-101's answer to a diverging follower. */
export interface EpochEnd {
  /** The largest epoch in this log at or below the one asked for; -1 when there is none. */
  epoch: number;
  /** The first offset after that epoch's records (the next epoch's start, or the log end). */
  endOffset: number;
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`partition log invariant broken: ${message}`);
}

/**
 * One partition replica's log: offsets, appends, reads, the high watermark and the leader
 * epoch cache, over a LogStore. Pure: no platform APIs.
 *
 * Invariants (asserted where breaking one would corrupt data):
 * - stored batches are contiguous: each batch's base offset is the previous one's last + 1;
 * - logStartOffset ≤ highWatermark ≤ logEndOffset, and the high watermark never goes back
 *   except by a truncation (which KIP-101 keeps above it for committed records);
 * - leader epochs never decrease along the log.
 */
export class PartitionLog {
  readonly #store: LogStore;
  #bounds: LogBounds;
  #epochs: EpochStart[];
  /** Where the batches held in this store begin: below it, records live in sealed segments. */
  #localStartOffset: number;
  #localBytes: number;
  /** Open transactions, markers, the aborted index (transaction-state.ts), written in the batches' turn. */
  readonly #transactions: TransactionState;

  constructor(store: LogStore, transactions: TransactionStore = new MemoryTransactionStore()) {
    this.#store = store;
    this.#transactions = new TransactionState(transactions);
    this.#bounds = store.readBounds();
    this.#epochs = store.epochStarts();
    this.#localStartOffset = store.firstBatchOffset() ?? this.#bounds.logEndOffset;
    this.#localBytes = store.size().bytes;
  }

  get logStartOffset(): number {
    return this.#bounds.logStartOffset;
  }

  get logEndOffset(): number {
    return this.#bounds.logEndOffset;
  }

  get highWatermark(): number {
    return this.#bounds.highWatermark;
  }

  /** The first offset of the oldest open transaction, else the high watermark: read_committed reads stop here. */
  get lastStableOffset(): number {
    return this.#transactions.lastStableOffset(this.#bounds.highWatermark);
  }

  /** The partition's transaction state (open transactions, markers, aborted index). */
  get transactions(): TransactionState {
    return this.#transactions;
  }

  /** The first offset held in this store (SQLite): offsets from the log start up to it are in sealed segments. */
  get localStartOffset(): number {
    return this.#localStartOffset;
  }

  /** Bytes of batches held in this store: what sealing keeps bounded. */
  get localBytes(): number {
    return this.#localBytes;
  }

  /** The epoch of the last batch, or -1 for an empty log. */
  get latestEpoch(): number {
    return this.#epochs.at(-1)?.epoch ?? -1;
  }

  epochStarts(): EpochStart[] {
    return this.#epochs.map((start) => ({ ...start }));
  }

  /**
   * Appends batches atomically as the leader: the next offsets and the leader's epoch.
   * Takes ownership of the bytes: base offset and partition leader epoch are overwritten in
   * place (both lie outside the CRC). The caller has validated the batches' contents; here
   * only their headers are read. The high watermark is the caller's to advance, or moves to
   * the new log end in the same write with `commit` (a leader alone in its ISR).
   *
   * Batches of an idempotent producer are checked against its state first
   * (producer-state.ts): a retry of records already written answers their offsets with
   * `duplicate` and writes nothing; the 409s throw, nothing written. The producer's new
   * state is written with the batches, in the same synchronous turn.
   */
  append(batches: readonly Uint8Array[], leaderEpoch: number, options: AppendOptions = {}): AppendResult {
    if (batches.length === 0) throw new TributaryError("INVALID_REQUEST", "an append needs at least one batch");
    assert(leaderEpoch >= this.latestEpoch, `epoch ${leaderEpoch} after ${this.latestEpoch}`);
    const headers = batches.map((bytes) => readBatchHeader(bytes, 0));
    if (headers.some((header) => isControlBatch(header.attributes))) return this.#appendMarker(batches, headers, leaderEpoch, options);
    const producer = producerAppendOf(headers);
    if (headers.some((header) => isTransactionalBatch(header.attributes)) && !producer) throw new TributaryError("INVALID_RECORD", "a transactional batch carries its producer's id, epoch and sequence");
    if (producer) {
      checkEpochNotFenced(this.#transactions.highestEpoch(producer.producerId), producer.producerId, producer.producerEpoch);
      const decision = checkProducerAppend(this.#store.readProducer(producer.producerId), producer);
      if (decision.kind === "duplicate") return { baseOffset: decision.baseOffset, lastOffset: decision.lastOffset, duplicate: true };
    }
    const baseOffset = this.#bounds.logEndOffset;
    let nextOffset = baseOffset;
    const stored: StoredBatch[] = [];
    batches.forEach((bytes, index) => {
      const header = headers[index]!;
      setBaseOffset(bytes, 0, nextOffset);
      setPartitionLeaderEpoch(bytes, 0, leaderEpoch);
      stored.push(this.#stored(bytes, nextOffset, leaderEpoch, header.lastOffsetDelta, header.maxTimestamp, header.recordCount));
      nextOffset += header.lastOffsetDelta + 1;
    });
    this.#appendStored(stored, options.commit ?? false);
    if (producer) this.#rememberProducers(headers, stored, options.nowMs);
    if (producer) this.#recordTransactions(headers, stored);
    return { baseOffset, lastOffset: nextOffset - 1 };
  }

  /**
   * A transaction marker (a control batch, src/protocol/control-batch.ts) as the leader: alone in
   * its append; checked by the epoch rule; a retry of the producer's last marker answers its
   * offset with `duplicate` and writes nothing (transaction-state.ts).
   */
  #appendMarker(batches: readonly Uint8Array[], headers: readonly BatchHeader[], leaderEpoch: number, options: AppendOptions): AppendResult {
    const marker = batches.length === 1 ? decodeControlBatch(batches[0]!) : undefined;
    if (!marker) throw new TributaryError("INVALID_RECORD", "a transaction marker is one control batch, appended alone");
    const decision = markerDecision(this.#transactions.entry(marker.producerId), marker, this.#store.readProducer(marker.producerId)?.producerEpoch);
    if (decision.kind === "retry") return { baseOffset: decision.offset, lastOffset: decision.offset, duplicate: true };
    const bytes = batches[0]!;
    const offset = this.#bounds.logEndOffset;
    setBaseOffset(bytes, 0, offset);
    setPartitionLeaderEpoch(bytes, 0, leaderEpoch);
    this.#appendStored([this.#stored(bytes, offset, leaderEpoch, 0, headers[0]!.maxTimestamp, 1)], options.commit ?? false);
    this.#transactions.recordMarker(marker, offset);
    return { baseOffset: offset, lastOffset: offset };
  }

  /** Transactional batches open their producer's transaction; markers close it (leader and follower alike). */
  #recordTransactions(headers: readonly BatchHeader[], stored: readonly StoredBatch[], batches?: readonly Uint8Array[]): void {
    headers.forEach((header, index) => {
      if (!isTransactionalBatch(header.attributes)) return;
      const at = stored[index]!.baseOffset;
      if (!isControlBatch(header.attributes)) return this.#transactions.recordBatch(header.producerId, header.producerEpoch, at);
      const marker = batches && decodeControlBatch(batches[index]!);
      if (marker) this.#transactions.recordMarker(marker, at);
    });
  }

  /**
   * Appends batches copied from the leader, as they are: their offsets must continue this
   * log exactly, and their epochs must not go back. Atomic. Idempotent producers' state is
   * rebuilt from the batch headers as the leader built it, so a new leader deduplicates too.
   */
  appendReplicated(batches: readonly Uint8Array[], nowMs?: number): void {
    let nextOffset = this.#bounds.logEndOffset;
    let epoch = this.latestEpoch;
    const stored: StoredBatch[] = [];
    const headers = batches.map((bytes) => readBatchHeader(bytes, 0));
    for (const [index, bytes] of batches.entries()) {
      const header = headers[index]!;
      if (header.baseOffset !== nextOffset || header.partitionLeaderEpoch < epoch) {
        throw new TributaryError("INVALID_REQUEST", `replicated batch at ${header.baseOffset} (epoch ${header.partitionLeaderEpoch}) does not continue the log at ${nextOffset} (epoch ${epoch})`);
      }
      epoch = header.partitionLeaderEpoch;
      stored.push(this.#stored(bytes, nextOffset, epoch, header.lastOffsetDelta, header.maxTimestamp, header.recordCount));
      nextOffset += header.lastOffsetDelta + 1;
    }
    if (stored.length === 0) return;
    this.#appendStored(stored, false);
    this.#rememberProducers(headers, stored, nowMs);
    this.#recordTransactions(headers, stored, batches);
  }

  /** What this partition remembers of an idempotent producer (undefined: unknown here). */
  producer(producerId: number): ProducerEntry | undefined {
    return this.#store.readProducer(producerId);
  }

  /**
   * The timestamps of the records at `baseOffset`…`lastOffset`, read from the batches held
   * here (a duplicate's answer); undefined when some of them are not held (sealed away).
   */
  recordTimestamps(baseOffset: number, lastOffset: number): number[] | undefined {
    if (baseOffset < this.#localStartOffset || lastOffset >= this.#bounds.logEndOffset) return undefined;
    const timestamps: number[] = [];
    for (const batch of this.#store.batchesFrom(baseOffset)) {
      if (batch.baseOffset > lastOffset) break;
      for (const record of decodeRecordBatch(batch.bytes).records) {
        if (record.offset >= baseOffset && record.offset <= lastOffset) timestamps.push(record.timestamp);
      }
    }
    return timestamps.length === lastOffset - baseOffset + 1 ? timestamps : undefined;
  }

  /** Moves the high watermark forward (never back), never past the log end. */
  advanceHighWatermark(offset: number): void {
    const highWatermark = Math.min(offset, this.#bounds.logEndOffset);
    if (highWatermark <= this.#bounds.highWatermark) return;
    this.#bounds = { ...this.#bounds, highWatermark };
    this.#store.writeBounds(this.#bounds);
  }

  /**
   * Removes every record at or after `offset` — a batch boundary — as a follower does where
   * its log diverges from its leader's (KIP-101). Atomic.
   */
  truncateFrom(offset: number): void {
    if (offset >= this.#bounds.logEndOffset) return;
    assert(offset >= this.#localStartOffset, `truncation to ${offset} below the held batches (${this.#localStartOffset})`);
    const boundary = [...this.#store.batchesFrom(offset)][0];
    assert(boundary === undefined || boundary.baseOffset === offset, `truncation to ${offset} inside a batch`);
    this.#bounds = {
      logStartOffset: this.#bounds.logStartOffset,
      logEndOffset: offset,
      highWatermark: Math.min(this.#bounds.highWatermark, offset),
    };
    this.#store.truncateFrom(offset, this.#bounds);
    this.#epochs = this.#epochs.filter((start) => start.startOffset < offset);
    this.#localBytes = this.#store.size().bytes;
    this.#truncateProducers(offset);
    this.#transactions.truncateFrom(offset);
  }

  /** Drops the held batches below `offset` once a sealed segment holds them. They are committed, so the bounds stay. */
  dropBefore(offset: number): void {
    assert(offset <= this.#bounds.highWatermark, `dropping ${offset} above the high watermark`);
    this.#store.deleteBefore(offset, this.#bounds);
    this.#localStartOffset = this.#store.firstBatchOffset() ?? this.#bounds.logEndOffset;
    this.#localBytes = this.#store.size().bytes;
  }

  /** Retention: records before `offset` are gone for good. Moves forward only. */
  advanceLogStart(offset: number): void {
    if (offset <= this.#bounds.logStartOffset) return;
    assert(offset <= this.#localStartOffset || offset <= this.#bounds.highWatermark, `log start ${offset} past committed data`);
    this.#bounds = { ...this.#bounds, logStartOffset: offset };
    this.#store.writeBounds(this.#bounds);
    this.#transactions.dropBefore(offset);
  }

  /**
   * A follower too far behind its leader's held batches starts over at `offset` (its leader's
   * first held offset): everything below lives in the leader's sealed segments, which it
   * adopts; it takes the leader's epoch cache below that point.
   */
  restartAt(offset: number, logStartOffset: number, epochs: readonly EpochStart[]): void {
    // Producer state of records above this replica's high watermark may describe a diverging tail: forget it.
    this.#truncateProducers(this.#bounds.highWatermark);
    this.#transactions.truncateFrom(this.#bounds.highWatermark);
    this.#bounds = { logStartOffset, logEndOffset: offset, highWatermark: offset };
    this.#store.deleteBefore(Number.MAX_SAFE_INTEGER, this.#bounds);
    const kept = epochs.filter((start) => start.startOffset < offset);
    this.#store.replaceEpochStarts(kept);
    this.#epochs = kept.map((start) => ({ ...start }));
    this.#localStartOffset = offset;
    this.#localBytes = 0;
  }

  /**
   * KIP-101: the largest epoch at or below `epoch` in this log, and where its records end —
   * the next epoch's start, or the log end for the latest epoch.
   */
  endOffsetForEpoch(epoch: number): EpochEnd {
    let index = -1;
    for (let at = 0; at < this.#epochs.length && this.#epochs[at]!.epoch <= epoch; at++) index = at;
    if (index < 0) return { epoch: -1, endOffset: this.#epochs[0]?.startOffset ?? this.#bounds.logEndOffset };
    const next = this.#epochs[index + 1];
    return { epoch: this.#epochs[index]!.epoch, endOffset: next ? next.startOffset : this.#bounds.logEndOffset };
  }

  /** The base offset of the held batch holding `offset`, or `offset` itself at a boundary or past the end. */
  batchBoundaryAtOrBefore(offset: number): number {
    for (const batch of this.#store.batchSizesFrom(offset)) return batch.baseOffset <= offset ? batch.baseOffset : offset;
    return offset;
  }

  /** The epoch of the record at `offset` (-1 before the first batch). */
  epochAt(offset: number): number {
    let epoch = -1;
    for (const start of this.#epochs) {
      if (start.startOffset > offset) break;
      epoch = start.epoch;
    }
    return epoch;
  }

  /**
   * Reads whole batches from `offset`, below the high watermark, within the limits: at least
   * one batch when a record is available, then more while both limits allow. An offset
   * before the log start or past the log end is OFFSET_OUT_OF_RANGE. `upTo` reads past the
   * high watermark (a leader feeding its followers).
   */
  read(offset: number, limits: ReadLimits, upTo: number = this.highWatermark): ReadResult {
    this.#checkInRange(offset);
    // Below the held batches the records are in sealed segments: the caller reads those.
    assert(offset >= this.#localStartOffset || offset >= upTo, `read at ${offset} below the held batches (${this.#localStartOffset})`);
    const batches: Uint8Array[] = [];
    let records = 0;
    let bytes = 0;
    for (const batch of this.#store.batchesFrom(offset)) {
      if (batch.baseOffset >= upTo) break;
      if (batches.length > 0 && bytes + batch.bytes.byteLength > limits.maxBytes) break;
      batches.push(batch.bytes);
      bytes += batch.bytes.byteLength;
      records += Math.min(batch.lastOffset, upTo - 1) - Math.max(batch.baseOffset, offset) + 1;
      if (records >= limits.maxRecords || bytes >= limits.maxBytes) break;
    }
    return this.#withTransactions({ batches, logStartOffset: this.logStartOffset, highWatermark: this.highWatermark }, offset);
  }

  /**
   * A read's answer with the last stable offset and the aborted transactions meeting its
   * batches (what a read_committed reader filters with): also for batches read from sealed
   * segments, whose aborted transactions this index still holds until retention drops them.
   */
  #withTransactions(result: ReadResult, offset: number): ReadResult {
    const lastStableOffset = this.lastStableOffset;
    const last = result.batches.at(-1);
    const lastHeader = last && readBatchHeader(last, 0);
    const end = lastHeader ? lastHeader.baseOffset + lastHeader.lastOffsetDelta + 1 : offset;
    const aborted = withMarkersPresent(this.#transactions.abortedBetween(offset, end), result.batches, end);
    return aborted.length > 0 ? { ...result, lastStableOffset, abortedTransactions: aborted } : { ...result, lastStableOffset };
  }

  /** The aborted transactions meeting [from, to) (what compaction drops). */
  abortedBetween(from: number, to: number): AbortedTransaction[] {
    return this.#transactions.abortedBetween(from, to);
  }

  /** The answer for batches read elsewhere (sealed segments) from `offset`: the same transaction fields. */
  withTransactions(result: ReadResult, offset: number): ReadResult {
    return this.#withTransactions(result, offset);
  }

  /**
   * The first offset whose record timestamp is at or after `timestampMs`, with that
   * timestamp; the high watermark (and no timestamp) when no such record is readable.
   * Decodes the one batch that holds it.
   */
  /** The largest timestamp of the batches held here below the high watermark; undefined when there are none. */
  maxHeldTimestamp(): number | undefined {
    return this.#store.maxTimestampBelow(this.highWatermark);
  }

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

  /** The held batches from the first held one, with their sizes only (planning a seal). */
  heldBatchSizes(): Iterable<BatchSize> {
    return this.#store.batchSizesFrom(this.#localStartOffset);
  }

  /** The first `count` held batches, whole (sealing them). */
  firstHeldBatches(count: number): StoredBatch[] {
    const batches: StoredBatch[] = [];
    for (const batch of this.#store.batchesFrom(this.#localStartOffset)) {
      if (batches.length >= count) break;
      batches.push(batch);
    }
    return batches;
  }

  storage(): { batches: number; bytes: number } {
    return this.#store.size();
  }

  #stored(bytes: Uint8Array, baseOffset: number, leaderEpoch: number, lastOffsetDelta: number, maxTimestamp: number, recordCount: number): StoredBatch {
    return { baseOffset, lastOffset: baseOffset + lastOffsetDelta, leaderEpoch, maxTimestamp, recordCount, bytes };
  }

  #appendStored(stored: StoredBatch[], commit: boolean): void {
    const logEndOffset = stored.at(-1)!.lastOffset + 1;
    if (this.#localBytes === 0) this.#localStartOffset = stored[0]!.baseOffset;
    for (const batch of stored) this.#localBytes += batch.bytes.byteLength;
    this.#bounds = { ...this.#bounds, logEndOffset, highWatermark: commit ? logEndOffset : this.#bounds.highWatermark };
    this.#store.append(stored, this.#bounds);
    for (const batch of stored) {
      if (this.#epochs.at(-1)?.epoch !== batch.leaderEpoch) this.#epochs.push({ epoch: batch.leaderEpoch, startOffset: batch.baseOffset });
    }
  }

  /**
   * Records the stored batches of idempotent producers in their state (leader and follower
   * alike), in the same synchronous turn as the batches. A producer new here may push the
   * table past its bound: idle and then idlest producers are forgotten (limits.ts).
   */
  #rememberProducers(headers: readonly BatchHeader[], stored: readonly StoredBatch[], nowMs: number | undefined): void {
    const entries = new Map<number, ProducerEntry | undefined>();
    let newProducer = false;
    let latestMs = 0;
    stored.forEach((batch, index) => {
      const header = headers[index]!;
      if (header.producerId < 0 || isControlBatch(header.attributes)) return; // a marker carries no sequence
      if (!entries.has(header.producerId)) {
        const known = this.#store.readProducer(header.producerId);
        newProducer ||= known === undefined;
        entries.set(header.producerId, known);
      }
      const activityMs = nowMs ?? batch.maxTimestamp;
      latestMs = Math.max(latestMs, activityMs);
      entries.set(header.producerId, recordProducerBatch(entries.get(header.producerId), { ...header, baseOffset: batch.baseOffset }, activityMs));
    });
    if (entries.size === 0) return;
    this.#store.writeProducers([...entries.values()].filter((entry) => entry !== undefined));
    if (newProducer) this.#store.forgetProducers(latestMs - producerIdleMsMax, producersPerPartitionMax);
  }

  /** Producer state once records from `offset` on are gone: runs cut there, producers left with none forgotten. */
  #truncateProducers(offset: number): void {
    for (const entry of this.#store.producersEndingAtOrAfter(offset)) {
      const kept = truncateProducerEntry(entry, offset);
      if (kept) this.#store.writeProducers([kept]);
      else this.#store.deleteProducer(entry.producerId);
    }
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
