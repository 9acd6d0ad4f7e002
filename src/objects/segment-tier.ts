import type { EpochStart } from "../log/log-store.ts";
import type { PartitionLog } from "../log/partition-log.ts";
import { followLogStart, moveLogStart } from "../log/log-start.ts";
import { planRetention } from "../log/retention-plan.ts";
import { planSeal } from "../log/seal-plan.ts";
import { encodeSegment } from "../log/segment-format.ts";
import { CompactionKeyMap, CompactionWriter, type CompactedSegment } from "../log/compaction.ts";
import {
  appendSegment,
  byteRangeFor,
  findSegment,
  firstOffsetAtOrAfterTime,
  manifestTotals,
  replaceSegments,
  segmentManifestEntry,
  segmentObjectKey,
  type SegmentManifestEntry,
} from "../log/segment-manifest.ts";
import { publishedManifest, sealedManifestKey } from "../log/sealed-manifest.ts";
import { splitBatches } from "../protocol/record-batch.ts";
import { decodeRecordBatch } from "../protocol/record-batch-decode.ts";
import type { TierConfig } from "../contracts/partition-config.ts";

/** The R2 operations the tier uses: an R2Bucket, or a wrapper around one (tests inject failures). */
export type SegmentBucket = Pick<R2Bucket, "put" | "get" | "head" | "delete" | "list">;

/** A replica's manifest as followers receive it from their leader. */
export interface TierSnapshot {
  manifest: SegmentManifestEntry[];
  logStartOffset: number;
  /** The leader's first held offset: what a follower below it restarts at. */
  localStartOffset: number;
  epochs: EpochStart[];
}

export const segmentTierMigration = `CREATE TABLE segments (
  base_offset INTEGER PRIMARY KEY,
  entry TEXT NOT NULL
);
CREATE TABLE compaction_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  next_generation INTEGER NOT NULL,
  first_dirty_offset INTEGER NOT NULL
)`;

/** Segments sealed in one pass of the alarm: bounds the work (and memory) of one invocation. */
const sealsPerPassMax = 8;

/**
 * The R2 tier of one partition replica (ARCHITECTURE.md decision 6): sealing committed
 * batches into immutable segment objects (written create-only; a retried seal that finds
 * its object with the same checksum succeeds), the manifest in SQLite (one row per segment),
 * ranged reads through the index, retention by whole segments, and deleting every object of
 * a deleted topic. A failed R2 write loses nothing: the rows stay until a seal succeeds.
 */
/** The larger of two maxima either of which may be missing (a partition's max timestamp: sealed and held). */
export function maxTimestamp(sealed: number | undefined, held: number | undefined): number | undefined {
  return sealed === undefined ? held : held === undefined ? sealed : Math.max(sealed, held);
}

export class SegmentTier {
  readonly #sql: SqlStorage;
  readonly #bucket: SegmentBucket;
  readonly #prefix: string;
  readonly #topicId: string;
  readonly #partition: number;
  #manifest: SegmentManifestEntry[];
  /** Since when the first held batch has waited to be sealed (segment.ms counts from here; reset on restart). */
  #heldSinceMs = Date.now();
  #version = 0;
  /** The version last published to R2 for readers (src/log/sealed-manifest.ts); a restart assumes the last one was. */
  #publishedVersion = 0;
  /** The etag of the manifest object this replica last wrote (null: none there), undefined until it has. */
  #publishedEtag: string | null | undefined;
  /** The log start a DeleteRecords asked for, until the next retention step applies it (0: none). */
  #requestedLogStart = 0;

  /** The epoch this replica leads (or last knew): a publication never replaces a newer leader's. */
  readonly #leaderEpoch: () => number;

  constructor(sql: SqlStorage, bucket: SegmentBucket, topicId: string, partition: number, leaderEpoch: () => number = () => 0) {
    this.#sql = sql;
    this.#leaderEpoch = leaderEpoch;
    this.#bucket = bucket;
    this.#topicId = topicId;
    this.#partition = partition;
    this.#prefix = `${topicId}/${partition}/`;
    this.#manifest = sql
      .exec<{ entry: string }>("SELECT entry FROM segments ORDER BY base_offset")
      .toArray()
      .map((row) => JSON.parse(row.entry) as SegmentManifestEntry);
  }

