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

/** The name of the one index object, in the coordinators' namespace; coordinators are named `txn:<id>`. */
export const transactionIndexName = "index";

export function transactionCoordinatorName(transactionalId: string): string {
  return `txn:${transactionalId}`;
}
