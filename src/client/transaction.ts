/**
 * A transactional producer's transactions (kafkajs's shape; docs/client.md, "Transactions";
 * how the server keeps them: docs/transactions.md). `await producer.transaction()` answers a
 * Transaction; its records and offsets are committed or aborted together:
 *
 *   transaction() ──► init (once per producer: its producer id, an epoch that fences older instances)
 *   send ──► the partition added to the transaction by the router's check of its first write,
 *            with the topic's other partitions the send is writing (one coordinator write)
 *        ──► transactional batches, the idempotent producer's sequences (producer.ts)
 *   sendOffsets ──► the group's offsets, held by its coordinator until the end
 *   commit ──► every send settled ──► end (commit) ──► the identity of the next transaction
 *          (records still queued: their writes carry the commit, no end request; the same identity)
 *   abort  ──► every send settled ──► end (abort)  ──► the identity of the next transaction
 *
 * Every end bumps the producer epoch (KIP-890; docs/transactions.md, "The late-write rule"),
 * so the next transaction's sequences start again at 0. One transaction at a time per
 * producer. A send that failed dooms its transaction: `commit` then throws that error, and
 * only `abort` ends it. Fencing (PRODUCER_FENCED: another instance with the same
 * transactional id started) is fatal to the producer, as in Kafka.
 */
import { isTributaryError } from "./errors.ts";
import type { ProducerSession } from "./idempotence.ts";
import type { ClientLog } from "./logger.ts";
import { withRetries, type RetryPolicy } from "./retry.ts";
import { path, type Transport } from "./transport.ts";
import type { RecordMetadata, TopicPartition } from "./types.ts";
import type { ConsumerGroupMetadata } from "./consumer-types.ts";
import type { Message } from "./records.ts";

export interface ProducerIdentity {
  producerId: number;
  producerEpoch: number;
}

/**
 * kafkajs's `sendOffsets` request: offsets as numbers or kafkajs's strings, each the next record
 * to read. With `groupMetadata` (a consumer's `groupMetadata()`, as the Java client's
 * `sendOffsetsToTransaction` takes it) the offsets are fenced as that member's commit (KIP-447);
 * `consumerGroupId` may then be left out.
 */
export interface SendOffsetsRequest {
  consumerGroupId?: string;
  groupMetadata?: ConsumerGroupMetadata;
  topics: { topic: string; partitions: { partition: number; offset: number | string; metadata?: string | null }[] }[];
}

/** kafkajs's `sendBatch` request. */
export interface SendBatchRequest {
  topicMessages: { topic: string; messages: Message[] }[];
}

/**
 * The coordinator's answers that say another instance took over the transactional id: nothing
 * this producer sends is accepted again. A partition's INVALID_PRODUCER_EPOCH is not one of
 * them (as in Kafka since KIP-588): the epoch may have moved because the coordinator aborted
 * this producer's transaction at its timeout, so it only dooms the transaction, and the abort's
 * answer tells which it was (the next identity, or PRODUCER_FENCED).
 */
const fencingCodes = ["PRODUCER_FENCED", "INVALID_PRODUCER_ID_MAPPING"] as const;

export function isFencing(error: unknown): boolean {
  return fencingCodes.some((code) => isTributaryError(error, code));
}

/**
 * The coordinator's routes for one transactional id (docs/api.md, Transactions). Each is
 * retried on retriable errors (CONCURRENT_TRANSACTIONS while the last end's markers are being
 * written, a lost connection): a retried init only bumps the epoch once more, adding a
 * partition or group again writes nothing, and a retried end gets the same answer.
 */
export class TransactionCoordinatorCalls {
  readonly #calls: { transport: Transport; policy: RetryPolicy; log: ClientLog };
  readonly transactionalId: string;

  constructor(calls: { transport: Transport; policy: RetryPolicy; log: ClientLog }, transactionalId: string) {
    this.#calls = calls;
    this.transactionalId = transactionalId;
  }

  #post(route: string, json: unknown): Promise<ProducerIdentity> {
    const { transport, policy, log } = this.#calls;
    return withRetries(() => transport.json<ProducerIdentity>({ method: "POST", path: path("transactions", this.transactionalId, route), json }), { policy, log });
  }

  init(transactionTimeoutMs: number): Promise<ProducerIdentity> {
    return this.#post("init", { transactionTimeoutMs });
  }

  async addOffsets(
    identity: ProducerIdentity,
    groupId: string,
    offsets: { topic: string; partition: number; offset: number; metadata?: string }[],
    member?: { memberId: string; memberEpoch: number },
  ): Promise<void> {
    await this.#post("offsets", { ...identity, groupId, ...member, offsets });
  }

  end(identity: ProducerIdentity, commit: boolean): Promise<ProducerIdentity> {
    return this.#post("end", { ...identity, commit });
  }
}

/** What a transaction asks of its producer (producer.ts). */
export interface ProducerSends {
  send(request: { topic: string; messages: Message[] }): Promise<RecordMetadata[]>;
  /** Settles every send made so far (never rejects). */
  flush(): Promise<void>;
  /** Settles every send made so far, the last writes carrying the commit when they can: the next identity when they made it (never rejects). */
  flushCommitting(): Promise<ProducerIdentity | undefined>;
}

