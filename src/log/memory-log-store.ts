import type { LogBounds, LogStore, StoredBatch } from "./log-store.ts";

/** The log store in memory: for tests and simulations of the pure core. */
export class MemoryLogStore implements LogStore {
  #batches: StoredBatch[] = [];
  #bounds: LogBounds = { logStartOffset: 0, logEndOffset: 0 };
  #bytes = 0;

  readBounds(): LogBounds {
    return { ...this.#bounds };
  }

  append(batches: readonly StoredBatch[], bounds: LogBounds): void {
    for (const batch of batches) {
      this.#batches.push({ ...batch, bytes: batch.bytes.slice() });
      this.#bytes += batch.bytes.byteLength;
    }
    this.#bounds = { ...bounds };
  }

  *batchesFrom(offset: number): Iterable<StoredBatch> {
    for (let index = this.#firstIndexEndingAtOrAfter(offset); index < this.#batches.length; index++) {
      yield this.#batches[index]!;
    }
  }

  firstBatchWithTimestampAtOrAfter(timestampMs: number): StoredBatch | undefined {
    return this.#batches.find((batch) => batch.maxTimestamp >= timestampMs);
  }

  size(): { batches: number; bytes: number } {
    return { batches: this.#batches.length, bytes: this.#bytes };
  }

  /** Binary search: batches are sorted by offset and never overlap. */
  #firstIndexEndingAtOrAfter(offset: number): number {
    let low = 0;
    let high = this.#batches.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#batches[middle]!.lastOffset < offset) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
