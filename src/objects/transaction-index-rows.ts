import { transactionsListedMax } from "../limits.ts";
import type { TransactionListing } from "../contracts/transaction-coordinator-api.ts";
import type { TransactionMetadata } from "../transactions/transaction-metadata.ts";

/**
 * The index of transactional ids (the TransactionCoordinator class under transactionIndexName):
 * one row per id in `transaction_index` (transaction-replica-rows.ts' migration 1), written by
 * each coordinator at every init (and by a new leader at its takeover, `onlyIfAbsent`: an init
 * the old leader never listed), listed by `GET /v1/transactions`.
 */
export function indexListing(sql: SqlStorage, listing: TransactionListing, onlyIfAbsent = false): void {
  sql.exec(
    `INSERT INTO transaction_index (transactional_id, listing) VALUES (?, ?) ON CONFLICT (transactional_id) ${onlyIfAbsent ? "DO NOTHING" : "DO UPDATE SET listing = excluded.listing"}`,
    listing.transactionalId,
    JSON.stringify(listing),
  );
}

/** The listings in id order, at most transactionsListedMax; `truncated` when there are more. */
export function listedTransactions(sql: SqlStorage): { transactions: TransactionListing[]; truncated: boolean } {
  const rows = sql.exec<{ listing: string }>("SELECT listing FROM transaction_index ORDER BY transactional_id LIMIT ?", transactionsListedMax + 1).toArray();
  return { transactions: rows.slice(0, transactionsListedMax).map((row) => JSON.parse(row.listing) as TransactionListing), truncated: rows.length > transactionsListedMax };
}

/** An id's listing as of its metadata (written at its init, so `updatedAt` is the init's time). */
export function listingOf(metadata: TransactionMetadata): TransactionListing {
  return {
    transactionalId: metadata.transactionalId,
    producerId: metadata.producerId,
    producerEpoch: metadata.producerEpoch,
    transactionTimeoutMs: metadata.timeoutMs,
    initializedAt: metadata.updatedAt,
  };
}