/** What a transaction asks of its session: its identity, and what happens at its end. */
interface TransactionHost extends ProducerSends {
  /** The producer id and epoch this transaction writes with. */
  identity: ProducerIdentity;
  /** The transaction is over: the next one writes with `next` (undefined: nothing changed; "init": initialize again). */
  ended(next: ProducerIdentity | undefined | "init"): void;
  /** Another instance took over: the producer is done. */
  fenced(error: unknown): void;
}

/**
 * A transactional producer's side of its transactional id: the producer id and epoch with the
 * sequences written under them (idempotence.ts's session, from init rather than
 * `POST /v1/producers`), the transaction open now, and the fencing that ended the producer.
 */
export class TransactionalSession {
  readonly #coordinator: TransactionCoordinatorCalls;
  readonly #timeoutMs: number;
  /** Undefined until the first transaction() (init), and again after a failed init. */
  session: Promise<ProducerSession> | undefined;
  /** The latest transaction: it holds the producer until it is committed or aborted. */
  current: Transaction | undefined;
  #fenced: { error: unknown } | undefined;

  constructor(calls: { transport: Transport; policy: RetryPolicy; log: ClientLog }, transactionalId: string, timeoutMs: number) {
    this.#coordinator = new TransactionCoordinatorCalls(calls, transactionalId);
    this.#timeoutMs = timeoutMs;
  }

  get transactionalId(): string {
    return this.#coordinator.transactionalId;
  }

