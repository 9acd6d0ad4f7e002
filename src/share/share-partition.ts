import { TributaryError } from "../errors.ts";
import { shareDeadLetterClaimMs, shareInFlightRecordsMax } from "../limits.ts";
import type { ArchiveReason, InFlightRecord, RecordState } from "./in-flight-record.ts";
import { fromRanges, toRanges, type PersistedSharePartition } from "./share-partition-persisted.ts";

/**
 * A share-partition (KIP-932): which records of one topic partition a share group has
 * handed out, to whom, until when and how often. Pure: time comes in as arguments, the
 * SharePartitionState object (src/objects/share-partition-state.ts) persists it after each
 * request and schedules nothing (locks expire lazily, at the next call that looks).
 *
 * ```
 *   offsets:  … done │ start ───── in-flight window ───── end │ never fetched … highWatermark
 *                    │ available · acquired · acknowledged · │
 *                    │ archived · dead-lettering, per offset │
 * ```
 *
 * - Every offset below `startOffset` is accepted or archived; the window [start, end) holds
 *   each offset's state; offsets at or past `endOffset` (below the high watermark) are
 *   available and never delivered. The window never spans more than shareInFlightRecordsMax.
 * - acquire: available offsets of the window first (redeliveries, lowest first), then new
 *   ones from `endOffset`; each delivery counts, and the record is locked for one lease until
 *   `now + lockDurationMs`.
 * - acknowledge (by the lease that holds the lock, before it expires; all of a call's offsets
 *   or none): accept → acknowledged; release → available again (archived when its delivery
 *   count reached the limit); reject → archived.
 * - An expired lock releases its records (archived when their count reached the limit).
 * - Archiving with a dead-letter topic goes through "dead-lettering": the record is handed to
 *   a router to write to the dead-letter topic (claimed for shareDeadLetterClaimMs, then handed
 *   out again) and archived only when that write is confirmed, so a failed write loses nothing.
 * - The start moves past every leading accepted or archived offset.
 */

export type AcknowledgeType = "accept" | "release" | "reject";

/** The group's configs as a share-partition acts on them (src/share/share-configs.ts). */
export interface SharePartitionConfig {
  lockDurationMs: number;
  deliveryCountLimit: number;
  /** Whether a dead-letter topic is configured: archiving then goes through "dead-lettering". */
  deadLetter: boolean;
  /** The in-flight window's bound; shareInFlightRecordsMax unless a simulation makes it small. */
  inFlightRecordsMax?: number;
}

export interface AcquiredRecord {
  offset: number;
  deliveryCount: number;
}

export interface DeadLetter {
  offset: number;
  deliveryCount: number;
  reason: ArchiveReason;
}

export interface AcquireRequest {
  lease: string;
  maxRecords: number;
  nowMs: number;
  /** The partition's high watermark as last seen: no record at or past it is acquired. */
  highWatermark: number;
  /** The partition's log start as last seen: offsets below it are gone from the log. */
  logStartOffset?: number;
}

export interface AcknowledgeBatch {
  lease: string;
  offsets: readonly number[];
  type: AcknowledgeType;
}

/**
 * What describe shows (docs/cli.md, share-groups describe). Every offset from `startOffset` to
 * the high watermark is counted once: `highWatermark − startOffset = available + acquired +
 * done` (test/unit/share/share-partition.test.ts holds it over random histories).
 */
export interface SharePartitionSummary {
  /** KIP-932's share-partition start offset: every record below is accepted or archived. */
  startOffset: number;
  /** KIP-932's share-partition end offset: the window [startOffset, endOffset) is in flight. */
  endOffset: number;
  /** The partition's high watermark as last seen. */
  highWatermark: number;
  /** Released records in the window, and every record from endOffset to the high watermark. */
  available: number;
  acquired: number;
  /** Records in the window accepted, archived or being written to the dead-letter topic: not delivered again. */
  done: number;
  /** Records archived since the share-partition started (below the start too). */
  archived: number;
}

const done = (state: RecordState) => state === "acknowledged" || state === "archived";

export class SharePartition {
  #start: number;
  /** The window: `#records[i]` is offset `#start + i`. */
  #records: InFlightRecord[];
  #highWatermark: number;
  #archivedTotal: number;

  private constructor(start: number, records: InFlightRecord[], highWatermark: number, archivedTotal: number) {
    this.#start = start;
    this.#records = records;
    this.#highWatermark = highWatermark;
    this.#archivedTotal = archivedTotal;
  }

  /** A new share-partition starting at `offset` (auto.offset.reset's answer), nothing in flight. */
  static startingAt(offset: number, highWatermark: number): SharePartition {
    return new SharePartition(offset, [], Math.max(offset, highWatermark), 0);
  }

  static fromPersisted(persisted: PersistedSharePartition): SharePartition {
    return new SharePartition(persisted.startOffset, fromRanges(persisted.ranges), persisted.highWatermark, persisted.archivedTotal);
  }

