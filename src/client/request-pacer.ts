/**
 * Paces the requests a producer starts for each partition, so that a steady trickle of
 * records costs a few requests a second instead of one request a record.
 *
 * On Cloudflare every produce request is billed (a Worker request, an object request and its
 * SQLite rows), whatever it carries, so a producer that sends each record alone when records
 * come 100 ms apart pays about ten times what one sending every 500 ms pays for the same
 * bytes (bench/README.md, "The monthly bill"). Records that come after a quiet spell go at
 * once; only a partition that keeps starting requests faster than `ratePerSecond` waits.
 *
 * The rule is a token bucket of `max(1, ratePerSecond)` requests kept per partition as one
 * number, the time its bucket is full again (the generic cell rate algorithm): a request may
 * start once `fullAtMs − burstMs ≤ now`, and starting one moves `fullAtMs` on by one interval.
 */
export class RequestPacer {
  readonly #intervalMs: number;
  readonly #burstMs: number;
  /** Per partition key: when its bucket is full again. Absent: full. */
  readonly #fullAtMs = new Map<string, number>();

  constructor(ratePerSecond: number) {
    this.#intervalMs = 1000 / ratePerSecond;
    this.#burstMs = (Math.max(1, ratePerSecond) - 1) * this.#intervalMs;
  }

  /** How long a request for `key` must wait from `nowMs` (0: it may start now). */
  waitMs(key: string, nowMs: number): number {
    const fullAtMs = this.#fullAtMs.get(key);
    return fullAtMs === undefined ? 0 : Math.max(0, Math.ceil(fullAtMs - this.#burstMs - nowMs));
  }

  /** Counts a request for `key` started at `nowMs`. */
  take(key: string, nowMs: number): void {
    const fullAtMs = this.#fullAtMs.get(key);
    this.#fullAtMs.set(key, Math.max(fullAtMs ?? nowMs, nowMs) + this.#intervalMs);
    // Forget partitions whose buckets are full again, so the map holds only the busy ones.
    if (this.#fullAtMs.size > pacedPartitionsKept) for (const [other, at] of this.#fullAtMs) if (at <= nowMs) this.#fullAtMs.delete(other);
  }
}

/** Partitions remembered before the full buckets are swept out (a sweep costs one pass over them). */
const pacedPartitionsKept = 1024;
