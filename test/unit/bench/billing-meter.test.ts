/**
 * src/contracts/billing-meter.ts, the counts behind the benchmark's bill: calls on stubs (each a
 * billed request) and the time each object has one in flight (the duration model: overlapping
 * calls to one object count once, two objects twice), R2 operations by class, and nothing at
 * all unless both debug variables are set. The meter is per isolate: each test reads deltas.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { billingSnapshot, meteredBucket, meteredStub } from "../../../src/contracts/billing-meter.ts";

const on = { TRIBUTARY_FAULTS: "1", TRIBUTARY_DEBUG_STATS: "1" } as Env;
const off = { TRIBUTARY_FAULTS: "1", TRIBUTARY_DEBUG_STATS: "" } as Env;

/** A stub-like object: an id, and a method answering when the test says so. */
function fakeStub(name: string) {
  const pending: (() => void)[] = [];
  const stub = {
    id: { toString: () => name },
    wait: () => new Promise<string>((resolve) => pending.push(() => resolve("done"))),
    label: "not a call",
  };
  return { stub: stub as typeof stub & { id: DurableObjectId }, answerAll: () => pending.splice(0).forEach((answer) => answer()) };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(1_000_000);
});
afterEach(() => vi.useRealTimers());

describe("the billing meter", () => {
  it("counts each call on a stub as a request, and no property read", async () => {
    const before = billingSnapshot();
    const { stub, answerAll } = fakeStub("a");
    const metered = meteredStub(on, stub);
    expect(metered.label).toBe("not a call");
    expect(metered.id.toString()).toBe("a");
    expect((metered as { then?: unknown }).then).toBeUndefined();
    const calls = [metered.wait(), metered.wait()];
    answerAll();
    await expect(Promise.all(calls)).resolves.toEqual(["done", "done"]);
    expect(billingSnapshot().objectRequests - before.objectRequests).toBe(2);
  });

  it("counts an object active while it has a call in flight: overlapping calls once, two objects twice", async () => {
    const before = billingSnapshot();
    const a = fakeStub("overlap-a");
    const b = fakeStub("overlap-b");
    const first = meteredStub(on, a.stub).wait();
    vi.setSystemTime(1_000_000 + 1_000);
    const second = meteredStub(on, a.stub).wait(); // a second call to a: no more time
    const other = meteredStub(on, b.stub).wait();
    vi.setSystemTime(1_000_000 + 3_000);
    expect(billingSnapshot().objectsActiveNow - before.objectsActiveNow).toBe(2);
    a.answerAll();
    b.answerAll();
    await Promise.all([first, second, other]);
    await Promise.resolve(); // the meter hears of the ends
    // a: 3 s (from its first call to the last one's end); b: 2 s.
    expect(billingSnapshot().objectActiveMs - before.objectActiveMs).toBe(5_000);
    vi.setSystemTime(1_000_000 + 9_000);
    expect(billingSnapshot().objectActiveMs - before.objectActiveMs).toBe(5_000); // idle time is not counted
  });

  it("counts R2 operations by class: put and list A, get and head B, deletes apart", async () => {
    const before = billingSnapshot();
    const calls: string[] = [];
    const bucket = {
      put: async () => calls.push("put"),
      list: async () => calls.push("list"),
      get: async () => calls.push("get"),
      head: async () => calls.push("head"),
      delete: async () => calls.push("delete"),
    } as unknown as R2Bucket;
    const metered = meteredBucket(on, bucket);
    await metered.put("k", "v");
    await metered.list();
    await metered.get("k");
    await metered.head("k");
    await metered.head("k");
    await metered.delete("k");
    const after = billingSnapshot();
    expect(calls).toEqual(["put", "list", "get", "head", "head", "delete"]);
    expect([after.r2ClassA - before.r2ClassA, after.r2ClassB - before.r2ClassB, after.r2Deletes - before.r2Deletes]).toEqual([2, 3, 1]);
  });

  it("changes nothing unless TRIBUTARY_FAULTS and TRIBUTARY_DEBUG_STATS are both 1", async () => {
    const { stub, answerAll } = fakeStub("off");
    const bucket = { put: async () => undefined } as unknown as R2Bucket;
    expect(meteredStub(off, stub)).toBe(stub);
    expect(meteredBucket(off, bucket)).toBe(bucket);
    answerAll();
  });
});
