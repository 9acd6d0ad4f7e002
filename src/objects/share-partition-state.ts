import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, unwrap, type ErrorValue, type Result } from "../errors.ts";
import { shareDeadLettersPerRequestMax } from "../limits.ts";
import { sharePartitionConfigOf } from "../share/share-configs.ts";
import { SharePartition } from "../share/share-partition.ts";
import type { PersistedSharePartition } from "../share/share-partition-persisted.ts";
import { CountedSql } from "./counted-sql.ts";
import { applyMigrations } from "./schema.ts";
import type {
  DeadLetterWork,
  LeaseAcknowledgement,
  SharePartitionDescription,
  SharePartitionKey,
  ShareAcquireAnswer,
  ShareAcquireRequest,
  ShareSettleRequest,
  VersionedShareConfigs,
} from "./share-partition-api.ts";
import { shareGroupStub } from "./stubs.ts";

/**
 * One share-partition's state (ARCHITECTURE.md decision 13; src/share/share-partition.ts):
 * one object per (group, topicId, partition), created near the partition's leader. A thin
 * adapter: it loads the state once, runs each request on the pure SharePartition with the
 * time now, and writes the state back as ONE row (its window as runs) when the request
 * changed it — one SQLite write per fetch or acknowledgement, however many records.
 * Lock expiry times are in that row, so a restarted object frees no lock early; locks
 * expire lazily, at the next call that looks, so an idle share-partition costs nothing.
 *
 * Its configs are the group's (src/objects/share-group.ts): fetched when the object first
 * registers with the group, pushed by the group on every change, ordered by version.
 */
const migrations = [
  `CREATE TABLE share_partition (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     key TEXT NOT NULL,
     configs TEXT NOT NULL,
     configs_version INTEGER NOT NULL,
     state TEXT
   )`,
];

interface Stored {
  key: SharePartitionKey;
  configs: VersionedShareConfigs;
  partition: SharePartition | null;
  /** The state as last written, to skip writes that change nothing. */
  written: string | null;
}