  get manifest(): readonly SegmentManifestEntry[] {
    return this.#manifest;
  }

  /** Bumped on every manifest change, so a leader knows which followers to tell. */
  get version(): number {
    return this.#version;
  }

  totals(): { segments: number; bytes: number } {
    return manifestTotals(this.#manifest);
  }

  /**
   * Seals committed batches while a segment is due (segment.bytes reached, or segment.ms
   * passed). Returns how many segments were sealed and when to look again.
   */
  async seal(log: PartitionLog, config: TierConfig, nowMs: number): Promise<{ sealed: number; nextCheckAtMs: number | undefined }> {
    const result = await this.#sealSegments(log, config, nowMs);
    // New segments (or a publication a failure left behind) go to readers: the objects exist by now.
    if (this.#version !== this.#publishedVersion) await this.#publish(this.#manifest, log.logStartOffset, log.highWatermark, this.#version);
    return result;
  }

  async #sealSegments(log: PartitionLog, config: TierConfig, nowMs: number): Promise<{ sealed: number; nextCheckAtMs: number | undefined }> {
    let sealed = 0;
    for (; sealed < sealsPerPassMax; sealed++) {
      // Sealed only below the last stable offset (as Kafka's KIP-405 uploads): a sealed segment never holds an open transaction's records, so a read_committed reader of R2 needs only the aborted index.
      const sizes = [...takeWhileLazy(log.heldBatchSizes(), log.lastStableOffset)];
      const plan = planSeal({
        batches: sizes.map((batch, index) => ({
          baseOffset: batch.baseOffset,
          lastOffset: batch.lastOffset,
          bytes: batch.byteLength,
          maxTimestamp: batch.maxTimestamp,
          ...(index === 0 ? { appendedAtMs: this.#heldSinceMs } : {}),
        })),
        highWatermark: log.lastStableOffset,
        segmentBytes: config.segmentBytes,
        segmentMs: config.segmentMs,
        nowMs,
      });
      if (!plan.seal) return { sealed, nextCheckAtMs: plan.nextCheckAtMs };
      const batches = log.firstHeldBatches(plan.count);
      const encoded = encodeSegment(batches);
      const objectKey = segmentObjectKey(this.#topicId, this.#partition, plan.baseOffset, 0);
      await this.#putOnce(objectKey, encoded.bytes, encoded.checksum);
      const entry = segmentManifestEntry({
        topicId: this.#topicId,
        partition: this.#partition,
        baseOffset: plan.baseOffset,
        lastOffset: plan.lastOffset,
        generation: 0,
        encoded,
      });
      // One synchronous block: the manifest row and the rows' deletion commit together.
      this.#manifest = appendSegment(this.#manifest, entry);
      this.#sql.exec("INSERT INTO segments (base_offset, entry) VALUES (?, ?)", entry.baseOffset, JSON.stringify(entry));
      log.dropBefore(plan.lastOffset + 1);
      this.#heldSinceMs = nowMs;
      this.#version++;
    }
    return { sealed, nextCheckAtMs: nowMs };
  }

  /**
   * DeleteRecords (src/objects/record-deletions.ts): the log is to start at `offset` at least.
   * Applied by the next retention step, which the caller runs.
   */
  requestLogStart(offset: number): void {
    this.#requestedLogStart = Math.max(this.#requestedLogStart, offset);
  }

  /**
   * Deletes whole sealed segments past retention.ms / retention.bytes (cleanup.policy delete), or
   * below the start DeleteRecords asked for, and moves the log start. Returns whether it moved.
   */
  async applyRetention(log: PartitionLog, config: TierConfig, nowMs: number): Promise<boolean> {
    // Committed records only: a start asked for before a leadership change is capped.
    const asked = Math.min(this.#requestedLogStart, log.highWatermark);
    this.#requestedLogStart = 0;
    if (!config.deleteEnabled && asked <= log.logStartOffset) return false;
    const plan = planRetention(this.#manifest, {
      retentionMs: config.deleteEnabled ? config.retentionMs : -1,
      retentionBytes: config.deleteEnabled ? config.retentionBytes : -1,
      nowMs,
      activeBytes: log.localBytes,
      logStartOffset: Math.max(asked, log.logStartOffset),
    });
    const logStartOffset = plan.logStartOffset!;
    if (plan.deleted.length === 0 && logStartOffset <= log.logStartOffset) return false;
    // Readers learn the new start before it moves here: a router that read the manifest before this
    // publication reads as of then; one after it never serves below the new start.
    const next = replaceSegments(this.#manifest, plan.deleted, []);
    await this.#publish(next, logStartOffset, log.highWatermark, this.#version + 1);
    // The log start moves next: once it has, nothing reads the objects, so deleting them can follow.
    this.#manifest = next;
    for (const entry of plan.deleted) this.#sql.exec("DELETE FROM segments WHERE base_offset = ?", entry.baseOffset);
    moveLogStart(log, logStartOffset);
    this.#version++;
    if (plan.deleted.length > 0) await this.#bucket.delete(plan.deleted.map((entry) => entry.objectKey));
    return true;
  }

  /** Whole batches from sealed segments, starting with the one holding `offset`: one ranged read. */
  async read(offset: number, limits: { maxRecords: number; maxBytes: number }): Promise<Uint8Array[]> {
    const entry = findSegment(this.#manifest, offset);
    const range = entry && byteRangeFor(entry, offset, limits.maxBytes, limits.maxRecords);
    if (!entry || !range) return [];
    const bytes = await this.#getRange(entry.objectKey, range.position, range.length);
    return [...splitBatches(bytes)].map(({ start, end }) => bytes.subarray(start, end));
  }

  /** The first sealed record at or after `timestampMs`, when a sealed segment holds one. */
  /** The largest timestamp of the sealed segments that reach `logStartOffset`; undefined when there are none. */
  maxTimestamp(logStartOffset: number): number | undefined {
    const kept = this.#manifest.filter((entry) => entry.lastOffset >= logStartOffset);
    return kept.length === 0 ? undefined : Math.max(...kept.map((entry) => entry.maxTimestamp));
  }

  async offsetForTimestamp(timestampMs: number, logStartOffset: number): Promise<{ offset: number; timestamp: number } | undefined> {
    const found = firstOffsetAtOrAfterTime(this.#manifest, timestampMs);
    if (!found) return undefined;
    const bytes = await this.#getRange(found.entry.objectKey, found.run.position, found.run.length);
    for (const { start } of splitBatches(bytes)) {
      for (const record of decodeRecordBatch(bytes, start).records) {
        if (record.offset >= logStartOffset && record.timestamp >= timestampMs) return { offset: record.offset, timestamp: record.timestamp };
      }
    }
    return undefined;
  }

  /**
   * Compaction (cleanup.policy compact): one pass over the sealed segments — across all of
   * them — keeping the last record of each key (and tombstones until delete.retention.ms),
   * written as the next generation of objects and swapped into the manifest; offsets never
   * change. The active (SQLite) segment is never compacted. Runs when segments were sealed
   * since the last pass. Returns whether the manifest changed.
   */
  async compact(log: PartitionLog, config: TierConfig, nowMs: number): Promise<boolean> {
    if (!config.compactEnabled || this.#manifest.length === 0) return false;
    const state = this.#compactionState();
    const manifest = this.#manifest;
    if (manifest.at(-1)!.lastOffset < state.firstDirtyOffset) return false;
    // A new generation per attempt, taken before writing: a retried pass never meets its own orphans.
    const generation = state.nextGeneration;
    this.#writeCompactionState({ nextGeneration: generation + 1, firstDirtyOffset: state.firstDirtyOffset });
    // Two streaming passes, one segment in memory at a time: map the dirty keys, then rewrite.
    const abortedTransactions = log.abortedBetween(manifest[0]!.baseOffset, manifest.at(-1)!.lastOffset + 1);
    const keyMap = new CompactionKeyMap(state.firstDirtyOffset, { abortedTransactions });
    for (const entry of manifest) {
      if (!keyMap.addSegment({ entry, bytes: await this.#getRange(entry.objectKey, 0, entry.bytes) })) break;
    }
    const replaced = manifest.filter((entry) => entry.baseOffset < keyMap.mappedEndOffset);
    if (replaced.length === 0) return false;
    const options = { nowMs, deleteRetentionMs: config.deleteRetentionMs, segmentBytes: config.segmentBytes };
    const writer = new CompactionWriter(keyMap, options, replaced[0]!.baseOffset);
    const added: SegmentManifestEntry[] = [];
    for (const entry of replaced) {
      const bytes = await this.#getRange(entry.objectKey, 0, entry.bytes);
      for (const segment of writer.addSegment({ entry, bytes })) added.push(await this.#writeGeneration(segment, generation));
    }
    for (const segment of writer.finish(replaced.at(-1)!.lastOffset)) added.push(await this.#writeGeneration(segment, generation));
    if (writer.stats.recordsSuperseded + writer.stats.tombstonesDropped + writer.stats.abortedDropped + writer.stats.markersDropped === 0) {
      // Nothing dropped: keep the current objects, forget the copies.
      await this.#bucket.delete(added.map((entry) => entry.objectKey));
      this.#writeCompactionState({ nextGeneration: generation + 1, firstDirtyOffset: keyMap.mappedEndOffset });
      return false;
    }
    // Readers learn the new generation before the old one can go.
    const next = replaceSegments(this.#manifest, replaced, added);
    await this.#publish(next, log.logStartOffset, log.highWatermark, this.#version + 1);
    // One synchronous block: the manifest swap and the rows behind it commit together.
    this.#manifest = next;
    for (const entry of replaced) this.#sql.exec("DELETE FROM segments WHERE base_offset = ?", entry.baseOffset);
    for (const entry of added) this.#sql.exec("INSERT OR REPLACE INTO segments (base_offset, entry) VALUES (?, ?)", entry.baseOffset, JSON.stringify(entry));
    this.#writeCompactionState({ nextGeneration: generation + 1, firstDirtyOffset: keyMap.mappedEndOffset });
    this.#version++;
    await this.#bucket.delete(replaced.map((entry) => entry.objectKey));
    return true;
  }

  async #writeGeneration(segment: CompactedSegment, generation: number): Promise<SegmentManifestEntry> {
    const encoded = encodeSegment(segment.batches);
    const objectKey = segmentObjectKey(this.#topicId, this.#partition, segment.baseOffset, generation);
    await this.#putOnce(objectKey, encoded.bytes, encoded.checksum);
    return segmentManifestEntry({
      topicId: this.#topicId,
      partition: this.#partition,
      baseOffset: segment.baseOffset,
      lastOffset: segment.lastOffset,
      generation,
      encoded,
      minTimestamp: segment.minTimestamp,
    });
  }

  #compactionState(): { nextGeneration: number; firstDirtyOffset: number } {
    const row = this.#sql
      .exec<{ next_generation: number; first_dirty_offset: number }>("SELECT next_generation, first_dirty_offset FROM compaction_state WHERE id = 1")
      .toArray()[0];
    return { nextGeneration: row?.next_generation ?? 1, firstDirtyOffset: row?.first_dirty_offset ?? 0 };
  }

  #writeCompactionState(state: { nextGeneration: number; firstDirtyOffset: number }): void {
    this.#sql.exec(
      `INSERT INTO compaction_state (id, next_generation, first_dirty_offset) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET next_generation = excluded.next_generation, first_dirty_offset = excluded.first_dirty_offset`,
      state.nextGeneration,
      state.firstDirtyOffset,
    );
  }

  /** What followers need to mirror this replica's tier. */
  snapshot(log: PartitionLog): TierSnapshot {
    return {
      manifest: this.#manifest.map((entry) => ({ ...entry })),
      logStartOffset: log.logStartOffset,
      localStartOffset: log.localStartOffset,
      epochs: log.epochStarts(),
    };
  }

  /**
   * A follower adopts its leader's tier: the manifest; its held batches now sealed are
   * dropped; one too far behind restarts at the leader's first held offset.
   */
  install(log: PartitionLog, snapshot: TierSnapshot): void {
    this.#sql.exec("DELETE FROM segments");
    for (const entry of snapshot.manifest) this.#sql.exec("INSERT INTO segments (base_offset, entry) VALUES (?, ?)", entry.baseOffset, JSON.stringify(entry));
    this.#manifest = snapshot.manifest;
    const sealedEnd = snapshot.manifest.at(-1)?.lastOffset ?? -1;
    if (log.logEndOffset < snapshot.localStartOffset) {
      log.restartAt(snapshot.localStartOffset, snapshot.logStartOffset, snapshot.epochs);
    } else if (sealedEnd + 1 > log.localStartOffset) {
      log.dropBefore(Math.min(sealedEnd + 1, log.highWatermark));
    }
    followLogStart(log, snapshot);
    this.#version++;
  }

  /** Deletes every object of this partition (topic deletion): the published manifest first, so readers stop at once. */
  async deleteAll(): Promise<void> {
    await this.#bucket.delete(sealedManifestKey(this.#topicId, this.#partition));
    for (let round = 0; round < 1_000; round++) {
      const listed = await this.#bucket.list({ prefix: this.#prefix, limit: 1_000 });
      if (listed.objects.length > 0) await this.#bucket.delete(listed.objects.map((object) => object.key));
      if (!listed.truncated) break;
    }
    this.#sql.exec("DELETE FROM segments");
    this.#manifest = [];
  }

  /**
   * Writes the manifest readers use (src/data-plane/sealed-reads.ts): the one this tier holds at
   * `version` (the current one, or the next about to be committed). A failure throws: the
   * caller's step (retention, compaction) stops before it changes anything readers could still
   * be using. Fenced like the log: the object carries the publisher's leader epoch, a deposed
   * leader (an epoch below the published one) never replaces its successor's, and the put is
   * conditional on the object it checked.
   */
  async #publish(manifest: readonly SegmentManifestEntry[], logStartOffset: number, highWatermark: number, version: number): Promise<void> {
    const key = sealedManifestKey(this.#topicId, this.#partition);
    const epoch = this.#leaderEpoch();
    const body = JSON.stringify(publishedManifest(manifest, logStartOffset, highWatermark));
    // The etag of this replica's last publication spares a head; a put that finds another object looks again, once.
    let expected = this.#publishedEtag;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (expected === undefined) {
        const current = await this.#bucket.head(key);
        const publishedEpoch = Number(current?.customMetadata?.leaderEpoch ?? -1);
        if (publishedEpoch > epoch) throw new Error(`${key} was published by leader epoch ${publishedEpoch}; this replica's is ${epoch}`);
        expected = current?.etag ?? null;
      }
      const written = await this.#bucket.put(key, body, {
        onlyIf: expected === null ? { etagDoesNotMatch: "*" } : { etagMatches: expected },
        httpMetadata: { contentType: "application/json" },
        customMetadata: { leaderEpoch: String(epoch) },
      });
      if (written) {
        this.#publishedEtag = written.etag;
        this.#publishedVersion = version;
        return;
      }
      expected = undefined;
    }
    throw new Error(`${key} changed while this replica published it`);
  }

  /** Create-only put; an object already there with the same checksum is this seal retried, and succeeds. */
  async #putOnce(key: string, bytes: Uint8Array, checksum: number): Promise<void> {
    const checksumText = String(checksum);
    const written = await this.#bucket.put(key, bytes, { onlyIf: { etagDoesNotMatch: "*" }, customMetadata: { crc32c: checksumText } });
    if (written) return;
    const existing = await this.#bucket.head(key);
    if (existing?.customMetadata?.crc32c !== checksumText) {
      throw new Error(`segment object ${key} exists with other contents`);
    }
  }

  async #getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    const object = await this.#bucket.get(key, { range: { offset, length } });
    if (!object) throw new Error(`segment object ${key} is missing`);
    return new Uint8Array(await object.arrayBuffer());
  }
}

/** Batch sizes up to the first not entirely below `highWatermark` (the seal plan reads no further). */
function* takeWhileLazy<T extends { lastOffset: number }>(items: Iterable<T>, highWatermark: number): Generator<T> {
  for (const item of items) {
    if (item.lastOffset >= highWatermark) return;
    yield item;
  }
}
