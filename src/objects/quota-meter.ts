import { DurableObject } from "cloudflare:workers";
import type { Quotas } from "../auth/principal.ts";
import { toResult, type Result } from "../errors.ts";
import { QuotaBuckets } from "../quota/quota-buckets.ts";
import type { Throttle, Usage } from "../quota/quota-kinds.ts";

/**
 * One token's quota meter (named by the token id, src/contracts/stubs.ts): the token's buckets
 * for the whole deployment, charged by every isolate that serves the token with the usage it
 * served (src/router/quotas.ts). It answers how long each kind stays throttled, as durations
 * by this object's one clock.
 *
 * The buckets live in memory only. Quotas are rates, not records: when the object restarts
 * (deploy, eviction, a move) its buckets start full again, which merely forgives the token's
 * debt and at most one burst — no request is refused wrongly and nothing is lost. Storing
 * them would cost a row write per flush for that.
 */
export class QuotaMeter extends DurableObject<Env> {
  readonly #buckets = new QuotaBuckets();

  async charge(quotas: Quotas, usage: Partial<Usage>): Promise<Result<Throttle>> {
    return toResult(() => this.#buckets.charge(quotas, usage, Date.now()));
  }
}
