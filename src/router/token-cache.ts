import { tokenCacheEntriesMax, tokenCacheMs } from "../limits.ts";
import type { TokenGrant } from "../contracts/controller-api.ts";

interface Entry {
  grant: Promise<TokenGrant | null>;
  fetchedAt: number;
}

/**
 * What the controller said of each token lately, per router isolate: a grant, or null for a
 * token it does not know. Entries live tokenCacheMs, so a revoked token stops working
 * everywhere within that time; concurrent requests with one token share one controller
 * call; the oldest entry goes when the cache is full. A failed lookup is not remembered.
 */
export class TokenCache {
  readonly #entries = new Map<string, Entry>();

  get(key: string, now: number, lookup: () => Promise<TokenGrant | null>): Promise<TokenGrant | null> {
    const cached = this.#entries.get(key);
    if (cached !== undefined && now - cached.fetchedAt < tokenCacheMs) return cached.grant;
    this.#entries.delete(key);
    if (this.#entries.size >= tokenCacheEntriesMax) this.#entries.delete(this.#entries.keys().next().value!);
    const grant = lookup();
    const entry = { grant, fetchedAt: now };
    this.#entries.set(key, entry);
    grant.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return grant;
  }
}
