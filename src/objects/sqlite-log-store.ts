import { emptyBounds, type BatchSize, type EpochStart, type LogBounds, type LogStore, type StoredBatch } from "../log/log-store.ts";
import type { ProducerEntry } from "../log/producer-state.ts";
import { logScanPageRowsFirst, logScanPageRowsMax } from "../limits.ts";

/**
 * The partition log in the object's SQLite database: one row per record batch, keyed by its
 * last offset (the rowid, so "batches ending at or after N" is a range scan), with the
 * header fields reads need beside the batch bytes.
 */
export const logStoreMigrations = [
  `CREATE TABLE batches (
     last_offset INTEGER PRIMARY KEY,
     base_offset INTEGER NOT NULL,
     leader_epoch INTEGER NOT NULL,
     max_timestamp INTEGER NOT NULL,
     record_count INTEGER NOT NULL,
     bytes BLOB NOT NULL
   );
   CREATE TABLE leader_epochs (
     epoch INTEGER PRIMARY KEY,
     start_offset INTEGER NOT NULL
   );
   CREATE TABLE log_bounds (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     log_start_offset INTEGER NOT NULL,
     log_end_offset INTEGER NOT NULL,
     high_watermark INTEGER NOT NULL
   );`,
];

/**
 * Idempotent producers' state (src/log/producer-state.ts): one row per producer, its runs as
 * JSON `[[firstSequence, lastSequence, baseOffset, lastOffset], …]` oldest first, with the
 * last run's last offset (a truncation finds the rows it changes) and the last activity
 * (expiry, and which producer to forget first). Written with the batches, in the same
 * synchronous turn. A migration of the partition object's schema, appended after the others.
 */
export const producerStateMigration = `CREATE TABLE producers (
     producer_id INTEGER PRIMARY KEY,
     producer_epoch INTEGER NOT NULL,
     runs TEXT NOT NULL,
     last_offset INTEGER NOT NULL,
     last_activity_ms INTEGER NOT NULL
   );
   CREATE INDEX producers_by_last_offset ON producers (last_offset);
   CREATE INDEX producers_by_activity ON producers (last_activity_ms);`;

/**
 * Drops the `producers` table's two indexes (issue 19, the bill): every idempotent append
 * rewrites its producer's row, and each index whose key changes counts as rows written too, so
 * they tripled the producer's share of Cloudflare's rows written. The statements that used them
 * (a truncation's `last_offset >=`, expiry's `last_activity_ms <=` and its oldest-first eviction)
 * run off the hot path — on truncation, and on a producer's first append to the partition — and
 * now scan the table, which holds at most producersPerPartitionMax rows (src/limits.ts).
 */
export const producerIndexesDropMigration = `DROP INDEX IF EXISTS producers_by_last_offset;
   DROP INDEX IF EXISTS producers_by_activity;`;

/**
 * The first sequence a partition took of each producer in its epoch (producer-state.ts, issue
 * 34): sequences before it are out of order, not duplicates. Rows written before hold NULL, read
 * as their oldest remembered run's first sequence: what the partition still knows it wrote.
 */
export const producerFirstSequenceMigration = "ALTER TABLE producers ADD COLUMN first_sequence INTEGER;";

/**
 * The log's bounds as of a batch, in its row: an append writes its batches and nothing else
 * (one row per batch, not one more for the bounds — Cloudflare bills rows written). The
 * `log_bounds` row is written by everything else (high watermark moves, retention, sealing,
 * truncation). On opening, the newest wins: the last batch's bounds when it ends past the
 * `log_bounds` row's log end, else that row. Rows written before this migration hold NULL and
 * leave the `log_bounds` row in charge, as it then always was.
 */
export const batchBoundsMigration = `ALTER TABLE batches ADD COLUMN log_start_offset INTEGER;
   ALTER TABLE batches ADD COLUMN high_watermark INTEGER;`;

interface ProducerRow extends Record<string, SqlStorageValue> {
  producer_id: number;
  producer_epoch: number;
  first_sequence: number | null;
  runs: string;
  last_activity_ms: number;
}

const producerColumns = "producer_id, producer_epoch, first_sequence, runs, last_activity_ms";

