import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quotaRatePerSecondMax } from "../../../src/limits.ts";
import { charge, fullBucket, refill, throttleMs, type Bucket, type BucketRate } from "../../../src/quota/token-bucket.ts";

const rate: BucketRate = { ratePerSecond: 100, windowMs: 1_000 };

describe("token bucket", () => {
  it("starts full: a burst of rate × window is served without throttling", () => {
    const bucket = charge(fullBucket(rate, 0), rate, 100, 0);
    expect(throttleMs(bucket, rate, 0)).toBe(0);
  });

  it("serves one request larger than the burst, then throttles until its debt is repaid", () => {
    const start = fullBucket(rate, 0);
    expect(throttleMs(start, rate, 0)).toBe(0);
    const bucket = charge(start, rate, 350, 0); // 250 units of debt at 100/s
    expect(throttleMs(bucket, rate, 0)).toBe(2_500);
    expect(throttleMs(bucket, rate, 1_000)).toBe(1_500);
    expect(throttleMs(bucket, rate, 2_500)).toBe(0);
  });

  it("never holds more than the burst, however long it stays idle", () => {
    const bucket = refill(charge(fullBucket(rate, 0), rate, 50, 0), rate, 1_000_000_000);
    expect(bucket.milliTokens).toBe(100 * 1_000);
    const fast: BucketRate = { ratePerSecond: quotaRatePerSecondMax, windowMs: 1_000 };
    const idle = refill(charge(fullBucket(fast, 0), fast, 1, 0), fast, Number.MAX_SAFE_INTEGER);
    expect(idle.milliTokens).toBe(quotaRatePerSecondMax * 1_000);
  });

  it("refills nothing when the clock goes back", () => {
    const bucket = charge(fullBucket(rate, 1_000), rate, 300, 1_000);
    expect(refill(bucket, rate, 500)).toEqual(bucket);
    expect(throttleMs(bucket, rate, 500)).toBe(2_000);
  });

  it("caps what it holds when the rate is lowered", () => {
    const bucket = fullBucket(rate, 0);
    const lower: BucketRate = { ratePerSecond: 10, windowMs: 1_000 };
    expect(refill(bucket, lower, 0).milliTokens).toBe(10 * 1_000);
  });
});

/** A client's request: a pause before it, and its size. */
const requestArbitrary = fc.record({ gapMs: fc.integer({ min: 0, max: 3_000 }), units: fc.integer({ min: 0, max: 5_000 }) });
const rateArbitrary = fc.record({
  ratePerSecond: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: quotaRatePerSecondMax })),
  windowMs: fc.integer({ min: 1, max: 8_000 }), // rate × window stays below 2^53
});

describe("token bucket properties", () => {
  it("admits at most rate × time + burst + one request, however a client sends", () => {
    fc.assert(
      fc.property(rateArbitrary, fc.array(requestArbitrary, { maxLength: 200 }), (rate, requests) => {
        let bucket: Bucket = fullBucket(rate, 0);
        let nowMs = 0;
        let admittedUnits = 0;
        let largest = 0;
        for (const { gapMs, units } of requests) {
          nowMs += gapMs;
          if (throttleMs(bucket, rate, nowMs) > 0) continue; // refused: a throttled client sends nothing
          bucket = charge(bucket, rate, units, nowMs);
          admittedUnits += units;
          largest = Math.max(largest, units);
        }
        // In milli-units, all integers: admitted × 1000 ≤ rate × elapsed ms + rate × window + largest × 1000.
        expect(BigInt(admittedUnits) * 1000n).toBeLessThanOrEqual(
          BigInt(rate.ratePerSecond) * BigInt(nowMs + rate.windowMs) + BigInt(largest) * 1000n,
        );
      }),
    );
  });

  it("throttles for exactly the least whole milliseconds that repay the debt", () => {
    fc.assert(
      fc.property(rateArbitrary, fc.array(requestArbitrary, { minLength: 1, maxLength: 50 }), (rate, requests) => {
        let bucket: Bucket = fullBucket(rate, 0);
        let nowMs = 0;
        for (const { gapMs, units } of requests) {
          nowMs += gapMs;
          bucket = charge(bucket, rate, units, nowMs); // charged whether throttled or not: any debt
          const wait = throttleMs(bucket, rate, nowMs);
          expect(Number.isInteger(wait)).toBe(true);
          if (wait === 0) {
            expect(refill(bucket, rate, nowMs).milliTokens).toBeGreaterThanOrEqual(0);
          } else {
            expect(refill(bucket, rate, nowMs + wait).milliTokens).toBeGreaterThanOrEqual(0);
            expect(refill(bucket, rate, nowMs + wait - 1).milliTokens).toBeLessThan(0);
            expect(throttleMs(bucket, rate, nowMs + wait)).toBe(0);
          }
        }
      }),
    );
  });
});
