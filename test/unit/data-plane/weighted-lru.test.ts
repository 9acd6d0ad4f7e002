import { describe, expect, it } from "vitest";
import { WeightedLru } from "../../../src/data-plane/weighted-lru.ts";

describe("WeightedLru", () => {
  it("evicts the least recently used entries past its entry bound or its weight bound", () => {
    const lru = new WeightedLru<string>(3, 10);
    lru.set("a", "A", 2);
    lru.set("b", "B", 2);
    lru.set("c", "C", 2);
    expect(lru.get("a")).toBe("A"); // a is now the youngest
    lru.set("d", "D", 2); // four entries: b goes
    expect(lru.get("b")).toBeUndefined();
    expect(lru.size).toBe(3);
    lru.set("e", "E", 7); // weight 13 > 10: c, then a go
    expect([lru.get("c"), lru.get("a"), lru.get("d"), lru.get("e")]).toEqual([undefined, undefined, "D", "E"]);
    expect(lru.weight).toBe(9);
  });

  it("replaces an entry's weight, and keeps nothing heavier than the whole bound", () => {
    const lru = new WeightedLru<number>(10, 10);
    lru.set("a", 1, 4);
    lru.set("a", 2, 6);
    expect(lru.weight).toBe(6);
    lru.set("huge", 3, 11);
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.get("a")).toBe(2);
    lru.delete("a");
    expect([lru.size, lru.weight]).toEqual([0, 0]);
  });
});