function toProducerEntry(row: ProducerRow): ProducerEntry {
  const runs = (JSON.parse(row.runs) as [number, number, number, number][]).map(([firstSequence, lastSequence, baseOffset, lastOffset]) => ({
    firstSequence,
    lastSequence,
    baseOffset,
    lastOffset,
  }));
  const firstSequence = row.first_sequence ?? runs[0]!.firstSequence;
  return { producerId: row.producer_id, producerEpoch: row.producer_epoch, firstSequence, runs, lastActivityMs: row.last_activity_ms };
}

interface BatchRow extends Record<string, SqlStorageValue> {
  last_offset: number;
  base_offset: number;
  leader_epoch: number;
  max_timestamp: number;
  record_count: number;
  bytes: ArrayBuffer;
}

const batchColumns = "last_offset, base_offset, leader_epoch, max_timestamp, record_count, bytes";

function toStoredBatch(row: BatchRow): StoredBatch {
  return {
    baseOffset: row.base_offset,
    lastOffset: row.last_offset,
    leaderEpoch: row.leader_epoch,
    maxTimestamp: row.max_timestamp,
    recordCount: row.record_count,
    bytes: new Uint8Array(row.bytes),
  };
}

export class SqliteLogStore implements LogStore {
  readonly #sql: SqlStorage;
  #latestEpoch: number;
  /** Inside writeGroup: the bounds to write once at its end. */
  #groupBounds: LogBounds | undefined;
  #inGroup = false;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#latestEpoch = sql.exec<{ epoch: number | null }>("SELECT max(epoch) AS epoch FROM leader_epochs").one().epoch ?? -1;
  }

  readBounds(): LogBounds {
    const row = this.#sql
      .exec<{ log_start_offset: number; log_end_offset: number; high_watermark: number }>(
        "SELECT log_start_offset, log_end_offset, high_watermark FROM log_bounds WHERE id = 1",
      )
      .toArray()[0];
    const stored = row ? { logStartOffset: row.log_start_offset, logEndOffset: row.log_end_offset, highWatermark: row.high_watermark } : { ...emptyBounds };
    const last = this.#sql
      .exec<{ last_offset: number; log_start_offset: number | null; high_watermark: number | null }>(
        "SELECT last_offset, log_start_offset, high_watermark FROM batches ORDER BY last_offset DESC LIMIT 1",
      )
      .toArray()[0];
    if (!last || last.log_start_offset === null || last.high_watermark === null || last.last_offset + 1 <= stored.logEndOffset) return stored;
    return { logStartOffset: last.log_start_offset, logEndOffset: last.last_offset + 1, highWatermark: last.high_watermark };
  }

  /**
   * Runs `write` — several appends, synchronously — and writes the log's bounds at most once,
   * at its end, and only when something after the last append moved them (an append carries
   * them in its batch's row): group commit (src/log/group-commit.ts) makes one transaction of
   * the appends that waited for the previous one. Synchronous, so everything commits together.
   */
  writeGroup<T>(write: () => T): T {
    this.#inGroup = true;
    try {
      return write();
    } finally {
      this.#inGroup = false;
      const bounds = this.#groupBounds;
      this.#groupBounds = undefined;
      if (bounds) this.writeBounds(bounds);
    }
  }

  /**
   * Atomic without a transaction call: synchronous writes with no `await` between them commit
   * together. The last batch's row carries the new bounds (batchBoundsMigration), so an
   * append writes one row per batch and no `log_bounds` row.
   */
  append(batches: readonly StoredBatch[], bounds: LogBounds): void {
    const last = batches.at(-1);
    const carried = last !== undefined && bounds.logEndOffset === last.lastOffset + 1;
    for (const batch of batches) {
      const withBounds = carried && batch === last;
      this.#sql.exec(
        `INSERT INTO batches (${batchColumns}, log_start_offset, high_watermark) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        batch.lastOffset,
        batch.baseOffset,
        batch.leaderEpoch,
        batch.maxTimestamp,
        batch.recordCount,
        batch.bytes,
        withBounds ? bounds.logStartOffset : null,
        withBounds ? bounds.highWatermark : null,
      );
      if (batch.leaderEpoch > this.#latestEpoch) {
        this.#sql.exec("INSERT INTO leader_epochs (epoch, start_offset) VALUES (?, ?)", batch.leaderEpoch, batch.baseOffset);
        this.#latestEpoch = batch.leaderEpoch;
      }
    }
    if (!carried) this.writeBounds(bounds);
    else if (this.#inGroup) this.#groupBounds = undefined; // the batch's row now holds the newest bounds
  }

  truncateFrom(offset: number, bounds: LogBounds): void {
    this.#sql.exec("DELETE FROM batches WHERE last_offset >= ?", offset);
    this.#sql.exec("DELETE FROM leader_epochs WHERE start_offset >= ?", offset);
    this.#latestEpoch = this.#sql.exec<{ epoch: number | null }>("SELECT max(epoch) AS epoch FROM leader_epochs").one().epoch ?? -1;
    this.writeBounds(bounds);
  }

  deleteBefore(offset: number, bounds: LogBounds): void {
    this.#sql.exec("DELETE FROM batches WHERE last_offset < ?", offset);
    this.writeBounds(bounds);
  }

  replaceEpochStarts(starts: readonly EpochStart[]): void {
    this.#sql.exec("DELETE FROM leader_epochs");
    for (const start of starts) {
      this.#sql.exec("INSERT INTO leader_epochs (epoch, start_offset) VALUES (?, ?)", start.epoch, start.startOffset);
    }
    this.#latestEpoch = starts.at(-1)?.epoch ?? -1;
  }

  firstBatchOffset(): number | undefined {
    return this.#sql.exec<{ base_offset: number }>("SELECT base_offset FROM batches ORDER BY last_offset LIMIT 1").toArray()[0]?.base_offset;
  }

  *batchesFrom(offset: number): Iterable<StoredBatch> {
    for (const row of this.#rowsFrom<BatchRow>(batchColumns, offset)) yield toStoredBatch(row);
  }

  *batchSizesFrom(offset: number): Iterable<BatchSize> {
    type SizeRow = { last_offset: number; base_offset: number; leader_epoch: number; max_timestamp: number; record_count: number; byte_length: number };
    const columns = "last_offset, base_offset, leader_epoch, max_timestamp, record_count, length(bytes) AS byte_length";
    for (const row of this.#rowsFrom<SizeRow>(columns, offset)) {
      yield {
        baseOffset: row.base_offset,
        lastOffset: row.last_offset,
        leaderEpoch: row.leader_epoch,
        maxTimestamp: row.max_timestamp,
        recordCount: row.record_count,
        byteLength: row.byte_length,
      };
    }
  }

  /**
   * The batch rows ending at or after `offset`, in offset order, read a page at a time
   * (`logScanPageRowsFirst`, doubling up to `logScanPageRowsMax`), each page to its end. Its
   * callers stop early (a read's limits, a seal's count), and a cursor they left unfinished
   * would keep SQLite's read transaction open until the runtime collected it: the write-ahead
   * log cannot start over meanwhile and grows by every write (under wrangler dev a partition's
   * .sqlite-wal reached 500 MB in 20 s of produce, and every write landed in fresh pages).
   */
  *#rowsFrom<Row extends { last_offset: number }>(columns: string, offset: number): Generator<Row> {
    let from = offset;
    for (let limit = logScanPageRowsFirst; ; limit = Math.min(limit * 2, logScanPageRowsMax)) {
      const rows = this.#sql
        .exec<Row>(`SELECT ${columns} FROM batches WHERE last_offset >= ? ORDER BY last_offset LIMIT ?`, from, limit)
        .toArray();
      yield* rows;
      if (rows.length < limit) return;
      from = rows.at(-1)!.last_offset + 1;
    }
  }

  maxTimestampBelow(offset: number): number | undefined {
    return this.#sql.exec<{ max: number | null }>("SELECT max(max_timestamp) AS max FROM batches WHERE base_offset < ?", offset).one().max ?? undefined;
  }

  firstBatchWithTimestampAtOrAfter(timestampMs: number): StoredBatch | undefined {
    const row = this.#sql
      .exec<BatchRow>(
        `SELECT ${batchColumns} FROM batches WHERE max_timestamp >= ? ORDER BY last_offset LIMIT 1`,
        timestampMs,
      )
      .toArray()[0];
    return row && toStoredBatch(row);
  }

  epochStarts(): EpochStart[] {
    return this.#sql
      .exec<{ epoch: number; start_offset: number }>("SELECT epoch, start_offset FROM leader_epochs ORDER BY epoch")
      .toArray()
      .map((row) => ({ epoch: row.epoch, startOffset: row.start_offset }));
  }

  size(): { batches: number; bytes: number } {
    const row = this.#sql
      .exec<{ batches: number; bytes: number | null }>("SELECT count(*) AS batches, sum(length(bytes)) AS bytes FROM batches")
      .one();
    return { batches: row.batches, bytes: row.bytes ?? 0 };
  }

  readProducer(producerId: number): ProducerEntry | undefined {
    const row = this.#sql.exec<ProducerRow>(`SELECT ${producerColumns} FROM producers WHERE producer_id = ?`, producerId).toArray()[0];
    return row && toProducerEntry(row);
  }

  writeProducers(entries: readonly ProducerEntry[]): void {
    for (const entry of entries) {
      const runs = entry.runs.map((run) => [run.firstSequence, run.lastSequence, run.baseOffset, run.lastOffset]);
      this.#sql.exec(
        `INSERT INTO producers (producer_id, producer_epoch, first_sequence, runs, last_offset, last_activity_ms) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (producer_id) DO UPDATE SET producer_epoch = excluded.producer_epoch, first_sequence = excluded.first_sequence,
           runs = excluded.runs, last_offset = excluded.last_offset, last_activity_ms = excluded.last_activity_ms`,
        entry.producerId,
        entry.producerEpoch,
        entry.firstSequence,
        JSON.stringify(runs),
        entry.runs.at(-1)!.lastOffset,
        entry.lastActivityMs,
      );
    }
  }

  deleteProducer(producerId: number): void {
    this.#sql.exec("DELETE FROM producers WHERE producer_id = ?", producerId);
  }

  readProducers(): ProducerEntry[] {
    return this.#sql.exec<ProducerRow>(`SELECT ${producerColumns} FROM producers ORDER BY producer_id`).toArray().map(toProducerEntry);
  }

  producersEndingAtOrAfter(offset: number): ProducerEntry[] {
    return this.#sql.exec<ProducerRow>(`SELECT ${producerColumns} FROM producers WHERE last_offset >= ?`, offset).toArray().map(toProducerEntry);
  }

  forgetProducers(idleSinceMs: number, keepAtMost: number): void {
    this.#sql.exec("DELETE FROM producers WHERE last_activity_ms <= ?", idleSinceMs);
    const excess = this.producerCount() - keepAtMost;
    if (excess <= 0) return;
    this.#sql.exec(
      "DELETE FROM producers WHERE producer_id IN (SELECT producer_id FROM producers ORDER BY last_activity_ms, producer_id LIMIT ?)",
      excess,
    );
  }

  producerCount(): number {
    return this.#sql.exec<{ count: number }>("SELECT count(*) AS count FROM producers").one().count;
  }

  /** Deletes every batch and every producer's state (topic deletion): the data is gone, not hidden. */
  deleteAll(): void {
    this.#sql.exec("DELETE FROM producers");
    this.#sql.exec("DELETE FROM batches");
    this.replaceEpochStarts([]);
    this.writeBounds({ ...emptyBounds });
  }

  writeBounds(bounds: LogBounds): void {
    if (this.#inGroup) {
      this.#groupBounds = { ...bounds };
      return;
    }
    this.#sql.exec(
      `INSERT INTO log_bounds (id, log_start_offset, log_end_offset, high_watermark) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET log_start_offset = excluded.log_start_offset,
         log_end_offset = excluded.log_end_offset, high_watermark = excluded.high_watermark`,
      bounds.logStartOffset,
      bounds.logEndOffset,
      bounds.highWatermark,
    );
  }
}
