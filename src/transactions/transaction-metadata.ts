/**
 * A transactional id's state as its coordinator keeps it (issue 28; ARCHITECTURE.md decision
 * 17): Kafka's TransactionMetadata, one value per transactional id, persisted whole in the
 * coordinator object's one row. Pure: the rules that change it are in transaction-machine.ts.
 */

/**
 * Kafka's transaction states. Empty: a producer is initialized and no transaction is open.
 * Ongoing: partitions or groups were added. PrepareCommit / PrepareAbort: the decision is
 * durable and its markers are being written. CompleteCommit / CompleteAbort: every marker is
 * written; the next transaction may start.
 */
export const transactionStates = ["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort"] as const;
export type TransactionState = (typeof transactionStates)[number];

export type TransactionResult = "commit" | "abort";

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface ProducerIdentity {
  producerId: number;
  producerEpoch: number;
}

/** Why a transaction ended: its producer's end, its timeout, a new instance's init, an admin's abort. */
export type EndReason = "client" | "timeout" | "init" | "admin";

/** The marker every partition and group of an ending transaction must receive (the contract's shape, less the coordinator epoch, which is the writer's). */
export interface TransactionMarker {
  producerId: number;
  /** The bumped epoch (KIP-890): the ended transaction's epoch + 1. */
  producerEpoch: number;
  result: TransactionResult;
}

/** What a Prepare* state still has to write. */
export interface PendingMarkers {
  marker: TransactionMarker;
  /** Partitions that do not hold the marker yet. */
  partitions: TopicPartition[];
  /** Groups that did not take the marker yet (their pending transactional offsets). */
  groups: string[];
  /** Failed rounds so far: the retry's backoff. */
  attempts: number;
  reason: EndReason;
}

export interface TransactionMetadata {
  transactionalId: string;
  /** -1 until the first init. */
  producerId: number;
  producerEpoch: number;
  /** A producer id this transactional id used before it moved to `producerId` (epoch overflow): its requests are fenced. */
  previousProducerId: number | null;
  timeoutMs: number;
  state: TransactionState;
  /** The open transaction's partitions (Ongoing) — what its markers go to. */
  partitions: TopicPartition[];
  /** The groups whose offsets the open transaction commits. */
  groups: string[];
  /** When the open transaction began (its first partition or group), ms; null when none is open. */
  startedAt: number | null;
  updatedAt: number;
  /** The coordinator's incarnation: one more at every start of its object. Markers carry it. */
  coordinatorEpoch: number;
  pending: PendingMarkers | null;
  /**
   * The identity and result of the last end, so that a retried end (the answer was lost) is
   * answered again rather than refused: its epoch is one below the current after the bump.
   */
  lastEnd: (ProducerIdentity & { result: TransactionResult }) | null;
  /**
   * The identity the producer held just before the last bump that left it the holder (Kafka's
   * lastProducerEpoch, KIP-360): an end's, a timeout's, an init that named the identity it held.
   * An init naming it again is a retry (its answer was lost, or the producer re-initializes after
   * a timeout's abort) and is answered the current identity without a bump. Null after an init
   * of a new instance (it fences every older one); absent in metadata written before it existed.
   */
  lastProducer?: ProducerIdentity | null;
}

export function emptyMetadata(transactionalId: string, now: number): TransactionMetadata {
  return {
    transactionalId,
    producerId: -1,
    producerEpoch: -1,
    previousProducerId: null,
    timeoutMs: 0,
    state: "Empty",
    partitions: [],
    groups: [],
    startedAt: null,
    updatedAt: now,
    coordinatorEpoch: 0,
    pending: null,
    lastEnd: null,
    lastProducer: null,
  };
}

export function isInitialized(metadata: TransactionMetadata): boolean {
  return metadata.producerId >= 0;
}

export function partitionKey(partition: TopicPartition): string {
  return `${partition.topic}\u0000${partition.partition}`;
}

/** `partitions` without duplicates, in a stable order (topic, then partition). */
export function uniquePartitions(partitions: readonly TopicPartition[]): TopicPartition[] {
  const byKey = new Map<string, TopicPartition>();
  for (const partition of partitions) byKey.set(partitionKey(partition), { topic: partition.topic, partition: partition.partition });
  return [...byKey.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

/** What `GET /v1/transactions/{transactionalId}` answers (Kafka's DescribeTransactions). */
export interface TransactionDescription {
  transactionalId: string;
  state: TransactionState;
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  /** When the open transaction began (ms since the epoch), or null. */
  transactionStartTimeMs: number | null;
  partitions: TopicPartition[];
  groups: string[];
  coordinatorEpoch: number;
  /** Partitions and groups still without the ending transaction's marker. */
  pendingMarkers: { partitions: TopicPartition[]; groups: string[]; result: TransactionResult } | null;
}

export function describeTransaction(metadata: TransactionMetadata): TransactionDescription {
  const ending = metadata.pending;
  return {
    transactionalId: metadata.transactionalId,
    state: metadata.state,
    producerId: metadata.producerId,
    producerEpoch: metadata.producerEpoch,
    transactionTimeoutMs: metadata.timeoutMs,
    transactionStartTimeMs: metadata.startedAt,
    partitions: metadata.partitions,
    groups: metadata.groups,
    coordinatorEpoch: metadata.coordinatorEpoch,
    pendingMarkers: ending ? { partitions: ending.partitions, groups: ending.groups, result: ending.marker.result } : null,
  };
}
