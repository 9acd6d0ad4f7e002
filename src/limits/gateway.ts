import { fetchMaxBytesMax } from "./log.ts";
import { produceRequestBytesMax } from "./router.ts";
import { MiB } from "./units.ts";

/**
 * Bounds of the Kafka gateway (`tributary gateway`): what one gateway process holds per client
 * connection, and its reads and writes to Tributary.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

// ---- Kafka gateway (`tributary gateway`, src/gateway/): what one gateway process holds per client ----

/**
 * The largest request frame the gateway reads (Kafka's socket.request.max.bytes is 100 MiB):
 * a produce request holds at most what one binary produce takes (produceRequestBytesMax) plus
 * its headers; a larger announced size closes the connection before any byte is buffered.
 */
export const gatewayFrameBytesMax = produceRequestBytesMax + 1 * MiB;

/**
 * Requests of one connection read and not yet answered: past it the gateway stops reading the
 * socket until an answer goes out (Kafka's clients keep at most 5 in flight by default; a
 * consumer's fetch long poll holds one).
 */
export const gatewayInFlightRequestsMax = 32;

/** Answers queued to a client that does not read them: past it the gateway stops reading that client's requests. */
export const gatewayBufferedBytesMax = 64 * MiB;

/** A connection with nothing in flight and nothing received for this long is closed (Kafka's connections.max.idle.ms is 10 minutes). */
export const gatewayIdleMs = 10 * 60_000;

/** Client connections one gateway holds at once by default (`--max-connections`); one more is closed at once. */
export const gatewayConnectionsMax = 1_000;

/**
 * KIP-848 members whose subscription one connection remembers (src/gateway/groups/
 * consumer-subscriptions.ts): a consumer heartbeats for one member, so a group's largest
 * membership is far more than any real client needs; past it the oldest is forgotten (its
 * member keeps the topics the coordinator has).
 */
export const gatewayConsumerMembersPerConnectionMax = 1_000;

/** After SIGINT/SIGTERM, in-flight requests get this long to be answered before the gateway exits. */
export const gatewayDrainMs = 10_000;

/** How long the gateway trusts a topic listing for Metadata (API.md's propagation bound). */
export const gatewayMetadataMaxAgeMs = 5_000;

// ---- Kafka gateway: Fetch read-ahead, chained per partition (src/gateway/handlers/fetch-read-ahead.ts, issue 16) ----

/**
 * Per partition of a client connection, at most this many reads are made ahead of the client's
 * Fetches (each starting where the one before it ended): one answer ready for the next Fetch and
 * one read under way meanwhile, so that a read slower than the client's handling of one answer
 * still does not keep the client waiting. (With one, kafkajs waited up to 70 ms for a read of
 * 10,000 records on a busy 2-core machine.) Their byte bounds still add up to at most
 * gatewayReadAheadBytesMax per connection.
 */
export const gatewayReadAheadDepth = 2;

/**
 * Per client connection, the byte bounds of the reads the gateway makes ahead of the client's
 * next Fetches add up to at most this: two binary fetches' largest answers, so that one
 * partition can have one read answered and the next under way (gatewayReadAheadDepth) at the
 * largest read (gatewayReadAheadReadBytes), and partitions together share it.
 */
export const gatewayReadAheadBytesMax = gatewayReadAheadDepth * fetchMaxBytesMax;

/**
 * A read made ahead of a partition's Fetches asks up to this many bytes — one binary fetch's
 * largest answer, never fewer than the Fetch's own bound — as the connection's
 * gatewayReadAheadBytesMax allows each partition of the Fetch its gatewayReadAheadDepth reads:
 * each answers several Fetches in turn (fetch-read-ahead.ts). A request to Tributary costs
 * milliseconds whatever it carries (through `wrangler dev` 3–5 ms; from a gateway far from
 * Cloudflare, its round trip), so a read of 8 MiB keeps a fast client fed where reads of 1 MiB
 * chained one after another do not (bench/RESULTS.md, the Java consumer row).
 */
export const gatewayReadAheadReadBytes = fetchMaxBytesMax;

/**
 * A read made ahead is used for at most this long after it started; older, it is dropped and
 * the next Fetch reads afresh. The same staleness the gateway accepts in its topic listing
 * (gatewayMetadataMaxAgeMs, API.md's propagation bound): records below the high watermark do
 * not change, and a range removed by retention or deletion meanwhile is served at most this late.
 */
export const gatewayReadAheadMaxAgeMs = gatewayMetadataMaxAgeMs;

// ---- Kafka gateway: Produce over node:http (src/gateway/upstream-post.ts, issue 16) ----

/**
 * A kept-alive connection from the gateway to Tributary for its record-batch POSTs is closed
 * after this long unused: undici's (fetch's) own default, so that the gateway does not reuse a
 * connection the server is about to close (a produce on it would fail with a reset).
 */
export const gatewayUpstreamIdleMs = 4_000;

/**
 * Transactional ids whose producer identities one gateway process keeps (docs/gateway.md,
 * Transactions: the epoch a client reuses after an end, translated to the one the coordinator
 * answered). The oldest used is forgotten past it: its producer's next request goes with the
 * epoch the client holds, which the coordinator refuses (PRODUCER_FENCED) — never a write in
 * the wrong transaction — and the client initializes again.
 */
export const gatewayTransactionalIdsMax = 10_000;

/**
 * DescribeLogDirs (src/gateway/handlers/describe-log-dirs.ts) describes each topic it answers
 * with one `GET /v1/topics/{t}`: at most this many at once, so that a request for every topic
 * of a large deployment does not open hundreds of requests together.
 */
export const gatewayLogDirTopicsInFlightMax = 8;

/**
 * KIP-932 share groups on the wire (src/gateway/share/): members of one share group one gateway
 * keeps (its heartbeats and ShareGroupDescribe; Tributary's own bound on a consumer group's
 * members), how long a member and its share session live unheard (Kafka's
 * group.share.session.timeout.ms), share sessions one gateway holds (Kafka's
 * group.share.max.share.sessions is 2,000 a broker), and the acquired records of one session
 * whose lease it remembers to map Kafka's offset acknowledgements onto Tributary's leases (past
 * it a fetch acquires nothing more until some are acknowledged or their locks expire).
 */
export const gatewayShareMembersMax = 1_000;
export const gatewayShareSessionTimeoutMs = 45_000;
export const gatewayShareSessionsMax = 2_000;
export const gatewayShareHeldRecordsMax = 50_000;