  toPersisted(): PersistedSharePartition {
    return { startOffset: this.#start, highWatermark: this.#highWatermark, archivedTotal: this.#archivedTotal, ranges: toRanges(this.#records) };
  }

  get startOffset(): number {
    return this.#start;
  }

  get endOffset(): number {
    return this.#start + this.#records.length;
  }

  get highWatermark(): number {
    return this.#highWatermark;
  }

  /** Records archived (rejected, or past the delivery limit) since the share-partition started. */
  get archivedTotal(): number {
    return this.#archivedTotal;
  }

  /** One offset's state (undefined outside the window), for tests and checks. */
  recordAt(offset: number): Readonly<InFlightRecord> | undefined {
    return this.#at(offset);
  }

  #at(offset: number): InFlightRecord | undefined {
    return offset >= this.#start ? this.#records[offset - this.#start] : undefined;
  }

  /** Learns a newer high watermark (never moves back). */
  observeHighWatermark(highWatermark: number): void {
    this.#highWatermark = Math.max(this.#highWatermark, highWatermark);
  }

  /** Releases every lock expired at `nowMs`; answers how many records changed. */
  expireLocks(nowMs: number, config: SharePartitionConfig): number {
    let changed = 0;
    for (const record of this.#records) {
      if (record.state === "acquired" && record.untilMs !== null && record.untilMs <= nowMs) {
        this.#release(record, config);
        changed += 1;
      }
    }
    this.#advanceStart();
    return changed;
  }

