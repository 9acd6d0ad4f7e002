import { DurableObject } from "cloudflare:workers";
import type { ScramMechanism } from "../auth/scram.ts";
import { createTokenSchema } from "../auth/token-schemas.ts";
import { TributaryError, toResult, type Result } from "../errors.ts";
import { partitionsPerTopicMax, replicationFactorMax } from "../limits.ts";
import { parseRegions, placePartitions } from "../topics/placement.ts";
import { mergeTopicConfigs, type TopicConfigs } from "../topics/topic-configs.ts";
import type { TopicMetadata, TopicSummary } from "../topics/topic-metadata.ts";
import { checkDeletable, checkNewTopicName, collidingTopic } from "../topics/topic-names.ts";
import { topicDefaults } from "../topics/topic-defaults.ts";
import type { AlterPartitionRequest, PartitionState } from "../replication/partition-state.ts";
import { PartitionElections, type PartitionRef } from "./partition-elections.ts";
import { applyMigrations } from "./schema.ts";
import { insertPartitionRows, loadTopicRows } from "./topic-rows.ts";
import { StreamLifecycle } from "./stream-lifecycle.ts";
import { deletionRetryMs, TopicDeletions } from "./topic-deletions.ts";
import { TokenRegistry, tokenAdminBindingMigration, tokenMigration, tokenScramMigration } from "./token-registry.ts";
import type { ScramLookup, TokenGrant, TokenView } from "../contracts/controller-api.ts";

export interface CreateTopicRequest {
  name: unknown;
  partitions?: unknown;
  replicationFactor?: unknown;
  configs?: unknown;
  /** Every check, nothing written: answers the topic as it would be made (Kafka's validateOnly). */
  validateOnly?: boolean;
}

const migrations = [
  `CREATE TABLE topics (
     name TEXT PRIMARY KEY,
     topic_id TEXT NOT NULL UNIQUE,
     replication_factor INTEGER NOT NULL,
     configs TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE partitions (
     topic_id TEXT NOT NULL,
     partition INTEGER NOT NULL,
     leader TEXT NOT NULL,
     replicas TEXT NOT NULL,
     isr TEXT NOT NULL,
     leader_epoch INTEGER NOT NULL,
     partition_epoch INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (topic_id, partition)
   );
   CREATE TABLE pending_deletions (
     topic_id TEXT PRIMARY KEY,
     partitions TEXT NOT NULL
   );`,
  // The group index (ARCHITECTURE.md decision 7): every group, for listing and for deleting a
  // deleted topic's offsets in every group; and the name of each topic whose deletion still
  // has to reach the groups (a group removes the topic from its assignments by name).
  `CREATE TABLE groups (
     name TEXT PRIMARY KEY,
     state TEXT NOT NULL,
     members INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE TABLE pending_group_offset_deletions (
     topic_id TEXT PRIMARY KEY,
     topic TEXT NOT NULL
   );`,
  // Idempotent producers (API.md, Produce): the next producer id to hand out; never reused.
  `CREATE TABLE producer_ids (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     next_producer_id INTEGER NOT NULL
   );`,
  tokenMigration,
  tokenAdminBindingMigration,
  // The deployment's cluster id (GET /v1/cluster; the Kafka gateway's Metadata), made once.
  `CREATE TABLE cluster_identity (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     cluster_id TEXT NOT NULL
   );`,
  tokenScramMigration,
];

/** What `POST /v1/producers` answers (Kafka's InitProducerId, without transactions). */
export interface ProducerIdentity {
  producerId: number;
  producerEpoch: number;
}

/** A group as the index lists it (API.md, GET /v1/groups); the coordinator keeps it current. */
export interface GroupIndexEntry {
  group: string;
  state: string;
  members: number;
}

/**
 * The one controller (ARCHITECTURE.md): topics, their configs and partition placement. It
 * holds metadata only; records never pass through it. Every answer reflects the change it
 * made, and routers cache its metadata for at most a few seconds.
 */
