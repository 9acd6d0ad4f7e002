import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SqliteLogStore } from "../../../src/objects/sqlite-log-store.ts";
import { logStoreCases, storedBatch } from "../../shared/log-store.cases.ts";

describe("SqliteLogStore conformance", () => {
  for (const [name, run] of Object.entries(logStoreCases)) {
    it(name, async () => {
      // A fresh partition object per case: its constructor applies the schema.
      const stub = env.PARTITIONS.get(env.PARTITIONS.newUniqueId());
      await runInDurableObject(stub, (_instance, state) => run(new SqliteLogStore(state.storage.sql)));
    });
  }
});

describe("SqliteLogStore scans", () => {
  it("leave no statement open when their reader stops early, so the write-ahead log can start over", async () => {
    const stub = env.PARTITIONS.get(env.PARTITIONS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const store = new SqliteLogStore(state.storage.sql);
      store.append(
        Array.from({ length: 40 }, (_, index) => storedBatch(index, 1, index)),
        { logStartOffset: 0, logEndOffset: 40, highWatermark: 40 },
      );
      // What a read under its limits, a seal taking its first batches and a log-start lookup do.
      for (const batch of store.batchesFrom(0)) if (batch.lastOffset >= 5) break;
      for (const size of store.batchSizesFrom(0)) if (size.lastOffset >= 5) break;
      for (const _ of store.batchesFrom(20)) break;
      // SQLite refuses to drop a table a statement is still reading ("database table is
      // locked"); such a statement also holds the read transaction that pins the WAL.
      expect(() => state.storage.sql.exec("DROP TABLE batches")).not.toThrow();
    });
  });
});

describe("SqliteLogStore producer rows", () => {
  it("reads a row written before the first-sequence column (NULL) with its oldest remembered run's first sequence", async () => {
    const stub = env.PARTITIONS.get(env.PARTITIONS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        "INSERT INTO producers (producer_id, producer_epoch, runs, last_offset, last_activity_ms) VALUES (?, ?, ?, ?, ?)",
        7,
        0,
        JSON.stringify([[10, 12, 3, 5], [13, 13, 8, 8]]),
        8,
        1_000,
      );
      const store = new SqliteLogStore(state.storage.sql);
      expect(store.readProducer(7)).toMatchObject({ producerEpoch: 0, firstSequence: 10 });
      store.writeProducers([{ ...store.readProducer(7)!, firstSequence: 4 }]);
      expect(store.readProducer(7)!.firstSequence).toBe(4);
    });
  });
});
