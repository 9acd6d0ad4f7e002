import { countBilled } from "../contracts/billing-meter.ts";
import { debugStatsEnabled } from "./replica-debug-stats.ts";

/**
 * Whether an object counts its SQLite rows: exactly when debug statistics are on
 * (TRIBUTARY_FAULTS=1), which show them (and, with TRIBUTARY_DEBUG_STATS=1 too, the billing
 * meter's bill reads them; the workers layer's rows-written budgets read both). Never in
 * production: counting is a wrapper around every statement an object runs.
 */
export const rowCountingEnabled = debugStatsEnabled;

/**
 * An object's SQLite with a count of the rows its statements write — what Cloudflare bills
 * ("rows written", read from each cursor's `rowsWritten` as the statement runs). The count
 * costs one property read per statement; objects report it in their debug statistics
 * (TRIBUTARY_FAULTS=1), and the benchmark prints it per 1,000 records. Rows written and rows
 * read also go to the isolate's billing meter (`src/contracts/billing-meter.ts`, the benchmark's
 * bill): a cursor's rows read are known once it has been iterated, so each is added when this
 * object runs its next statement (its last one's reads are left out until then).
 *
 * Counted only where someone reads the counts (`rowCountingEnabled`): in production `storage`
 * is the object's own SqlStorage, untouched, and `rowsWritten` stays 0.
 */
export class CountedSql {
  /** The SqlStorage to hand to stores: `exec` counts when counting is on; the rest is the object's own. */
  readonly storage: SqlStorage;
  #rowsWritten = 0;
  /** The last statement's cursor, whose rows read are added to the meter at the next one. */
  #unread: SqlStorageCursor<Record<string, SqlStorageValue>> | undefined;

  constructor(sql: SqlStorage, counting: boolean) {
    this.storage = counting ? this.#counting(sql) : sql;
  }

  get rowsWritten(): number {
    return this.#rowsWritten;
  }

  #counting(sql: SqlStorage): SqlStorage {
    const exec = <T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T> => {
      if (this.#unread) countBilled("sqliteRowsRead", rowsReadOf(this.#unread));
      const cursor = sql.exec<T>(query, ...bindings);
      this.#rowsWritten += cursor.rowsWritten;
      countBilled("sqliteRowsWritten", cursor.rowsWritten);
      this.#unread = cursor;
      return cursor;
    };
    return {
      exec,
      get databaseSize() {
        return sql.databaseSize;
      },
      Cursor: sql.Cursor,
      Statement: sql.Statement,
    } as SqlStorage;
  }
}

/** A finished cursor's rows read; 0 should the runtime refuse to tell (counting never fails a statement). */
function rowsReadOf(cursor: SqlStorageCursor<Record<string, SqlStorageValue>>): number {
  try {
    return cursor.rowsRead;
  } catch {
    return 0;
  }
}
