import type { Rule } from "./acl.ts";

/**
 * Per-token client quotas (Kafka's producer_byte_rate, consumer_byte_rate and
 * request_percentage, here as rates): absent means unlimited.
 */
export interface Quotas {
  produceBytesPerSecond?: number;
  fetchBytesPerSecond?: number;
  requestsPerSecond?: number;
}

/**
 * Who sent a request. `open`: no admin token is configured (local development), everything
 * is allowed. `admin`: the TRIBUTARY_ADMIN_TOKEN secret. `token`: a scoped token, allowed
 * only what its rules allow, until it expires or is revoked.
 */
export type Principal =
  | { kind: "open" }
  | { kind: "admin" }
  | { kind: "token"; tokenId: string; rules: readonly Rule[]; expiresAt: number | null; quotas: Quotas };
