import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, unwrap, type Result } from "../errors.ts";
import { carriedCommitWaitMs, transactionFollowerGraceMs } from "../limits.ts";
import { CarriedCommits, runAfter, type CarriedCommitAnswer, type CarriedWrite } from "../transactions/carried-commit.ts";
import type { PullAnswer, PushAnswer, StateReplica } from "../replication/state-replication.ts";
import { controllerStub, transactionIndexStub } from "../contracts/stubs.ts";
import type { TransactionAnchor, TransactionKey, TransactionListing } from "../contracts/transaction-coordinator-api.ts";
import {
  addGroup,
  addPartitions,
  adminAbort,
  end,
  expire,
  init,
  markersWritten,
  restarted,
  type InitOutcome,
} from "../transactions/transaction-machine.ts";
import {
  describeTransaction,
  emptyMetadata,
  type ProducerIdentity,
  type TopicPartition,
  type TransactionDescription,
  type TransactionMarker,
  type TransactionMetadata,
} from "../transactions/transaction-metadata.ts";
import { countBilled } from "../contracts/billing-meter.ts";
import { checkFaultsEnabled, type Fault } from "../contracts/faults.ts";
import { CountedSql, rowCountingEnabled } from "./counted-sql.ts";
import { applyMigrations } from "./schema.ts";
import { ReplicaFaults } from "./replica-faults.ts";
import { TakeoverGate } from "./state-leadership.ts";
import { indexListing, listedTransactions, listingOf } from "./transaction-index-rows.ts";
import { writeMarkerRound } from "./transaction-marker-writes.ts";
import { coordinatorAlarmAt, tickAtLeader } from "./transaction-alarm.ts";
import { TransactionLeadership, transactionNotLeader } from "./transaction-leadership.ts";
import {
  anchorAt,
  loadTransactionRows,
  saveHandedOver,
  saveIndexSynced,
  saveTransactionEpochs,
  saveTransactionState,
  transactionMigrations,
  type TransactionSnapshot,
} from "./transaction-replica-rows.ts";


/**
 * One replica of a transactional id's coordinator (issue 28; ARCHITECTURE.md decision 17;
 * docs/transactions.md): a thin adapter over the pure rules of
 * src/transactions/transaction-machine.ts. There is one replica per replica region of the id's
 * anchor partition (src/contracts/transaction-coordinator-api.ts); the caller calls the one in
 * that partition's leader region with the placement it knows, and that one leads at the
 * partition's leader epoch (src/replication/state-replication.ts's rules, its side in
 * transaction-leadership.ts). Each request is one turn: the rules' next metadata is written to
 * SQLite and pushed to every in-sync replica before the answer and before any marker, so the
 * decision (Prepare*) survives any crash and the loss of the region; then the markers go to
 * every partition (the data plane's leader calls) and group (their coordinators) of the
 * transaction, and what is left is retried by the alarm, across restarts. The alarm also aborts
 * a transaction past its timeout; with nothing open or ending there is no alarm and the object
 * costs nothing. A follower keeps an alarm a little past the leader's deadline: if the leader
 * did not act (its region is lost), the follower asks the anchor's leader to, which reports a
 * silent one to the controller, and the next leader takes over and finishes the transaction.
 *
 * The same class serves two other names: the index (transactionIndexName), which lists the
 * transactional ids (each coordinator tells it at every init), and an id's object from before
 * replication, which finishes what it had open until the first replicated leader takes its
 * metadata over (`handOver`).
 */
