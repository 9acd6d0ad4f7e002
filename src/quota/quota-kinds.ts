import type { Quotas } from "../auth/principal.ts";
import { quotaRatePerSecondMax } from "../limits.ts";

/**
 * What a token's quotas count (Kafka's client quotas): bytes produced, bytes fetched, and
 * requests. Each kind has its own bucket, and a request is refused while any kind it needs
 * is in debt.
 */
export const quotaKinds = ["produceBytes", "fetchBytes", "requests"] as const;
export type QuotaKind = (typeof quotaKinds)[number];

/** Usage of each kind: bytes or requests. */
export type Usage = Record<QuotaKind, number>;

/** Milliseconds each kind stays throttled (0: not throttled). */
export type Throttle = Record<QuotaKind, number>;

const quotaField = {
  produceBytes: "produceBytesPerSecond",
  fetchBytes: "fetchBytesPerSecond",
  requests: "requestsPerSecond",
} as const satisfies Record<QuotaKind, keyof Quotas>;

export function noUsage(): Usage {
  return { produceBytes: 0, fetchBytes: 0, requests: 0 };
}

/**
 * A kind's rate per second, or undefined when the quotas leave it unlimited. Token creation
 * validates quotas; this keeps the arithmetic exact whatever arrives (a whole number from 1
 * to quotaRatePerSecondMax).
 */
export function rateOf(quotas: Quotas, kind: QuotaKind): number | undefined {
  const rate = quotas[quotaField[kind]];
  if (rate === undefined || !Number.isFinite(rate)) return undefined;
  return Math.min(Math.max(1, Math.floor(rate)), quotaRatePerSecondMax);
}

/** Whether any kind is limited: a token without quotas never meets the quota machinery. */
export function hasQuotas(quotas: Quotas): boolean {
  return quotaKinds.some((kind) => rateOf(quotas, kind) !== undefined);
}
