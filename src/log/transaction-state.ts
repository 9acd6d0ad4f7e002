import { TributaryError } from "../errors.ts";
import { producersPerPartitionMax } from "../limits.ts";
import type { MarkerResult, TransactionMarker } from "../protocol/control-batch.ts";
import { checkEpochNotFenced } from "./producer-state.ts";
import type { AbortedTransaction } from "../protocol/aborted-transactions.ts";

/**
 * A partition's half of transactions (docs/transactions.md, "The partition"; Kafka's
 * ProducerStateManager with KIP-98 and KIP-890), pure. Per producer id it remembers the highest
 * epoch seen in a transactional batch or a marker, its open transaction's first offset, and its
 * last marker; per partition, the aborted-transactions index. From them:
 *
 *   last stable offset  the first offset of the oldest open transaction, else the high watermark
 *   aborted index       {producerId, firstOffset, lastOffset (the ABORT marker's offset)}: a
 *                       read_committed reader skips that producer's transactional batches between
 *
 * Rules (a leader checks; a leader and its followers record the same batches alike):
 *
 *   transactional batch, epoch < highest seen ─────────► 409 INVALID_PRODUCER_EPOCH
 *   transactional batch, none open ────────────────────► opens one at its base offset
 *   marker, epoch = last marker's, same result ────────► a retry: nothing written (idempotent)
 *   marker, epoch ≤ last marker's otherwise ───────────► 409 INVALID_PRODUCER_EPOCH
 *   marker, epoch < highest seen ──────────────────────► 409 INVALID_PRODUCER_EPOCH
 *   marker ────────────────────────────────────────────► written; closes the open transaction
 *                                                        (ABORT: into the aborted index)
 *
 * Every transaction end bumps the epoch (KIP-890 part 2), so a marker with its transaction's last
 * marker's epoch can only be a retry, or a late copy of one, whether or not a new transaction
 * is open since: it is never written twice.
 */

export interface LastMarker {
  producerEpoch: number;
  result: MarkerResult;
  offset: number;
  /** The first offset of the transaction it closed, if one was open: a truncation below the marker reopens it. */
  closedFirstOffset?: number;
  /** The coordinator epoch the marker carries (DescribeProducers shows it); absent in rows stored before it was kept. */
  coordinatorEpoch?: number;
}

export interface TransactionEntry {
  producerId: number;
  /** The highest epoch seen of this producer in a transactional batch or a marker. */
  producerEpoch: number;
  /** The first offset of its open transaction; undefined when none is open. */
  openFirstOffset?: number;
  lastMarker?: LastMarker;
}

/** Its shape is the fetch's (src/protocol/aborted-transactions.ts), which carries the index to readers. */
export type { AbortedTransaction };

/** Where the state lives: in memory (tests, simulations) or the partition's SQLite (src/objects/sqlite-transaction-store.ts). */
export interface TransactionStore {
  /** Every entry: read once when the log opens (at most producersPerPartitionMax). */
  readEntries(): TransactionEntry[];
  writeEntry(entry: TransactionEntry): void;
  deleteEntry(producerId: number): void;
  addAborted(aborted: AbortedTransaction): void;
  /** The aborted transactions whose span meets [from, to), by first offset. */
  abortedBetween(from: number, to: number): AbortedTransaction[];
  hasAborted(): boolean;
  /** Truncation: those closed at or after `offset` go. */
  deleteAbortedFrom(offset: number): void;
  /** Retention: those closed before `offset` go. */
  deleteAbortedBefore(offset: number): void;
}

/** The entry after a transactional data batch of its producer at `baseOffset`. */
export function recordTransactionalBatch(entry: TransactionEntry | undefined, producerId: number, producerEpoch: number, baseOffset: number): TransactionEntry {
  if (!entry) return { producerId, producerEpoch, openFirstOffset: baseOffset };
  return { ...entry, producerEpoch: Math.max(entry.producerEpoch, producerEpoch), openFirstOffset: entry.openFirstOffset ?? baseOffset };
}

/**
 * Whether a marker is written ("write") or is a retry of the last one (its offset), by the rules
 * above; throws INVALID_PRODUCER_EPOCH. `idempotentEpoch` is the epoch the idempotent producer
 * state holds for it, if any: data at that epoch was written, so a marker below it is fenced.
 */
