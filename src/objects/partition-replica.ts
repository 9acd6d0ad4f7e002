import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, type Result } from "../errors.ts";
import { waitersPerPartitionMax } from "../limits.ts";
import { PartitionLog, type AppendResult, type ReadResult } from "../log/partition-log.ts";
import { Waiters } from "../log/waiters.ts";
import { BatchFormatError } from "../protocol/record-batch.ts";
import { applyMigrations } from "./schema.ts";
import { logStoreMigrations, SqliteLogStore } from "./sqlite-log-store.ts";

/** Every call names the partition it means, so an object can check it is that partition. */
export interface PartitionAddress {
  topicId: string;
  partition: number;
}

export interface AppendRequest extends PartitionAddress {
  /** Record batches in Kafka's v2 format, validated by the caller; written atomically together. */
  batches: Uint8Array[];
}

export interface FetchRequest extends PartitionAddress {
  offset: number;
  maxRecords: number;
  maxBytes: number;
  /** Long-poll: wait up to this long for a record when none is readable at `offset`. */
  waitMs: number;
}

export type OffsetQuery = "earliest" | "latest" | { timestampMs: number };

export interface PartitionState {
  logStartOffset: number;
  highWatermark: number;
  logEndOffset: number;
  leaderEpoch: number;
  storage: { sqliteBatches: number; sqliteBytes: number };
}

const migrations = [
  logStoreMigrations[0]!,
  `CREATE TABLE replica_identity (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     topic_id TEXT NOT NULL,
     partition INTEGER NOT NULL,
     leader_epoch INTEGER NOT NULL,
     deleted INTEGER NOT NULL DEFAULT 0
   )`,
];

interface Identity {
  topicId: string;
  partition: number;
  leaderEpoch: number;
  deleted: boolean;
}

/**
 * One replica of one partition (leader only until replication lands). A thin adapter: the
 * log itself is the pure PartitionLog over this object's SQLite; this class adds identity,
 * the tombstone of a deleted topic, long-poll waiters, and error values for RPC.
 */
export class PartitionReplica extends DurableObject<Env> {
  #store!: SqliteLogStore;
  #log!: PartitionLog;
  #identity: Identity | undefined;
  readonly #waiters = new Waiters(waitersPerPartitionMax);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(ctx.storage.sql, migrations);
      this.#store = new SqliteLogStore(ctx.storage.sql);
      this.#log = new PartitionLog(this.#store);
      this.#identity = this.#readIdentity();
    });
  }

  async append(request: AppendRequest): Promise<Result<AppendResult>> {
    return toResult(() => {
      const identity = this.#admit(request, true);
      let result: AppendResult;
      try {
        result = this.#log.append(request.batches, identity.leaderEpoch);
      } catch (error) {
        if (error instanceof BatchFormatError) throw new TributaryError("INVALID_RECORD", error.message);
        throw error;
      }
      this.#waiters.wakeAll();
      return result;
    });
  }

  async read(request: FetchRequest): Promise<Result<ReadResult>> {
    return toResult(async () => {
      this.#admit(request, false);
      const limits = { maxRecords: request.maxRecords, maxBytes: request.maxBytes };
      let result = this.#log.read(request.offset, limits);
      const deadline = Date.now() + request.waitMs;
      while (result.batches.length === 0 && Date.now() < deadline) {
        await this.#waiters.wait(deadline - Date.now());
        this.#admit(request, false);
        result = this.#log.read(request.offset, limits);
      }
      return result;
    });
  }

  async listOffset(request: PartitionAddress & { at: OffsetQuery }): Promise<Result<{ offset: number; timestamp?: number }>> {
    return toResult(() => {
      this.#admit(request, false);
      if (request.at === "earliest") return { offset: this.#log.logStartOffset };
      if (request.at === "latest") return { offset: this.#log.highWatermark };
      return this.#log.offsetForTimestamp(request.at.timestampMs);
    });
  }

  async state(request: PartitionAddress): Promise<Result<PartitionState>> {
    return toResult(() => {
      const identity = this.#admit(request, false);
      const storage = this.#log.storage();
      return {
        logStartOffset: this.#log.logStartOffset,
        highWatermark: this.#log.highWatermark,
        logEndOffset: this.#log.logEndOffset,
        leaderEpoch: identity.leaderEpoch,
        storage: { sqliteBatches: storage.batches, sqliteBytes: storage.bytes },
      };
    });
  }

  /**
   * Deletes this partition's data for good and leaves a tombstone, so that a router with
   * stale metadata can neither read the old data nor revive the partition. Idempotent.
   */
  async deleteTopicData(request: PartitionAddress): Promise<Result<void>> {
    return toResult(() => {
      this.#store.deleteAll();
      this.#writeIdentity({ topicId: request.topicId, partition: request.partition, leaderEpoch: 0, deleted: true });
      this.#log = new PartitionLog(this.#store);
      this.#waiters.wakeAll();
    });
  }

  /** Checks the call is for this partition and not a deleted one; records the identity on the first write. */
  #admit(address: PartitionAddress, forWrite: boolean): Identity {
    const identity = this.#identity;
    if (identity?.deleted) {
      throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", "this topic has been deleted");
    }
    if (identity && (identity.topicId !== address.topicId || identity.partition !== address.partition)) {
      throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", "this object holds another partition");
    }
    if (identity) return identity;
    const fresh = { topicId: address.topicId, partition: address.partition, leaderEpoch: 0, deleted: false };
    if (forWrite) this.#writeIdentity(fresh);
    return fresh;
  }

  #readIdentity(): Identity | undefined {
    const row = this.ctx.storage.sql
      .exec<{ topic_id: string; partition: number; leader_epoch: number; deleted: number }>(
        "SELECT topic_id, partition, leader_epoch, deleted FROM replica_identity WHERE id = 1",
      )
      .toArray()[0];
    if (!row) return undefined;
    return { topicId: row.topic_id, partition: row.partition, leaderEpoch: row.leader_epoch, deleted: row.deleted === 1 };
  }

  #writeIdentity(identity: Identity): void {
    this.ctx.storage.sql.exec(
      `INSERT INTO replica_identity (id, topic_id, partition, leader_epoch, deleted) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET topic_id = excluded.topic_id, partition = excluded.partition,
         leader_epoch = excluded.leader_epoch, deleted = excluded.deleted`,
      identity.topicId,
      identity.partition,
      identity.leaderEpoch,
      identity.deleted ? 1 : 0,
    );
    this.#identity = identity;
  }
}
