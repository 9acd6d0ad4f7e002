import type { Quotas } from "../auth/principal.ts";
import { quotaFlushIntervalMs, quotaFlushRateFraction, quotaMeterCallTimeoutMs } from "../limits.ts";
import { noUsage, quotaKinds, rateOf, type QuotaKind, type Throttle, type Usage } from "./quota-kinds.ts";

/** What an isolate should do about a token's unsent usage after serving a request. */
export type FlushPlan = { action: "none" } | { action: "now" } | { action: "at"; atMs: number };

/**
 * One isolate's view of one token (pure; the router drives it, src/router/quotas.ts): the
 * usage served here and not yet sent to the token's QuotaMeter, and until when the meter's
 * last answer throttles each kind. Times are this isolate's clock: the meter answers
 * durations, which the isolate adds to its own time on arrival, so clocks never mix.
 *
 * Usage is sent at most every quotaFlushIntervalMs, or at once when a kind reaches
 * quotaFlushRateFraction of its rate; one flush is in flight at a time. Markers of a flush
 * in flight or scheduled go stale after quotaMeterCallTimeoutMs past their time, so work the
 * platform cancelled never blocks the token's later flushes.
 */
export class TokenUsageView {
  #pending = noUsage();
  readonly #throttledUntilMs = noUsage();
  #lastFlushMs: number;
  #flightStartedMs: number | undefined;
  #flights = 0;
  #scheduledAtMs: number | undefined;
  #synced = false;

  constructor(nowMs: number) {
    this.#lastFlushMs = nowMs;
  }

  /** Whether a meter call for this token has finished here (answered or failed) at least once. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Milliseconds the longest-throttled of `kinds` stays throttled; 0 when none is. */
  throttledMs(kinds: readonly QuotaKind[], nowMs: number): number {
    let longest = 0;
    for (const kind of kinds) longest = Math.max(longest, this.#throttledUntilMs[kind] - nowMs);
    return longest;
  }

  /** Adds usage served here; kinds the quotas leave unlimited are not counted. */
  record(usage: Partial<Usage>, quotas: Quotas): void {
    for (const kind of quotaKinds) {
      const units = usage[kind] ?? 0;
      if (units > 0 && rateOf(quotas, kind) !== undefined) this.#pending[kind] += units;
    }
  }

  plan(quotas: Quotas, nowMs: number): FlushPlan {
    if (!quotaKinds.some((kind) => this.#pending[kind] > 0)) return { action: "none" };
    if (this.inFlight(nowMs)) return { action: "none" }; // its finisher plans again
    const dueAtMs = this.#lastFlushMs + quotaFlushIntervalMs;
    const large = quotaKinds.some((kind) => this.#pending[kind] >= (rateOf(quotas, kind) ?? Infinity) * quotaFlushRateFraction);
    if (large || nowMs >= dueAtMs) return { action: "now" };
    if (this.#scheduledAtMs !== undefined && nowMs < this.#scheduledAtMs + quotaMeterCallTimeoutMs) return { action: "none" };
    return { action: "at", atMs: dueAtMs };
  }

  /** Whether a flush started here is still awaiting its answer (and not given up on). */
  inFlight(nowMs: number): boolean {
    return this.#flightStartedMs !== undefined && nowMs < this.#flightStartedMs + quotaMeterCallTimeoutMs;
  }

  scheduled(atMs: number): void {
    this.#scheduledAtMs = atMs;
  }

  /** A scheduled flush's time came: it no longer holds back other plans. */
  scheduleDone(): void {
    this.#scheduledAtMs = undefined;
  }

  /** Starts a flush: takes the unsent usage (possibly none: a first call only asks) and numbers the flight. */
  startFlush(nowMs: number): { flight: number; usage: Usage } {
    const usage = this.#pending;
    this.#pending = noUsage();
    this.#lastFlushMs = nowMs;
    this.#flightStartedMs = nowMs;
    this.#flights += 1;
    return { flight: this.#flights, usage };
  }

  /**
   * The meter's answer (undefined: the call failed or timed out, and its usage is forgiven
   * rather than risk counting it twice). The answer covers all usage the meter has seen from
   * every isolate, so it replaces what this isolate knew. A flight given up on, whose answer
   * comes after a newer flight started, changes nothing.
   */
  finishFlush(flight: number, answer: Throttle | undefined, nowMs: number): void {
    this.#synced = true;
    if (flight !== this.#flights) return;
    this.#flightStartedMs = undefined;
    if (answer === undefined) return;
    for (const kind of quotaKinds) this.#throttledUntilMs[kind] = nowMs + answer[kind];
  }
}
