import { emptyBounds, type EpochStart, type LogBounds, type LogStore, type StoredBatch } from "./log-store.ts";

/** The log store in memory: for tests and simulations of the pure core. */
export class MemoryLogStore implements LogStore {
  #batches: StoredBatch[] = [];
  #bounds: LogBounds = { ...emptyBounds };
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

  writeBounds(bounds: LogBounds): void {
    this.#bounds = { ...bounds };
  }

  truncateFrom(offset: number, bounds: LogBounds): void {
    const keep = this.#firstIndexEndingAtOrAfter(offset);
    for (const batch of this.#batches.splice(keep)) this.#bytes -= batch.bytes.byteLength;
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

  epochStarts(): EpochStart[] {
    const starts: EpochStart[] = [];
    for (const batch of this.#batches) {
      if (starts.at(-1)?.epoch !== batch.leaderEpoch) starts.push({ epoch: batch.leaderEpoch, startOffset: batch.baseOffset });
    }
    return starts;
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