export class Controller extends DurableObject<Env> {
  readonly #topics = new Map<string, TopicMetadata>();
  readonly #elections: PartitionElections;
  readonly #tokens: TokenRegistry;
  readonly #deletions: TopicDeletions;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#elections = new PartitionElections(env, ctx.storage.sql, this.#topics);
    this.#tokens = new TokenRegistry(ctx.storage.sql);
    this.#deletions = new TopicDeletions(env, ctx.storage.sql, (atMs) => this.#setAlarmBefore(atMs));
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(ctx.storage.sql, migrations);
      for (const topic of loadTopicRows(ctx.storage.sql)) this.#topics.set(topic.name, topic);
    });
  }

  async createTopic(request: CreateTopicRequest): Promise<Result<TopicMetadata>> {
    return toResult(async () => {
      const name = checkNewTopicName(request.name);
      const defaults = topicDefaults(this.env, this.#regions().length);
      const partitionCount = checkPartitionCount(request.partitions ?? defaults.partitions, "partitions");
      const replicationFactor = this.#checkReplicationFactor(request.replicationFactor ?? defaults.replicationFactor);
      const configs = mergeTopicConfigs({}, request.configs);
      if (this.#topics.has(name)) throw new TributaryError("TOPIC_ALREADY_EXISTS", `topic ${name} already exists`);
      // Kafka's InvalidTopicException; topics that collided before this check stay as they are.
      const collision = collidingTopic(name, this.#topics.keys());
      if (collision !== undefined) {
        throw new TributaryError("INVALID_TOPIC_EXCEPTION", `topic ${name} collides with existing topic ${collision}: names that differ only in "." and "_" collide, as in Kafka`, { collidesWith: collision });
      }
      const topicId = crypto.randomUUID();
      const topic: TopicMetadata = {
        name,
        topicId,
        replicationFactor,
        configs,
        partitions: placePartitions(topicId, 0, partitionCount, replicationFactor, this.#regions()),
      };
      if (request.validateOnly === true) return topic;
      this.ctx.storage.sql.exec(
        "INSERT INTO topics (name, topic_id, replication_factor, configs, created_at) VALUES (?, ?, ?, ?, ?)",
        name,
        topicId,
        replicationFactor,
        JSON.stringify(configs),
        Date.now(),
      );
      insertPartitionRows(this.ctx.storage.sql, topicId, topic.partitions);
      this.#topics.set(name, topic);
      await this.#streams.armExpiry(topic);
      return topic;
    });
  }

  /** Kafka's AlterPartition: a leader's compare-and-set of its partition's ISR on the partition epoch. */
  async alterPartition(request: PartitionRef & AlterPartitionRequest): Promise<Result<PartitionState>> {
    return toResult(() => this.#elections.alterPartition(request, request));
  }

  /** The deployment's cluster id: 16 random bytes as 22 URL-safe base64 characters (Kafka's form), made on first ask and kept. */
  async clusterId(): Promise<Result<{ clusterId: string }>> {
    return toResult(() => {
      const sql = this.ctx.storage.sql;
      const row = sql.exec<{ cluster_id: string }>("SELECT cluster_id FROM cluster_identity WHERE id = 1").toArray()[0];
      if (row !== undefined) return { clusterId: row.cluster_id };
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      const clusterId = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      sql.exec("INSERT INTO cluster_identity (id, cluster_id) VALUES (1, ?)", clusterId);
      return { clusterId };
    });
  }

  /** A router could not reach a partition's leader: elect a new one when it is really gone. */
  async reportUnreachable(request: PartitionRef & { leaderEpoch: number }): Promise<Result<PartitionState>> {
    return toResult(() => this.#elections.reportUnreachable(request, request.leaderEpoch));
  }

  /**
   * Kafka's InitProducerId without a transactional id: a producer id never handed out
   * before, from a persisted counter, at epoch 0. A partition tells the producer's retries
   * from new records by it (src/log/producer-state.ts).
   */
  async initProducerId(): Promise<Result<ProducerIdentity>> {
    return toResult(() => {
      const sql = this.ctx.storage.sql;
      const row = sql.exec<{ next_producer_id: number }>("SELECT next_producer_id FROM producer_ids WHERE id = 1").toArray()[0];
      const producerId = row?.next_producer_id ?? 0;
      sql.exec(
        "INSERT INTO producer_ids (id, next_producer_id) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET next_producer_id = excluded.next_producer_id",
        producerId + 1,
      );
      return { producerId, producerEpoch: 0 };
    });
  }

  async listTopics(): Promise<Result<TopicSummary[]>> {
    return toResult(() =>
      [...this.#topics.values()]
        .map((topic) => ({ name: topic.name, partitions: topic.partitions.length, replicationFactor: topic.replicationFactor }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    );
  }

  async describeTopic(name: string): Promise<Result<TopicMetadata>> {
    return toResult(() => this.#topic(name));
  }

  /** With `validateOnly`, every check and nothing written: answers the topic as it would be. */
  async alterTopicConfigs(name: string, changes: unknown, options: { validateOnly?: boolean } = {}): Promise<Result<TopicMetadata>> {
    return toResult(async () => {
      if (options.validateOnly === true) {
        const topic = this.#topic(name);
        return { ...topic, configs: mergeTopicConfigs(topic.configs, changes) };
      }
      const topic = this.#alter(name, changes);
      await this.#streams.armExpiry(topic);
      return topic;
    });
  }

  #alter(name: string, changes: unknown): TopicMetadata {
    const topic = this.#topic(name);
    const configs: TopicConfigs = mergeTopicConfigs(topic.configs, changes);
    this.ctx.storage.sql.exec("UPDATE topics SET configs = ? WHERE name = ?", JSON.stringify(configs), name);
    const updated = { ...topic, configs };
    this.#topics.set(name, updated);
    return updated;
  }

  async createPartitions(name: string, count: unknown): Promise<Result<TopicMetadata>> {
    return toResult(() => {
      const topic = this.#topic(name);
      const total = checkPartitionCount(count, "count");
      const current = topic.partitions.length;
      if (total <= current) {
        throw new TributaryError(
          "INVALID_PARTITIONS",
          `topic ${name} has ${current} partitions; the new count must be larger`,
        );
      }
      const added = placePartitions(topic.topicId, current, total, topic.replicationFactor, this.#regions());
      insertPartitionRows(this.ctx.storage.sql, topic.topicId, added);
      const updated = { ...topic, partitions: [...topic.partitions, ...added] };
      this.#topics.set(name, updated);
      return updated;
    });
  }

  /**
   * Deletes a topic: its name is free at once, and it answers once every partition object
   * has deleted its data and left a tombstone. Should a partition be unreachable, the
   * deletion stays pending and the alarm finishes it; the caller gets a retriable error.
   */
  async deleteTopic(name: string): Promise<Result<void>> {
    return toResult(async () => {
      const topic = this.#topic(name);
      checkDeletable(topic.name);
      this.#unregister(topic);
      await this.#deletions.finish([topic]);
    });
  }

  /** Removes a topic's rows (its name is free at once) and queues the deletion of its data. */
  #unregister(topic: TopicMetadata): void {
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM topics WHERE name = ?", topic.name);
    sql.exec("DELETE FROM partitions WHERE topic_id = ?", topic.topicId);
    this.#deletions.queue(topic);
    this.#topics.delete(topic.name);
  }

  // ---- Durable Streams (docs/durable-streams.md; src/objects/stream-lifecycle.ts) ----------

  readonly #streams = new StreamLifecycle({
    topics: this.#topics,
    alter: (name, changes) => this.#alter(name, changes),
    unregister: (topic) => this.#unregister(topic),
    finishDeletions: (topics) => this.#deletions.finish(topics),
    setAlarmBefore: (atMs) => this.#setAlarmBefore(atMs),
  });

  /** Counts a new fork at its source stream (`ds.fork.refs`) in one turn; answers the source. */
  async countStreamFork(source: string, sourceTopicId: string): Promise<Result<TopicMetadata>> {
    return toResult(() => this.#streams.countFork(source, sourceTopicId));
  }

  /** Removes a stream (DELETE, or with `ifExpired` an expiry a request found) if it is still the topic `topicId`; answers the streams it changed. */
  async removeStream(name: string, topicId: string, options: { ifExpired?: boolean } = {}): Promise<Result<string[]>> {
    return toResult(() => this.#streams.remove(name, topicId, options.ifExpired ? Date.now() : undefined));
  }

  async #setAlarmBefore(atMs: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > atMs) await this.ctx.storage.setAlarm(atMs);
  }

  /**
   * Finishes pending deletions and removes expired streams; catches its own errors and re-arms
   * (the platform retries a throwing alarm only a few times), and arms for the next expiry.
   */
  override async alarm(): Promise<void> {
    let failed = !(await this.#deletions.finishPending());
    let nextExpiryMs: number | undefined;
    try {
      nextExpiryMs = await this.#streams.sweep();
    } catch {
      failed = true;
    }
    const next = Math.min(failed ? Date.now() + deletionRetryMs : Number.POSITIVE_INFINITY, nextExpiryMs ?? Number.POSITIVE_INFINITY);
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next);
  }

  /** Adds a group to the index or updates its state and member count (called by its coordinator). */
  async indexGroup(entry: GroupIndexEntry): Promise<Result<void>> {
    return toResult(() => {
      if (typeof entry?.group !== "string" || typeof entry.state !== "string" || !Number.isSafeInteger(entry.members)) {
        throw new TributaryError("INVALID_REQUEST", "a group index entry is {group, state, members}");
      }
      this.ctx.storage.sql.exec(
        `INSERT INTO groups (name, state, members, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET state = excluded.state, members = excluded.members, updated_at = excluded.updated_at`,
        entry.group,
        entry.state,
        entry.members,
        Date.now(),
      );
    });
  }

  /** Removes a deleted group from the index; idempotent. */
  async unindexGroup(group: string): Promise<Result<void>> {
    return toResult(() => {
      this.ctx.storage.sql.exec("DELETE FROM groups WHERE name = ?", group);
    });
  }

  /** Every indexed group, sorted by name (code-unit order, as topics). */
  async listGroups(): Promise<Result<GroupIndexEntry[]>> {
    return toResult(() =>
      this.ctx.storage.sql
        .exec<{ name: string; state: string; members: number }>("SELECT name, state, members FROM groups")
        .toArray()
        .map((row) => ({ group: row.name, state: row.state, members: row.members }))
        .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0)),
    );
  }

  /**
   * `POST /v1/tokens` (the router has checked the caller is the admin, and sends its admin
   * token's fingerprint, which the token is bound to): the secret is in this answer only.
   */
  async createToken(request: unknown, adminFingerprint: string): Promise<Result<TokenView & { token: string }>> {
    return toResult(() => {
      const parsed = createTokenSchema.safeParse(request);
      if (!parsed.success) throw new TributaryError("INVALID_REQUEST", "a token is {name?, rules, expiresAt?, quotas?}");
      return this.#tokens.create(parsed.data, adminFingerprint, Date.now());
    });
  }

  async listTokens(): Promise<Result<TokenView[]>> {
    return toResult(() => this.#tokens.list());
  }

  async revokeToken(id: string): Promise<Result<void>> {
    return toResult(() => {
      if (!this.#tokens.revoke(id)) throw new TributaryError("NOT_FOUND", `no token ${id}`);
    });
  }

  /** A router's cache miss: the grant of a scoped token whose secret hashes to `secretHash`, under the router's admin token, or null. */
  async authenticate(id: string, secretHash: string, adminFingerprint: string): Promise<TokenGrant | null> {
    return this.#tokens.authenticate(id, secretHash, adminFingerprint, Date.now()) ?? null;
  }

  /** The key routers check scoped tokens' tags with, so made-up tokens never reach this object. */
  async tokenTagKey(): Promise<Uint8Array> {
    return this.#tokens.tagKeyBytes();
  }

  /** A SCRAM exchange's step (src/router/routes/scram.ts): the token's credential for the mechanism, and its grant. */
  async scramCredential(id: string, mechanism: ScramMechanism, adminFingerprint: string): Promise<ScramLookup> {
    return this.#tokens.scramCredential(id, mechanism, adminFingerprint, Date.now());
  }

  /** The grant of a live token by id (the token a write token was minted from), or null. */
  async tokenGrant(id: string, adminFingerprint: string): Promise<TokenGrant | null> {
    return this.#tokens.grantOf(id, adminFingerprint, Date.now()) ?? null;
  }

  #topic(name: string): TopicMetadata {
    const topic = typeof name === "string" ? this.#topics.get(name) : undefined;
    if (!topic) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${name} does not exist`);
    return topic;
  }

  #regions(): string[] {
    return parseRegions(this.env.REGIONS);
  }

  #checkReplicationFactor(value: unknown): number {
    const regions = this.#regions().length;
    const max = Math.min(replicationFactorMax, regions);
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
      throw new TributaryError(
        "INVALID_REPLICATION_FACTOR",
        `replication factor must be an integer from 1 to ${max} (replicas live in distinct regions; ${regions} are configured)`,
      );
    }
    return value;
  }
}

function checkPartitionCount(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > partitionsPerTopicMax) {
    throw new TributaryError(
      "INVALID_PARTITIONS",
      `${field} must be an integer from 1 to ${partitionsPerTopicMax}`,
    );
  }
  return value;
}
