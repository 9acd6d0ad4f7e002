import { emptyBounds, type BatchSize, type EpochStart, type LogBounds, type LogStore, type StoredBatch } from "./log-store.ts";

/** The log store in memory: for tests and simulations of the pure core. */
export class MemoryLogStore implements LogStore {
  #batches: StoredBatch[] = [];
  #bounds: LogBounds = { ...emptyBounds };
  #bytes = 0;
  #epochs: EpochStart[] = [];

  readBounds(): LogBounds {
    return { ...this.#bounds };
  }

  append(batches: readonly StoredBatch[], bounds: LogBounds): void {
    for (const batch of batches) {
      this.#batches.push({ ...batch, bytes: batch.bytes.slice() });
      this.#bytes += batch.bytes.byteLength;
      if ((this.#epochs.at(-1)?.epoch ?? -1) < batch.leaderEpoch) this.#epochs.push({ epoch: batch.leaderEpoch, startOffset: batch.baseOffset });
    }
    this.#bounds = { ...bounds };
  }

  writeBounds(bounds: LogBounds): void {
    this.#bounds = { ...bounds };
  }

  truncateFrom(offset: number, bounds: LogBounds): void {
    const keep = this.#firstIndexEndingAtOrAfter(offset);
    for (const batch of this.#batches.splice(keep)) this.#bytes -= batch.bytes.byteLength;
    this.#epochs = this.#epochs.filter((start) => start.startOffset < offset);
    this.#bounds = { ...bounds };
  }

  deleteBefore(offset: number, bounds: LogBounds): void {
    const drop = this.#firstIndexEndingAtOrAfter(offset);
    for (const batch of this.#batches.splice(0, drop)) this.#bytes -= batch.bytes.byteLength;
    this.#bounds = { ...bounds };
  }

  replaceEpochStarts(starts: readonly EpochStart[]): void {
    this.#epochs = starts.map((start) => ({ ...start }));
  }

  firstBatchOffset(): number | undefined {
    return this.#batches[0]?.baseOffset;
  }

  *batchesFrom(offset: number): Iterable<StoredBatch> {
    for (let index = this.#firstIndexEndingAtOrAfter(offset); index < this.#batches.length; index++) {
      yield this.#batches[index]!;
    }
  }

  *batchSizesFrom(offset: number): Iterable<BatchSize> {
    for (const { bytes, ...batch } of this.batchesFrom(offset)) yield { ...batch, byteLength: bytes.byteLength };
  }

  firstBatchWithTimestampAtOrAfter(timestampMs: number): StoredBatch | undefined {
    return this.#batches.find((batch) => batch.maxTimestamp >= timestampMs);
  }

  epochStarts(): EpochStart[] {
    return this.#epochs.map((start) => ({ ...start }));
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
