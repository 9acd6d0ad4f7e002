import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, unwrap, type ErrorValue, type Result } from "../errors.ts";
import { shareDeadLettersPerRequestMax } from "../limits.ts";
import { sharePartitionConfigOf } from "../share/share-configs.ts";
import { SharePartition } from "../share/share-partition.ts";
import type { PersistedSharePartition } from "../share/share-partition-persisted.ts";
import { newestSnapshot, type PullAnswer, type PushAnswer, type StateReplica } from "../replication/state-replication.ts";
import { CountedSql, rowCountingEnabled } from "./counted-sql.ts";
import { ReplicaFaults } from "./replica-faults.ts";
import { TakeoverGate } from "./state-leadership.ts";
import { checkFaultsEnabled, type Fault } from "../contracts/faults.ts";
import { applyMigrations } from "./schema.ts";
import type { DeadLetterWork, LeaseAcknowledgement, SharePartitionDescription, SharePartitionKey, SharePartitionRef } from "../contracts/share-partition-api.ts";
import type { ShareAcquireAnswer, ShareAcquireRequest, ShareSettleRequest, ShareStatePayload, ShareStateStats, VersionedShareConfigs } from "../contracts/share-partition-api.ts";
import { ShareStateLeadership, notLeader } from "./share-state-leadership.ts";
import { ShareStateRows, newerConfigs, refOf, shareStateMigrations, type ShareSnapshot } from "./share-state-replicas.ts";
import { legacySharePartitionStub, shareGroupStub } from "../contracts/stubs.ts";

/**
 * One state replica of a share-partition (ARCHITECTURE.md decision 13; src/share/share-partition.ts):
 * one object per (group, topicId, partition, region), one per replica region of the partition.
 * The router calls the one in the leader's region, with the leader epoch and the replicas and
 * ISR it knows; that one leads (src/replication/state-replication.ts): it runs each request on
 * the pure SharePartition with the time now, writes the state as ONE row when the request
 * changed it, and pushes that row to the other regions' replicas before it answers (none at
 * replication factor 1). Lock expiry times are absolute and in the row, so neither a restart
 * nor a failover frees a lock early; locks expire lazily, at the next call that looks.
 *
 * Its configs are the group's (src/objects/share-group.ts): fetched when the share-partition
 * registers with the group, pushed by the group to every replica on a change, ordered by version.
 */
