import { emptyBounds, type BatchSize, type EpochStart, type LogBounds, type LogStore, type StoredBatch } from "./log-store.ts";
import type { ProducerEntry } from "./producer-state.ts";

function copyEntry(entry: ProducerEntry): ProducerEntry {
  return { ...entry, runs: entry.runs.map((run) => ({ ...run })) };
}

/** The log store in memory: for tests and simulations of the pure core. */
export class MemoryLogStore implements LogStore {
  #batches: StoredBatch[] = [];
  #bounds: LogBounds = { ...emptyBounds };
  #bytes = 0;
  #epochs: EpochStart[] = [];
  readonly #producers = new Map<number, ProducerEntry>();

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

  maxTimestampBelow(offset: number): number | undefined {
    const below = this.#batches.filter((batch) => batch.baseOffset < offset);
    return below.length === 0 ? undefined : Math.max(...below.map((batch) => batch.maxTimestamp));
  }

  epochStarts(): EpochStart[] {
    return this.#epochs.map((start) => ({ ...start }));
  }

  size(): { batches: number; bytes: number } {
    return { batches: this.#batches.length, bytes: this.#bytes };
  }

  readProducer(producerId: number): ProducerEntry | undefined {
    const entry = this.#producers.get(producerId);
    return entry && copyEntry(entry);
  }

  writeProducers(entries: readonly ProducerEntry[]): void {
    for (const entry of entries) this.#producers.set(entry.producerId, copyEntry(entry));
  }

  deleteProducer(producerId: number): void {
    this.#producers.delete(producerId);
  }

  readProducers(): ProducerEntry[] {
    return [...this.#producers.values()].sort((a, b) => a.producerId - b.producerId).map(copyEntry);
  }

  producersEndingAtOrAfter(offset: number): ProducerEntry[] {
    return [...this.#producers.values()].filter((entry) => entry.runs.at(-1)!.lastOffset >= offset).map(copyEntry);
  }

  forgetProducers(idleSinceMs: number, keepAtMost: number): void {
    for (const [id, entry] of this.#producers) if (entry.lastActivityMs <= idleSinceMs) this.#producers.delete(id);
    const excess = this.#producers.size - keepAtMost;
    if (excess <= 0) return;
    const idlest = [...this.#producers.values()].sort((a, b) => a.lastActivityMs - b.lastActivityMs || a.producerId - b.producerId);
    for (const entry of idlest.slice(0, excess)) this.#producers.delete(entry.producerId);
  }

  producerCount(): number {
    return this.#producers.size;
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
