/**
 * An object's SQLite with a count of the rows its statements write — what Cloudflare bills
 * ("rows written", read from each cursor's `rowsWritten` as the statement runs). The count
 * costs one property read per statement; objects report it in their debug statistics
 * (TRIBUTARY_FAULTS=1), and the benchmark prints it per 1,000 records.
 */
export class CountedSql {
  /** The SqlStorage to hand to stores: `exec` counts, the rest is the object's own. */
  readonly storage: SqlStorage;
  #rowsWritten = 0;

  constructor(sql: SqlStorage) {
    this.storage = this.#counting(sql);
  }

  get rowsWritten(): number {
    return this.#rowsWritten;
  }

  #counting(sql: SqlStorage): SqlStorage {
    const exec = <T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T> => {
      const cursor = sql.exec<T>(query, ...bindings);
      this.#rowsWritten += cursor.rowsWritten;
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
