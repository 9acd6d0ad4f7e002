/**
 * Log compaction (cleanup.policy compact; ARCHITECTURE.md decision 6): the sealed segments —
 * all of them, not one at a time — rewritten into a new generation that keeps the last record
 * of each key. Pure: the partition object loads segment objects, writes the new ones and
 * swaps them into its manifest.
 *
 * Two passes, as Kafka's cleaner: CompactionKeyMap maps each key to its latest offset over
 * the dirty records (those at or after `firstDirtyOffset`: records before it were compacted
 * by an earlier pass, so their keys are unique among them), as far as the map's bound allows;
 * CompactionWriter then rewrites every segment before the map's end against it. Both take
 * one segment at a time, so the caller can load and drop segments one by one;
 * compactSegments runs both over segments in memory.
 *
 * What is kept, for a record before the map's end (records after it were not mapped and are
 * kept as they are; the next pass continues from there):
 * - a record with no key: kept. The router refuses keyless records on compacted topics; one
 *   written before the topic became compacted has no key to be superseded by.
 * - a record whose key (compared byte for byte; an empty key is a key) has a later record: dropped.
 * - the last record of its key: kept, unless it is a tombstone (null value) whose own
 *   timestamp is more than delete.retention.ms before now. Kafka counts from when the cleaner
 *   first saw the tombstone (KIP-534's delete horizon, kept in the batch); the record
 *   timestamp is what a Tributary batch holds. It is the leader's clock on LogAppendTime
 *   topics; on CreateTime topics a producer's clock far behind shortens the tombstone's life,
 *   which message.timestamp.before.max.ms bounds. Dropping the tombstone removes its key: no
 *   earlier record of the key survives the same pass.
 * Offsets never change. Each output batch holds consecutive offsets of one input batch (the
 * codec reads dense batches only), keeping its partition leader epoch, timestamp type,
 * producer fields and transactional flag; a batch whose records all survive is copied byte
 * for byte. Transactions (segments lie below the last stable offset, so every one there has
 * ended): an aborted transaction's batches (`abortedTransactions`, the partition's index) are
 * never mapped and are dropped whole, as Kafka's cleaner drops them — mapped, an aborted
 * record would supersede the committed one before it, and read_committed readers would lose
 * the key; a committed transaction's records are compacted as any; control batches (markers)
 * are copied whole and never mapped. A marker (COMMIT or ABORT) goes, as Kafka's cleaner removes
 * it, once no record of its transaction is left in the partition's log (the pass kept none of
 * its producer's transactional records since that producer's previous marker) and its own
 * timestamp is more than delete.retention.ms before now (the tombstones' clock, above; Kafka
 * counts from when the cleaner first found it removable). The aborted index is the replicas'
 * (each builds its own from the markers it stored), not the segments': an entry outlives its
 * removed ABORT marker, and reads leave out an entry whose marker is gone
 * (src/protocol/aborted-transactions.ts, withMarkersPresent), since a Kafka client would skip
 * the producer's later batches until a marker that never comes.
 */
import { decodeControlBatch } from "../protocol/control-batch.ts";
import { controlFlag, encodeRecordBatch, splitBatches, timestampTypeLogAppendTime, transactionalFlag, type BatchHeader, type DecodedRecord } from "../protocol/record-batch.ts";
import { decodeRecordBatch } from "../protocol/record-batch-decode.ts";
import { batchCodec, compressBatch } from "../protocol/record-batch-compression.ts";
import { incrementSequence } from "../protocol/sequences.ts";
import type { StoredBatch } from "./log-store.ts";
import { isAbortedBatch } from "../protocol/aborted-transactions.ts";
import { decodeSegmentIndex } from "./segment-format.ts";
import type { AbortedTransaction } from "./transaction-state.ts";
import type { SegmentManifestEntry } from "./segment-manifest.ts";
import { compactionKeyBytesMax, compactionKeysMax } from "../limits.ts";

export interface CompactionInput {
  entry: SegmentManifestEntry;
  /** The whole segment object. */
  bytes: Uint8Array;
}

export interface CompactionLimits {
  /** Default compactionKeysMax. The map always takes one key, so every pass progresses. */
  keysMax?: number;
  /** Default compactionKeyBytesMax. */
  keyBytesMax?: number;
  /** The aborted transactions meeting the segments (the partition's index); default none. */
  abortedTransactions?: readonly AbortedTransaction[];
}

export interface CompactionOptions extends CompactionLimits {
  nowMs: number;
  /** delete.retention.ms */
  deleteRetentionMs: number;
  /** segment.bytes: output segments are cut before a batch that would overflow it. */
  segmentBytes: number;
  /** The previous pass's result; default: the first segment's base offset (all dirty). */
  firstDirtyOffset?: number;
}

