import { KiB, MiB } from "./units.ts";

/**
 * Bounds of the router (the stateless Worker) and its data plane: request bodies, cached
 * metadata and object ids, tokens and authorization, per-token quotas, metrics, catch-up reads
 * from R2.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

// ---- Produce requests ---------------------------------------------------------------

/**
 * A produce request body. Large enough for 5,000-record batches of 1 KiB values as JSON,
 * small enough that the router's decoded copy and the batches it builds fit comfortably in
 * an isolate's 128 MB alongside other requests.
 */
export const produceRequestBytesMax = 16 * MiB;

/** Records in one produce request: bounds per-request work in the router and the response size. */
export const produceRecordsMax = 50_000;

/** Any other JSON body (topic admin, groups): small documents. */
export const adminRequestBytesMax = 256 * KiB;

// ---- Metadata -----------------------------------------------------------------------

/** How long the router trusts cached topic metadata (API.md: changes show within 5 s). */
export const metadataCacheMsMax = 5_000;

/** Topics the router keeps cached metadata for, per isolate. */
export const metadataCacheEntriesMax = 1_000;

/**
 * Partition replica ids kept per isolate (src/contracts/stubs.ts): `idFromName` hashes the name
 * on every call otherwise. An id is a few dozen bytes; a thousand covers every partition
 * replica a busy isolate talks to (partitionsPerTopicMax is 256).
 */
export const replicaIdsCachedMax = 1_000;

// ---- Tokens and authorization -------------------------------------------------------

/**
 * Scoped tokens the controller stores. Each is a small row read only when a router's cache
 * misses; tokens are credentials for services and pages' backends, not per-user sessions
 * (a page gets a short-lived write token, which is not stored at all).
 */
export const tokensMax = 10_000;

/** Rules on one token: an ACL names resources, it is not a catalogue (Kafka bounds none). */
export const tokenRulesMax = 100;

/** Characters of a token's name: a label for people. */
export const tokenNameLengthMax = 255;

/**
 * How long a router isolate trusts what the controller said of a token (API.md: a revoked
 * token fails "within seconds"). Expiry is checked on every request, not cached.
 */
export const tokenCacheMs = 5_000;

/** Tokens (and rejected bearer strings) one router isolate remembers; the oldest goes first. */
export const tokenCacheEntriesMax = 10_000;

/** Characters of a bearer token the router looks at: longer ones are refused unread. */
export const bearerTokenLengthMax = 1_024;

/**
 * Lifetime of a browser write token (docs/api.md): short, because a page holds it where any
 * script on the page can read it; long enough for a page view. Default and largest.
 */
export const writeTokenTtlMsDefault = 10 * 60 * 1000;
export const writeTokenTtlMsMax = 60 * 60 * 1000;

/**
 * Lifetime of a read token (docs/api.md, "Read tokens for browsers"): the same reasoning as a
 * write token, since a page holds it and a query token appears in Cloudflare's URL logs.
 */
export const readTokenTtlMsDefault = 10 * 60 * 1000;
export const readTokenTtlMsMax = 60 * 60 * 1000;

// ---- Client quotas (per token) ------------------------------------------------------

/**
 * A token bucket's burst: it holds at most this long's worth of the token's rate (burst =
 * rate × window). Kafka measures a quota over quota.window.num × quota.window.size.seconds
 * (11 × 1 s); a bucket refilled continuously needs no samples, and one second keeps a client
 * from banking more than a second of idle time for a burst while still letting it send a
 * second's worth at once. One request larger than the burst is still served (Kafka's rule:
 * usage is recorded after the request); the token then waits until its debt is repaid.
 */
export const quotaWindowMs = 1_000;

/**
 * The largest rate a quota may name (bytes or requests per second): 1 TiB/s, beyond any
 * deployment, and small enough that the buckets' integer arithmetic (rate × milliseconds)
 * stays exact below 2^53.
 */
export const quotaRatePerSecondMax = 2 ** 40;

/**
 * How long an isolate may hold a token's usage before sending it to the token's QuotaMeter.
 * Shorter enforces more tightly across isolates; longer costs fewer object requests. Each
 * isolate that serves a token sends at most ~1,000 / 500 = 2 flushes per second for it on
 * this account, so the meter (one object, ~1,000 requests/s) serves hundreds of isolates.
 */
export const quotaFlushIntervalMs = 500;

/**
 * An isolate also sends a token's usage at once when it reaches this fraction of the
 * token's rate (one second's worth), so a fast client meets its limit within about a tenth
 * of a second of traffic per isolate, and a slow quota (a few requests per second) is sent
 * every request.
 */
export const quotaFlushRateFraction = 0.1;