export class TransactionCoordinator extends DurableObject<Env> {
  #metadata: TransactionMetadata | null = null;
  #indexSynced = true;
  /** A completion in memory, not yet in the row: written by the next write or the alarm (#markerRound). */
  #unsaved = false;
  #replica!: StateReplica<TransactionMetadata>;
  /** Where this replica sits; null on the index and on an object from before replication. */
  #anchor: TransactionAnchor | null = null;
  #handedOver = false;
  /** The placement of the last call this replica led (its pushes go to its replicas). */
  #key: TransactionKey | null = null;
  /** The epoch at which this incarnation raised the coordinator epoch (once per incarnation and leader epoch). */
  #raisedAt: number | null = null;
  readonly #gate = new TakeoverGate();
  /** Pushes, one after another, each of the snapshot current when it starts. */
  #pushes: Promise<unknown> = Promise.resolve();
  /** The marker round running now: one at a time, whoever started it (a request or the alarm). */
  #round: Promise<void> | null = null;
  /** Rows counted for the benchmark's bill (src/contracts/billing-meter.ts), as the partitions' and groups' are. */
  readonly #sql: SqlStorage;
  readonly #leadership: TransactionLeadership;
  readonly #faults = new ReplicaFaults();
  /** Commits carried by a transaction's last writes, held until they all report (carried-commit.ts). */
  readonly #carried = new CarriedCommits(carriedCommitWaitMs, runAfter);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new CountedSql(ctx.storage.sql, rowCountingEnabled(env)).storage;
    this.#leadership = new TransactionLeadership(env, () => this.#replica, () => this.#saveEpochs());
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(this.#sql, transactionMigrations);
      const rows = loadTransactionRows(this.#sql);
      this.#replica = rows.replica;
      this.#anchor = rows.anchor;
      this.#handedOver = rows.handedOver;
      this.#indexSynced = rows.indexSynced;
      this.#metadata = rows.metadata;
      // An object from before replication, in a new incarnation: its markers carry a higher coordinator epoch.
      if (rows.metadata !== null && rows.anchor === null && !rows.handedOver) this.#save(restarted(rows.metadata));
    });
  }

  /**
   * Kafka's InitProducerId with a transactional id: fences older instances, aborts what they left
   * open. `held`: the identity the producer says it holds (KIP-360; transaction-machine.ts).
   */
  async init(key: TransactionKey, transactionalId: string, timeoutMs: number, held?: ProducerIdentity): Promise<Result<ProducerIdentity>> {
    return this.#leading(key, transactionalId, async () => {
      let outcome = await this.#run((metadata, fresh) => init(metadata, timeoutMs, Date.now(), fresh, held));
      if (outcome.kind === "markers-first") {
        await this.#decided(outcome.metadata);
        if (this.#current().pending !== null) {
          throw new TributaryError("CONCURRENT_TRANSACTIONS", `aborting the transaction the previous instance of ${JSON.stringify(transactionalId)} left open; retry shortly`);
        }
        outcome = await this.#run((metadata, fresh) => init(metadata, timeoutMs, Date.now(), fresh, held));
      }
      if (outcome.kind !== "done") throw new Error("init found a transaction open after aborting it");
      this.#indexSynced = false;
      await this.#persist(outcome.metadata);
      await this.#syncIndex();
      return outcome.identity;
    });
  }

  async addPartitions(key: TransactionKey, transactionalId: string, identity: ProducerIdentity, partitions: TopicPartition[]): Promise<Result<ProducerIdentity>> {
    return this.#leading(key, transactionalId, () => this.#change((metadata) => addPartitions(metadata, identity, partitions, Date.now())));
  }

  async addOffsets(key: TransactionKey, transactionalId: string, identity: ProducerIdentity, groupId: string): Promise<Result<ProducerIdentity>> {
    return this.#leading(key, transactionalId, () => this.#change((metadata) => addGroup(metadata, identity, groupId, Date.now())));
  }

  /** Kafka's EndTxn: answered once the decision is durable, after one round of markers. */
  async end(key: TransactionKey, transactionalId: string, identity: ProducerIdentity, commit: boolean): Promise<Result<ProducerIdentity>> {
    return this.#leading(key, transactionalId, () => this.#end(identity, commit));
  }

  /** A durable write carrying the commit (`?commitAfterWrites=`): answered when the round settles, the last one running the end. */
  async carriedWrite(key: TransactionKey, transactionalId: string, identity: ProducerIdentity, writes: number, write: CarriedWrite): Promise<Result<CarriedCommitAnswer>> {
    return this.#leading(key, transactionalId, () => this.#carried.arrive(identity, writes, write, () => this.#end(identity, true)));
  }

  /** A write carrying the commit failed: its first attempt's answer when the commit counted it, else null (a failure for good ends the round). */
  async carriedWriteFailed(key: TransactionKey, transactionalId: string, identity: ProducerIdentity, writes: number, write: TopicPartition, error: { code: string; message: string; retriable: boolean }): Promise<Result<{ write: CarriedWrite; answer: CarriedCommitAnswer } | null>> {
    return this.#leading(key, transactionalId, async () => this.#carried.failed(identity, writes, write, error));
  }

  #end(identity: ProducerIdentity, commit: boolean): Promise<ProducerIdentity> {
    return this.#change((metadata, fresh) => end(metadata, identity, commit ? "commit" : "abort", Date.now(), fresh));
  }

  /**
   * The router's call before it forwards a transactional produce (KIP-890 part 2's implicit add,
   * docs/transactions.md "The produce check"): the producer must be the id's current one
   * (`checkProducer`: a write of an ended transaction carries the epoch its end bumped, and is
   * PRODUCER_FENCED), and partitions its open transaction has not added yet are added, opening
   * one if none is — one durable write, as the explicit add's. Partitions already added write nothing.
   */
  async addPartitionsForWrite(key: TransactionKey, transactionalId: string, identity: ProducerIdentity, partitions: TopicPartition[]): Promise<Result<void>> {
    return this.#leading(key, transactionalId, async () => {
      await this.#change((metadata) => addPartitions(metadata, identity, partitions, Date.now()));
    });
  }

  async describe(key: TransactionKey, transactionalId: string): Promise<Result<TransactionDescription>> {
    return this.#leading(key, transactionalId, async () => describeTransaction(this.#known()));
  }

  /** An admin's abort of the open transaction (Kafka's kafka-transactions.sh abort of a hanging transaction). */
  async abort(key: TransactionKey, transactionalId: string): Promise<Result<TransactionDescription>> {
    return this.#leading(key, transactionalId, async () => {
      this.#known();
      const outcome = await this.#run((metadata, fresh) => adminAbort(metadata, Date.now(), fresh));
      if (outcome.kind === "done" && outcome.changed) await this.#decided(outcome.metadata);
      return describeTransaction(this.#current());
    });
  }

  /** What the alarm does, at the leader: an open transaction past its timeout aborted, markers retried, the index told. */
  async tick(key: TransactionKey, transactionalId: string): Promise<Result<void>> {
    return this.#leading(key, transactionalId, () => this.#dueWork());
  }

  override async alarm(): Promise<void> {
    countBilled("alarms");
    const metadata = this.#metadata;
    if (metadata === null || this.#handedOver) return;
    const anchor = this.#anchor;
    if (anchor === null) {
      // An object from before replication, until a replicated leader takes its metadata.
      await this.#dueWork();
      return;
    }
    if (await tickAtLeader(this.env, anchor, metadata.transactionalId, (key) => this.tick(key, metadata.transactionalId))) await this.#arm();
    else await this.ctx.storage.setAlarm(Date.now() + transactionFollowerGraceMs);
  }

  // ---- Replication: the other regions' leaders call these ----

  /** A leader's push: stored when its stamp is not older than this replica's; refused when its epoch is. */
  async replicate(anchor: TransactionAnchor, transactionalId: string, snapshot: TransactionSnapshot): Promise<Result<PushAnswer>> {
    return this.#replicated(anchor, transactionalId, () => {
      const before = this.#replica.current;
      const answer = this.#replica.acceptPush(snapshot);
      if (this.#replica.current !== before) this.#store(snapshot);
      return answer;
    });
  }

  /** A new leader's pull at its takeover: this replica's snapshot, and from now on it refuses older epochs. */
  async pull(anchor: TransactionAnchor, transactionalId: string, epoch: number): Promise<Result<PullAnswer<TransactionMetadata>>> {
    return this.#replicated(anchor, transactionalId, () => this.#replica.answerPull(epoch));
  }

  /** On an id's object from before replication: its metadata, for the first replicated leader; it acts on it no more. */
  async handOver(): Promise<Result<TransactionMetadata | null>> {
    return toResult(async () => {
      await this.#round; // a marker round running finishes first
      if (this.#metadata === null || this.#handedOver) return null;
      this.#handedOver = true;
      saveHandedOver(this.#sql);
      await this.ctx.storage.deleteAlarm();
      return this.#metadata;
    });
  }

  /** This replica's place in the replication (TRIBUTARY_FAULTS=1 only). */
  async replicationState(): Promise<Result<{ seenEpoch: number; leadingEpoch: number; stamp: { epoch: number; version: number } | null; metadata: TransactionMetadata | null }>> {
    return toResult(() => {
      checkFaultsEnabled(this.env);
      const current = this.#replica.current;
      return { seenEpoch: this.#replica.seenEpoch, leadingEpoch: this.#replica.leadingEpoch, stamp: current === null ? null : { epoch: current.epoch, version: current.version }, metadata: this.#metadata };
    });
  }

  /** Fault injection (TRIBUTARY_FAULTS=1): down, slow, none — tests take a region's replica away. */
  async setFault(fault: Fault, ms: number): Promise<Result<void>> {
    return toResult(() => {
      checkFaultsEnabled(this.env);
      this.#faults.set(fault === "crash-after-write" ? "none" : fault, ms);
    });
  }

  // ---- The index (the same class under transactionIndexName) ----

  async indexTransaction(listing: TransactionListing, onlyIfAbsent = false): Promise<Result<void>> {
    await this.#faults.beforeCall(); // a test takes the index away, as a replica
    return toResult(() => indexListing(this.#sql, listing, onlyIfAbsent));
  }

  async listTransactions(): Promise<Result<{ transactions: TransactionListing[]; truncated: boolean }>> {
    return toResult(() => listedTransactions(this.#sql));
  }

  // ---- Leading ----

  /**
   * Runs `body` as the leader at the key's epoch: refused (NOT_LEADER_OR_FOLLOWER) when a newer
   * epoch was seen; after a takeover when this replica does not lead at it yet. Every write it
   * makes is pushed to the other replicas before it answers (#persist).
   */
  async #leading<T>(key: TransactionKey, transactionalId: string, body: () => Promise<T>): Promise<Result<T>> {
    await this.#faults.beforeCall(); // a replica taken away by a test does not answer at all
    return toResult(async () => {
      this.#admit(transactionalId);
      await this.#lead(key, transactionalId);
      try {
        return await body();
      } catch (error) {
        if (error instanceof TributaryError) await this.#leadership.confirm(key, transactionalId);
        throw error;
      }
    });
  }

  async #lead(key: TransactionKey, transactionalId: string): Promise<void> {
    if (this.#anchor === null) {
      this.#anchor = anchorAt(key, key.region);
      this.#saveEpochs();
    }
    await this.#gate.lead(() => this.#replica, key.leaderEpoch, (seen) => transactionNotLeader(key, seen), () => this.#takeOver(key, transactionalId));
    this.#key = key;
    await this.#leadership.syncLagging(key, transactionalId, this.#replica.current);
    if (this.#raisedAt !== key.leaderEpoch) {
      this.#raisedAt = key.leaderEpoch;
      // A new incarnation or a new leader of an id in use: the markers it writes carry a higher coordinator epoch.
      if (this.#metadata !== null && this.#metadata.producerId >= 0) await this.#persist(restarted(this.#metadata));
    }
  }

  /** Pulls the other replicas' snapshots (fencing them), adopts the newest, its own included; the first leader ever takes the legacy object's. */
  async #takeOver(key: TransactionKey, transactionalId: string): Promise<void> {
    this.#replica.beginTakeover(key.leaderEpoch);
    this.#saveEpochs();
    const pulled = await this.#leadership.pull(key, transactionalId);
    const own = this.#replica.current;
    const adopted = this.#replica.finishTakeover(key.leaderEpoch, pulled);
    if (adopted !== null && adopted !== own) this.#store(adopted);
    if (adopted === null) {
      const legacy = await this.#leadership.takeLegacy(transactionalId);
      if (legacy !== null) this.#save(legacy);
    }
    this.#saveEpochs();
    // An init the old leader never got into the index (its call failed, or it was lost first) is listed now.
    if (this.#metadata === null || this.#metadata.producerId < 0) return this.#arm();
    this.#indexSynced = false; // until the index answers: the alarm tries again
    saveIndexSynced(this.#sql, false);
    await this.#syncIndex(true);
  }

  /** A replica-side rule, stored with the epochs in one transaction; on failure, the replica as its rows are. */
  async #replicated<T>(anchor: TransactionAnchor, transactionalId: string, rule: () => T): Promise<Result<T>> {
    await this.#faults.beforeCall();
    return toResult(async () => {
      this.#admit(transactionalId);
      const answer = this.ctx.storage.transactionSync(() => {
        this.#anchor = anchor;
        const value = rule();
        this.#saveEpochs();
        return value;
      });
      await this.#arm();
      return answer;
    });
  }

  // ---- Turns ----

  /** A change by the rules: persisted when it changed anything, markers written when it decided. */
  async #change(rule: (metadata: TransactionMetadata, fresh?: number) => InitOutcome): Promise<ProducerIdentity> {
    const outcome = await this.#run(rule);
    if (outcome.kind !== "done") throw new Error("only init aborts first");
    if (outcome.changed) {
      if (outcome.metadata.pending !== null && this.#current().pending === null) await this.#decided(outcome.metadata);
      else await this.#persist(outcome.metadata);
    }
    return outcome.identity;
  }

  /** Runs a rule on the current metadata, with a new producer id from the controller when it asks for one. */
  async #run(rule: (metadata: TransactionMetadata, fresh?: number) => InitOutcome): Promise<Exclude<InitOutcome, { kind: "needs-producer-id" }>> {
    return this.#withProducerId((fresh) => rule(this.#current(), fresh));
  }

  async #withProducerId<T extends InitOutcome>(rule: (fresh?: number) => T): Promise<Exclude<T, { kind: "needs-producer-id" }>> {
    const first = rule();
    if (first.kind !== "needs-producer-id") return first as Exclude<T, { kind: "needs-producer-id" }>;
    const fresh = unwrap(await controllerStub(this.env).initProducerId()).producerId;
    // The rule runs again on the metadata as it is now: another turn may have run while the controller answered.
    const second = rule(fresh);
    if (second.kind === "needs-producer-id") throw new Error("a new producer id was given and still asked for");
    return second as Exclude<T, { kind: "needs-producer-id" }>;
  }

  /** The timeout, the markers and the index, as they are due. */
  async #dueWork(): Promise<void> {
    if (this.#metadata === null) return;
    // The rule reads the metadata as it is when it runs: a turn may run while the controller hands out a producer id.
    const timedOut = await this.#withProducerId((fresh) => {
      const metadata = this.#current();
      return expire(metadata, Date.now(), fresh) ?? { kind: "done" as const, metadata, identity: metadata, changed: false };
    });
    if (timedOut.kind === "done" && timedOut.changed) await this.#persist(timedOut.metadata);
    if (this.#current().pending !== null) await this.#markers();
    if (this.#unsaved) await this.#persist(this.#current()); // the completion an end answered before writing
    if (!this.#indexSynced) await this.#syncIndex();
    await this.#arm();
  }

  /** The decision: durable and replicated first, then a round of markers. */
  async #decided(metadata: TransactionMetadata): Promise<void> {
    await this.#persist(metadata);
    // Durable on disk before the first marker leaves (the output gate would hold the calls anyway; this says it).
    await this.ctx.storage.sync();
    await this.#markers();
  }

  /** One round of markers for the pending decision (joining the round already running). */
  async #markers(): Promise<void> {
    if (this.#round === null) {
      this.#round = this.#markerRound().finally(() => {
        this.#round = null;
      });
    }
    await this.#round;
  }

  async #markerRound(): Promise<void> {
    const pending = this.#current().pending;
    if (pending === null) return;
    const marker: TransactionMarker & { coordinatorEpoch: number } = { ...pending.marker, coordinatorEpoch: this.#current().coordinatorEpoch };
    const written = await writeMarkerRound(this.env, marker, pending);
    const now = this.#current();
    // Only the decision this round wrote for (a newer one is another transaction's).
    if (now.pending === null || now.pending.marker.producerId !== marker.producerId || now.pending.marker.producerEpoch !== marker.producerEpoch) return;
    const next = markersWritten(now, written, Date.now());
    if (next.pending !== null) {
      await this.#persist(next);
      return;
    }
    // Every marker is written: the answer goes now, without waiting for the completion's write
    // (docs/transactions.md, "Durability and markers"). The row keeps the decision until the next
    // write or the alarm (armed at the decision, and kept soon by #arm while this is unsaved): a
    // crash before then only writes the markers again, which the partitions answer as duplicates.
    this.#metadata = next;
    this.#unsaved = true;
  }

  async #syncIndex(onlyIfAbsent = false): Promise<void> {
    try {
      unwrap(await transactionIndexStub(this.env).indexTransaction(listingOf(this.#current()), onlyIfAbsent));
      this.#indexSynced = true;
      saveIndexSynced(this.#sql, true);
    } catch (error) {
      console.warn("the transaction index did not take a listing; the alarm retries", error);
    }
    await this.#arm();
  }

  // ---- State ----

  #admit(transactionalId: string): void {
    if (this.#metadata === null) this.#metadata = emptyMetadata(transactionalId, Date.now());
    else if (this.#metadata.transactionalId !== transactionalId) throw new Error(`the coordinator of ${this.#metadata.transactionalId} was called for ${transactionalId}`);
  }

  /** The metadata of a transactional id some producer initialized. */
  #known(): TransactionMetadata {
    const metadata = this.#current();
    if (metadata.producerId < 0) throw new TributaryError("TRANSACTIONAL_ID_NOT_FOUND", `no producer was initialized with transactional id ${JSON.stringify(metadata.transactionalId)}`);
    return metadata;
  }

  #current(): TransactionMetadata {
    if (this.#metadata === null) throw new Error("no metadata: #admit did not run");
    return this.#metadata;
  }

  /** The leader's write: stamped when replicated (an object from before replication writes it unstamped). */
  #save(metadata: TransactionMetadata): void {
    const snapshot = this.#anchor === null ? null : this.#replica.stamp(metadata);
    saveTransactionState(this.#sql, metadata, snapshot, this.#indexSynced);
    this.#metadata = metadata;
    this.#unsaved = false;
  }

  /** A snapshot taken from another replica (a push, a takeover's pull): stored as it is. */
  #store(snapshot: TransactionSnapshot): void {
    saveTransactionState(this.#sql, snapshot.payload, snapshot, this.#indexSynced);
    this.#metadata = snapshot.payload;
    this.#unsaved = false;
  }

  #saveEpochs(): void {
    if (this.#anchor !== null) saveTransactionEpochs(this.#sql, this.#replica, this.#anchor);
  }

  /**
   * Writes the metadata (durable when this turn's output gate opens), pushes it to the other
   * replicas (committed when every in-sync one stored it: before any answer or marker leaves),
   * and sets the alarm from it.
   */
  async #persist(metadata: TransactionMetadata): Promise<void> {
    this.#save(metadata);
    await this.#replicateCurrent();
    await this.#arm();
  }

  /** Pushes the snapshot current when the push starts; pushes go one after another, so none overtakes a newer one. */
  async #replicateCurrent(): Promise<void> {
    const key = this.#key;
    if (this.#anchor === null || key === null) return;
    const push = this.#pushes.then(() => {
      const current = this.#replica.current;
      return current === null ? undefined : this.#leadership.replicateWrite(key, current.payload.transactionalId, current);
    });
    this.#pushes = push.catch(() => undefined);
    await push;
  }

  /** The leader's alarm when work is due; a follower's a little after the leader's (see the class); none when idle. */
  async #arm(): Promise<void> {
    const follower = this.#anchor !== null && !this.#replica.leading;
    const next = coordinatorAlarmAt({ metadata: this.#metadata, handedOver: this.#handedOver, follower, indexSynced: this.#indexSynced, unsaved: this.#unsaved }, Date.now());
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }
}
