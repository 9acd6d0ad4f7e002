import { describe, it } from "vitest";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { TailCachedStore } from "../../../src/log/tail-cache.ts";
import { logStoreCases } from "../../shared/log-store.cases.ts";

describe("MemoryLogStore conformance", () => {
  for (const [name, run] of Object.entries(logStoreCases)) {
    it(name, () => run(new MemoryLogStore()));
  }
});

describe("TailCachedStore conformance (over the memory store)", () => {
  for (const [name, run] of Object.entries(logStoreCases)) {
    // A small cache, so cases cross its bound: served from memory and from the store.
    it(name, () => run(new TailCachedStore(new MemoryLogStore(), 200)));
  }
});
