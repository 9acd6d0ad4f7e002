import type { AbortedTransaction, TransactionEntry, TransactionStore } from "../log/transaction-state.ts";

/**
 * A partition's transaction state (src/log/transaction-state.ts) in its SQLite: one row per
 * producer id with transactional activity (its highest epoch, open transaction, last marker),
 * and the aborted-transactions index keyed by the ABORT marker's offset. Written by the log in
 * the same synchronous turn as the batches they describe, so both commit together; a
 * partition object that restarts reads them back. Rows of `aborted_transactions` stay when
 * batches are sealed into R2 (reads of sealed segments need them) and go with retention.
 */
export const transactionStateMigration = `CREATE TABLE transactions (
     producer_id INTEGER PRIMARY KEY,
     producer_epoch INTEGER NOT NULL,
     open_first_offset INTEGER,
     marker_epoch INTEGER,
     marker_commit INTEGER,
     marker_offset INTEGER,
     closed_first_offset INTEGER
   );
   CREATE TABLE aborted_transactions (
     last_offset INTEGER PRIMARY KEY,
     producer_id INTEGER NOT NULL,
     first_offset INTEGER NOT NULL
   );`;

/** The last marker's coordinator epoch (DescribeProducers); null in rows written before it was kept. */
export const transactionMarkerEpochMigration = "ALTER TABLE transactions ADD COLUMN marker_coordinator_epoch INTEGER";

interface EntryRow extends Record<string, SqlStorageValue> {
  producer_id: number;
  producer_epoch: number;
  open_first_offset: number | null;
  marker_epoch: number | null;
  marker_commit: number | null;
  marker_offset: number | null;
  closed_first_offset: number | null;
  marker_coordinator_epoch: number | null;
}

function toEntry(row: EntryRow): TransactionEntry {
  const entry: TransactionEntry = { producerId: row.producer_id, producerEpoch: row.producer_epoch };
  if (row.open_first_offset !== null) entry.openFirstOffset = row.open_first_offset;
  if (row.marker_epoch !== null && row.marker_offset !== null) {
    entry.lastMarker = { producerEpoch: row.marker_epoch, result: row.marker_commit ? "commit" : "abort", offset: row.marker_offset };
    if (row.closed_first_offset !== null) entry.lastMarker.closedFirstOffset = row.closed_first_offset;
    if (row.marker_coordinator_epoch !== null) entry.lastMarker.coordinatorEpoch = row.marker_coordinator_epoch;
  }
  return entry;
}

interface AbortedRow extends Record<string, SqlStorageValue> {
  producer_id: number;
  first_offset: number;
  last_offset: number;
}

export class SqliteTransactionStore implements TransactionStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  readEntries(): TransactionEntry[] {
    return this.#sql.exec<EntryRow>("SELECT * FROM transactions").toArray().map(toEntry);
  }

  writeEntry(entry: TransactionEntry): void {
    const marker = entry.lastMarker;
    this.#sql.exec(
      `INSERT OR REPLACE INTO transactions (producer_id, producer_epoch, open_first_offset, marker_epoch, marker_commit, marker_offset, closed_first_offset, marker_coordinator_epoch)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      entry.producerId,
      entry.producerEpoch,
      entry.openFirstOffset ?? null,
      marker?.producerEpoch ?? null,
      marker ? (marker.result === "commit" ? 1 : 0) : null,
      marker?.offset ?? null,
      marker?.closedFirstOffset ?? null,
      marker?.coordinatorEpoch ?? null,
    );
  }

  deleteEntry(producerId: number): void {
    this.#sql.exec("DELETE FROM transactions WHERE producer_id = ?", producerId);
  }

  addAborted(aborted: AbortedTransaction): void {
    this.#sql.exec("INSERT OR REPLACE INTO aborted_transactions (last_offset, producer_id, first_offset) VALUES (?, ?, ?)", aborted.lastOffset, aborted.producerId, aborted.firstOffset);
  }

  abortedBetween(from: number, to: number): AbortedTransaction[] {
    return this.#sql
      .exec<AbortedRow>("SELECT producer_id, first_offset, last_offset FROM aborted_transactions WHERE last_offset >= ? AND first_offset < ? ORDER BY first_offset", from, to)
      .toArray()
      .map((row) => ({ producerId: row.producer_id, firstOffset: row.first_offset, lastOffset: row.last_offset }));
  }

  hasAborted(): boolean {
    return this.#sql.exec("SELECT 1 FROM aborted_transactions LIMIT 1").toArray().length > 0;
  }

  deleteAbortedFrom(offset: number): void {
    this.#sql.exec("DELETE FROM aborted_transactions WHERE last_offset >= ?", offset);
  }

  deleteAbortedBefore(offset: number): void {
    this.#sql.exec("DELETE FROM aborted_transactions WHERE last_offset < ?", offset);
  }

  /** Topic deletion: the state goes with the data. */
  deleteAll(): void {
    this.#sql.exec("DELETE FROM transactions");
    this.#sql.exec("DELETE FROM aborted_transactions");
  }
}
