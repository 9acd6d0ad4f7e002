import { describe, expect, it } from "vitest";
import { RequestPacer } from "../../../src/client/request-pacer.ts";

describe("RequestPacer (a token bucket per partition, kept as the time it is full again)", () => {
  it("lets a burst of `rate` requests start at once, then one every 1000/rate ms", () => {
    const pacer = new RequestPacer(2);
    expect(pacer.waitMs("t\u00000", 0)).toBe(0);
    pacer.take("t\u00000", 0);
    expect(pacer.waitMs("t\u00000", 10)).toBe(0);
    pacer.take("t\u00000", 10);
    expect(pacer.waitMs("t\u00000", 20)).toBe(480); // the bucket's first token is back at 500
    pacer.take("t\u00000", 500);
    expect(pacer.waitMs("t\u00000", 500)).toBe(500);
  });

  it("refills while a partition is quiet, never above the burst", () => {
    const pacer = new RequestPacer(2);
    for (const at of [0, 1, 2]) pacer.take("p", at);
    expect(pacer.waitMs("p", 2)).toBeGreaterThan(0);
    expect(pacer.waitMs("p", 60_000)).toBe(0);
    pacer.take("p", 60_000);
    pacer.take("p", 60_000);
    expect(pacer.waitMs("p", 60_000)).toBe(500); // a long quiet spell gave back two tokens, not more
  });

  it("paces each partition on its own", () => {
    const pacer = new RequestPacer(1);
    pacer.take("a", 0);
    expect(pacer.waitMs("a", 0)).toBe(1000);
    expect(pacer.waitMs("b", 0)).toBe(0);
  });

  it("below one a second: no burst, one request every 1/rate seconds", () => {
    const pacer = new RequestPacer(1 / 60);
    pacer.take("p", 0);
    expect(pacer.waitMs("p", 1_000)).toBe(59_000);
  });

  it("forgets partitions whose buckets are full again once it holds many", () => {
    const pacer = new RequestPacer(2);
    for (let partition = 0; partition <= 1024; partition++) pacer.take(`t\u0000${partition}`, 0);
    pacer.take("late", 10_000); // every earlier bucket is full again by now: swept
    for (let partition = 0; partition <= 1024; partition++) expect(pacer.waitMs(`t\u0000${partition}`, 0)).toBe(0);
    expect(pacer.waitMs("late", 10_000)).toBe(0);
    pacer.take("late", 10_000);
    expect(pacer.waitMs("late", 10_000)).toBe(500);
  });
});
