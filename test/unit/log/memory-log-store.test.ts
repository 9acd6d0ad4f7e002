import { describe, it } from "vitest";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { logStoreCases } from "../../shared/log-store.cases.ts";

describe("MemoryLogStore conformance", () => {
  for (const [name, run] of Object.entries(logStoreCases)) {
    it(name, () => run(new MemoryLogStore()));
  }
});
