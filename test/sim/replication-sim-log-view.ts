/**
 * What the replication simulation's checks read: each replica's records as (offset, epoch,
 * value), decoded from the stored Kafka batches themselves (CRC checked), so value identity
 * is checked on the bytes, not on the log's bookkeeping. A view follows its store's changes
 * incrementally (appends extend it, a truncation cuts it), and keeps prefix hashes so that
 * "two replicas agree below offset n" is one comparison per pair.
 */

import { MemoryLogStore } from "../../src/log/memory-log-store.ts";
import type { LogBounds, StoredBatch } from "../../src/log/log-store.ts";
import { decodeRecordBatch } from "../../src/protocol/record-batch-decode.ts";

/** A MemoryLogStore that tells its view what changed: a version per change, the lowest truncation. */
export class ObservedStore extends MemoryLogStore {
  version = 0;
  /** The lowest offset truncated since the view last synced. */
  truncatedFrom = Infinity;
  truncations = 0;

  override append(batches: readonly StoredBatch[], bounds: LogBounds): void {
    super.append(batches, bounds);
    this.version += 1;
  }

  override truncateFrom(offset: number, bounds: LogBounds): void {
    super.truncateFrom(offset, bounds);
    this.version += 1;
    this.truncations += 1;
    this.truncatedFrom = Math.min(this.truncatedFrom, offset);
  }
}

interface DecodedBatch {
  epoch: number;
  values: string[];
}

const text = new TextDecoder();
/** Stored batch bytes never change while stored: decode each once. */
const decodedCache = new WeakMap<Uint8Array, DecodedBatch>();

function decode(batch: StoredBatch): DecodedBatch {
  let decoded = decodedCache.get(batch.bytes);
  if (decoded) return decoded;
  const { header, records } = decodeRecordBatch(batch.bytes);
  if (header.baseOffset !== batch.baseOffset) throw new Error(`stored batch at ${batch.baseOffset} says base offset ${header.baseOffset}`);
  if (header.partitionLeaderEpoch !== batch.leaderEpoch) {
    throw new Error(`stored batch at ${batch.baseOffset} (epoch ${batch.leaderEpoch}) says epoch ${header.partitionLeaderEpoch}`);
  }
  decoded = { epoch: header.partitionLeaderEpoch, values: records.map((record) => text.decode(record.value!)) };
  decodedCache.set(batch.bytes, decoded);
  return decoded;
}

function hashString(value: string, seed: number): number {
  let hash = seed;
  for (let index = 0; index < value.length; index++) hash = Math.imul(hash ^ value.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/** Records by offset from 0 — (value, epoch) — with prefix hashes for cheap "same records below n". */
export class RecordSequence {
  readonly values: string[] = [];
  readonly epochs: number[] = [];
  /** [2i], [2i+1]: two independent 32-bit hashes of the records below offset i. */
  readonly #prefix: number[] = [0, 0];

  get length(): number {
    return this.values.length;
  }

  push(value: string, epoch: number): void {
    const at = this.values.length;
    this.values.push(value);
    this.epochs.push(epoch);
    const a = this.#prefix[2 * at]!;
    const b = this.#prefix[2 * at + 1]!;
    this.#prefix.push(hashString(value, Math.imul(a ^ epoch, 0x9e3779b1) >>> 0), hashString(value, (b + epoch * 0x85ebca6b + 1) >>> 0));
  }

  /** Keeps the records below `length`. */
  cut(length: number): void {
    this.values.length = length;
    this.epochs.length = length;
    this.#prefix.length = 2 * (length + 1);
  }

  /** Whether this sequence and `other` hold the same records below `offset` (both must be that long). */
  agreesBelow(other: RecordSequence, offset: number): boolean {
    if (offset === 0) return true;
    return this.#prefix[2 * offset] === other.#prefix[2 * offset] && this.#prefix[2 * offset + 1] === other.#prefix[2 * offset + 1];
  }

  /** The first offset below `offset` where the two differ (call after agreesBelow said no). */
  firstDifference(other: RecordSequence, offset: number): number {
    for (let at = 0; at < offset; at++) {
      if (this.values[at] !== other.values[at] || this.epochs[at] !== other.epochs[at]) return at;
    }
    return -1;
  }

  describe(at: number): string {
    return at < this.values.length ? `${this.values[at]}@e${this.epochs[at]}` : "(none)";
  }

  /** The records as epoch runs of values, for failure messages. */
  summary(): string {
    const runs: string[] = [];
    let start = 0;
    for (let at = 1; at <= this.values.length; at++) {
      if (at === this.values.length || this.epochs[at] !== this.epochs[start]) {
        runs.push(`e${this.epochs[start]}[${start}..${at - 1}]:${this.values.slice(start, at).join(",")}`);
        start = at;
      }
    }
    return runs.join(" ") || "(empty)";
  }
}

/** One replica's stored records, following its store. */
export class LogView extends RecordSequence {
  readonly store: ObservedStore;
  /** The base offsets of its batches, ascending. */
  readonly batchStarts: number[] = [];
  #seenVersion = -1;

  constructor(store: ObservedStore) {
    super();
    this.store = store;
  }

  /** Catches up with the store: cuts what was truncated, decodes what was appended. */
  sync(): void {
    if (this.store.version === this.#seenVersion) return;
    this.#seenVersion = this.store.version;
    const cut = Math.min(this.store.truncatedFrom, this.length);
    this.store.truncatedFrom = Infinity;
    this.cut(cut);
    while (this.batchStarts.length > 0 && this.batchStarts.at(-1)! >= cut) this.batchStarts.pop();
    for (const batch of this.store.batchesFrom(cut)) {
      if (batch.baseOffset !== this.length) throw new Error(`store batch at ${batch.baseOffset}, expected ${this.length}`);
      this.batchStarts.push(batch.baseOffset);
      const { epoch, values } = decode(batch);
      if (values.length !== batch.lastOffset - batch.baseOffset + 1) throw new Error(`batch at ${batch.baseOffset} holds ${values.length} records`);
      for (const value of values) this.push(value, epoch);
    }
  }

  /** The records as batches — e<epoch>[first..last]:values — for failure messages. */
  batches(): string {
    return this.batchStarts.map((start, index) => {
      const end = this.batchStarts[index + 1] ?? this.length;
      return `e${this.epochs[start]}[${start}..${end - 1}]:${this.values.slice(start, end).join(",")}`;
    }).join(" ") || "(empty)";
  }
}
