import { transactionsListedMax } from "../limits.ts";
import type { TransactionListing } from "../contracts/transaction-coordinator-api.ts";

/**
 * The index of transactional ids (the TransactionCoordinator class under transactionIndexName):
 * one row per id in `transaction_index` (transaction-replica-rows.ts' migration 1), written by
 * each coordinator at every init, listed by `GET /v1/transactions`.
 */
export function indexListing(sql: SqlStorage, listing: TransactionListing): void {
  sql.exec(
    "INSERT INTO transaction_index (transactional_id, listing) VALUES (?, ?) ON CONFLICT (transactional_id) DO UPDATE SET listing = excluded.listing",
    listing.transactionalId,
    JSON.stringify(listing),
  );
}

/** The listings in id order, at most transactionsListedMax; `truncated` when there are more. */
export function listedTransactions(sql: SqlStorage): { transactions: TransactionListing[]; truncated: boolean } {
  const rows = sql.exec<{ listing: string }>("SELECT listing FROM transaction_index ORDER BY transactional_id LIMIT ?", transactionsListedMax + 1).toArray();
  return { transactions: rows.slice(0, transactionsListedMax).map((row) => JSON.parse(row.listing) as TransactionListing), truncated: rows.length > transactionsListedMax };
}