  async begin(producer: ProducerSends): Promise<Transaction> {
    if (this.#fenced !== undefined) throw this.#fenced.error;
    if (this.current?.pending) throw new Error("a transaction is already open on this producer: commit or abort it first");
    const session = (this.session ??= this.#coordinator.init(this.#timeoutMs).then((identity) => ({ ...identity, sequences: new Map() })));
    let identity: ProducerIdentity = { producerId: -1, producerEpoch: -1 };
    const host: TransactionHost = {
      ...producer,
      get identity() {
        return identity;
      },
      ended: (next) => {
        // Every end bumps the epoch: the next transaction's sequences start at 0 in every partition.
        if (next === "init") this.session = undefined;
        else if (next !== undefined) this.session = Promise.resolve({ ...next, sequences: new Map() });
      },
      fenced: (error) => {
        this.#fenced ??= { error };
      },
    };
    const transaction = new Transaction(host, this.#coordinator);
    this.current = transaction; // before the wait: a second transaction() meanwhile is refused
    try {
      const current = await session;
      identity = { producerId: current.producerId, producerEpoch: current.producerEpoch };
    } catch (error) {
      if (this.session === session) this.session = undefined;
      this.current = undefined;
      throw error;
    }
    return transaction;
  }
}

type State = "open" | "ending" | "failed" | "ended";

export class Transaction {
  readonly #host: TransactionHost;
  readonly #coordinator: TransactionCoordinatorCalls;
  #state: State = "open";
  /** Whether the coordinator may hold a transaction open for it (a write left, or a group was added). */
  #started = false;
  /** The first send that failed: the transaction can only be aborted. */
  #failure: { error: unknown } | undefined;
  /** `topic` NUL `partition` of the partitions a write's check added to the transaction (answered ok). */
  readonly #added = new Set<string>();

  constructor(host: TransactionHost, coordinator: TransactionCoordinatorCalls) {
    this.#host = host;
    this.#coordinator = coordinator;
  }

  /** Whether records and offsets may still be added (neither commit nor abort has started). */
  isActive(): boolean {
    return this.#state === "open";
  }

  /** Whether the transaction holds the producer: not ended yet. */
  get pending(): boolean {
    return this.#state !== "ended";
  }

  #checkOpen(what: string): void {
    if (this.#state !== "open") throw new Error(`${what}: the transaction is ${this.#state === "ended" ? "over" : "ending"}; start another with producer.transaction()`);
  }

  /** Sends the messages in the transaction; resolves with where each landed (invisible to read_committed readers until the commit). */
  async send(request: { topic: string; messages: Message[] }): Promise<RecordMetadata[]> {
    this.#checkOpen("send");
    return this.#host.send(request);
  }

  /** Sends to several topics in the transaction (kafkajs's sendBatch). */
  async sendBatch(request: SendBatchRequest): Promise<RecordMetadata[]> {
    this.#checkOpen("sendBatch");
    const { topicMessages } = request ?? {};
    if (!Array.isArray(topicMessages) || topicMessages.length === 0) throw new TypeError("sendBatch: topicMessages must be a non-empty array");
    return (await Promise.all(topicMessages.map((entry) => this.#host.send(entry)))).flat();
  }

  /** Commits the group's offsets with the transaction (consume-transform-produce): they count only if it commits. */
  async sendOffsets(request: SendOffsetsRequest): Promise<void> {
    this.#checkOpen("sendOffsets");
    const { groupMetadata, topics } = request ?? {};
    const consumerGroupId = request?.consumerGroupId ?? groupMetadata?.groupId;
    if (typeof consumerGroupId !== "string" || consumerGroupId === "") throw new TypeError("sendOffsets: consumerGroupId (or groupMetadata) must name the group");
    if (groupMetadata !== undefined && groupMetadata.groupId !== consumerGroupId) {
      throw new TypeError(`sendOffsets: groupMetadata is group ${groupMetadata.groupId}'s, not ${consumerGroupId}'s`);
    }
    const member = groupMetadata?.memberId === undefined ? undefined : { memberId: groupMetadata.memberId, memberEpoch: groupMetadata.memberEpoch };
    if (!Array.isArray(topics)) throw new TypeError("sendOffsets: topics must be an array");
    const offsets = topics.flatMap(({ topic, partitions }) =>
      partitions.map(({ partition, offset, metadata }) => {
        const value = Number(offset);
        if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`sendOffsets: ${topic}/${partition}: offset must be an integer >= 0, got ${String(offset)}`);
        return { topic, partition, offset: value, ...(typeof metadata === "string" ? { metadata } : {}) };
      }),
    );
    if (offsets.length === 0) return;
    try {
      await this.#coordinator.addOffsets(this.#host.identity, consumerGroupId, offsets, member);
      this.#started = true;
    } catch (error) {
      if (isFencing(error)) this.#host.fenced(error);
      throw error;
    }
  }

  /**
   * Settles every send of the transaction, then commits it: its records become visible to
   * read_committed readers on every partition at once, its offsets committed. A send that
   * failed makes it throw that error (abort then); so does a refused end (the coordinator
   * aborted it at its timeout: INVALID_TXN_STATE), after which `abort` ends it.
   */
  async commit(): Promise<void> {
    this.#beginEnd("commit");
    // Records still queued go with the commit (docs/transactions.md, "The commit carried by the last writes").
    const committed = this.#failure === undefined ? await this.#host.flushCommitting() : (await this.#host.flush(), undefined);
    if (committed !== undefined) {
      // Every write carrying it was durable: committed, even if one's answer was lost on the way back (that send failed).
      this.#state = "ended";
      this.#host.ended(committed);
      return;
    }
    if (this.#failure !== undefined) {
      this.#state = "failed";
      throw this.#failure.error;
    }
    await this.#end(true);
  }

  /** Settles every send of the transaction, then aborts it: its records are never shown to read_committed readers, its offsets dropped. */
  async abort(): Promise<void> {
    this.#beginEnd("abort");
    await this.#host.flush();
    await this.#end(false);
  }

  #beginEnd(what: "commit" | "abort"): void {
    if (this.#state === "ended") throw new Error(`${what}: the transaction is over`);
    if (this.#state === "ending") throw new Error(`${what}: the transaction is already ending`);
    this.#state = "ending";
  }

  async #end(commit: boolean): Promise<void> {
    // Nothing reached the coordinator: there is nothing to end there (as Kafka's producer sends no EndTxn then).
    if (!this.#started) {
      this.#state = "ended";
      this.#host.ended(undefined);
      return;
    }
    let next: ProducerIdentity;
    try {
      next = await this.#coordinator.end(this.#host.identity, commit);
    } catch (error) {
      if (isFencing(error)) {
        this.#state = "ended";
        this.#host.fenced(error);
      } else if (!commit && isTributaryError(error, "INVALID_TXN_STATE") && this.#failure !== undefined) {
        // The writes failed before any reached the coordinator: nothing is open to abort. One may
        // still arrive late (a lost connection's request), so the next transaction starts from a
        // new init, whose epoch bump fences it (and aborts what it opened).
        this.#state = "ended";
        this.#host.ended("init");
        return;
      } else {
        this.#state = "failed";
      }
      throw error;
    }
    this.#state = "ended";
    this.#host.ended(next);
  }

  /**
   * The producer's write path, as a write of the transaction leaves: the router's check of that
   * write adds its partition to the transaction at the coordinator (KIP-890 part 2's implicit
   * add), so no request goes before it; from now on the coordinator may hold a transaction to end.
   */
  writing(): void {
    this.#started = true;
  }

  /**
   * The other partitions of `topic` a write to `partition` names for the router's check to add
   * with its own (`writing`: those the producer has records queued or in flight for), when any
   * is not added yet: so a send over several partitions costs the coordinator one write, not
   * one per partition (docs/transactions.md, "The produce check"). Undefined: none to name.
   */
  partitionsToAdd(topic: string, partition: number, writing: readonly number[]): number[] | undefined {
    const named = writing.filter((other) => other !== partition && !this.#added.has(`${topic}\u0000${other}`));
    return named.length === 0 ? undefined : [...new Set(named)].sort((a, b) => a - b);
  }

  /** A write's check answered ok: these partitions are in the transaction. */
  partitionsAdded(topic: string, partitions: readonly number[]): void {
    for (const partition of partitions) this.#added.add(`${topic}\u0000${partition}`);
  }

  /** A write of the transaction failed (its retries spent): the transaction can only be aborted. */
  writeFailed(error: unknown): void {
    this.#failure ??= { error };
    if (isFencing(error)) this.#host.fenced(error);
  }
}
