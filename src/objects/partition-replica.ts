import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, type Result } from "../errors.ts";
import { appendBytesWaitingMax, appendsWaitingMax, replicationRetryMs, tailCacheBytesMax, waitersPerPartitionMax } from "../limits.ts";
import { GroupCommit, type Settled } from "../log/group-commit.ts";
import { TailCachedStore } from "../log/tail-cache.ts";
import { unsealedBytesBound } from "../log/seal-plan.ts";
import { PartitionLog, type ReadLimits, type ReadResult } from "../log/partition-log.ts";
import { Waiters } from "../log/waiters.ts";
import type { ReplicateReply, ReplicateRequest, TruncateReply, TruncateRequest } from "../replication/messages.ts";
import { ReplicaNode, type ReplicaRole } from "../replication/replica-node.ts";
import { CountedSql, rowCountingEnabled } from "./counted-sql.ts";
import { defaultPartitionConfig, samePartitionConfig } from "../contracts/partition-config.ts";
import { appendBytes, writeAppends } from "./leader-appends.ts";
import type { AppendAnswer, AppendRequest, DeleteRecordsAnswer, DeleteRecordsRequest, FetchRequest, OffsetQuery, PartitionAddress, PartitionMetrics, ReplicaState, RoutedCall, TransactionMarkerRequest } from "../contracts/replica-api.ts";
import { SqliteTransactionStore, transactionMarkerEpochMigration, transactionStateMigration } from "./sqlite-transaction-store.ts";
import { markerAnswer, markerAppend } from "./transaction-marker-appends.ts";
import { debugStatsEnabled, ReplicaCounters, replicaDebugStats } from "./replica-debug-stats.ts";
import { ReplicaFaults } from "./replica-faults.ts";
import { deleteRecords } from "./record-deletions.ts";
import type { Fault } from "../contracts/faults.ts";
import { readReplicaIdentity, replicaIdentityMigration, writeReplicaIdentity, type ReplicaIdentity } from "./replica-identity.ts";
import { deletePartitionTraffic, partitionTrafficMigration, ReplicaTraffic } from "./replica-traffic.ts";
import { ReplicationDriver } from "./replication-driver.ts";
import { PartitionSubscribers } from "./partition-subscribers.ts";
import { PartitionWakeups, partitionWakeupsMigration } from "./partition-wakeups.ts";
import { applyMigrations } from "./schema.ts";
import { SegmentTier, segmentTierMigration, type TierSnapshot } from "./segment-tier.ts";
import { offsetAt, producersOf, replicaState } from "./replica-queries.ts";
import type { ActiveProducer } from "../log/active-producers.ts";
import { batchBoundsMigration, logStoreMigrations, producerFirstSequenceMigration, producerIndexesDropMigration, producerStateMigration, SqliteLogStore } from "./sqlite-log-store.ts";
import { StreamStateStore, streamStateMigration } from "./stream-appends.ts";
import { countBilled, meteredBucket } from "../contracts/billing-meter.ts";

const migrations = [logStoreMigrations[0]!, replicaIdentityMigration, segmentTierMigration, producerStateMigration, batchBoundsMigration, partitionTrafficMigration, streamStateMigration, partitionWakeupsMigration, producerIndexesDropMigration, producerFirstSequenceMigration, transactionStateMigration, transactionMarkerEpochMigration];

/**
 * One replica of one partition: leader or follower (ARCHITECTURE.md decisions 4–5). A thin
 * adapter: the log and replication logic are the pure PartitionLog and ReplicaNode over this
 * object's SQLite; this class adds identity, the tombstone of a deleted topic, long-poll
 * waiters, the replication loop (ReplicationDriver), fault injection, and error values for
 * RPC. Every write touches storage before it is acknowledged, so a replaced instance fails
 * instead of acknowledging.
 */
