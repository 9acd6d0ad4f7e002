/**
 * src/objects/counted-sql.ts: an object's SQLite rows are counted (its debug statistics, the
 * billing meter) only under TRIBUTARY_FAULTS=1; in production the object's own SqlStorage is
 * handed to the stores untouched, so no statement pays for a count nobody reads.
 */
import { describe, expect, it } from "vitest";
import { billingSnapshot } from "../../../src/contracts/billing-meter.ts";
import { CountedSql, rowCountingEnabled } from "../../../src/objects/counted-sql.ts";

/** A SqlStorage whose every statement reports 3 rows written and 2 read. */
function fakeSql(): SqlStorage {
  const cursor = { rowsWritten: 3, rowsRead: 2 } as unknown as SqlStorageCursor<Record<string, SqlStorageValue>>;
  return { exec: () => cursor, databaseSize: 4096, Cursor: Object, Statement: Object } as unknown as SqlStorage;
}

describe("CountedSql", () => {
  it("counts rows only under TRIBUTARY_FAULTS=1", () => {
    expect(rowCountingEnabled({ TRIBUTARY_FAULTS: "1" })).toBe(true);
    expect(rowCountingEnabled({ TRIBUTARY_FAULTS: "" })).toBe(false);
    expect(rowCountingEnabled({})).toBe(false);
  });

  it("hands over the object's own SqlStorage, uncounted, when counting is off", () => {
    const sql = fakeSql();
    const metered = billingSnapshot().sqliteRowsWritten;
    const counted = new CountedSql(sql, false);
    expect(counted.storage).toBe(sql);
    counted.storage.exec("INSERT INTO t VALUES (1)");
    expect(counted.rowsWritten).toBe(0);
    expect(billingSnapshot().sqliteRowsWritten).toBe(metered);
  });

  it("counts rows written per statement, and rows read at the next one, when counting is on", () => {
    const counted = new CountedSql(fakeSql(), true);
    const before = billingSnapshot();
    counted.storage.exec("INSERT INTO t VALUES (1)");
    counted.storage.exec("INSERT INTO t VALUES (2)");
    expect(counted.rowsWritten).toBe(6);
    expect(counted.storage.databaseSize).toBe(4096);
    const after = billingSnapshot();
    expect(after.sqliteRowsWritten - before.sqliteRowsWritten).toBe(6);
    expect(after.sqliteRowsRead - before.sqliteRowsRead).toBe(2); // the first statement's, added at the second
  });
});
