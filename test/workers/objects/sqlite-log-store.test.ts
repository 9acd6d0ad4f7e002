import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import { SqliteLogStore } from "../../../src/objects/sqlite-log-store.ts";
import { logStoreCases } from "../../shared/log-store.cases.ts";

describe("SqliteLogStore conformance", () => {
  for (const [name, run] of Object.entries(logStoreCases)) {
    it(name, async () => {
      // A fresh partition object per case: its constructor applies the schema.
      const stub = env.PARTITIONS.get(env.PARTITIONS.newUniqueId());
      await runInDurableObject(stub, (_instance, state) => run(new SqliteLogStore(state.storage.sql)));
    });
  }
});
