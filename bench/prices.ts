/**
 * Cloudflare's published prices for what Tributary uses, Workers Paid plan, as read on the
 * date below from developers.cloudflare.com (workers/platform/pricing,
 * durable-objects/platform/pricing, r2/pricing). The one place the bill (bench/bill-math.ts)
 * takes them from: when Cloudflare changes a price, change it here with the date.
 *
 * Each "included" amount is per month for the account; each price is in US dollars per the
 * unit its name says. Durable Objects' duration counts 128 MB per active object: Cloudflare's
 * own examples multiply seconds by 128 MB / 1 GB = 0.128 GB.
 *
 * Checked on that date against Cloudflare's stored pages: Durable Objects' requests, duration
 * and footnotes (every RPC method call on a stub is one billed session; "idle and eligible for
 * hibernation" is not billed, even before the runtime hibernates the object — older pages
 * billed the 10 s before hibernation), R2's table, and Workers Standard's requests and CPU
 * (as the Workflows page restates them) — all as below. The SQLite storage lines were not in
 * the stored part of the Durable Objects page; they are the prices given for issue 19, the
 * same as D1's published ones.
 */
export const pricesReadOn = "2026-12-03";

export const prices = {
  workers: {
    /** The Workers Paid subscription. */
    baseMonthly: 5,
    requestsIncluded: 10_000_000,
    perMillionRequests: 0.3,
    cpuMsIncluded: 30_000_000,
    perMillionCpuMs: 0.02,
  },
  durableObjects: {
    /** RPC sessions (each call on a stub), HTTP requests, alarm invocations; incoming WebSocket messages 20 to a request. */
    requestsIncluded: 1_000_000,
    perMillionRequests: 0.15,
    websocketMessagesPerRequest: 20,
    gbSecondsIncluded: 400_000,
    perMillionGbSeconds: 12.5,
    /** GB billed per second an object is active (not hibernatable). */
    gbPerActiveObject: 0.128,
  },
  sqlite: {
    rowsReadIncluded: 25_000_000_000,
    perMillionRowsRead: 0.001,
    rowsWrittenIncluded: 50_000_000,
    perMillionRowsWritten: 1,
    storedGbMonthIncluded: 5,
    perGbMonth: 0.2,
  },
  r2: {
    storedGbMonthIncluded: 10,
    perGbMonth: 0.015,
    /** put, list, multipart */
    classAIncluded: 1_000_000,
    perMillionClassA: 4.5,
    /** get, head */
    classBIncluded: 10_000_000,
    perMillionClassB: 0.36,
    /** deletes and egress are free */
  },
} as const;

export type Prices = typeof prices;
