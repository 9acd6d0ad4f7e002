/**
 * The TransactionCoordinator's RPC shapes (issue 28; docs/transactions.md), for the router
 * (src/router/routes/transactions.ts). Every method takes the transactional id first and
 * returns a Result. The group coordinator's side of a transaction (pending offsets, the
 * marker) is in group-coordinator-api.ts.
 */
import type { ProducerIdentity, TopicPartition, TransactionDescription, TransactionState } from "../transactions/transaction-metadata.ts";

export type { ProducerIdentity, TopicPartition, TransactionDescription, TransactionState };

/** What the index of transactional ids keeps of each (written at every init). */
export interface TransactionListing {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  /** When the transactional id was last initialized, ms since the epoch. */
  initializedAt: number;
}

/** The name of the one index object, in the coordinators' namespace. */
export const transactionIndexName = "index";

/** A coordinator's name before its state was replicated (one object per id): read once by the first replicated leader. */
export function legacyTransactionCoordinatorName(transactionalId: string): string {
  return `txn:${transactionalId}`;
}

/**
 * How a transactional id's coordinator replicas are reached (docs/transactions.md, "Replication
 * across regions"): one replica per replica region of one partition of an internal topic,
 * `_transaction_state` (Kafka keeps its coordinators' state in `__transaction_state`; one
 * underscore, as the registry's `_schemas`, because `__` names are the gateway's own), chosen by
 * the id's hash. The controller's elections of that partition decide which region's replica
 * leads, at its leader epoch; the topic holds no records of its own, it anchors the placement.
 */
export { transactionStateTopic } from "../topics/topic-names.ts";

/** What every call to a coordinator replica carries: its anchor partition's placement, as the caller knows it. */
export interface TransactionKey {
  /** The anchor topic (`_transaction_state`, or a test's own). */
  topic: string;
  topicId: string;
  partition: number;
  /** The region of the replica called: the leader's, as the caller knows it. */
  region: string;
  replicas: string[];
  isr: string[];
  leaderEpoch: number;
}

/** Where a replica sits, as it remembers it (a follower's alarm finds its leader from it). */
export interface TransactionAnchor {
  topic: string;
  topicId: string;
  partition: number;
  region: string;
}

/** A replica's name: by the anchor topic's id (a topic made again anchors new replicas) and its region. */
export function transactionReplicaName(transactionalId: string, topicId: string, region: string): string {
  return `txn/${topicId}/${region}/${transactionalId}`;
}
