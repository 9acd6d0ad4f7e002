import type { Settled } from "../log/group-commit.ts";
import type { ReadResult } from "../log/partition-log.ts";
import { partitionDataPoint } from "../metrics/analytics-points.ts";
import { PartitionTraffic, recordsFrom, type TrafficSnapshot } from "../metrics/partition-traffic.ts";
import { appendBytes } from "./leader-appends.ts";
import type { ReplicaNode } from "../replication/replica-node.ts";
import type { AppendAnswer, AppendRequest, PartitionMetrics } from "../contracts/replica-api.ts";

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

/**
 * A replica's traffic, as its object counts it: the counters (PartitionTraffic) with their
 * lazy writes, and with a METRICS Analytics Engine binding a data point per append group and
 * per fetch (docs/metrics.md). Every method is synchronous: its write, when due, commits with
 * the call's own.
 */
export class ReplicaTraffic {
  readonly counters: PartitionTraffic;
  readonly #sql: SqlStorage;
  readonly #dataset: AnalyticsEngineDataset | undefined;
  readonly #address: { topicId: string; partition: number; region: string };

  constructor(sql: SqlStorage, dataset: AnalyticsEngineDataset | undefined, address: { topicId: string; partition: number; region: string }, logEndOffset: number) {
    this.#sql = sql;
    this.#dataset = dataset;
    this.#address = { topicId: address.topicId, partition: address.partition, region: address.region };
    this.counters = openPartitionTraffic(sql, logEndOffset, Date.now());
  }

  /** A group of appends as the leader (one data point for the group: the platform bounds points per invocation). */
  appendedAsLeader(requests: readonly AppendRequest[], outcomes: readonly Settled<AppendAnswer>[], logEndOffset: number): void {
    let records = 0;
    let bytes = 0;
    outcomes.forEach((outcome, index) => {
      if (!outcome.ok || outcome.value.duplicate) return;
      records += outcome.value.lastOffset - outcome.value.baseOffset + 1;
      bytes += appendBytes(requests[index]!);
    });
    if (records === 0) return;
    this.#appended(records, bytes, logEndOffset);
    this.#write("append", records, bytes);
  }

  /** A leader's push this follower took (counted, so a new leader's counters continue the log's). */
  replicated(logEndBefore: number, logEndOffset: number, batches: readonly Uint8Array[]): void {
    if (logEndOffset <= logEndBefore) return;
    this.#appended(logEndOffset - logEndBefore, batches.reduce((sum, batch) => sum + batch.byteLength, 0), logEndOffset);
  }

  /** A fetch served: the records it carries from the offset asked for on. */
  fetched(offset: number, result: ReadResult): void {
    const nowMs = Date.now();
    const records = recordsFrom(offset, result.batches);
    this.counters.fetched(records, nowMs);
    persistTrafficIfDue(this.#sql, this.counters, nowMs);
    this.#write("fetch", records, result.batches.reduce((sum, batch) => sum + batch.byteLength, 0));
  }

  persistIfDue(): void {
    persistTrafficIfDue(this.#sql, this.counters, Date.now());
  }

  /**
   * The replica's numbers for GET /v1/metrics. Counters show what is written, so what changed
   * is written first: a restart then never shows less than a scrape saw.
   */
  metrics(node: ReplicaNode, tierTotals: { segments: number; bytes: number }, subscribers: number): PartitionMetrics {
    this.persistChanges();
    const log = node.log;
    const storage = log.storage();
    return {
      logStartOffset: log.logStartOffset,
      highWatermark: log.highWatermark,
      logEndOffset: log.logEndOffset,
      role: node.role.kind,
      storage: { sqliteBatches: storage.batches, sqliteBytes: storage.bytes, r2Segments: tierTotals.segments, r2Bytes: tierTotals.bytes },
      recordsAppended: this.counters.recordsAppended(log.logEndOffset),
      bytesAppended: this.counters.bytesAppended,
      fetches: this.counters.fetches,
      recordsFetched: this.counters.recordsFetched,
      subscribers,
      history: this.counters.history(Date.now()),
    };
  }

  /** Writes the counters now if anything changed since the last write (a scrape: what it shows is then written). */
  persistChanges(): void {
    const nowMs = Date.now();
    const changed = this.counters.changes();
    if (!changed) return;
    writePartitionTraffic(this.#sql, changed);
    this.counters.persisted(nowMs);
  }

  #appended(records: number, bytes: number, logEndOffset: number): void {
    const nowMs = Date.now();
    this.counters.appended(records, bytes, logEndOffset, nowMs);
    persistTrafficIfDue(this.#sql, this.counters, nowMs);
  }

  /** With a METRICS binding only; unbound, nothing. */
  #write(kind: "append" | "fetch", records: number, bytes: number): void {
    this.#dataset?.writeDataPoint(partitionDataPoint({ kind, ...this.#address, records, bytes }));
  }
}
