import { describe, expect, it } from "vitest";
import { QuotaBuckets } from "../../../src/quota/quota-buckets.ts";
import { hasQuotas, rateOf } from "../../../src/quota/quota-kinds.ts";

describe("QuotaBuckets", () => {
  it("throttles only the kinds whose bucket is in debt", () => {
    const buckets = new QuotaBuckets();
    const quotas = { produceBytesPerSecond: 1_000, fetchBytesPerSecond: 1_000, requestsPerSecond: 10 };
    expect(buckets.charge(quotas, { produceBytes: 3_000, fetchBytes: 500, requests: 1 }, 0)).toEqual({
      produceBytes: 2_000,
      fetchBytes: 0,
      requests: 0,
    });
    expect(buckets.charge(quotas, {}, 1_500)).toEqual({ produceBytes: 500, fetchBytes: 0, requests: 0 });
  });

  it("never throttles a kind the quotas leave unlimited", () => {
    const buckets = new QuotaBuckets();
    expect(buckets.charge({ requestsPerSecond: 1 }, { produceBytes: 1e9, fetchBytes: 1e9, requests: 1 }, 0)).toEqual({
      produceBytes: 0,
      fetchBytes: 0,
      requests: 0,
    });
  });

  it("forgets a kind's debt when its quota is removed, and starts it full when it comes back", () => {
    const buckets = new QuotaBuckets();
    expect(buckets.charge({ requestsPerSecond: 1 }, { requests: 5 }, 0).requests).toBe(4_000);
    expect(buckets.charge({}, { requests: 5 }, 0).requests).toBe(0);
    expect(buckets.charge({ requestsPerSecond: 1 }, { requests: 1 }, 0).requests).toBe(0);
  });

  it("counts usage in whole units and ignores nonsense", () => {
    const buckets = new QuotaBuckets();
    expect(buckets.charge({ requestsPerSecond: 2 }, { requests: -5, fetchBytes: Number.NaN }, 0).requests).toBe(0);
    expect(buckets.charge({ requestsPerSecond: 2 }, { requests: 2.5 }, 0).requests).toBe(500);
  });
});

describe("quota rates", () => {
  it("reads a rate as a whole number from 1 up, or unlimited", () => {
    expect(rateOf({}, "requests")).toBeUndefined();
    expect(rateOf({ requestsPerSecond: 0 }, "requests")).toBe(1);
    expect(rateOf({ fetchBytesPerSecond: 10.7 }, "fetchBytes")).toBe(10);
    expect(rateOf({ produceBytesPerSecond: Number.POSITIVE_INFINITY }, "produceBytes")).toBeUndefined();
    expect(hasQuotas({})).toBe(false);
    expect(hasQuotas({ fetchBytesPerSecond: 5 })).toBe(true);
  });
});