/**
 * The longest a request waits for the token's QuotaMeter (the first request of a token in
 * an isolate asks it once before it is served) and the longest a flush may stay in flight.
 * Past it the request is served (quotas fail open: a slow meter must not stop traffic) and
 * the isolate stops waiting for that answer.
 */
export const quotaMeterCallTimeoutMs = 1_000;

/**
 * Tokens whose usage and throttle state one isolate remembers. An entry is ~200 bytes; past
 * the bound the least recently used token is forgotten, with its unsent usage (less than a
 * flush's worth) forgiven.
 */
export const quotaTokensPerIsolateMax = 10_000;

/**
 * Flushes (or waits for the flush interval) one request's follow-up work may chain while
 * usage keeps arriving, so that work ends well within the platform's 30 s for waitUntil; the
 * next request of the token picks up where it stopped.
 */
export const quotaFlushStepsMax = 16;

// ---- Metrics (docs/metrics.md) ------------------------------------------------------

/**
 * How long a router isolate reuses the metrics it gathered (GET /v1/metrics): each gathering
 * calls every partition leader and group coordinator, so scrapes every few seconds from
 * several Prometheus servers and console tabs cost one fan-out per isolate per period.
 */
export const metricsCacheMs = 5_000;

/**
 * Calls one gathering makes at once (partition leaders, group coordinators): enough to gather
 * hundreds of partitions in a few round trips without one scrape flooding the objects.
 */
export const metricsFanOutConcurrencyMax = 16;

/**
 * Topics, partitions and groups one gathering covers (in name order; the rest are left out and
 * counted in tributary_metrics_omitted). Each costs one subrequest (a topic's metadata, a
 * partition leader, a group coordinator), and the platform bounds an invocation's subrequests
 * (1,000 on paid plans): 128 + 512 + 256 plus the two listings stay under it.
 */
export const metricsTopicsMax = 128;
export const metricsPartitionsMax = 512;
export const metricsGroupsMax = 256;

/**
 * How often a partition object writes its lazily kept counters (bytes appended, fetches,
 * records fetched, the per-minute history) when they changed: one row per minute per busy
 * partition instead of one per request. A restart loses at most this long's worth of them.
 */
export const metricsPersistIntervalMs = 60_000;

/** One-minute buckets of records in and out a partition keeps for the console's charts. */
export const metricsHistoryMinutes = 15;

/**
 * Tokens one router isolate counts throttled requests for, each its own series; past it the
 * rest share the token="other" series, so a flood of tokens cannot grow the isolate's memory
 * or the exposition without bound (tokensMax is 10,000).
 */
export const metricsThrottledTokensMax = 1_000;

/**
 * The router's latency histogram's buckets, in seconds: from a cached read (a few ms) to a
 * long poll's whole wait (fetchWaitMsMax); fixed, so every isolate's series add up.
 */
export const requestDurationBucketsSeconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

// ---- Catch-up reads from R2 in the router (src/data-plane/sealed-reads.ts) ----------------

/**
 * How long a router isolate trusts its copy of a partition's published manifest for fetches
 * past what it lists (or of a partition that published none): such fetches go to the
 * partition object without asking R2, and a segment sealed meanwhile is served by the object
 * until the copy is this old — correct, only dearer. A fetch inside the sealed range always
 * revalidates the copy first (a conditional R2 read, no body when unchanged), so the copy's
 * age never lets a deleted segment or an offset below the log start be served.
 */
export const sealedManifestTtlMs = 5_000;

/** Partitions whose published manifest one router isolate keeps (least recently used goes first). */
export const sealedManifestsCachedMax = 1_024;

/**
 * Segments listed across the manifests one isolate keeps: ~200 bytes of memory each, so
 * ~10 MB of an isolate's 128 MB at most; past it the least recently used manifests go.
 */
export const sealedManifestSegmentsCachedMax = 50_000;

/**
 * Index runs of sealed segments one isolate keeps decoded (immutable, keyed by object):
 * ~100 bytes each, ~6.5 MB; an 8 MiB segment of small batches has ~2,000 runs, so the
 * indexes of ~30 such segments. Past it the least recently used indexes go.
 */
export const sealedIndexRunsCachedMax = 65_536;

/**
 * Segment ranges one router isolate remembers having read from R2 once, so that it puts a
 * range into the Cache API only when it reads it from R2 again (src/data-plane/sealed-reads.ts):
 * ~150 bytes of key each, ~1.5 MB; at 10,000 records a fetch, the ranges of ~100 M records.
 */
export const sealedRangesReadOnceMax = 10_000;

/**
 * Tries of one R2-served fetch: the first, and one more with a freshly read manifest when a
 * segment object was gone (retention or compaction swapped it meanwhile); then the partition
 * object serves the fetch.
 */
export const sealedReadAttemptsMax = 2;
