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
 * only what its rules allow, until it expires or is revoked. A write or read token (`minted`)
 * is a `token` too, named by the token it was minted from ("admin" or a scoped token's id),
 * with the one rule of its topic.
 */
export type Principal =
  | { kind: "open" }
  | { kind: "admin" }
  | { kind: "token"; tokenId: string; rules: readonly Rule[]; expiresAt: number | null; quotas: Quotas; minted?: "write" | "read" };