/** One output segment: its batches for encodeSegment, and the offsets its manifest entry covers. */
export interface CompactedSegment {
  baseOffset: number;
  lastOffset: number;
  batches: StoredBatch[];
  minTimestamp: number;
}

export interface CompactionStats {
  recordsRead: number;
  recordsKept: number;
  /** Records dropped because their key has a later record. */
  recordsSuperseded: number;
  tombstonesDropped: number;
  /** Records of aborted transactions, dropped. */
  abortedDropped: number;
  /** Markers (COMMIT or ABORT) whose transaction's records are all gone, dropped after delete.retention.ms. */
  markersDropped: number;
  bytesRead: number;
  bytesWritten: number;
}

export interface CompactionResult {
  /** The manifest entries the output replaces (replaceSegments); empty when there was nothing to rewrite. */
  replaced: SegmentManifestEntry[];
  /** The replacement, covering exactly the replaced entries' offsets (less any range left without records). */
  segments: CompactedSegment[];
  /** Where the next pass's dirty records start: keep it with the manifest. */
  firstDirtyOffset: number;
  stats: CompactionStats;
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`compaction invariant broken: ${message}`);
}

/** A key's bytes as a string of one char per byte: a Map key that compares byte for byte. */
function keyString(key: Uint8Array): string {
  let text = "";
  for (let at = 0; at < key.length; at += 4096) text += String.fromCharCode(...key.subarray(at, at + 4096));
  return text;
}

/** The batches of a segment object, its index checked first. */
function* segmentBatches(bytes: Uint8Array): Generator<{ header: BatchHeader; start: number; end: number }> {
  const last = decodeSegmentIndex(bytes).at(-1)!;
  yield* splitBatches(bytes.subarray(0, last.position + last.length));
}

/** Pass one: each dirty key's latest offset, over segments given in offset order. */
export class CompactionKeyMap {
  readonly #latest = new Map<string, number>();
  readonly #keysMax: number;
  readonly #keyBytesMax: number;
  readonly #aborted: readonly AbortedTransaction[] | undefined;
  #keyBytes = 0;
  #mappedEndOffset: number;
  #full = false;

