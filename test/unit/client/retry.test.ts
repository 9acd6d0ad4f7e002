import { describe, expect, it, vi } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { ClientLog } from "../../../src/client/logger.ts";
import { backoffMs, defaultRetryPolicy, retryPolicy, withRetries } from "../../../src/client/retry.ts";

const policy = retryPolicy({ retries: 5, initialBackoffMs: 100, maxBackoffMs: 1_000, jitter: 0.2 });

describe("backoffMs", () => {
  it("doubles from initialBackoffMs and stops at maxBackoffMs", () => {
    const middle = () => 0.5; // no jitter either way
    expect([0, 1, 2, 3, 4, 5, 60, 2000].map((attempt) => backoffMs(attempt, policy, middle))).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  });

  it("jitters by ±jitter and never past the cap", () => {
    expect(backoffMs(0, policy, () => 0)).toBe(80);
    expect(backoffMs(0, policy, () => 0.999999)).toBe(120);
    expect(backoffMs(10, policy, () => 0.999999)).toBe(1_000);
    expect(backoffMs(10, policy, () => 0)).toBe(800);
  });

  it("waits at least a server's Retry-After, up to the cap", () => {
    expect(backoffMs(0, policy, () => 0.5, 700)).toBe(700);
    expect(backoffMs(0, policy, () => 0.5, 60_000)).toBe(1_000);
  });

  it("stays a number however many attempts a retry without end makes", () => {
    const zero = retryPolicy({ initialBackoffMs: 0, maxBackoffMs: 0 });
    expect(backoffMs(5_000, zero, () => 0.5)).toBe(0);
    expect(backoffMs(5_000, policy, () => 0.5)).toBe(1_000);
  });

  it("defaults to Kafka-like values", () => {
    expect(defaultRetryPolicy).toEqual({ retries: 10, initialBackoffMs: 100, maxBackoffMs: 5_000, jitter: 0.2, throttleWaitMsMax: 30_000 });
  });

  it("refuses a policy that would retry forever or never wait", () => {
    expect(() => retryPolicy({ retries: -1 })).toThrow(RangeError);
    expect(() => retryPolicy({ retries: Infinity })).toThrow(RangeError);
    expect(() => retryPolicy({ initialBackoffMs: 10, maxBackoffMs: 5 })).toThrow(RangeError);
    expect(() => retryPolicy({ jitter: 2 })).toThrow(RangeError);
  });
});

describe("withRetries", () => {
  const quick = retryPolicy({ retries: 3, initialBackoffMs: 1, maxBackoffMs: 2 });

  it("retries retriable errors until success", async () => {
    let calls = 0;
    const result = await withRetries(async () => {
      calls += 1;
      if (calls < 3) throw new TributaryError("BROKER_BUSY", "busy");
      return "ok";
    }, { policy: quick });
    expect({ result, calls }).toEqual({ result: "ok", calls: 3 });
  });

  it("stops after policy.retries and rethrows the last error", async () => {
    let calls = 0;
    const error = await withRetries(async () => {
      calls += 1;
      throw new TributaryError("REQUEST_TIMED_OUT", `attempt ${calls}`);
    }, { policy: quick }).catch((e: unknown) => e);
    expect(calls).toBe(4);
    expect((error as Error).message).toBe("attempt 4");
  });

  it("does not retry what is not retriable, nor a plain Error", async () => {
    for (const thrown of [new TributaryError("INVALID_CONFIG", "no"), new Error("bug")]) {
      let calls = 0;
      await expect(withRetries(async () => {
        calls += 1;
        throw thrown;
      }, { policy: quick })).rejects.toBe(thrown);
      expect(calls).toBe(1);
    }
  });

  it("waits all of a quota's Retry-After, past maxBackoffMs, before retrying", async () => {
    const started: number[] = [];
    const result = await withRetries(async () => {
      started.push(Date.now());
      if (started.length === 1) throw new TributaryError("THROTTLING_QUOTA_EXCEEDED", "slow down", { retryAfterMs: 60 });
      return "ok";
    }, { policy: quick });
    expect(result).toBe("ok");
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(59);
  });

  it("throws a quota throttle longer than throttleWaitMsMax at once", async () => {
    let calls = 0;
    const throttled = new TributaryError("THROTTLING_QUOTA_EXCEEDED", "slow down", { retryAfterMs: 31_000 });
    await expect(withRetries(async () => {
      calls += 1;
      throw throttled;
    }, { policy: retryPolicy({ ...quick, throttleWaitMsMax: 30_000 }) })).rejects.toBe(throttled);
    expect(calls).toBe(1);
  });

  it("stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    const slow = retryPolicy({ retries: 3, initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    const pending = withRetries(async () => {
      throw new TributaryError("BROKER_BUSY", "busy");
    }, { policy: slow, signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });

  it("with forever, retries past policy.retries until the operation succeeds", async () => {
    let calls = 0;
    const result = await withRetries(async () => {
      calls += 1;
      if (calls < 10) throw new TributaryError("BROKER_BUSY", "busy");
      return "ok";
    }, { policy: quick, forever: true });
    expect({ result, calls }).toEqual({ result: "ok", calls: 10 });
  });

  it("logs each retry at info, and at warn once the call has waited 2 s in all", async () => {
    vi.useFakeTimers();
    try {
      const levels: string[] = [];
      const at = (level: string) => () => void levels.push(level);
      const log = new ClientLog({ debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") }, "debug");
      let calls = 0;
      const done = withRetries(async () => {
        calls += 1;
        if (calls <= 4) throw new TributaryError("BROKER_BUSY", "busy");
        return "ok";
      }, { policy: retryPolicy({ retries: 5, initialBackoffMs: 500, maxBackoffMs: 5_000, jitter: 0 }), log });
      await vi.runAllTimersAsync();
      expect(await done).toBe("ok");
      // Delays 500, 1000, 2000, 4000 ms: waited 0.5, 1.5, 3.5 and 7.5 s in all.
      expect(levels).toEqual(["info", "info", "warn", "warn"]);
    } finally {
      vi.useRealTimers();
    }
  });
});
