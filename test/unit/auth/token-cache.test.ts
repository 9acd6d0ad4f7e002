import { describe, expect, it } from "vitest";
import { tokenCacheEntriesMax, tokenCacheMs } from "../../../src/limits.ts";
import type { TokenGrant } from "../../../src/contracts/controller-api.ts";
import { TokenCache } from "../../../src/router/token-cache.ts";

const grant: TokenGrant = { tokenId: "0123456789abcdef", rules: [], expiresAt: null, quotas: {} };

describe("TokenCache", () => {
  it("answers from memory within tokenCacheMs and asks again after it", async () => {
    const cache = new TokenCache();
    let lookups = 0;
    const lookup = async () => (lookups++, grant);
    await cache.get("a", 0, lookup);
    await cache.get("a", tokenCacheMs - 1, lookup);
    expect(lookups).toBe(1);
    await cache.get("a", tokenCacheMs, lookup);
    expect(lookups).toBe(2);
  });

  it("shares one lookup between concurrent requests", async () => {
    const cache = new TokenCache();
    let lookups = 0;
    const lookup = async () => (lookups++, grant);
    const answers = await Promise.all([cache.get("a", 0, lookup), cache.get("a", 1, lookup), cache.get("a", 2, lookup)]);
    expect(answers).toEqual([grant, grant, grant]);
    expect(lookups).toBe(1);
  });

  it("remembers a refusal (null) but not a failed lookup", async () => {
    const cache = new TokenCache();
    let lookups = 0;
    expect(await cache.get("unknown", 0, async () => (lookups++, null))).toBeNull();
    expect(await cache.get("unknown", 1, async () => (lookups++, null))).toBeNull();
    expect(lookups).toBe(1);
    await expect(cache.get("failing", 0, async () => Promise.reject(new Error("controller unreachable")))).rejects.toThrow();
    await Promise.resolve();
    expect(await cache.get("failing", 1, async () => grant)).toEqual(grant);
  });

  it("holds at most tokenCacheEntriesMax entries, dropping the oldest", async () => {
    const cache = new TokenCache();
    let lookups = 0;
    const lookup = async () => (lookups++, grant);
    for (let index = 0; index <= tokenCacheEntriesMax; index++) await cache.get(`t${index}`, 0, lookup);
    expect(lookups).toBe(tokenCacheEntriesMax + 1);
    await cache.get(`t${tokenCacheEntriesMax}`, 1, lookup); // the newest is still there
    expect(lookups).toBe(tokenCacheEntriesMax + 1);
    await cache.get("t0", 1, lookup); // the oldest was dropped
    expect(lookups).toBe(tokenCacheEntriesMax + 2);
  });
});
