/** The QuotaMeter object through its binding: one per token id, buckets in memory. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { quotaMeterStub } from "../../../src/contracts/stubs.ts";

function meter() {
  return quotaMeterStub(env, `meter-${crypto.randomUUID()}`);
}

describe("QuotaMeter", () => {
  it("answers how long each kind is throttled once usage passes the burst", async () => {
    const stub = meter();
    const quotas = { produceBytesPerSecond: 100, fetchBytesPerSecond: 100, requestsPerSecond: 5 };
    expect(await stub.charge(quotas, { produceBytes: 300, fetchBytes: 50, requests: 1 })).toEqual({
      ok: true,
      value: { produceBytes: 2_000, fetchBytes: 0, requests: 0 },
    });
    const later = await stub.charge(quotas, {});
    expect(later.ok && later.value.produceBytes).toBeLessThanOrEqual(2_000);
    expect(later.ok && later.value.produceBytes).toBeGreaterThan(0);
  });

  it("keeps one token's buckets apart from another's", async () => {
    const quotas = { requestsPerSecond: 1 };
    const first = meter();
    expect(await first.charge(quotas, { requests: 11 })).toMatchObject({ ok: true, value: { requests: 10_000 } });
    expect(await meter().charge(quotas, { requests: 1 })).toMatchObject({ ok: true, value: { requests: 0 } });
  });

  it("never throttles kinds the quotas leave unlimited", async () => {
    expect(await meter().charge({}, { produceBytes: 1e9, fetchBytes: 1e9, requests: 1e6 })).toEqual({
      ok: true,
      value: { produceBytes: 0, fetchBytes: 0, requests: 0 },
    });
  });
});
