/**
 * Quotas given to a scoped token at creation (POST /v1/tokens), end to end through the
 * router with the admin token configured: the token is throttled with 429 and Retry-After,
 * its refused produce writes nothing, it is served again after waiting, and a write token
 * minted from it shares its quotas.
 */
import { describe, expect, it } from "vitest";
import { createTopic, expectError, highWatermarks, uniqueTopic } from "../support/http.ts";
import { allOn, createToken, securedCall } from "../support/secured.ts";

const value = "v".repeat(1_000);
const produce = (topic: string, token: string) => securedCall("POST", `/v1/topics/${topic}/records`, { token, body: { records: [{ value }, { value }] } });

describe("a token created with a produce quota", () => {
  it("is refused with 429 and Retry-After past its rate, writes nothing then, and is served after waiting", async () => {
    const topic = uniqueTopic("quota-token");
    await createTopic(topic);
    const { token } = await createToken({ rules: [allOn("topic", topic)], quotas: { produceBytesPerSecond: 1_000 } });
    expect((await produce(topic, token)).status).toBe(200); // ~2 KB: served, and leaves ~1 s of debt
    const refused = await produce(topic, token);
    const error = expectError(refused, 429, "THROTTLING_QUOTA_EXCEEDED");
    expect(error.retryAfterMs).toEqual(expect.any(Number));
    expect(Number(refused.headers.get("retry-after"))).toBe(Math.max(1, Math.ceil((error.retryAfterMs as number) / 1000)));
    expect(await highWatermarks(topic)).toEqual([2]);
    // Fetching is another kind: not throttled by produce debt.
    expect((await securedCall("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, (error.retryAfterMs as number) + 10));
    expect((await produce(topic, token)).status).toBe(200);
    expect(await highWatermarks(topic)).toEqual([4]);
  });

  it("passes its quotas to the write tokens minted from it", async () => {
    const topic = uniqueTopic("quota-write-token");
    await createTopic(topic);
    const parent = await createToken({ rules: [allOn("topic", topic)], quotas: { produceBytesPerSecond: 1_000 } });
    const minted = await securedCall("POST", `/v1/topics/${topic}/write-tokens`, { token: parent.token });
    expect(minted.status).toBe(201);
    expect((await produce(topic, minted.body.token)).status).toBe(200);
    expectError(await produce(topic, minted.body.token), 429, "THROTTLING_QUOTA_EXCEEDED");
    expectError(await produce(topic, parent.token), 429, "THROTTLING_QUOTA_EXCEEDED"); // one bucket for both
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("does not throttle a token without quotas", async () => {
    const topic = uniqueTopic("quota-none");
    await createTopic(topic);
    const { token } = await createToken({ rules: [allOn("topic", topic)] });
    for (let round = 0; round < 5; round++) expect((await produce(topic, token)).status).toBe(200);
  });
});