export class SharePartitionState extends DurableObject<Env> {
  readonly #sql: CountedSql;
  readonly #rows: ShareStateRows;
  readonly #faults = new ReplicaFaults();
  #replica!: StateReplica<ShareStatePayload>;
  /** The window, parsed from the snapshot `#parsedFrom` (the leader works on it in memory). */
  #partition: SharePartition | null = null;
  #parsedFrom: ShareSnapshot | null = null;
  readonly #gate = new TakeoverGate();
  readonly #leadership: ShareStateLeadership;
  /** Configs pushed before this replica held a snapshot (newer than a registration's answer, perhaps). */
  #pushedConfigs: VersionedShareConfigs | null = null;
  #recordsAcknowledged = 0;
  #requests = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new CountedSql(ctx.storage.sql, rowCountingEnabled(env));
    this.#rows = new ShareStateRows(this.#sql);
    this.#leadership = new ShareStateLeadership(env, this.#rows, () => this.#replica);
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(this.#sql.storage, shareStateMigrations);
      this.#replica = this.#rows.load();
    });
  }

  /** Applies acknowledgements that ride along, then acquires up to `maxRecords` records for the lease. */
  async acquire(key: SharePartitionKey, request: ShareAcquireRequest): Promise<Result<ShareAcquireAnswer>> {
    await this.#faults.beforeCall();
    const refused = (answer: ShareAcquireAnswer) => answer.acknowledgementError !== undefined;
    return this.#leading(key, async (): Promise<ShareAcquireAnswer> => {
      const configs = await this.#registered(key);
      const config = sharePartitionConfigOf(configs.configs);
      const nowMs = Date.now();
      let partition = this.#window();
      if (partition === null && request.start !== undefined) partition = this.#partition = SharePartition.startingAt(request.start.offset, request.start.highWatermark);
      if (partition === null) {
        const error = request.acknowledgements?.length ? notHeld() : undefined;
        return { needsStart: true, autoOffsetReset: config.autoOffsetReset, isolation: config.isolation, ...(error ? { acknowledgementError: error } : {}) };
      }
      const acknowledgementError = this.#acknowledgeQuietly(partition, request.acknowledgements, nowMs);
      const records = partition.acquire(
        { lease: request.lease, maxRecords: request.maxRecords, nowMs, highWatermark: request.highWatermark ?? 0, logStartOffset: request.logStartOffset },
        config,
      );
      const work = this.#claimDeadLetters(partition, nowMs);
      this.#persist();
      return {
        needsStart: false,
        isolation: config.isolation,
        records,
        lockExpiresAtMs: nowMs + config.lockDurationMs,
        endOffset: partition.endOffset,
        highWatermark: partition.highWatermark,
        nextLockExpiryMs: partition.nextLockExpiryMs(),
        ...work,
        ...(acknowledgementError ? { acknowledgementError } : {}),
      };
    }, refused);
  }

  /** Acknowledgements of this partition (all or none): INVALID_RECORD_STATE when a lease does not hold its offsets. */
  async acknowledge(key: SharePartitionKey, acknowledgements: LeaseAcknowledgement[]): Promise<Result<DeadLetterWork>> {
    await this.#faults.beforeCall();
    return this.#leading(key, async () => {
      // Never registers: an acknowledgement cannot make a group or a share-partition exist.
      const partition = this.#window();
      if (partition === null || this.#replica.current?.payload.key.topicId !== key.topicId) throw notHeldError();
      const nowMs = Date.now();
      this.#recordsAcknowledged += partition.acknowledge(acknowledgements, nowMs, this.#config());
      const work = this.#claimDeadLetters(partition, nowMs);
      this.#persist();
      return work;
    });
  }

  /** After a fetch: records acquired but not delivered, and records the log no longer has. */
  async settle(key: SharePartitionKey, request: ShareSettleRequest): Promise<Result<void>> {
    await this.#faults.beforeCall();
    return this.#leading(key, async () => {
      const partition = this.#window();
      if (!partition) return;
      partition.unacquire(request.lease, request.unacquired);
      partition.skipMissing(request.lease, request.missing);
      this.#persist();
    });
  }

  /** The dead-letter write of these offsets is confirmed: they are archived now. */
  async completeDeadLetters(key: SharePartitionKey, offsets: number[]): Promise<Result<void>> {
    await this.#faults.beforeCall();
    return this.#leading(key, async () => {
      this.#window()?.completeDeadLetters(offsets);
      this.#persist();
    });
  }

  /** The share-partition now (expired locks released first), or null when it never started. */
  async describe(key: SharePartitionKey, highWatermark?: number): Promise<Result<SharePartitionDescription | null>> {
    await this.#faults.beforeCall();
    return this.#leading(key, async () => {
      const partition = this.#window();
      const current = this.#replica.current;
      if (partition === null || current === null) return null;
      if (highWatermark !== undefined) partition.observeHighWatermark(highWatermark);
      partition.expireLocks(Date.now(), this.#config());
      this.#persist();
      const debug = this.env.TRIBUTARY_FAULTS === "1" && this.env.TRIBUTARY_DEBUG_STATS === "1"
        ? { debug: { rowsWritten: this.#sql.rowsWritten, recordsAcknowledged: this.#recordsAcknowledged, requests: this.#requests } }
        : {};
      const { topic, topicId, partition: index } = current.payload.key;
      return { topic, topicId, partition: index, ...partition.summary(), ...debug };
    });
  }

  /** Moves the share-partition to `offset` (a reset): NON_EMPTY_GROUP while a record is acquired. */
  async reset(key: SharePartitionKey, offset: number, highWatermark: number): Promise<Result<void>> {
    await this.#faults.beforeCall();
    return this.#leading(key, async () => {
      await this.#registered(key);
      const partition = this.#window();
      if (partition?.hasAcquired(Date.now())) throw nonEmpty(key);
      if (partition === null) this.#partition = SharePartition.startingAt(offset, highWatermark);
      else partition.resetTo(offset, highWatermark);
      this.#persist();
    });
  }

  /**
   * Forgets the state (the group is being deleted; the router clears every region's replica,
   * the leader's first with `refuseWhileAcquired`): NON_EMPTY_GROUP then while a record is
   * acquired. The epochs stay: a deposed leader is still refused.
   */
  async clear(refuseWhileAcquired = true): Promise<Result<void>> {
    await this.#faults.beforeCall();
    return toResult(() => {
      const current = this.#replica.current;
      if (refuseWhileAcquired && this.#window()?.hasAcquired(Date.now())) throw nonEmpty(current!.payload.key);
      this.#rows.clear(this.#replica);
      this.#partition = null;
      this.#parsedFrom = null;
    });
  }

  /** The group's configs changed (pushed by the group to every replica): kept when newer than what this replica has. */
  async applyConfigs(configs: VersionedShareConfigs): Promise<Result<void>> {
    await this.#faults.beforeCall();
    return toResult(() => {
      const current = this.#replica.current;
      if (!current) {
        this.#pushedConfigs = newerConfigs(configs, this.#pushedConfigs);
        return;
      }
      if (configs.version <= current.payload.configs.version) return;
      current.payload.configs = configs;
      this.#rows.saveConfigs(configs);
    });
  }

  /** A leader's push (src/replication/state-replication.ts): stored when not older; refused when its epoch is. */
  async replicate(snapshot: ShareSnapshot): Promise<Result<PushAnswer>> {
    await this.#faults.beforeCall();
    return toResult(() => {
      this.#requests += 1;
      const seen = this.#replica.seenEpoch;
      const ownConfigs = this.#replica.current?.payload.configs ?? null;
      const answer = this.#replica.acceptPush(snapshot);
      if ("stored" in answer && answer.stored) {
        // Configs are ordered by their own version: a snapshot never takes newer ones back.
        snapshot.payload.configs = newerConfigs(newerConfigs(snapshot.payload.configs, ownConfigs), this.#pushedConfigs);
        this.#rows.saveSnapshot(snapshot);
      }
      if (this.#replica.seenEpoch !== seen) this.#rows.saveEpochs(this.#replica);
      return answer;
    });
  }

  /** A new leader's pull at its takeover: this replica's snapshot, and from now on it refuses older epochs. */
  async pull(epoch: number): Promise<Result<PullAnswer<ShareStatePayload>>> {
    await this.#faults.beforeCall();
    return toResult(() => {
      this.#requests += 1;
      const seen = this.#replica.seenEpoch;
      const answer = this.#replica.answerPull(epoch);
      if (this.#replica.seenEpoch !== seen) this.#rows.saveEpochs(this.#replica);
      return answer;
    });
  }

  /** Only on an object named as before replication (legacySharePartitionStub): its state as stored, for the replica taking it over. */
  async readLegacy(): Promise<Result<ShareStatePayload | null>> {
    return toResult(() => this.#rows.load().current?.payload ?? null);
  }

  /** Fault injection (TRIBUTARY_FAULTS=1; set by POST /v1/faults with its region's partition replica): down, slow, none. */
  async setFault(fault: Fault, ms: number): Promise<Result<void>> {
    return toResult(() => {
      checkFaultsEnabled(this.env);
      this.#faults.set(fault === "crash-after-write" ? "none" : fault, ms);
    });
  }

  /** This replica's counters since it started (TRIBUTARY_FAULTS=1 only: tests count requests and rows per write). */
  async stats(): Promise<Result<ShareStateStats>> {
    return toResult(() => {
      checkFaultsEnabled(this.env);
      const current = this.#replica.current;
      return {
        requests: this.#requests,
        rowsWritten: this.#sql.rowsWritten,
        recordsAcknowledged: this.#recordsAcknowledged,
        seenEpoch: this.#replica.seenEpoch,
        leadingEpoch: this.#replica.leadingEpoch,
        stamp: current === null ? null : { epoch: current.epoch, version: current.version },
        configs: current?.payload.configs.configs ?? null,
        state: current?.payload.state ?? null,
      };
    });
  }

  /**
   * Runs `body` as the leader at the key's epoch: refused (NOT_LEADER_OR_FOLLOWER) when a newer
   * epoch was seen; after a takeover when this replica does not lead at it yet. A write it
   * made is pushed to the other replicas before it answers.
   */
  #leading<T>(key: SharePartitionKey, body: () => Promise<T>, refuses: (answer: T) => boolean = () => false): Promise<Result<T>> {
    return toResult(async () => {
      this.#requests += 1;
      const before = this.#replica.current; // a takeover's adoption is pushed too: it brings lagging replicas up to date
      await this.#lead(key);
      let answer: T;
      try {
        answer = await body();
      } catch (error) {
        if (error instanceof TributaryError && error.code === "INVALID_RECORD_STATE") await this.#leadership.confirm(key);
        throw error;
      }
      const current = this.#replica.current;
      if (current !== before && current !== null) await this.#leadership.replicateWrite(key, current);
      else {
        if (refuses(answer)) await this.#leadership.confirm(key);
        if (current !== null) await this.#leadership.syncLagging(key, current);
      }
      return answer;
    });
  }

  #lead(key: SharePartitionKey): Promise<void> {
    return this.#gate.lead(() => this.#replica, key.leaderEpoch, (seen) => notLeader(key, seen), () => this.#takeOver(key));
  }

  /**
   * Pulls the other replicas' snapshots (fencing them at the new epoch) and adopts the newest,
   * its own included. A takeover that fails leaves the epoch not led: the next call retries it.
   */
  async #takeOver(key: SharePartitionKey): Promise<void> {
    const epoch = key.leaderEpoch;
    this.#replica.beginTakeover(epoch);
    const pulled = await this.#leadership.pull(key);
    const own = this.#replica.current;
    // With state here or pulled, the group answers its configs now (a replica's may be older).
    const registration = newestSnapshot([own, ...pulled]) === null ? null : await this.#register(key, true);
    const adopted = this.#replica.finishTakeover(epoch, pulled);
    if (adopted !== null) {
      const newest = newerConfigs(newerConfigs(adopted.payload.configs, own?.payload.configs ?? null), registration?.configs ?? null);
      if (adopted !== own || newest !== adopted.payload.configs) {
        adopted.payload.configs = newest;
        this.#rows.saveSnapshot(adopted);
      }
    }
    this.#rows.saveEpochs(this.#replica);
  }

  /** The group's configs for this share-partition, registering with the group on its first call here. */
  async #registered(key: SharePartitionKey): Promise<VersionedShareConfigs> {
    const current = this.#replica.current;
    if (current) return current.payload.configs;
    const registration = await this.#register(key, false);
    // Another call may have registered while this one waited for the group, or the group pushed newer configs.
    if (this.#replica.current) return this.#replica.current.payload.configs;
    const configs = newerConfigs(newerConfigs(registration.configs, registration.legacy?.configs ?? null), this.#pushedConfigs);
    this.#write({ key: refOf(key), configs, state: registration.legacy?.state ?? null });
    if (registration.legacy) await this.#registerReplicas(key);
    return configs;
  }

  /**
   * Registers with the group. A share-partition registered before its state was replicated
   * still has that state in its old object (named without a region): read here, and taken
   * over by the caller's write; the group then records the replicas, so it is read once.
   * `replicated`: a replica holds state already (the old object was taken over before).
   */
  async #register(key: SharePartitionKey, replicated: boolean): Promise<{ configs: VersionedShareConfigs; legacy: ShareStatePayload | null }> {
    const answer = unwrap(await shareGroupStub(this.env, key.group).register(key.group, refOf(key)));
    if (!answer.legacy) return { configs: answer.configs, legacy: null };
    if (replicated) {
      await this.#registerReplicas(key);
      return { configs: answer.configs, legacy: null };
    }
    return { configs: answer.configs, legacy: unwrap(await legacySharePartitionStub(this.env, key).readLegacy()) };
  }

  async #registerReplicas(key: SharePartitionKey): Promise<void> {
    unwrap(await shareGroupStub(this.env, key.group).registerReplicas(key.group, refOf(key)));
  }

  /** The window in memory, parsed from the snapshot when that changed (a push, a takeover). */
  #window(): SharePartition | null {
    const current = this.#replica.current;
    if (current !== this.#parsedFrom) {
      this.#parsedFrom = current;
      this.#partition = current?.payload.state ? SharePartition.fromPersisted(JSON.parse(current.payload.state) as PersistedSharePartition) : null;
    }
    return this.#partition;
  }

  #config() {
    return sharePartitionConfigOf(this.#replica.current!.payload.configs.configs);
  }

  #acknowledgeQuietly(partition: SharePartition, acknowledgements: LeaseAcknowledgement[] | undefined, nowMs: number): ErrorValue | undefined {
    if (!acknowledgements?.length) return undefined;
    try {
      this.#recordsAcknowledged += partition.acknowledge(acknowledgements, nowMs, this.#config());
      return undefined;
    } catch (error) {
      if (error instanceof TributaryError) return error.toValue();
      throw error;
    }
  }

  #claimDeadLetters(partition: SharePartition, nowMs: number): DeadLetterWork {
    const config = this.#config();
    if (!partition.hasDeadLetters()) return { deadLetterTopic: config.deadLetterTopic, deadLetters: [] };
    return { deadLetterTopic: config.deadLetterTopic, deadLetters: partition.claimDeadLetters(nowMs, shareDeadLettersPerRequestMax, config) };
  }

  /** Writes the window when it changed: a new snapshot, one row, one statement (atomic), per request. */
  #persist(): void {
    const current = this.#replica.current;
    const partition = this.#partition;
    if (current === null || partition === null) return;
    const state = JSON.stringify(partition.toPersisted());
    if (state === current.payload.state) return;
    this.#write({ ...current.payload, state });
    this.#parsedFrom = this.#replica.current; // the window in memory is this snapshot's
  }

  #write(payload: ShareStatePayload): void {
    this.#rows.saveSnapshot(this.#replica.stamp(payload));
  }
}

function notHeldError(): TributaryError {
  return new TributaryError("INVALID_RECORD_STATE", "these records are not held by this lease (unknown or expired lease, or not acquired by it)");
}

function notHeld(): ErrorValue {
  return notHeldError().toValue();
}

function nonEmpty(key: SharePartitionRef): TributaryError {
  return new TributaryError("NON_EMPTY_GROUP", `share group ${key.group} holds acquired records of ${key.topic} partition ${key.partition}`, { topic: key.topic, partition: key.partition });
}