  /**
   * Acquires up to `maxRecords` records for `lease`: available ones in the window first, then
   * new ones from the end, below the high watermark and within the window's bound.
   */
  acquire(request: AcquireRequest, config: SharePartitionConfig): AcquiredRecord[] {
    this.observeHighWatermark(request.highWatermark);
    this.expireLocks(request.nowMs, config);
    if (request.logStartOffset !== undefined) this.#skipBelow(request.logStartOffset);
    const untilMs = request.nowMs + config.lockDurationMs;
    const acquired: AcquiredRecord[] = [];
    const lock = (record: InFlightRecord, offset: number) => {
      record.state = "acquired";
      record.deliveryCount += 1;
      record.lease = request.lease;
      record.untilMs = untilMs;
      acquired.push({ offset, deliveryCount: record.deliveryCount });
    };
    for (let index = 0; index < this.#records.length && acquired.length < request.maxRecords; index++) {
      const record = this.#records[index]!;
      if (record.state === "available") lock(record, this.#start + index);
    }
    const windowEnd = Math.min(this.#highWatermark, this.#start + (config.inFlightRecordsMax ?? shareInFlightRecordsMax));
    while (acquired.length < request.maxRecords && this.endOffset < windowEnd) {
      const record: InFlightRecord = { state: "available", deliveryCount: 0, lease: null, untilMs: null, reason: null };
      this.#records.push(record);
      lock(record, this.endOffset - 1);
    }
    return acquired;
  }

  /**
   * Applies acknowledgements of this partition (each by the lease it names): all or none.
   * Refused with INVALID_RECORD_STATE, changing nothing, when an offset is named twice or is
   * not held by its batch's lease under a lock that still holds at `nowMs`.
   */
  acknowledge(batches: readonly AcknowledgeBatch[], nowMs: number, config: SharePartitionConfig): number {
    const seen = new Set<number>();
    for (const { lease, offsets } of batches) {
      for (const offset of offsets) {
        const record = this.recordAt(offset);
        if (seen.has(offset)) throw invalidState(`offset ${offset} is acknowledged twice in one request`, offset);
        seen.add(offset);
        if (record?.state !== "acquired" || record.lease !== lease || record.untilMs === null || record.untilMs <= nowMs) {
          throw invalidState(`offset ${offset} is not held by this lease (unknown or expired lease, or not acquired by it)`, offset);
        }
      }
    }
    for (const { offsets, type } of batches) {
      for (const offset of offsets) {
        const record = this.#records[offset - this.#start]!;
        if (type === "accept") this.#set(record, "acknowledged", null);
        else if (type === "reject") this.#archive(record, "rejected", config);
        else this.#release(record, config);
      }
    }
    this.#advanceStart();
    return seen.size;
  }

  /**
   * Gives back records `lease` acquired but did not deliver (its answer was full): available
   * again, their delivery not counted. Offsets not held by the lease are left alone.
   */
  unacquire(lease: string, offsets: readonly number[]): void {
    for (const offset of offsets) {
      const record = this.#at(offset);
      if (record?.state !== "acquired" || record.lease !== lease) continue;
      record.deliveryCount -= 1;
      this.#set(record, "available", null);
    }
  }

  /**
   * Records `lease` acquired that the log no longer has (deleted by retention, removed by
   * compaction): nothing to deliver, so they are done without counting as archived.
   */
  skipMissing(lease: string, offsets: readonly number[]): void {
    for (const offset of offsets) {
      const record = this.#at(offset);
      if (record?.state === "acquired" && record.lease === lease) this.#set(record, "acknowledged", null);
    }
    this.#advanceStart();
  }

  /**
   * Hands out up to `max` records waiting for their dead-letter write (unclaimed, or whose
   * claim lapsed), claimed until `nowMs + shareDeadLetterClaimMs`. Without a dead-letter topic
   * (it was unset meanwhile) they are archived at once and none is handed out.
   */
  claimDeadLetters(nowMs: number, max: number, config: SharePartitionConfig): DeadLetter[] {
    const claimed: DeadLetter[] = [];
    this.#records.forEach((record, index) => {
      if (record.state !== "dead-lettering") return;
      if (!config.deadLetter) return this.#set(record, "archived", record.reason);
      if (claimed.length >= max || (record.untilMs !== null && record.untilMs > nowMs)) return;
      record.untilMs = nowMs + shareDeadLetterClaimMs;
      claimed.push({ offset: this.#start + index, deliveryCount: record.deliveryCount, reason: record.reason ?? "rejected" });
    });
    this.#advanceStart();
    return claimed;
  }

  /** The dead-letter write of these offsets is confirmed: archived now (offsets already archived or gone are ignored). */
  completeDeadLetters(offsets: readonly number[]): void {
    for (const offset of offsets) {
      const record = this.#at(offset);
      if (record?.state === "dead-lettering") this.#set(record, "archived", record.reason);
    }
    this.#advanceStart();
  }

  /** Whether any record is under a lock that holds at `nowMs`. */
  hasAcquired(nowMs: number): boolean {
    return this.#records.some((record) => record.state === "acquired" && record.untilMs !== null && record.untilMs > nowMs);
  }

  /** Whether some record waits for its dead-letter write. */
  hasDeadLetters(): boolean {
    return this.#records.some((record) => record.state === "dead-lettering");
  }

  /** The earliest time a lock held now expires (null: none held). */
  nextLockExpiryMs(): number | null {
    let earliest: number | null = null;
    for (const record of this.#records) {
      if (record.state === "acquired" && record.untilMs !== null && (earliest === null || record.untilMs < earliest)) earliest = record.untilMs;
    }
    return earliest;
  }

  /**
   * Moves the share-partition to `offset` with nothing in flight (a reset). The caller first
   * checks that no record is acquired (hasAcquired): a reset must not pull records from under
   * their consumers.
   */
  resetTo(offset: number, highWatermark: number): void {
    this.#start = offset;
    this.#records = [];
    this.#highWatermark = Math.max(this.#highWatermark, highWatermark, offset);
  }

  summary(): SharePartitionSummary {
    let released = 0;
    let acquired = 0;
    for (const record of this.#records) {
      if (record.state === "available") released += 1;
      else if (record.state === "acquired") acquired += 1;
    }
    // Never fetched: from the end to the high watermark (records are acquired only below it).
    const available = released + Math.max(0, this.#highWatermark - this.endOffset);
    const done = this.#records.length - released - acquired;
    return { startOffset: this.#start, endOffset: this.endOffset, highWatermark: this.#highWatermark, available, acquired, done, archived: this.#archivedTotal };
  }

  /** A released record: available again, or archived when its delivery count reached the limit. */
  #release(record: InFlightRecord, config: SharePartitionConfig): void {
    if (record.deliveryCount >= config.deliveryCountLimit) this.#archive(record, "delivery-limit", config);
    else this.#set(record, "available", null);
  }

  #archive(record: InFlightRecord, reason: ArchiveReason, config: SharePartitionConfig): void {
    this.#set(record, config.deadLetter ? "dead-lettering" : "archived", reason);
  }

  #set(record: InFlightRecord, state: RecordState, reason: ArchiveReason | null): void {
    if (state === "archived" && record.state !== "archived") this.#archivedTotal += 1;
    record.state = state;
    record.lease = null;
    record.untilMs = null;
    record.reason = reason;
  }

  /** Offsets below the log start are gone from the log: the window moves past them (a bounded step per call). */
  #skipBelow(logStartOffset: number): void {
    for (const record of this.#records.slice(0, Math.max(0, logStartOffset - this.#start))) {
      if (record.state === "available") this.#set(record, "acknowledged", null);
    }
    this.#advanceStart();
    if (this.#records.length === 0) {
      this.#start = Math.max(this.#start, logStartOffset);
      return;
    }
    while (this.endOffset < logStartOffset && this.#records.length < shareInFlightRecordsMax) {
      this.#records.push({ state: "acknowledged", deliveryCount: 0, lease: null, untilMs: null, reason: null });
    }
  }

  #advanceStart(): void {
    let leading = 0;
    while (leading < this.#records.length && done(this.#records[leading]!.state)) leading += 1;
    if (leading === 0) return;
    this.#records.splice(0, leading);
    this.#start += leading;
  }
}

function invalidState(message: string, offset: number): TributaryError {
  return new TributaryError("INVALID_RECORD_STATE", message, { offset });
}
