import { describe, expect, it } from "vitest";
import { quotaFlushIntervalMs, quotaMeterCallTimeoutMs } from "../../../src/limits.ts";
import { TokenUsageView } from "../../../src/quota/token-usage-view.ts";

const quotas = { produceBytesPerSecond: 10_000, requestsPerSecond: 1_000 };
const noThrottle = { produceBytes: 0, fetchBytes: 0, requests: 0 };

describe("TokenUsageView", () => {
  it("plans nothing without unsent usage", () => {
    const view = new TokenUsageView(0);
    expect(view.plan(quotas, 10_000)).toEqual({ action: "none" });
  });

  it("sends small usage once the flush interval has passed since the last flush", () => {
    const view = new TokenUsageView(0);
    view.record({ requests: 1, produceBytes: 10 }, quotas);
    expect(view.plan(quotas, 100)).toEqual({ action: "at", atMs: quotaFlushIntervalMs });
    view.scheduled(quotaFlushIntervalMs);
    expect(view.plan(quotas, 200)).toEqual({ action: "none" }); // already scheduled
    expect(view.plan(quotas, quotaFlushIntervalMs)).toEqual({ action: "now" });
  });

  it("sends at once when a kind reaches its fraction of the rate", () => {
    const view = new TokenUsageView(0);
    view.record({ produceBytes: 1_000 }, quotas);
    expect(view.plan(quotas, 1)).toEqual({ action: "now" });
  });

  it("sends every request of a slow quota at once", () => {
    const view = new TokenUsageView(0);
    view.record({ requests: 1 }, { requestsPerSecond: 2 });
    expect(view.plan({ requestsPerSecond: 2 }, 1)).toEqual({ action: "now" });
  });

  it("does not count kinds the quotas leave unlimited", () => {
    const view = new TokenUsageView(0);
    view.record({ fetchBytes: 1e9 }, quotas);
    expect(view.plan(quotas, 10_000)).toEqual({ action: "none" });
    expect(view.startFlush(10_000).usage).toEqual(noThrottle);
  });

  it("keeps one flush in flight, and gives up on it after the call timeout", () => {
    const view = new TokenUsageView(0);
    view.record({ produceBytes: 5_000 }, quotas);
    const { flight, usage } = view.startFlush(0);
    expect(usage.produceBytes).toBe(5_000);
    view.record({ produceBytes: 5_000 }, quotas);
    expect(view.plan(quotas, 1)).toEqual({ action: "none" });
    expect(view.plan(quotas, quotaMeterCallTimeoutMs)).toEqual({ action: "now" });
    view.finishFlush(flight, noThrottle, 10);
    expect(view.plan(quotas, 11)).toEqual({ action: "now" });
  });

  it("throttles the kinds the meter's answer names, from the time the answer arrives", () => {
    const view = new TokenUsageView(0);
    expect(view.synced).toBe(false);
    const { flight } = view.startFlush(0);
    view.finishFlush(flight, { ...noThrottle, produceBytes: 1_500 }, 100);
    expect(view.synced).toBe(true);
    expect(view.throttledMs(["requests", "produceBytes"], 100)).toBe(1_500);
    expect(view.throttledMs(["requests", "fetchBytes"], 100)).toBe(0);
    expect(view.throttledMs(["produceBytes"], 1_600)).toBe(0);
  });

  it("ignores the late answer of a flight given up on once a newer one started", () => {
    const view = new TokenUsageView(0);
    const first = view.startFlush(0);
    const second = view.startFlush(quotaMeterCallTimeoutMs);
    view.finishFlush(second.flight, noThrottle, quotaMeterCallTimeoutMs + 1);
    view.finishFlush(first.flight, { ...noThrottle, requests: 60_000 }, quotaMeterCallTimeoutMs + 2);
    expect(view.throttledMs(["requests"], quotaMeterCallTimeoutMs + 2)).toBe(0);
  });

  it("counts a failed flush as synced, without throttling", () => {
    const view = new TokenUsageView(0);
    const { flight } = view.startFlush(0);
    view.finishFlush(flight, undefined, 5);
    expect(view.synced).toBe(true);
    expect(view.throttledMs(["requests"], 5)).toBe(0);
  });
});
