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
 */
import { isRetriable } from "../errors.ts";

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
  // 2 ** attempt overflows to Infinity long after the cap applies; min() keeps it finite.
  const exponential = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** attempt);
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

export interface RetryOptions {
  policy: RetryPolicy;
  signal?: AbortSignal;
  random?: () => number;
  /** Whether to retry after `error`; default `isRetriable`. May refresh state first (metadata). */
  shouldRetry?: (error: unknown, attempt: number) => boolean | Promise<boolean>;
}

/** Runs `operation` until it succeeds, fails with an error not worth retrying, or runs out of retries. */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const shouldRetry = options.shouldRetry ?? isRetriable;
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (attempt >= options.policy.retries || !(await shouldRetry(error, attempt))) throw error;
      await sleep(retryDelayMs(error, attempt, options), options.signal);
    }
  }
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