  constructor(firstDirtyOffset: number, limits: CompactionLimits = {}) {
    this.#mappedEndOffset = firstDirtyOffset;
    this.#keysMax = limits.keysMax ?? compactionKeysMax;
    this.#keyBytesMax = limits.keyBytesMax ?? compactionKeyBytesMax;
    this.#aborted = limits.abortedTransactions;
    if (!Number.isSafeInteger(firstDirtyOffset) || firstDirtyOffset < 0) throw new RangeError(`firstDirtyOffset ${firstDirtyOffset}`);
    if (!(this.#keysMax >= 1 && this.#keyBytesMax >= 0)) throw new RangeError("compaction limits must allow a key");
  }

  /** The first offset not mapped: records from here on are the next pass's. */
  get mappedEndOffset(): number {
    return this.#mappedEndOffset;
  }

  get keys(): number {
    return this.#latest.size;
  }

  /**
   * Maps the records at or after the map's end in the next segment. Give every segment from
   * the one holding the first dirty offset, in order, none skipped (a skipped one's keys
   * would go unseen). Returns false, mapping nothing further, once a new key would overflow
   * the map: mappedEndOffset then stops at that record.
   */
  addSegment(input: CompactionInput): boolean {
    if (this.#full) return false;
    if (input.entry.lastOffset < this.#mappedEndOffset) return true;
    for (const { header, start, end } of segmentBatches(input.bytes)) {
      if (header.baseOffset + header.lastOffsetDelta < this.#mappedEndOffset) continue;
      const control = (header.attributes & controlFlag) !== 0 || this.isAborted(header);
      for (const record of decodeRecordBatch(input.bytes.subarray(0, end), start).records) {
        if (record.offset < this.#mappedEndOffset) continue;
        if (record.key !== null && !control && !this.#map(record.key, record.offset)) {
          this.#full = true;
          return false;
        }
        this.#mappedEndOffset = record.offset + 1;
      }
    }
    this.#mappedEndOffset = Math.max(this.#mappedEndOffset, input.entry.lastOffset + 1);
    return true;
  }

  /** Whether the batch belongs to an aborted transaction: neither mapped nor kept. */
  isAborted(header: BatchHeader): boolean {
    return (header.attributes & transactionalFlag) !== 0 && (header.attributes & controlFlag) === 0 && isAbortedBatch(header.producerId, header.baseOffset, this.#aborted);
  }

  /** The latest mapped offset of `key`, if it was mapped. */
  latestOffsetOf(key: Uint8Array): number | undefined {
    return this.#latest.get(keyString(key));
  }

  #map(key: Uint8Array, offset: number): boolean {
    const text = keyString(key);
    if (!this.#latest.has(text)) {
      const fits = this.#latest.size < this.#keysMax && this.#keyBytes + key.length <= this.#keyBytesMax;
      if (!fits && this.#latest.size > 0) return false;
      this.#keyBytes += key.length;
    }
    this.#latest.set(text, offset);
    return true;
  }
}

/** Pass two: rewrites segments against a key map into output segments of about segment.bytes. */
export class CompactionWriter {
  readonly stats: CompactionStats = {
    recordsRead: 0,
    recordsKept: 0,
    recordsSuperseded: 0,
    tombstonesDropped: 0,
    abortedDropped: 0,
    markersDropped: 0,
    bytesRead: 0,
    bytesWritten: 0,
  };
  readonly #keyMap: CompactionKeyMap;
  readonly #options: Pick<CompactionOptions, "nowMs" | "deleteRetentionMs" | "segmentBytes">;
  #coverageStart: number;
  #lastInputOffset = -1;
  #current: StoredBatch[] = [];
  #currentBytes = 0;
  #currentMinTimestamp = Number.MAX_SAFE_INTEGER;
  #completed: CompactedSegment[] = [];
  /** Producers with a transactional record kept since their last marker: that transaction's marker stays. */
  readonly #retainedTransactions = new Set<number>();

  /** `coverageStart`: the first rewritten segment's base offset, where the first output segment's range starts. */
  constructor(keyMap: CompactionKeyMap, options: Pick<CompactionOptions, "nowMs" | "deleteRetentionMs" | "segmentBytes">, coverageStart: number) {
    if (!Number.isSafeInteger(options.segmentBytes) || options.segmentBytes < 1) throw new RangeError(`segmentBytes ${options.segmentBytes}`);
    if (!Number.isSafeInteger(options.deleteRetentionMs) || options.deleteRetentionMs < 0) throw new RangeError(`deleteRetentionMs ${options.deleteRetentionMs}`);
    this.#keyMap = keyMap;
    this.#options = options;
    this.#coverageStart = coverageStart;
  }

  /** Rewrites the next segment (in offset order, starting before the map's end); returns the output segments it completed. */
  addSegment(input: CompactionInput): CompactedSegment[] {
    const { entry, bytes } = input;
    const mappedEndOffset = this.#keyMap.mappedEndOffset;
    assert(entry.baseOffset > this.#lastInputOffset && entry.baseOffset >= this.#coverageStart, `${entry.objectKey} out of order`);
    assert(entry.baseOffset < mappedEndOffset, `${entry.objectKey} starts after the key map's end ${mappedEndOffset}`);
    this.#lastInputOffset = entry.lastOffset;
    for (const { header, start, end } of segmentBatches(bytes)) {
      this.stats.bytesRead += end - start;
      const { records } = decodeRecordBatch(bytes.subarray(0, end), start);
      this.stats.recordsRead += records.length;
      if (this.#keyMap.isAborted(header) && header.baseOffset < mappedEndOffset) {
        this.stats.abortedDropped += records.length;
        continue;
      }
      const whole = (header.attributes & controlFlag) !== 0;
      if (whole && this.#dropsMarker(header, bytes.subarray(0, end), start, mappedEndOffset)) continue;
      const kept = whole ? records : records.filter((record) => this.#keeps(record, mappedEndOffset));
      if (!whole && kept.length > 0 && (header.attributes & transactionalFlag) !== 0) this.#retainedTransactions.add(header.producerId);
      this.stats.recordsKept += kept.length;
      if (kept.length === records.length) {
        this.#emit({ ...this.#stored(header), bytes: bytes.slice(start, end) }, records);
        continue;
      }
      let run: DecodedRecord[] = [];
      for (const record of kept) {
        if (run.length > 0 && run.at(-1)!.offset + 1 !== record.offset) {
          this.#emitRun(header, run);
          run = [];
        }
        run.push(record);
      }
      if (run.length > 0) this.#emitRun(header, run);
    }
    return this.#takeCompleted();
  }

  /** Closes the last output segment, its range reaching `coverageEnd` (the last rewritten segment's lastOffset). */
  finish(coverageEnd: number): CompactedSegment[] {
    if (this.#current.length > 0) this.#close(Math.max(this.#current.at(-1)!.lastOffset, coverageEnd));
    return this.#takeCompleted();
  }

  /** A control batch: ends its producer's transaction here; true when it is a marker the pass removes. */
  #dropsMarker(header: BatchHeader, bytes: Uint8Array, start: number, mappedEndOffset: number): boolean {
    const retained = this.#retainedTransactions.delete(header.producerId);
    if (retained || header.baseOffset >= mappedEndOffset) return false;
    if (this.#options.nowMs - header.maxTimestamp <= this.#options.deleteRetentionMs) return false;
    if (decodeControlBatch(bytes, start) === undefined) return false;
    this.stats.markersDropped++;
    return true;
  }

  #keeps(record: DecodedRecord, mappedEndOffset: number): boolean {
    if (record.offset >= mappedEndOffset || record.key === null) return true;
    const latest = this.#keyMap.latestOffsetOf(record.key);
    if (latest !== undefined && latest > record.offset) {
      this.stats.recordsSuperseded++;
      return false;
    }
    if (record.value === null && this.#options.nowMs - record.timestamp > this.#options.deleteRetentionMs) {
      this.stats.tombstonesDropped++;
      return false;
    }
    return true;
  }

  #stored(header: BatchHeader): Omit<StoredBatch, "bytes"> {
    return {
      baseOffset: header.baseOffset,
      lastOffset: header.baseOffset + header.lastOffsetDelta,
      leaderEpoch: header.partitionLeaderEpoch,
      maxTimestamp: header.maxTimestamp,
      recordCount: header.recordCount,
    };
  }

  /** Re-encodes consecutive survivors of one batch as a batch of their own, at their offsets, in the batch's codec. */
  #emitRun(header: BatchHeader, run: DecodedRecord[]): void {
    const baseOffset = run[0]!.offset;
    const skipped = baseOffset - header.baseOffset;
    const encoded = encodeRecordBatch(
      run.map(({ key, value, headers, timestamp }) => ({ key, value, headers, timestamp })),
      {
        baseOffset,
        partitionLeaderEpoch: header.partitionLeaderEpoch,
        logAppendTime: (header.attributes & timestampTypeLogAppendTime) !== 0,
        producerId: header.producerId,
        producerEpoch: header.producerEpoch,
        baseSequence: header.baseSequence < 0 ? header.baseSequence : incrementSequence(header.baseSequence, skipped),
        transactional: (header.attributes & transactionalFlag) !== 0,
      },
    );
    const bytes = compressBatch(encoded, batchCodec(header) ?? "none");
    const maxTimestamp = run.reduce((max, record) => Math.max(max, record.timestamp), Number.MIN_SAFE_INTEGER);
    const stored = { baseOffset, lastOffset: run.at(-1)!.offset, leaderEpoch: header.partitionLeaderEpoch, maxTimestamp, recordCount: run.length };
    this.#emit({ ...stored, bytes }, run);
  }

  #emit(batch: StoredBatch, records: readonly DecodedRecord[]): void {
    if (this.#current.length > 0 && this.#currentBytes + batch.bytes.length > this.#options.segmentBytes) {
      this.#close(this.#current.at(-1)!.lastOffset);
    }
    this.#current.push(batch);
    this.#currentBytes += batch.bytes.length;
    for (const record of records) this.#currentMinTimestamp = Math.min(this.#currentMinTimestamp, record.timestamp);
    this.stats.bytesWritten += batch.bytes.length;
  }

  #close(lastOffset: number): void {
    this.#completed.push({ baseOffset: this.#coverageStart, lastOffset, batches: this.#current, minTimestamp: this.#currentMinTimestamp });
    this.#coverageStart = lastOffset + 1;
    this.#current = [];
    this.#currentBytes = 0;
    this.#currentMinTimestamp = Number.MAX_SAFE_INTEGER;
  }

  #takeCompleted(): CompactedSegment[] {
    const completed = this.#completed;
    this.#completed = [];
    return completed;
  }
}

/**
 * One compaction pass over the sealed segments (all of them, in manifest order, in
 * memory): maps the dirty keys, then rewrites every segment that starts before the map's
 * end. The output's generation and object keys are the caller's (nextGeneration,
 * segmentManifestEntry); a pass that dropped nothing (stats) need not be swapped in.
 */
export function compactSegments(inputs: readonly CompactionInput[], options: CompactionOptions): CompactionResult {
  const firstDirtyOffset = options.firstDirtyOffset ?? inputs[0]?.entry.baseOffset ?? 0;
  const keyMap = new CompactionKeyMap(firstDirtyOffset, options);
  for (const input of inputs) if (!keyMap.addSegment(input)) break;
  const mappedEndOffset = keyMap.mappedEndOffset;
  const rewritten = inputs.filter((input) => input.entry.baseOffset < mappedEndOffset);
  const writer = new CompactionWriter(keyMap, options, rewritten[0]?.entry.baseOffset ?? 0);
  const segments: CompactedSegment[] = [];
  for (const input of rewritten) segments.push(...writer.addSegment(input));
  if (rewritten.length > 0) segments.push(...writer.finish(rewritten.at(-1)!.entry.lastOffset));
  return { replaced: rewritten.map((input) => input.entry), segments, firstDirtyOffset: mappedEndOffset, stats: writer.stats };
}
