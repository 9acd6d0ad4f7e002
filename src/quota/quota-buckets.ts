import type { Quotas } from "../auth/principal.ts";
import { quotaWindowMs } from "../limits.ts";
import { noUsage, quotaKinds, rateOf, type QuotaKind, type Throttle, type Usage } from "./quota-kinds.ts";
import { charge, fullBucket, throttleMs, type Bucket, type BucketRate } from "./token-bucket.ts";

/**
 * One token's buckets, one per limited kind: what its QuotaMeter holds. `charge` records
 * usage already served and answers how long each kind is throttled from now. The quotas come
 * with every call (the token's current ones): a kind that became unlimited loses its bucket,
 * a newly limited kind starts full, and a lowered rate caps what the bucket holds.
 */
export class QuotaBuckets {
  readonly #buckets = new Map<QuotaKind, Bucket>();

  charge(quotas: Quotas, usage: Partial<Usage>, nowMs: number): Throttle {
    const throttle = noUsage();
    for (const kind of quotaKinds) {
      const ratePerSecond = rateOf(quotas, kind);
      if (ratePerSecond === undefined) {
        this.#buckets.delete(kind);
        continue;
      }
      const rate: BucketRate = { ratePerSecond, windowMs: quotaWindowMs };
      const units = wholeUnits(usage[kind]);
      const bucket = charge(this.#buckets.get(kind) ?? fullBucket(rate, nowMs), rate, units, nowMs);
      this.#buckets.set(kind, bucket);
      throttle[kind] = throttleMs(bucket, rate, nowMs);
    }
    return throttle;
  }
}

/** Usage as a whole, non-negative number of units (bytes and requests are integers). */
function wholeUnits(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.ceil(value) : 0;
}
