/**
 * A token bucket with Kafka's quota semantics (KIP-599's TokenBucket, as client quotas use
 * it): usage is recorded after a request is served, so one request may take the bucket into
 * debt, however large it is; while the bucket is in debt the client is throttled, for
 * exactly the time the refill needs to bring it back to zero.
 *
 * The arithmetic is in integers so that the throttle time is exact: a bucket counts
 * milli-units (one byte or request of usage is 1,000 milli-units), so a rate of r units per
 * second refills exactly r milli-units per millisecond. Times are integer milliseconds.
 * Every rate is at most quotaRatePerSecondMax, which keeps rate × window and rate × elapsed
 * milliseconds of a full refill below 2^53.
 */

export interface Bucket {
  /** Milli-units available; negative while in debt. At most rate × windowMs. */
  readonly milliTokens: number;
  /** When `milliTokens` was last brought up to date. */
  readonly atMs: number;
}

export interface BucketRate {
  /** Units (bytes or requests) per second: a positive integer. */
  readonly ratePerSecond: number;
  /** The burst: the bucket holds at most ratePerSecond × windowMs / 1000 units. */
  readonly windowMs: number;
}

const milliUnitsPerUnit = 1_000;

function capacity(rate: BucketRate): number {
  return rate.ratePerSecond * rate.windowMs;
}

/** A full bucket: a client that has used nothing may use a burst at once. */
export function fullBucket(rate: BucketRate, nowMs: number): Bucket {
  return { milliTokens: capacity(rate), atMs: nowMs };
}

/** The bucket refilled up to `nowMs` (a clock that goes back refills nothing). */
export function refill(bucket: Bucket, rate: BucketRate, nowMs: number): Bucket {
  if (nowMs <= bucket.atMs) return { milliTokens: Math.min(bucket.milliTokens, capacity(rate)), atMs: bucket.atMs };
  const room = capacity(rate) - bucket.milliTokens;
  const elapsedMs = nowMs - bucket.atMs;
  // Compare before multiplying: a long idle time times a large rate could pass 2^53.
  const milliTokens = room <= 0 || elapsedMs >= Math.ceil(room / rate.ratePerSecond) ? capacity(rate) : bucket.milliTokens + rate.ratePerSecond * elapsedMs;
  return { milliTokens, atMs: nowMs };
}

/** Records `units` of usage served at `nowMs`: the bucket refilled, then charged (it may go into debt). */
export function charge(bucket: Bucket, rate: BucketRate, units: number, nowMs: number): Bucket {
  const refilled = refill(bucket, rate, nowMs);
  return { milliTokens: refilled.milliTokens - units * milliUnitsPerUnit, atMs: refilled.atMs };
}

/**
 * Milliseconds until the bucket is back at zero: 0 when it is not in debt, else the least
 * whole number of milliseconds whose refill repays the debt. Exact: the debt and the rate are
 * integers below 2^53, so the division rounds to the right side of every integer.
 */
export function throttleMs(bucket: Bucket, rate: BucketRate, nowMs: number): number {
  const { milliTokens } = refill(bucket, rate, nowMs);
  return milliTokens >= 0 ? 0 : Math.ceil(-milliTokens / rate.ratePerSecond);
}
