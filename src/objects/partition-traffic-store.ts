import { PartitionTraffic, type TrafficSnapshot } from "../metrics/partition-traffic.ts";

/**
 * A partition replica's traffic counters (src/metrics/partition-traffic.ts) in its SQLite:
 * one row, written when the counters are created and then at most once per
 * metricsPersistIntervalMs, in the same synchronous turn as the call that finds it due (an
 * append's batch rows, a read), so it is never a request or a transaction of its own.
 */
export const partitionTrafficMigration = `CREATE TABLE partition_traffic (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  records_base INTEGER NOT NULL,
  log_end_seen INTEGER NOT NULL,
  bytes_appended INTEGER NOT NULL,
  fetches INTEGER NOT NULL,
  records_fetched INTEGER NOT NULL,
  history TEXT NOT NULL
)`;

/** The stored counters, or new ones starting at `logEndOffset` (written at once: the base must survive a restart). */
export function openPartitionTraffic(sql: SqlStorage, logEndOffset: number, nowMs: number): PartitionTraffic {
  const row = sql
    .exec<{ records_base: number; log_end_seen: number; bytes_appended: number; fetches: number; records_fetched: number; history: string }>(
      "SELECT records_base, log_end_seen, bytes_appended, fetches, records_fetched, history FROM partition_traffic WHERE id = 1",
    )
    .toArray()[0];
  if (row) {
    const snapshot: TrafficSnapshot = {
      recordsBase: row.records_base,
      logEndSeen: row.log_end_seen,
      bytesAppended: row.bytes_appended,
      fetches: row.fetches,
      recordsFetched: row.records_fetched,
      history: JSON.parse(row.history) as TrafficSnapshot["history"],
    };
    return new PartitionTraffic(snapshot, nowMs);
  }
  const fresh = PartitionTraffic.fresh(logEndOffset);
  writePartitionTraffic(sql, fresh);
  return new PartitionTraffic(fresh, nowMs);
}

export function writePartitionTraffic(sql: SqlStorage, snapshot: TrafficSnapshot): void {
  sql.exec(
    `INSERT INTO partition_traffic (id, records_base, log_end_seen, bytes_appended, fetches, records_fetched, history) VALUES (1, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET records_base = excluded.records_base, log_end_seen = excluded.log_end_seen,
       bytes_appended = excluded.bytes_appended, fetches = excluded.fetches, records_fetched = excluded.records_fetched, history = excluded.history`,
    snapshot.recordsBase,
    snapshot.logEndSeen,
    snapshot.bytesAppended,
    snapshot.fetches,
    snapshot.recordsFetched,
    JSON.stringify(snapshot.history),
  );
}

/** Writes the counters when due (changed, and the last write is old enough). */
export function persistTrafficIfDue(sql: SqlStorage, traffic: PartitionTraffic, nowMs: number): void {
  const due = traffic.due(nowMs);
  if (!due) return;
  writePartitionTraffic(sql, due);
  traffic.persisted(nowMs);
}

/** Deletes the counters (topic deletion): a tombstone keeps no traffic. */
export function deletePartitionTraffic(sql: SqlStorage): void {
  sql.exec("DELETE FROM partition_traffic");
}