export function markerDecision(entry: TransactionEntry | undefined, marker: TransactionMarker, idempotentEpoch?: number): { kind: "write" } | { kind: "retry"; offset: number } {
  const last = entry?.lastMarker;
  if (last && marker.producerEpoch <= last.producerEpoch) {
    if (marker.producerEpoch === last.producerEpoch && marker.result === last.result) return { kind: "retry", offset: last.offset };
    throw new TributaryError(
      "INVALID_PRODUCER_EPOCH",
      `producer ${marker.producerId}'s transaction with epoch ${last.producerEpoch} already ended (${last.result}); a ${marker.result} marker with epoch ${marker.producerEpoch} is fenced`,
      { producerId: marker.producerId, producerEpoch: entry!.producerEpoch },
    );
  }
  const highest = Math.max(entry?.producerEpoch ?? -1, idempotentEpoch ?? -1);
  checkEpochNotFenced(highest < 0 ? undefined : highest, marker.producerId, marker.producerEpoch);
  return { kind: "write" };
}

/** The entry after a marker written at `offset`, and the aborted transaction it closes, if any. */
export function recordMarker(entry: TransactionEntry | undefined, marker: TransactionMarker, offset: number): { entry: TransactionEntry; aborted?: AbortedTransaction } {
  const open = entry?.openFirstOffset;
  const lastMarker: LastMarker = { producerEpoch: marker.producerEpoch, result: marker.result, offset, coordinatorEpoch: marker.coordinatorEpoch, ...(open !== undefined ? { closedFirstOffset: open } : {}) };
  const next: TransactionEntry = { producerId: marker.producerId, producerEpoch: Math.max(entry?.producerEpoch ?? -1, marker.producerEpoch), lastMarker };
  const aborted = marker.result === "abort" && open !== undefined ? { producerId: marker.producerId, firstOffset: open, lastOffset: offset } : undefined;
  return aborted ? { entry: next, aborted } : { entry: next };
}

/**
 * The entry once the log is truncated at `offset` (KIP-101): a transaction opened at or after
 * it is no longer open; a marker at or after it is gone, and the transaction it closed is open
 * again when it began before `offset`. The highest epoch stays: a coordinator writes the lost
 * marker again with the same epoch, which the rule allows.
 */
export function truncateTransactionEntry(entry: TransactionEntry, offset: number): TransactionEntry {
  let { openFirstOffset, lastMarker } = entry;
  if (openFirstOffset !== undefined && openFirstOffset >= offset) openFirstOffset = undefined;
  if (lastMarker && lastMarker.offset >= offset) {
    const reopened = lastMarker.closedFirstOffset;
    openFirstOffset = reopened !== undefined && reopened < offset ? reopened : undefined;
    lastMarker = undefined;
  }
  return { producerId: entry.producerId, producerEpoch: entry.producerEpoch, ...(openFirstOffset !== undefined ? { openFirstOffset } : {}), ...(lastMarker ? { lastMarker } : {}) };
}

/** The last stable offset: the oldest open transaction's first offset, never past the high watermark. */
export function lastStableOffsetOf(openFirstOffsets: Iterable<number>, highWatermark: number): number {
  let lso = highWatermark;
  for (const first of openFirstOffsets) lso = Math.min(lso, first);
  return lso;
}

/**
 * A partition's transaction state over its store: entries held in memory (read once), written
 * through in the caller's synchronous turn, so they commit with the batches they describe.
 */
export class TransactionState {
  readonly #store: TransactionStore;
  readonly #entries = new Map<number, TransactionEntry>();
  #hasAborted: boolean;

  constructor(store: TransactionStore) {
    this.#store = store;
    for (const entry of store.readEntries()) this.#entries.set(entry.producerId, entry);
    this.#hasAborted = store.hasAborted();
  }

  entry(producerId: number): TransactionEntry | undefined {
    return this.#entries.get(producerId);
  }

  /** The highest epoch seen of a producer in a transactional batch or marker. */
  highestEpoch(producerId: number): number | undefined {
    return this.#entries.get(producerId)?.producerEpoch;
  }

