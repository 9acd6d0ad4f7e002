import { StateReplica, noEpoch, type StateSnapshot } from "../replication/state-replication.ts";
import type { TransactionAnchor } from "../contracts/transaction-coordinator-api.ts";
import type { TransactionMetadata } from "../transactions/transaction-metadata.ts";

/**
 * A transaction coordinator replica's rows (src/objects/transaction-coordinator.ts): the
 * transactional id's metadata with its stamp in `transaction_state` (one row, one statement per
 * write, so a stamp never names metadata the replica does not hold); the seen and leading
 * epochs and where the replica sits in `transaction_replication`, written when they change.
 * The object of an id from before replication has metadata and no replication row (`anchor`
 * null): it finishes what it had open, until the first replicated leader takes it over.
 */
export const transactionMigrations = [
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
  // Replication across regions: the metadata's stamp; the epochs; the replica's anchor; and,
  // on an object from before replication, that a replicated leader took its metadata over.
  `ALTER TABLE transaction_state ADD COLUMN stamp_epoch INTEGER;
   ALTER TABLE transaction_state ADD COLUMN stamp_version INTEGER;
   ALTER TABLE transaction_state ADD COLUMN handed_over INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE transaction_replication (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     seen_epoch INTEGER NOT NULL,
     leading_epoch INTEGER NOT NULL,
     anchor TEXT NOT NULL
   );`,
];

export type TransactionSnapshot = StateSnapshot<TransactionMetadata>;

/** What the rows hold when the object starts. */
export interface TransactionRows {
  replica: StateReplica<TransactionMetadata>;
  /** The metadata, stamped or (an object from before replication) not. */
  metadata: TransactionMetadata | null;
  anchor: TransactionAnchor | null;
  indexSynced: boolean;
  handedOver: boolean;
}

type StateRow = { metadata: string; index_synced: number; stamp_epoch: number | null; stamp_version: number | null; handed_over: number };

export function loadTransactionRows(sql: SqlStorage): TransactionRows {
  const row = sql.exec<StateRow>("SELECT metadata, index_synced, stamp_epoch, stamp_version, handed_over FROM transaction_state WHERE id = 1").toArray()[0];
  const epochs = sql.exec<{ seen_epoch: number; leading_epoch: number; anchor: string }>("SELECT seen_epoch, leading_epoch, anchor FROM transaction_replication WHERE id = 1").toArray()[0];
  const metadata = row === undefined ? null : (JSON.parse(row.metadata) as TransactionMetadata);
  const current = metadata !== null && row!.stamp_epoch !== null && row!.stamp_version !== null ? { epoch: row!.stamp_epoch, version: row!.stamp_version, payload: metadata } : null;
  return {
    replica: new StateReplica(epochs?.seen_epoch ?? noEpoch, epochs?.leading_epoch ?? noEpoch, current),
    metadata,
    anchor: epochs === undefined ? null : (JSON.parse(epochs.anchor) as TransactionAnchor),
    indexSynced: row === undefined || row.index_synced === 1,
    handedOver: row?.handed_over === 1,
  };
}

/** The metadata, with its stamp when replicated (null: an object from before replication). One statement. */
export function saveTransactionState(sql: SqlStorage, metadata: TransactionMetadata, stamp: { epoch: number; version: number } | null, indexSynced: boolean): void {
  sql.exec(
    `INSERT INTO transaction_state (id, metadata, index_synced, stamp_epoch, stamp_version) VALUES (1, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET metadata = excluded.metadata, index_synced = excluded.index_synced,
       stamp_epoch = excluded.stamp_epoch, stamp_version = excluded.stamp_version`,
    JSON.stringify(metadata),
    indexSynced ? 1 : 0,
    stamp?.epoch ?? null,
    stamp?.version ?? null,
  );
}

export function saveIndexSynced(sql: SqlStorage, indexSynced: boolean): void {
  sql.exec("UPDATE transaction_state SET index_synced = ? WHERE id = 1", indexSynced ? 1 : 0);
}

export function saveHandedOver(sql: SqlStorage): void {
  sql.exec("UPDATE transaction_state SET handed_over = 1 WHERE id = 1");
}

export function saveTransactionEpochs(sql: SqlStorage, replica: StateReplica<TransactionMetadata>, anchor: TransactionAnchor): void {
  sql.exec(
    `INSERT INTO transaction_replication (id, seen_epoch, leading_epoch, anchor) VALUES (1, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET seen_epoch = excluded.seen_epoch, leading_epoch = excluded.leading_epoch, anchor = excluded.anchor`,
    replica.seenEpoch,
    replica.leadingEpoch,
    JSON.stringify(anchor),
  );
}

/** Where the replica of `region` sits, from a key naming the leader's region. */
export function anchorAt(key: { topic: string; topicId: string; partition: number }, region: string): TransactionAnchor {
  return { topic: key.topic, topicId: key.topicId, partition: key.partition, region };
}
