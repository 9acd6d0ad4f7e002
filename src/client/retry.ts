/**
 * The client's one backoff policy: exponential from `initialBackoffMs`, doubled per attempt,
 * capped at `maxBackoffMs`, with ±`jitter` drawn at random (Kafka's retry.backoff.ms and
 * retry.backoff.max.ms, which jitter by ±20% too) so that clients that failed together do not
 * retry together. A server's Retry-After raises the delay up to the cap, never past it —
 * except a quota's (429 THROTTLING_QUOTA_EXCEEDED): retrying before it only spends another
 * request of the quota, so the client waits all of it, as a Kafka client whose broker mutes
 * its connection for the throttle time; a wait longer than `throttleWaitMsMax` is the
 * caller's to decide, and the error is thrown.
 *
 * What is retriable is decided in one place, `isRetriable` (src/errors.ts: the error table's
 * 429 and 503 codes, and REQUEST_TIMED_OUT for a request that got no answer); a caller may add
 * a reason of its own (the producer retries UNKNOWN_TOPIC_OR_PARTITION when fresh metadata
 * still lists the partition).
 *
 * Every retry is logged (logger.ts): `retrying GET /v1/… after NETWORK_EXCEPTION: connection
 * refused at http://127.0.0.1:8787 (attempt 3, next in 800 ms)`, at `info` while the call has
 * been retrying for less than `retryWarnAfterMs` in all, at `warn` from then on.
 */
import { isRetriable } from "../errors.ts";
import type { ClientLog, LogLevel } from "./logger.ts";
import { failedRequest } from "./transport.ts";

export interface RetryPolicy {
  /** Attempts after the first; 0 disables retries. */
  retries: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** Fraction of each delay drawn at random either way, 0 to 1. */
  jitter: number;
  /** The longest quota throttle (429 with Retry-After) waited out before retrying. */
  throttleWaitMsMax: number;
}

/** About 26 s of retrying in all: longer than a leader election (API.md: within 15 s). */
export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  retries: 10,
  initialBackoffMs: 100,
  maxBackoffMs: 5_000,
  jitter: 0.2,
  throttleWaitMsMax: 30_000,
});

/** A policy from defaults and overrides, checked: a bad one would retry forever or never wait. */
export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...defaultRetryPolicy, ...overrides };
  const { retries, initialBackoffMs, maxBackoffMs, jitter } = policy;
  if (!Number.isSafeInteger(retries) || retries < 0) throw new RangeError(`retry.retries must be an integer >= 0, got ${retries}`);
  if (!(initialBackoffMs >= 0 && maxBackoffMs >= initialBackoffMs && Number.isFinite(maxBackoffMs))) {
    throw new RangeError(`retry backoff needs 0 <= initialBackoffMs <= maxBackoffMs, got ${initialBackoffMs} and ${maxBackoffMs}`);
  }
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`retry.jitter must be from 0 to 1, got ${jitter}`);
  if (!(policy.throttleWaitMsMax >= 0)) throw new RangeError(`retry.throttleWaitMsMax must be >= 0, got ${policy.throttleWaitMsMax}`);
  return Object.freeze(policy);
}

/** The delay before retry number `attempt` (0 for the first retry). `random` follows Math.random's contract. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random, retryAfterMs = 0): number {
  // The exponent stops at 30, long after the cap applies: 0 × 2 ** 1024 would be NaN.
  const exponential = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** Math.min(attempt, 30));
  const jittered = exponential * (1 - policy.jitter + 2 * policy.jitter * random());
  const floor = Math.min(retryAfterMs, policy.maxBackoffMs);
  return Math.round(Math.max(Math.min(jittered, policy.maxBackoffMs), floor));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Retries of one call are logged as warnings once they have waited this long in all: a blip stays at `info`. */
export const retryWarnAfterMs = 2_000;

export interface RetryOptions {
  policy: RetryPolicy;
  /** Where each retry is logged; none: not logged. */
  log?: ClientLog;
  signal?: AbortSignal;
  random?: () => number;
  /** Whether to retry after `error`; default `isRetriable`. May refresh state first (metadata). */
  shouldRetry?: (error: unknown, attempt: number) => boolean | Promise<boolean>;
  /**
   * Retry retriable errors without end, until `signal` aborts (a follower riding out a server
   * restart), the delay capped at maxBackoffMs; `policy.retries` does not apply.
   */
  forever?: boolean;
}

/** Runs `operation` until it succeeds, fails with an error not worth retrying, or runs out of retries. */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const shouldRetry = options.shouldRetry ?? isRetriable;
  let waitedMs = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if ((!options.forever && attempt >= options.policy.retries) || !(await shouldRetry(error, attempt))) throw error;
      waitedMs += await waitBeforeRetry(error, attempt, waitedMs, options);
    }
  }
}

/**
 * One retry's wait, logged as every retry is: for a loop that retries by itself (a stream
 * reconnecting after a dropped connection) with the same policy and lines as `withRetries`.
 * `waitedMs` is what the loop has waited so far; resolves with this wait's length. Throws the
 * error when it is a quota throttle longer than the policy waits, or the signal's reason.
 */
export async function waitBeforeRetry(error: unknown, attempt: number, waitedMs: number, options: RetryOptions): Promise<number> {
  const delayMs = retryDelayMs(error, attempt, options);
  logRetry(options.log, error, attempt, delayMs, waitedMs + delayMs >= retryWarnAfterMs ? "warn" : "info");
  await sleep(delayMs, options.signal);
  return delayMs;
}

/** One line per retry: which request, after what, which attempt, and how long until the next. */
function logRetry(log: ClientLog | undefined, error: unknown, attempt: number, delayMs: number, level: LogLevel): void {
  if (log === undefined) return;
  const request = failedRequest(error) ?? "a request";
  const { code, data } = error as { code?: unknown; data?: Record<string, unknown> };
  const message = error instanceof Error ? error.message : String(error);
  // The transport's messages start with the request; the line names it once.
  const detail = message.startsWith(`${request}: `) ? message.slice(request.length + 2) : message;
  const after = typeof code === "string" ? `${code}: ${detail}` : detail;
  log.log(level, `retrying ${request} after ${after} (attempt ${attempt + 1}, next in ${delayMs} ms)`, {
    request,
    code,
    detail,
    reason: data?.reason,
    server: data?.server,
    attempt: attempt + 1,
    delayMs,
  });
}

/** The wait before retrying after `error`; throws the error when it is a quota throttle longer than the policy waits. */
function retryDelayMs(error: unknown, attempt: number, options: RetryOptions): number {
  const { code, data } = error as { code?: unknown; data?: { retryAfterMs?: unknown } };
  const retryAfterMs = typeof data?.retryAfterMs === "number" ? data.retryAfterMs : 0;
  const backoff = backoffMs(attempt, options.policy, options.random, retryAfterMs);
  if (code !== "THROTTLING_QUOTA_EXCEEDED") return backoff;
  if (retryAfterMs > options.policy.throttleWaitMsMax) throw error;
  return Math.max(backoff, retryAfterMs);
}