  lastStableOffset(highWatermark: number): number {
    const open: number[] = [];
    for (const entry of this.#entries.values()) if (entry.openFirstOffset !== undefined) open.push(entry.openFirstOffset);
    return lastStableOffsetOf(open, highWatermark);
  }

  /** The open transactions, oldest first. */
  openTransactions(): { producerId: number; producerEpoch: number; firstOffset: number; coordinatorEpoch: number }[] {
    const open = [...this.#entries.values()].filter((entry) => entry.openFirstOffset !== undefined);
    return open
      .map((entry) => ({ producerId: entry.producerId, producerEpoch: entry.producerEpoch, firstOffset: entry.openFirstOffset!, coordinatorEpoch: entry.lastMarker?.coordinatorEpoch ?? -1 }))
      .sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** The aborted transactions meeting [from, to); nothing is read when none was ever aborted here. */
  abortedBetween(from: number, to: number): AbortedTransaction[] {
    return this.#hasAborted && from < to ? this.#store.abortedBetween(from, to) : [];
  }

  recordBatch(producerId: number, producerEpoch: number, baseOffset: number): void {
    const before = this.#entries.get(producerId);
    const after = recordTransactionalBatch(before, producerId, producerEpoch, baseOffset);
    if (before && before.producerEpoch === after.producerEpoch && before.openFirstOffset === after.openFirstOffset) return; // nothing new: no row written
    this.#put(after);
  }

  recordMarker(marker: TransactionMarker, offset: number): void {
    const { entry, aborted } = recordMarker(this.#entries.get(marker.producerId), marker, offset);
    this.#put(entry);
    if (aborted) {
      this.#store.addAborted(aborted);
      this.#hasAborted = true;
    }
  }

  truncateFrom(offset: number): void {
    for (const entry of [...this.#entries.values()]) {
      const kept = truncateTransactionEntry(entry, offset);
      if (kept.openFirstOffset !== entry.openFirstOffset || kept.lastMarker !== entry.lastMarker) this.#put(kept);
    }
    if (this.#hasAborted) {
      this.#store.deleteAbortedFrom(offset);
      this.#hasAborted = this.#store.hasAborted();
    }
  }

  /** Retention moved the log start: aborted transactions wholly before it are of no reader's concern. */
  dropBefore(offset: number): void {
    if (!this.#hasAborted) return;
    this.#store.deleteAbortedBefore(offset);
    this.#hasAborted = this.#store.hasAborted();
  }

  #put(entry: TransactionEntry): void {
    const isNew = !this.#entries.has(entry.producerId);
    this.#entries.set(entry.producerId, entry);
    this.#store.writeEntry(entry);
    if (isNew && this.#entries.size > producersPerPartitionMax) this.#forgetOldestClosed();
  }

  /** Past the bound, the producer whose last marker is oldest (none open) is forgotten: its epoch fence goes with it. */
  #forgetOldestClosed(): void {
    let oldest: TransactionEntry | undefined;
    for (const entry of this.#entries.values()) {
      if (entry.openFirstOffset !== undefined) continue;
      if (!oldest || (entry.lastMarker?.offset ?? -1) < (oldest.lastMarker?.offset ?? -1)) oldest = entry;
    }
    if (!oldest) return;
    this.#entries.delete(oldest.producerId);
    this.#store.deleteEntry(oldest.producerId);
  }
}

/** The store in memory: tests and simulations of the pure core. */
export class MemoryTransactionStore implements TransactionStore {
  readonly #entries = new Map<number, TransactionEntry>();
  #aborted: AbortedTransaction[] = [];

  readEntries(): TransactionEntry[] {
    return [...this.#entries.values()].map((entry) => structuredClone(entry));
  }
  writeEntry(entry: TransactionEntry): void {
    this.#entries.set(entry.producerId, structuredClone(entry));
  }
  deleteEntry(producerId: number): void {
    this.#entries.delete(producerId);
  }
  addAborted(aborted: AbortedTransaction): void {
    this.#aborted.push({ ...aborted });
  }
  abortedBetween(from: number, to: number): AbortedTransaction[] {
    return this.#aborted.filter((a) => a.lastOffset >= from && a.firstOffset < to).sort((a, b) => a.firstOffset - b.firstOffset).map((a) => ({ ...a }));
  }
  hasAborted(): boolean {
    return this.#aborted.length > 0;
  }
  deleteAbortedFrom(offset: number): void {
    this.#aborted = this.#aborted.filter((a) => a.lastOffset < offset);
  }
  deleteAbortedBefore(offset: number): void {
    this.#aborted = this.#aborted.filter((a) => a.lastOffset >= offset);
  }
}
