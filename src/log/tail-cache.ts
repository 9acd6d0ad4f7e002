import type { BatchSize, EpochStart, LogBounds, LogStore, StoredBatch } from "./log-store.ts";
import type { ProducerEntry } from "./producer-state.ts";

/**
 * A LogStore with the newest batches also in memory, so fetches near the head — consumers
 * keeping up, long polls woken by an append, a leader pushing to its followers — read no
 * SQLite. Bounded by bytes (limits.tailCacheBytesMax): the oldest cached batches go first.
 * The cache always holds a contiguous run ending at the log end, so an offset at or after
 * its first batch is served entirely from memory; anything older goes to the store.
 * Everything else passes through to the wrapped store.
 */
export class TailCachedStore implements LogStore {
  readonly #store: LogStore;
  readonly #maxBytes: number;
  #tail: StoredBatch[] = [];
  #tailBytes = 0;

  constructor(store: LogStore, maxBytes: number) {
    this.#store = store;
    this.#maxBytes = maxBytes;
  }

  /** Bytes of batches held in memory now (at most the bound given). */
  get cachedBytes(): number {
    return this.#tailBytes;
  }

  append(batches: readonly StoredBatch[], bounds: LogBounds): void {
    this.#store.append(batches, bounds);
    for (const batch of batches) {
      this.#tail.push(batch);
      this.#tailBytes += batch.bytes.byteLength;
    }
    let drop = 0;
    while (drop < this.#tail.length && this.#tailBytes > this.#maxBytes) this.#tailBytes -= this.#tail[drop++]!.bytes.byteLength;
    if (drop > 0) this.#tail = this.#tail.slice(drop);
  }

  truncateFrom(offset: number, bounds: LogBounds): void {
    this.#store.truncateFrom(offset, bounds);
    this.#keep((batch) => batch.lastOffset < offset);
  }

  deleteBefore(offset: number, bounds: LogBounds): void {
    this.#store.deleteBefore(offset, bounds);
    this.#keep((batch) => batch.lastOffset >= offset);
  }

  *batchesFrom(offset: number): Iterable<StoredBatch> {
    const first = this.#tail[0];
    if (!first || offset < first.baseOffset) {
      yield* this.#store.batchesFrom(offset);
      return;
    }
    for (let index = this.#firstEndingAtOrAfter(offset); index < this.#tail.length; index++) yield this.#tail[index]!;
  }

  readBounds(): LogBounds {
    return this.#store.readBounds();
  }

  writeBounds(bounds: LogBounds): void {
    this.#store.writeBounds(bounds);
  }

  replaceEpochStarts(starts: readonly EpochStart[]): void {
    this.#store.replaceEpochStarts(starts);
  }

  batchSizesFrom(offset: number): Iterable<BatchSize> {
    return this.#store.batchSizesFrom(offset);
  }

  firstBatchWithTimestampAtOrAfter(timestampMs: number): StoredBatch | undefined {
    return this.#store.firstBatchWithTimestampAtOrAfter(timestampMs);
  }

  maxTimestampBelow(offset: number): number | undefined {
    return this.#store.maxTimestampBelow(offset);
  }

  epochStarts(): EpochStart[] {
    return this.#store.epochStarts();
  }

  firstBatchOffset(): number | undefined {
    return this.#store.firstBatchOffset();
  }

  size(): { batches: number; bytes: number } {
    return this.#store.size();
  }

  readProducer(producerId: number): ProducerEntry | undefined {
    return this.#store.readProducer(producerId);
  }

  writeProducers(entries: readonly ProducerEntry[]): void {
    this.#store.writeProducers(entries);
  }

  deleteProducer(producerId: number): void {
    this.#store.deleteProducer(producerId);
  }

  producersEndingAtOrAfter(offset: number): ProducerEntry[] {
    return this.#store.producersEndingAtOrAfter(offset);
  }

  forgetProducers(idleSinceMs: number, keepAtMost: number): void {
    this.#store.forgetProducers(idleSinceMs, keepAtMost);
  }

  readProducers(): ProducerEntry[] {
    return this.#store.readProducers();
  }

  producerCount(): number {
    return this.#store.producerCount();
  }

  #keep(predicate: (batch: StoredBatch) => boolean): void {
    this.#tail = this.#tail.filter(predicate);
    this.#tailBytes = this.#tail.reduce((total, batch) => total + batch.bytes.byteLength, 0);
  }

  #firstEndingAtOrAfter(offset: number): number {
    let low = 0;
    let high = this.#tail.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#tail[middle]!.lastOffset < offset) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