export class SharePartitionState extends DurableObject<Env> {
  readonly #sql: CountedSql;
  #stored: Stored | null = null;
  /** Configs pushed while this object's registration was on its way (newer than its answer, perhaps). */
  #pushedConfigs: VersionedShareConfigs | null = null;
  #recordsAcknowledged = 0;
  #requests = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new CountedSql(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(this.#sql.storage, migrations);
      const row = this.#sql.storage.exec<{ key: string; configs: string; configs_version: number; state: string | null }>("SELECT key, configs, configs_version, state FROM share_partition WHERE id = 1").toArray()[0];
      if (row === undefined) return;
      this.#stored = {
        key: JSON.parse(row.key) as SharePartitionKey,
        configs: { version: row.configs_version, configs: JSON.parse(row.configs) as Record<string, string> },
        partition: row.state === null ? null : SharePartition.fromPersisted(JSON.parse(row.state) as PersistedSharePartition),
        written: row.state,
      };
    });
  }

  /** Applies acknowledgements that ride along, then acquires up to `maxRecords` records for the lease. */
  async acquire(key: SharePartitionKey, request: ShareAcquireRequest): Promise<Result<ShareAcquireAnswer>> {
    return toResult(async () => {
      this.#requests += 1;
      const stored = await this.#registered(key);
      const config = sharePartitionConfigOf(stored.configs.configs);
      const nowMs = Date.now();
      if (stored.partition === null && request.start !== undefined) {
        stored.partition = SharePartition.startingAt(request.start.offset, request.start.highWatermark);
      }
      const acknowledgementError = stored.partition === null ? undefined : this.#acknowledgeQuietly(stored.partition, request.acknowledgements, nowMs);
      if (stored.partition === null) {
        const error = request.acknowledgements?.length ? notHeld() : undefined;
        return { needsStart: true, autoOffsetReset: config.autoOffsetReset, ...(error ? { acknowledgementError: error } : {}) };
      }
      const partition = stored.partition;
      const records = partition.acquire(
        { lease: request.lease, maxRecords: request.maxRecords, nowMs, highWatermark: request.highWatermark ?? 0, logStartOffset: request.logStartOffset },
        config,
      );
      const work = this.#claimDeadLetters(partition, nowMs);
      this.#persist();
      return {
        needsStart: false,
        records,
        lockExpiresAtMs: nowMs + config.lockDurationMs,
        endOffset: partition.endOffset,
        highWatermark: partition.highWatermark,
        nextLockExpiryMs: partition.nextLockExpiryMs(),
        ...work,
        ...(acknowledgementError ? { acknowledgementError } : {}),
      };
    });
  }

  /** Acknowledgements of this partition (all or none): INVALID_RECORD_STATE when a lease does not hold its offsets. */
  async acknowledge(key: SharePartitionKey, acknowledgements: LeaseAcknowledgement[]): Promise<Result<DeadLetterWork>> {
    return toResult(async () => {
      this.#requests += 1;
      // Never registers: an acknowledgement cannot make a group or a share-partition exist.
      const stored = this.#stored;
      if (stored === null || stored.partition === null || stored.key.topicId !== key.topicId) throw notHeldError();
      const nowMs = Date.now();
      this.#recordsAcknowledged += stored.partition.acknowledge(acknowledgements, nowMs, sharePartitionConfigOf(stored.configs.configs));
      const work = this.#claimDeadLetters(stored.partition, nowMs);
      this.#persist();
      return work;
    });
  }

  /** After a fetch: records acquired but not delivered, and records the log no longer has. */
  async settle(request: ShareSettleRequest): Promise<Result<void>> {
    return toResult(() => {
      const partition = this.#stored?.partition;
      if (!partition) return;
      partition.unacquire(request.lease, request.unacquired);
      partition.skipMissing(request.lease, request.missing);
      this.#persist();
    });
  }

  /** The dead-letter write of these offsets is confirmed: they are archived now. */
  async completeDeadLetters(offsets: number[]): Promise<Result<void>> {
    return toResult(() => {
      this.#stored?.partition?.completeDeadLetters(offsets);
      this.#persist();
    });
  }

  /** The share-partition now (expired locks released first), or null when it never started. */
  async describe(highWatermark?: number): Promise<Result<SharePartitionDescription | null>> {
    return toResult(() => {
      const stored = this.#stored;
      if (!stored?.partition) return null;
      if (highWatermark !== undefined) stored.partition.observeHighWatermark(highWatermark);
      stored.partition.expireLocks(Date.now(), sharePartitionConfigOf(stored.configs.configs));
      this.#persist();
      const debug = this.env.TRIBUTARY_FAULTS === "1" && this.env.TRIBUTARY_DEBUG_STATS === "1"
        ? { debug: { rowsWritten: this.#sql.rowsWritten, recordsAcknowledged: this.#recordsAcknowledged, requests: this.#requests } }
        : {};
      return { topic: stored.key.topic, topicId: stored.key.topicId, partition: stored.key.partition, ...stored.partition.summary(), ...debug };
    });
  }

  /** Moves the share-partition to `offset` (a reset): NON_EMPTY_GROUP while a record is acquired. */
  async reset(key: SharePartitionKey, offset: number, highWatermark: number): Promise<Result<void>> {
    return toResult(async () => {
      const stored = await this.#registered(key);
      if (stored.partition?.hasAcquired(Date.now())) throw nonEmpty(key);
      if (stored.partition === null) stored.partition = SharePartition.startingAt(offset, highWatermark);
      else stored.partition.resetTo(offset, highWatermark);
      this.#persist();
    });
  }

  /** Forgets everything (the group is being deleted): NON_EMPTY_GROUP while a record is acquired. */
  async clear(): Promise<Result<void>> {
    return toResult(async () => {
      const stored = this.#stored;
      if (stored?.partition?.hasAcquired(Date.now())) throw nonEmpty(stored.key);
      this.#stored = null;
      await this.ctx.storage.deleteAll();
      applyMigrations(this.#sql.storage, migrations); // this instance lives on: a later fetch starts over
    });
  }

  /** The group's configs changed (pushed by the group): kept when newer than what this object has. */
  async applyConfigs(configs: VersionedShareConfigs): Promise<Result<void>> {
    return toResult(() => {
      const stored = this.#stored;
      if (!stored) {
        if (configs.version > (this.#pushedConfigs?.version ?? 0)) this.#pushedConfigs = configs;
        return;
      }
      if (configs.version <= stored.configs.version) return;
      stored.configs = configs;
      this.#sql.storage.exec("UPDATE share_partition SET configs = ?, configs_version = ? WHERE id = 1", JSON.stringify(configs.configs), configs.version);
    });
  }

  /** This object's state, registering with its group (and fetching the configs) on its first call. */
  async #registered(key: SharePartitionKey): Promise<Stored> {
    if (this.#stored) return this.#stored;
    const answered = unwrap(await shareGroupStub(this.env, key.group).register(key.group, key));
    // Another call may have registered while this one waited for the group, or the group pushed newer configs.
    if (this.#stored) return this.#stored;
    const pushed = this.#pushedConfigs;
    const configs = pushed !== null && pushed.version > answered.version ? pushed : answered;
    this.#stored = { key, configs, partition: null, written: null };
    this.#sql.storage.exec(
      "INSERT INTO share_partition (id, key, configs, configs_version, state) VALUES (1, ?, ?, ?, NULL)",
      JSON.stringify(key),
      JSON.stringify(configs.configs),
      configs.version,
    );
    return this.#stored;
  }

  #acknowledgeQuietly(partition: SharePartition, acknowledgements: LeaseAcknowledgement[] | undefined, nowMs: number): ErrorValue | undefined {
    if (!acknowledgements?.length) return undefined;
    try {
      this.#recordsAcknowledged += partition.acknowledge(acknowledgements, nowMs, sharePartitionConfigOf(this.#stored!.configs.configs));
      return undefined;
    } catch (error) {
      if (error instanceof TributaryError) return error.toValue();
      throw error;
    }
  }

  #claimDeadLetters(partition: SharePartition, nowMs: number): DeadLetterWork {
    const config = sharePartitionConfigOf(this.#stored!.configs.configs);
    if (!partition.hasDeadLetters()) return { deadLetterTopic: config.deadLetterTopic, deadLetters: [] };
    return { deadLetterTopic: config.deadLetterTopic, deadLetters: partition.claimDeadLetters(nowMs, shareDeadLettersPerRequestMax, config) };
  }

  /** Writes the state row when it changed: one row, one statement (atomic), per request. */
  #persist(): void {
    const stored = this.#stored;
    if (!stored?.partition) return;
    const state = JSON.stringify(stored.partition.toPersisted());
    if (state === stored.written) return;
    this.#sql.storage.exec("UPDATE share_partition SET state = ? WHERE id = 1", state);
    stored.written = state;
  }
}

function notHeldError(): TributaryError {
  return new TributaryError("INVALID_RECORD_STATE", "these records are not held by this lease (unknown or expired lease, or not acquired by it)");
}

function notHeld(): ErrorValue {
  return notHeldError().toValue();
}

function nonEmpty(key: SharePartitionKey): TributaryError {
  return new TributaryError("NON_EMPTY_GROUP", `share group ${key.group} holds acquired records of ${key.topic} partition ${key.partition}`, { topic: key.topic, partition: key.partition });
}