export class PartitionReplica extends DurableObject<Env> {
  readonly #sql: CountedSql;
  readonly #counters = new ReplicaCounters();
  #store!: SqliteLogStore;
  #streams!: StreamStateStore;
  #tail: TailCachedStore | undefined;
  #identity: ReplicaIdentity | undefined;
  #node: ReplicaNode | undefined;
  #tier: SegmentTier | undefined;
  /** Traffic counters for GET /v1/metrics (src/metrics/partition-traffic.ts), persisted lazily. */
  #traffic: ReplicaTraffic | undefined;
  #maintaining: Promise<void> | undefined;
  /** The alarm's time as last read or set; null when none is set; undefined until read. */
  #alarmAtMs: number | null | undefined;
  readonly #readers = new Waiters(waitersPerPartitionMax);
  readonly #faults = new ReplicaFaults();
  readonly #replication: ReplicationDriver;
  readonly #subscribers: PartitionSubscribers;
  /** Push subscriptions woken when records commit (src/objects/partition-wakeups.ts). */
  #wakeups!: PartitionWakeups;
  readonly #appends = new GroupCommit<AppendRequest, AppendAnswer>(
    { itemsMax: appendsWaitingMax, bytesMax: appendBytesWaitingMax },
    { write: (requests) => this.#writeAppends(requests), flush: () => this.ctx.storage.sync() },
  );

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new CountedSql(ctx.storage.sql, rowCountingEnabled(env));
    this.#replication = new ReplicationDriver({
      env,
      node: () => this.#node,
      address: () => ({ topicId: this.#identity!.topicId, partition: this.#identity!.partition }),
      config: () => this.#identity!.config,
      tier: () => (this.#node && this.#tier ? { version: this.#tier.version, snapshot: () => this.#tier!.snapshot(this.#node!.log) } : undefined),
      persistRole: () => this.#persist(),
      onProgress: () => this.#onCommit(),
      setAlarm: (atMs) => this.#setAlarmBefore(atMs),
    });
    this.#subscribers = new PartitionSubscribers({
      ctx,
      partition: () => (this.#identity?.deleted ? { kind: "deleted" } : this.#node?.isLeader ? { kind: "leader", log: this.#node.log } : { kind: "not-leader" }),
      readCommitted: (offset, limits) => this.#readCommitted(this.#node!.log, offset, limits),
      setAlarm: (atMs) => this.#setAlarmBefore(atMs),
    });
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(this.#sql.storage, migrations);
      this.#store = new SqliteLogStore(this.#sql.storage);
      this.#streams = new StreamStateStore(this.#sql.storage);
      this.#identity = readReplicaIdentity(this.#sql.storage);
      this.#wakeups = new PartitionWakeups(this.#sql.storage, env);
      if (this.#identity && !this.#identity.deleted) this.#open(this.#identity);
      // A leader waking with records it has not seen confirmed probes its followers now: its high watermark needs no new write.
      this.#replication.kick();
    });
  }

  /**
   * Appends as the leader, through group commit (src/log/group-commit.ts): written at once
   * when no storage write is in progress, else with the appends that wait for it, in one
   * transaction as soon as it is durable; answered once durable. Refused before anything is
   * written when the partition is overloaded (unsealed bytes, or the waiting queue full).
   */
  async append(request: AppendRequest): Promise<Result<AppendAnswer>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admitRouted(request);
      const { minInsyncReplicas } = request.config;
      if (request.acks === "all" && node.inSyncReplicas.length < minInsyncReplicas && node.isLeader) {
        throw new TributaryError(
          "NOT_ENOUGH_REPLICAS",
          `the ISR has ${node.inSyncReplicas.length} replicas; min.insync.replicas is ${minInsyncReplicas}`,
        );
      }
      const bound = unsealedBytesBound(request.config.segmentBytes);
      if (node.log.localBytes > bound) {
        await this.#setAlarmBefore(Date.now());
        throw new TributaryError("BROKER_BUSY", `this partition holds ${node.log.localBytes} unsealed bytes (bound ${bound}); retry shortly`);
      }
      const result = await this.#appends.submit(request, appendBytes(request));
      if (!result.duplicate) void this.#subscribers.notify(); // durable now: subscribers get what was committed
      if (!result.duplicate) this.#wakeCommitted();
      if (!result.duplicate && (this.#node?.log.localBytes ?? 0) >= request.config.segmentBytes) await this.#setAlarmBefore(Date.now()); // a segment is due
      this.#faults.afterWrite();
      if (request.acks === "all") await this.#replication.awaitAcknowledged(result.lastOffset + 1);
      return result;
    });
  }

  /** A transaction coordinator's COMMIT/ABORT marker (TXN-CONTRACT; src/objects/transaction-marker-appends.ts): an acks=all append. */
  async writeTransactionMarker(request: TransactionMarkerRequest): Promise<Result<{ offset: number | null }>> {
    return markerAnswer(await this.append(markerAppend(request, Date.now())));
  }

  /** One group of appends (group commit), in one synchronous turn: one transaction, one row per batch. */
  #writeAppends(requests: readonly AppendRequest[]): Settled<AppendAnswer>[] {
    const node = this.#identity?.deleted ? undefined : this.#node;
    const outcomes = this.#store.writeGroup(() => writeAppends(node, requests, Date.now(), this.#streams));
    if (outcomes.some((outcome) => outcome.ok && !outcome.value.duplicate)) {
      this.#readers.wakeAll();
      this.#replication.kick();
      if (node) this.#traffic?.appendedAsLeader(requests, outcomes, node.log.logEndOffset);
    }
    return outcomes;
  }

  /**
   * Reads below the high watermark this replica knows. A leader long-polls; a follower
   * (KIP-392) answers from its own copy without waiting, and the router forwards to the
   * leader when it has nothing to give.
   */
  async read(request: FetchRequest): Promise<Result<ReadResult>> {
    const answer = await toResult(async () => {
      await this.#beforeCall();
      const node = this.#admitRouted(request, false);
      const limits = { maxRecords: request.maxRecords, maxBytes: request.maxBytes };
      const log = node.log;
      if (request.offset < log.localStartOffset) return this.#readCommitted(log, request.offset, limits); // sealed: nothing to wait for
      // read_committed (the default) reads below the last stable offset: a long poll waits for an open transaction's end.
      const upTo = (at: PartitionLog) => (request.isolation === "read_uncommitted" ? at.highWatermark : at.lastStableOffset);
      let result = log.read(request.offset, limits, upTo(log));
      const deadline = Date.now() + (node.isLeader ? request.waitMs : 0);
      while (result.batches.length === 0 && Date.now() < deadline) {
        await this.#readers.wait(deadline - Date.now());
        const now = this.#admitRouted(request, false).log;
        result = now.read(request.offset, limits, upTo(now));
      }
      return result;
    });
    if (answer.ok) this.#traffic?.fetched(request.offset, answer.value); // GET /v1/metrics counts fetches served
    return answer;
  }

  /** Committed batches from `offset`: from the sealed segments below the held batches, else from the log (tail cache, SQLite). */
  async #readCommitted(log: PartitionLog, offset: number, limits: ReadLimits): Promise<ReadResult> {
    if (offset >= log.logStartOffset && offset < log.localStartOffset && this.#tier) {
      const batches = await this.#tier.read(offset, limits);
      return log.withTransactions({ batches, logStartOffset: log.logStartOffset, highWatermark: log.highWatermark }, offset);
    }
    return log.read(offset, limits);
  }

  // ---- WebSocket subscribers (docs/api.md; src/objects/partition-subscribers.ts) -----------

  /** A subscriber's upgrade, forwarded by the router: accepted as the leader (src/objects/partition-subscribers.ts). */
  override async fetch(request: Request): Promise<Response> {
    return this.#subscribers.upgrade(request, async (subscribe) => {
      await this.#beforeCall();
      return this.#admitRouted(subscribe).log;
    });
  }

  override async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.#subscribers.onMessage(socket, message);
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    this.#subscribers.onClose(socket, code);
  }

  override async webSocketError(socket: WebSocket): Promise<void> {
    this.#subscribers.onClose(socket, 1011);
  }

  /** The high watermark may have moved (a follower's answer, an ISR change) or the role changed: readers and subscribers learn it. */
  #onCommit(): void {
    this.#readers.wakeAll();
    void this.#subscribers.notify();
    this.#wakeCommitted();
  }

  // ---- Push subscriptions' wakeups (src/objects/partition-wakeups.ts) ----------------------

  #wakeCommitted(): void {
    if (this.#node?.isLeader && this.#identity) this.#wakeups.notify(this.#identity.topicId, this.#identity.partition, this.#node.log.highWatermark);
  }

  /**
   * A caught-up subscription asks to be woken by the next commit past `position`; answers the
   * high watermark this replica knows. Followers keep the registration too: only a leader wakes.
   */
  async watchCommits(request: RoutedCall & { subscription: string; position: number; asFollower?: boolean }): Promise<Result<{ highWatermark: number }>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admitRouted(request, request.asFollower !== true);
      this.#wakeups.watch(request.subscription, request.position);
      return { highWatermark: node.log.highWatermark };
    });
  }

  async unwatchCommits(request: PartitionAddress & { subscription: string }): Promise<Result<void>> {
    return toResult(async () => {
      await this.#beforeCall();
      this.#admit(request);
      this.#wakeups.unwatch(request.subscription);
    });
  }

  async listOffset(request: RoutedCall & { at: OffsetQuery; isolation?: FetchRequest["isolation"] }): Promise<Result<{ offset: number; timestamp?: number; leaderEpoch?: number }>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admitRouted(request, false);
      return offsetAt(node.log, this.#tier, request.at, request.isolation === "read_committed", node.leaderEpoch);
    });
  }

  async state(request: PartitionAddress): Promise<Result<ReplicaState>> {
    return toResult(async () => {
      await this.#beforeCall();
      return replicaState(this.#admit(request), this.#tier, debugStatsEnabled(this.env) ? this.#debugStats() : undefined);
    });
  }

  /** Kafka's DescribeProducers, on the leader (docs/api.md, Transactions): the partition's active producers. */
  async producers(request: RoutedCall): Promise<Result<ActiveProducer[]>> {
    return toResult(async () => {
      await this.#beforeCall();
      return producersOf(this.#store, this.#admitRouted(request).log);
    });
  }

  /** This replica's numbers for GET /v1/metrics (docs/metrics.md). */
  async metrics(request: PartitionAddress): Promise<Result<PartitionMetrics>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admit(request);
      return this.#traffic!.metrics(node, this.#tier?.totals() ?? { segments: 0, bytes: 0 }, this.#subscribers.size);
    });
  }

  // ---- replication: leader → follower ------------------------------------------------

  async replicate(request: PartitionAddress & ReplicateRequest): Promise<Result<ReplicateReply>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admit(request);
      const { role } = node;
      const logEndBefore = node.log.logEndOffset;
      const reply = node.handleReplicate(request, Date.now());
      this.#traffic?.replicated(logEndBefore, node.log.logEndOffset, request.batches);
      // The role is stored when a push changes it (a new leader or epoch), not with every push: a row saved per batch.
      if (node.role !== role) this.#persist();
      if (role.kind === "leader" && !node.isLeader) this.#replication.wake();
      this.#onCommit();
      return reply;
    });
  }

  async truncate(request: PartitionAddress & TruncateRequest): Promise<Result<TruncateReply>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admit(request);
      const { role } = node;
      const reply = node.handleTruncate(request);
      this.#traffic?.counters.observeLogEnd(node.log.logEndOffset);
      if (node.role !== role) this.#persist();
      return reply;
    });
  }

  // ---- controller → replica ----------------------------------------------------------

  async ping(request: PartitionAddress): Promise<Result<{ leaderEpoch: number }>> {
    return toResult(() => this.#beforeCall().then(() => ({ leaderEpoch: this.#admit(request).leaderEpoch })));
  }

  /** The controller's new state for the partition (an election): lead it, or follow its leader. */
  async applyState(request: RoutedCall): Promise<Result<{ leaderEpoch: number }>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admitRouted(request);
      return { leaderEpoch: node.leaderEpoch };
    });
  }

  async setFault(request: PartitionAddress & { fault: Fault; ms: number }): Promise<Result<void>> {
    return toResult(() => this.#faults.set(request.fault, request.ms));
  }

  /** A follower adopts its leader's tier (segments sealed, retention applied); answers its log end. */
  async installTier(request: PartitionAddress & TierSnapshot & { leader: string; leaderEpoch: number }): Promise<Result<ReplicateReply>> {
    return toResult(async () => {
      await this.#beforeCall();
      const node = this.#admit(request);
      if (request.leaderEpoch < node.leaderEpoch) return { kind: "fenced", leaderEpoch: node.leaderEpoch, leader: undefined };
      this.#tier!.install(node.log, request);
      this.#readers.wakeAll();
      return { kind: "ok", logEndOffset: node.log.logEndOffset, leaderEpoch: request.leaderEpoch, highWatermark: node.log.highWatermark };
    });
  }

  /** Kafka's DeleteRecords (src/objects/record-deletions.ts): the cleaner's retention step moves the log start. */
  async deleteRecords(request: DeleteRecordsRequest): Promise<Result<DeleteRecordsAnswer>> {
    return toResult(() => this.#beforeCall().then(() => deleteRecords(this.#admitRouted(request).log, this.#tier!, request.beforeOffset, () => this.#maintain())));
  }

  /** The topic's configs changed: the cleaner runs now (retention shows within seconds), not on a slow timer. */
  async applyConfig(request: RoutedCall): Promise<Result<void>> {
    return toResult(async () => {
      await this.#beforeCall();
      this.#admitRouted(request, false);
      await this.#maintain();
    });
  }

  /**
   * Deletes this partition's data for good — its rows and its segment objects — and leaves
   * a tombstone, so that a router with stale metadata can neither read the old data nor
   * revive the partition. Idempotent.
   */
  async deleteTopicData(request: PartitionAddress): Promise<Result<void>> {
    return toResult(async () => {
      await (this.#tier ?? new SegmentTier(this.#sql.storage, meteredBucket(this.env, this.env.SEGMENTS), request.topicId, request.partition)).deleteAll();
      this.#store.deleteAll();
      new SqliteTransactionStore(this.#sql.storage).deleteAll();
      deletePartitionTraffic(this.#sql.storage);
      this.#traffic = undefined;
      const role: ReplicaRole = { kind: "follower", leaderEpoch: -1, leader: undefined };
      this.#identity = { ...request, deleted: true, role, config: defaultPartitionConfig };
      writeReplicaIdentity(this.#sql.storage, this.#identity);
      this.#node = undefined;
      this.#tier = undefined;
      this.#readers.wakeAll();
      this.#replication.wake();
      void this.#subscribers.notify(); // closed with 4404
    });
  }

  /**
   * Replication retries, then (as the leader) sealing and retention. Catches its own errors
   * and re-arms: the platform retries a throwing alarm only a few times.
   */
  override async alarm(): Promise<void> {
    this.#counters.alarms++;
    countBilled("alarms");
    this.#alarmAtMs = null; // this alarm has fired: none is set until one is armed again
    try {
      await this.#subscribers.notify(); // subscribers stalled past streamStalledMsMax are closed
      await this.#replication.tick();
      await this.#maintain();
    } catch (error) {
      console.error("partition alarm failed", error);
      await this.#setAlarmBefore(Date.now() + replicationRetryMs);
    }
  }

  /** Every RPC call first: counted (debug statistics), then failed or delayed by an injected fault. */
  async #beforeCall(): Promise<void> {
    this.#counters.requests++;
    await this.#faults.beforeCall();
  }

  /** Checks the call is for this replica and not a deleted one; creates the identity on first contact. */
  #admit(address: PartitionAddress): ReplicaNode {
    const identity = this.#identity;
    if (identity?.deleted) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", "this topic has been deleted");
    if (identity && (identity.topicId !== address.topicId || identity.partition !== address.partition)) {
      throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", "this object holds another partition");
    }
    if (!this.#identity) {
      const role: ReplicaRole = { kind: "follower", leaderEpoch: -1, leader: undefined };
      this.#identity = { ...address, deleted: false, role, config: defaultPartitionConfig };
    }
    if (!this.#node) this.#open(this.#identity);
    return this.#node!;
  }

  /** Admits a router's call and adopts its view of the partition when newer than this replica's. */
  #admitRouted(request: RoutedCall, requireLeader = true): ReplicaNode {
    const node = this.#admit(request);
    const identity = this.#identity!;
    const configChanged = !samePartitionConfig(identity.config, request.config);
    if (configChanged) identity.config = { ...request.config };
    const { placement } = request;
    const roleChanged =
      placement.leader === node.region
        ? node.becomeLeader(placement)
        : node.becomeFollower(placement.leaderEpoch, placement.leader);
    if (roleChanged || configChanged) this.#persist();
    if (roleChanged) {
      if (!node.isLeader) void this.#subscribers.notify(); // closed with 4503
      this.#replication.wake();
      this.#replication.kick();
    }
    if (requireLeader && !node.isLeader) {
      throw new TributaryError("NOT_LEADER_OR_FOLLOWER", `replica ${node.region} is not the leader`, { leaderEpoch: node.leaderEpoch });
    }
    return node;
  }

  #open(identity: ReplicaIdentity): void {
    // Followers' progress is not persisted: a leader restarting learns it again from their answers.
    this.#tail = new TailCachedStore(this.#store, tailCacheBytesMax);
    this.#node = new ReplicaNode(identity.region, new PartitionLog(this.#tail, new SqliteTransactionStore(this.#sql.storage)), identity.role);
    this.#tier = new SegmentTier(this.#sql.storage, meteredBucket(this.env, this.env.SEGMENTS), identity.topicId, identity.partition, () => this.#node?.leaderEpoch ?? -1);
    this.#traffic = new ReplicaTraffic(this.#sql.storage, this.env.METRICS, identity, this.#node.log.logEndOffset);
  }

  /** Sealing, retention and compaction — the cleaner — one run at a time, by the leader only (followers mirror its tier). */
  async #maintain(): Promise<void> {
    this.#maintaining ??= this.#runMaintenance().finally(() => (this.#maintaining = undefined));
    return this.#maintaining;
  }

  async #runMaintenance(): Promise<void> {
    const node = this.#node;
    const tier = this.#tier;
    if (!node?.isLeader || !tier || !this.#identity) return;
    const config = this.#identity.config;
    const { sealed, nextCheckAtMs } = await tier.seal(node.log, config, Date.now());
    const retained = await tier.applyRetention(node.log, config, Date.now());
    const compacted = await tier.compact(node.log, config, Date.now());
    if (retained) void this.#subscribers.notify(); // readers the log start passed are closed with 4416
    if (sealed > 0 || retained || compacted) {
      this.#persist();
      this.#replication.kick(); // followers learn the new tier
    }
    if (nextCheckAtMs !== undefined) await this.#setAlarmBefore(nextCheckAtMs);
  }

  #debugStats() {
    const waiters = this.#readers.size;
    const tailCacheBytes = this.#tail?.cachedBytes ?? 0;
    const subscribers = { open: this.#subscribers.size, ...this.#subscribers.counters };
    return replicaDebugStats(this.#counters, { sqliteRowsWritten: this.#sql.rowsWritten, appends: this.#appends.stats(), tailCacheBytes, waiters, subscribers });
  }

  #persist(): void {
    if (!this.#identity || !this.#node) return;
    this.#identity.role = this.#node.role;
    writeReplicaIdentity(this.#sql.storage, this.#identity);
  }

  /**
   * Arms the alarm for `atMs` unless it is already due by then. The alarm's time is kept in
   * memory once read, so the hot path (an append while a seal is due) touches no storage.
   */
  async #setAlarmBefore(atMs: number): Promise<void> {
    if (this.#alarmAtMs === undefined) this.#alarmAtMs = await this.ctx.storage.getAlarm();
    if (this.#alarmAtMs !== null && this.#alarmAtMs <= atMs) return;
    this.#alarmAtMs = atMs;
    await this.ctx.storage.setAlarm(atMs);
  }
}
