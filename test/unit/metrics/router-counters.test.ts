import { describe, expect, it } from "vitest";
import { metricsThrottledTokensMax } from "../../../src/limits.ts";
import { formatExposition } from "../../../src/metrics/exposition.ts";
import { RouterCounters } from "../../../src/metrics/router-counters.ts";
import { parseExposition, sampleValue } from "../../workers/metrics/support/parse-exposition.ts";

describe("RouterCounters", () => {
  it("counts throttled requests per token, sharing one series past metricsThrottledTokensMax tokens", () => {
    const counters = new RouterCounters();
    for (let index = 0; index <= metricsThrottledTokensMax + 1; index++) {
      counters.observe({ method: "POST", route: "/v1/topics/:topic/records", status: 429, durationSeconds: 0, errorCode: "THROTTLING_QUOTA_EXCEEDED", throttledToken: `t${index}` });
    }
    counters.observe({ method: "POST", route: "/v1/topics/:topic/records", status: 429, durationSeconds: 0, throttledToken: "t0" });
    const families = parseExposition(formatExposition(counters.families()));
    const throttled = families.get("tributary_router_throttled_requests_total")!.samples;
    expect(throttled).toHaveLength(metricsThrottledTokensMax + 1);
    expect(sampleValue(families, "tributary_router_throttled_requests_total", { token: "t0" })).toBe(2);
    expect(sampleValue(families, "tributary_router_throttled_requests_total", { token: "other" })).toBe(2);
    expect(sampleValue(families, "tributary_router_errors_total", { code: "THROTTLING_QUOTA_EXCEEDED" })).toBe(metricsThrottledTokensMax + 2);
    expect(sampleValue(families, "tributary_router_requests_total", { method: "POST", route: "/v1/topics/:topic/records", status: "429" })).toBe(metricsThrottledTokensMax + 3);
  });
});
