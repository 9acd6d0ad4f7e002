import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, unwrap, type Result } from "../errors.ts";
import { transactionsListedMax } from "../limits.ts";
import { controllerStub, groupStub, transactionIndexStub } from "../contracts/stubs.ts";
import type { TransactionListing } from "../contracts/transaction-coordinator-api.ts";
import {
  addGroup,
  addPartitions,
  adminAbort,
  end,
  expire,
  init,
  markersWritten,
  nextAlarmAt,
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
import { CountedSql, rowCountingEnabled } from "./counted-sql.ts";
import { applyMigrations } from "./schema.ts";
import { writePartitionMarkers, writtenPartitions } from "./transaction-marker-writes.ts";

const migrations = [
  // The transactional id's metadata, whole (src/transactions/transaction-metadata.ts), and
  // whether the index has the last init's listing.
  `CREATE TABLE transaction_state (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     metadata TEXT NOT NULL,
     index_synced INTEGER NOT NULL
   );
   CREATE TABLE transaction_index (
     transactional_id TEXT PRIMARY KEY,
     listing TEXT NOT NULL
   );`,
];

/** The index's retry of a listing it did not take, and of the alarm that found nothing to do. */
const indexRetryMs = 1_000;

/**
 * A transactional id's coordinator (issue 28; ARCHITECTURE.md decision 17): a thin adapter
 * over the pure rules of src/transactions/transaction-machine.ts. Each request is one turn:
 * the rules' next metadata is written to SQLite before the answer and before any marker, so
 * the decision (Prepare*) survives any crash; then the markers go to every partition (the data
 * plane's leader calls) and group (their coordinators) of the transaction, and what is left is
 * retried by the alarm, across restarts. The alarm also aborts a transaction past its timeout;
 * with nothing open or ending there is no alarm and the object costs nothing.
 *
 * The same class, under the name "index" (transactionIndexName), lists the transactional ids:
 * each coordinator tells it at every init.
 */
export class TransactionCoordinator extends DurableObject<Env> {
  #metadata: TransactionMetadata | null = null;
  #indexSynced = true;
  /** The marker round running now: one at a time, whoever started it (a request or the alarm). */
  #round: Promise<void> | null = null;
  /** Rows counted for the benchmark's bill (src/contracts/billing-meter.ts), as the partitions' and groups' are. */
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new CountedSql(ctx.storage.sql, rowCountingEnabled(env)).storage;
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(this.#sql, migrations);
      const row = this.#sql.exec<{ metadata: string; index_synced: number }>("SELECT metadata, index_synced FROM transaction_state WHERE id = 1").toArray()[0];
      if (row === undefined) return;
      this.#indexSynced = row.index_synced === 1;
      // A new incarnation: the markers it writes carry a higher coordinator epoch.
      this.#save(restarted(JSON.parse(row.metadata) as TransactionMetadata));
    });
  }

  /**
   * Kafka's InitProducerId with a transactional id: fences older instances, aborts what they left
   * open. `held`: the identity the producer says it holds (KIP-360; transaction-machine.ts).
   */
  async init(transactionalId: string, timeoutMs: number, held?: ProducerIdentity): Promise<Result<ProducerIdentity>> {
    return toResult(async () => {
      let outcome = await this.#run((metadata, fresh) => init(metadata, timeoutMs, Date.now(), fresh, held), transactionalId);
      if (outcome.kind === "markers-first") {
        await this.#decided(outcome.metadata);
        if (this.#current().pending !== null) {
          throw new TributaryError("CONCURRENT_TRANSACTIONS", `aborting the transaction the previous instance of ${JSON.stringify(transactionalId)} left open; retry shortly`);
        }
        outcome = await this.#run((metadata, fresh) => init(metadata, timeoutMs, Date.now(), fresh, held), transactionalId);
      }
      if (outcome.kind !== "done") throw new Error("init found a transaction open after aborting it");
      this.#indexSynced = false;
      await this.#persist(outcome.metadata);
      await this.#syncIndex();
      return outcome.identity;
    });
  }

  async addPartitions(transactionalId: string, identity: ProducerIdentity, partitions: TopicPartition[]): Promise<Result<ProducerIdentity>> {
    return this.#change(transactionalId, (metadata) => addPartitions(metadata, identity, partitions, Date.now()));
  }

  async addOffsets(transactionalId: string, identity: ProducerIdentity, groupId: string): Promise<Result<ProducerIdentity>> {
    return this.#change(transactionalId, (metadata) => addGroup(metadata, identity, groupId, Date.now()));
  }

  /** Kafka's EndTxn: answered once the decision is durable, after one round of markers. */
  async end(transactionalId: string, identity: ProducerIdentity, commit: boolean): Promise<Result<ProducerIdentity>> {
    return this.#change(transactionalId, (metadata, fresh) => end(metadata, identity, commit ? "commit" : "abort", Date.now(), fresh));
  }

  /**
   * The router's call before it forwards a transactional produce (KIP-890 part 2's implicit add,
   * docs/transactions.md "The produce check"): the producer must be the id's current one
   * (`checkProducer`: a write of an ended transaction carries the epoch its end bumped, and is
   * PRODUCER_FENCED), and partitions its open transaction has not added yet are added, opening
   * one if none is — one durable write, as the explicit add's. Partitions already added write nothing.
   */
  async addPartitionsForWrite(transactionalId: string, identity: ProducerIdentity, partitions: TopicPartition[]): Promise<Result<void>> {
    return toResult(async () => {
      unwrap(await this.#change(transactionalId, (metadata) => addPartitions(metadata, identity, partitions, Date.now())));
    });
  }

  async describe(transactionalId: string): Promise<Result<TransactionDescription>> {
    return toResult(() => describeTransaction(this.#known(transactionalId)));
  }

  /** An admin's abort of the open transaction (Kafka's kafka-transactions.sh abort of a hanging transaction). */
  async abort(transactionalId: string): Promise<Result<TransactionDescription>> {
    return toResult(async () => {
      this.#known(transactionalId);
      const outcome = await this.#run((metadata, fresh) => adminAbort(metadata, Date.now(), fresh), transactionalId);
      if (outcome.kind === "done" && outcome.changed) await this.#decided(outcome.metadata);
      return describeTransaction(this.#current());
    });
  }

  override async alarm(): Promise<void> {
    countBilled("alarms");
    if (this.#metadata === null) return;
    // The rule reads the metadata as it is when it runs: a turn may run while the controller hands out a producer id.
    const timedOut = await this.#withProducerId((fresh) => {
      const metadata = this.#current();
      return expire(metadata, Date.now(), fresh) ?? { kind: "done" as const, metadata, identity: metadata, changed: false };
    });
    if (timedOut.kind === "done" && timedOut.changed) await this.#persist(timedOut.metadata);
    if (this.#current().pending !== null) await this.#markers();
    if (!this.#indexSynced) await this.#syncIndex();
    await this.#arm();
  }

  // ---- The index (the same class under transactionIndexName) ----

  async indexTransaction(listing: TransactionListing): Promise<Result<void>> {
    return toResult(() => {
      this.#sql.exec(
        "INSERT INTO transaction_index (transactional_id, listing) VALUES (?, ?) ON CONFLICT (transactional_id) DO UPDATE SET listing = excluded.listing",
        listing.transactionalId,
        JSON.stringify(listing),
      );
    });
  }

  async listTransactions(): Promise<Result<{ transactions: TransactionListing[]; truncated: boolean }>> {
    return toResult(() => {
      const rows = this.#sql
        .exec<{ listing: string }>("SELECT listing FROM transaction_index ORDER BY transactional_id LIMIT ?", transactionsListedMax + 1)
        .toArray();
      return { transactions: rows.slice(0, transactionsListedMax).map((row) => JSON.parse(row.listing) as TransactionListing), truncated: rows.length > transactionsListedMax };
    });
  }

  // ---- Turns ----

  /** A change by the rules: persisted when it changed anything, markers written when it decided. */
  async #change(
    transactionalId: string,
    rule: (metadata: TransactionMetadata, fresh?: number) => InitOutcome,
  ): Promise<Result<ProducerIdentity>> {
    return toResult(async () => {
      const outcome = await this.#run(rule, transactionalId);
      if (outcome.kind !== "done") throw new Error("only init aborts first");
      if (outcome.changed) {
        if (outcome.metadata.pending !== null && this.#current().pending === null) await this.#decided(outcome.metadata);
        else await this.#persist(outcome.metadata);
      }
      return outcome.identity;
    });
  }

  /** Runs a rule on the current metadata, with a new producer id from the controller when it asks for one. */
  async #run(rule: (metadata: TransactionMetadata, fresh?: number) => InitOutcome, transactionalId: string): Promise<Exclude<InitOutcome, { kind: "needs-producer-id" }>> {
    this.#admit(transactionalId);
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

  /** The decision: durable first, then a round of markers. */
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
    const [partitions, groups] = await Promise.all([
      pending.partitions.length === 0 ? [] : this.#partitionMarkers(marker, pending.partitions),
      Promise.all(pending.groups.map(async (group) => ((await this.#groupMarker(group, marker)) ? [group] : []))).then((written) => written.flat()),
    ]);
    const now = this.#current();
    // Only the decision this round wrote for (a newer one is another transaction's).
    if (now.pending === null || now.pending.marker.producerId !== marker.producerId || now.pending.marker.producerEpoch !== marker.producerEpoch) return;
    await this.#persist(markersWritten(now, { partitions, groups }, Date.now()));
  }

  async #partitionMarkers(marker: TransactionMarker & { coordinatorEpoch: number }, partitions: TopicPartition[]): Promise<TopicPartition[]> {
    try {
      return writtenPartitions(partitions, await writePartitionMarkers(this.env, marker, partitions));
    } catch (error) {
      console.warn("transaction markers to partitions failed; the alarm retries", error);
      return [];
    }
  }

  async #groupMarker(group: string, marker: TransactionMarker & { coordinatorEpoch: number }): Promise<boolean> {
    try {
      const result = await groupStub(this.env, group).transactionMarker(group, marker);
      return result.ok;
    } catch (error) {
      console.warn(`transaction marker to group ${group} failed; the alarm retries`, error);
      return false;
    }
  }

  async #syncIndex(): Promise<void> {
    const metadata = this.#current();
    const listing: TransactionListing = {
      transactionalId: metadata.transactionalId,
      producerId: metadata.producerId,
      producerEpoch: metadata.producerEpoch,
      transactionTimeoutMs: metadata.timeoutMs,
      initializedAt: metadata.updatedAt,
    };
    try {
      unwrap(await transactionIndexStub(this.env).indexTransaction(listing));
      this.#indexSynced = true;
      this.#save(this.#current());
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
  #known(transactionalId: string): TransactionMetadata {
    const metadata = this.#metadata;
    if (metadata === null || metadata.producerId < 0) throw new TributaryError("TRANSACTIONAL_ID_NOT_FOUND", `no producer was initialized with transactional id ${JSON.stringify(transactionalId)}`);
    this.#admit(transactionalId);
    return metadata;
  }

  #current(): TransactionMetadata {
    if (this.#metadata === null) throw new Error("no metadata: #admit did not run");
    return this.#metadata;
  }

  #save(metadata: TransactionMetadata): void {
    this.#sql.exec(
      "INSERT INTO transaction_state (id, metadata, index_synced) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET metadata = excluded.metadata, index_synced = excluded.index_synced",
      JSON.stringify(metadata),
      this.#indexSynced ? 1 : 0,
    );
    this.#metadata = metadata;
  }

  /** Writes the metadata (durable when this turn's output gate opens: before any answer or marker leaves) and sets the alarm from it. */
  async #persist(metadata: TransactionMetadata): Promise<void> {
    this.#save(metadata);
    await this.#arm();
  }

  async #arm(): Promise<void> {
    const metadata = this.#metadata;
    const at = metadata === null ? null : nextAlarmAt(metadata, Date.now());
    const next = this.#indexSynced ? at : Math.min(at ?? Infinity, Date.now() + indexRetryMs);
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }
}
