import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Waiters } from "../../../src/log/waiters.ts";

describe("Waiters", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("wakes every waiter at once", async () => {
    const waiters = new Waiters(10);
    const woken: number[] = [];
    const pending = [1, 2, 3].map((id) => waiters.wait(10_000).then(() => woken.push(id)));
    expect(waiters.size).toBe(3);
    waiters.wakeAll();
    await Promise.all(pending);
    expect(woken).toEqual([1, 2, 3]);
    expect(waiters.size).toBe(0);
  });

  it("resolves after the timeout when nothing wakes it", async () => {
    const waiters = new Waiters(10);
    let done = false;
    const pending = waiters.wait(500).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);
    expect(waiters.size).toBe(0);
  });

  it("lets the oldest waiter go when full, so the bound holds", async () => {
    const waiters = new Waiters(2);
    const released: string[] = [];
    const first = waiters.wait(10_000).then(() => released.push("first"));
    void waiters.wait(10_000).then(() => released.push("second"));
    void waiters.wait(10_000).then(() => released.push("third"));
    await first;
    expect(released).toEqual(["first"]);
    expect(waiters.size).toBe(2);
  });
});
