import { subscriptionRetryDelayMsMax } from "../limits.ts";

/**
 * How long a subscription waits before delivering the same records again (docs/api.md,
 * Subscriptions): `retryDelayMs` after the first failed delivery, doubling with each further
 * one, never more than subscriptionRetryDelayMsMax (60 s, as Cloudflare Queues).
 * `deliveries` counts the deliveries made so far (1 after the first).
 */
export function retryDelayMs(baseMs: number, deliveries: number): number {
  if (deliveries < 1) return 0;
  const doublings = Math.min(deliveries - 1, 30); // 2^30 × any base passes the cap: no overflow
  return Math.min(baseMs * 2 ** doublings, subscriptionRetryDelayMsMax);
}
