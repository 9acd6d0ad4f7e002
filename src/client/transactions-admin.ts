/**
 * Transactions as an operator sees them (docs/api.md, Transactions; Kafka's
 * kafka-transactions.sh): `admin().transactions.list()`, `.describe(id)`, `.abort(id)`, and a
 * partition's producers, `.describeProducers(topic, partition)` (Kafka's DescribeProducers). As
 * the rest of admin.ts: reads are retried on retriable errors, `abort` is not (an unanswered
 * abort may have happened, and a second one would find no transaction open: the caller decides).
 */
import type { AdminContext } from "./admin-context.ts";
import { withRetries } from "./retry.ts";
import { path } from "./transport.ts";
import type { TopicPartition } from "./types.ts";

/** Kafka's transaction states (docs/transactions.md, "The coordinator"). */
export type TransactionState = "Empty" | "Ongoing" | "PrepareCommit" | "PrepareAbort" | "CompleteCommit" | "CompleteAbort";

/** One transactional id as `GET /v1/transactions` lists it: as of its last init. */
export interface TransactionSummary {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  /** ms since the epoch. */
  initializedAt: number;
}

export interface TransactionDescription {
  transactionalId: string;
  state: TransactionState;
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  /** When the open transaction began (ms since the epoch); null when none is open. */
  transactionStartTimeMs: number | null;
  partitions: TopicPartition[];
  groups: string[];
  coordinatorEpoch: number;
  /** Partitions and groups still without the ending transaction's marker; null when none. */
  pendingMarkers: { partitions: TopicPartition[]; groups: string[]; result: "commit" | "abort" } | null;
}

/** One of a partition's active producers, as its leader knows it (Kafka's DescribeProducers, KIP-664). */
export interface PartitionProducer {
  producerId: number;
  producerEpoch: number;
  /** The last sequence it wrote here; -1 when none is remembered. */
  lastSequence: number;
  /** When it last wrote here (ms since the epoch); -1 when unknown. */
  lastTimestamp: number;
  /** Always -1: Tributary's partitions keep no coordinator epoch. */
  coordinatorEpoch: number;
  /** The first offset of its open transaction (it holds the last stable offset there); -1 when none is open. */
  currentTxnStartOffset: number;
}

export class TransactionsAdmin {
  readonly #context: AdminContext;

  constructor(context: AdminContext) {
    this.#context = context;
  }

  #read<T>(requestPath: string): Promise<T> {
    return withRetries(() => this.#context.transport.json<T>({ method: "GET", path: requestPath }), { policy: this.#context.policy, log: this.#context.log });
  }

  /** Every transactional id the token may describe, sorted; `truncated` when there were more than the server lists (1,000). */
  async list(): Promise<{ transactions: TransactionSummary[]; truncated: boolean }> {
    return this.#read(path("transactions"));
  }

  /** Its state, producer id and epoch, timeout, partitions and groups (TRANSACTIONAL_ID_NOT_FOUND for an id never initialized). */
  async describe(transactionalId: string): Promise<TransactionDescription> {
    return this.#read(path("transactions", transactionalId));
  }

  /** The partition's active producers, by id (`describe` on the topic; Kafka's `kafka-transactions.sh describe-producers`). */
  async describeProducers(topic: string, partition: number): Promise<PartitionProducer[]> {
    const answer = await this.#read<{ producers: PartitionProducer[] }>(path("topics", topic, "partitions", String(partition), "producers"));
    return answer.producers;
  }

  /**
   * Aborts the id's open transaction (a hanging one, Kafka's `kafka-transactions.sh abort`);
   * answers the description after it. The producer's commit is then INVALID_TXN_STATE, as after
   * a timeout, and its abort ends the transaction. INVALID_TXN_STATE when none is open. Needs
   * alter on the cluster.
   */
  async abort(transactionalId: string): Promise<TransactionDescription> {
    return this.#context.transport.json<TransactionDescription>({ method: "POST", path: path("transactions", transactionalId, "abort") });
  }
}
