/**
 * Every bound in Tributary, in one place (ARCHITECTURE.md decision 8). Each constant is
 * named with its unit last and says why it has the value it has. Code enforces these before
 * doing any work, so a request over a bound is refused with nothing written.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

// ---- Records and batches ------------------------------------------------------------

/** Default and largest `max.message.bytes`: one record (key, value, headers). Kafka's default is ~1 MiB too. */
export const recordBytesMax = 1 * MiB;

/**
 * One stored batch is one SQLite row; the platform caps a row at 2 MB, so a batch stays at
 * 1 MiB plus the batch framing of the single record that may fill it. A produce request
 * larger than this is split into several batches, written atomically together.
 */
export const batchBytesMax = 1 * MiB + 64 * KiB;

/** Headers on one record: Kafka has no bound, but a header map is metadata, not payload. */
export const headersPerRecordMax = 64;

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

// ---- Topics -------------------------------------------------------------------------

/** Kafka's own limit on topic names. */
export const topicNameLengthMax = 249;

/**
 * Partitions of one topic. Describe and delete touch every partition object in one
 * invocation, and the platform bounds the subrequests of an invocation (1,000 on paid plans).
 */
export const partitionsPerTopicMax = 256;

/** Replication factor: a partition's replicas live in distinct regions, and there are 9 location hints; Kafka tops out at a handful too. */
export const replicationFactorMax = 5;

/** Topic configs in one create or alter request. */
export const configEntriesMax = 64;

/** `segment.bytes` range, as API.md states it. */
export const segmentBytesMin = 64 * KiB;
export const segmentBytesMax = 64 * MiB;

// ---- Fetch --------------------------------------------------------------------------

export const fetchMaxRecordsDefault = 500;
/** Records in one fetch answer: bounds the JSON the router builds per request. */
export const fetchMaxRecordsMax = 10_000;
export const fetchMaxBytesDefault = 1 * MiB;
/** Bytes in one fetch answer, as API.md states; well inside RPC's 32 MiB message limit. */
export const fetchMaxBytesMax = 8 * MiB;
/** Long-poll wait: long enough to save requests, short enough for proxies and clients. */
export const fetchWaitMsMax = 30_000;

/**
 * Bytes of the newest batches a partition object keeps in memory besides SQLite, so reads
 * near the head touch no storage. An isolate's 128 MB is shared by the objects it runs.
 */
export const tailCacheBytesMax = 4 * MiB;

/**
 * Rows of the partition log that one SQLite statement reads: a scan (a read below the tail
 * cache, a seal's plan) asks for this many first, then twice as many each time, up to the
 * max. Each page is read to its end: a statement left unfinished keeps SQLite's read
 * transaction, and with it the write-ahead log, open (src/objects/sqlite-log-store.ts).
 */
export const logScanPageRowsFirst = 4;
export const logScanPageRowsMax = 256;

/**
 * Long-poll waiters held by one partition object. Each holds a promise and an RPC; an
 * object has 128 MB shared with others in its isolate. Past the bound the oldest waiter is
 * answered (empty) so the newest can wait.
 */
export const waitersPerPartitionMax = 1_000;

/**
 * Appends one partition object holds while its previous storage write becomes durable
 * (group commit, src/log/group-commit.ts): they are then written together in one
 * transaction. A busy partition sees a handful (one per request in flight); past the bound
 * the object is overloaded and refuses with a retriable 503 BROKER_BUSY rather than
 * queueing without bound (the platform's soft limit is ~1,000 requests/s per object).
 */
export const appendsWaitingMax = 256;
/**
 * Bytes of batches waiting for group commit. Waiting appends hold their batches in the
 * object's memory (128 MB per isolate, shared): two of the largest produce requests
 * (produceRequestBytesMax) fit, so a large append still waits rather than bouncing.
 */
export const appendBytesWaitingMax = 32 * MiB;

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

// ---- Replication --------------------------------------------------------------------

/** Bytes of batches in one push from a leader to a follower: far below RPC's 32 MiB, a few rows' worth. */
export const replicationPushBytesMax = 4 * 1024 * 1024;

/**
 * How long a leader waits for a follower's answer to one push, and the controller for a
 * liveness probe. Cross-region round trips are ~100–300 ms; past this the replica counts
 * as unreachable for now (the push is retried; the ISR shrinks only after
 * replica.lag.time.max.ms).
 */
export const replicaCallTimeoutMs = 5_000;

/** A leader's retry period for followers that are behind or unreachable (its alarm). */
export const replicationRetryMs = 1_000;

/**
 * How long a leader's pushes to a follower must have been quiet before it sends the follower
 * the high watermark the last push could not carry (ReplicaNode.syncDue "announce"): so a
 * nearby reader (KIP-392) sees every acknowledged record within about this long after the
 * last write, while a partition under steady writes pays no extra call (each push carries
 * the high watermark), and an idle one nothing at all.
 */
export const highWatermarkAnnounceQuietMs = 1_000;

/**
 * The longest an acks "all" produce waits for its ISR before answering a retriable
 * REQUEST_TIMED_OUT (Kafka's request.timeout.ms default is 30 s too). The records may still
 * become visible later; the producer retries.
 */
export const produceAckTimeoutMs = 30_000;

/** Partition objects the controller tombstones at once when deleting a topic. */
export const deleteFanOutConcurrencyMax = 32;

// ---- Idempotent producers -----------------------------------------------------------

/**
 * Runs of consecutive records (consecutive sequences at consecutive offsets) a partition
 * remembers per producer, to answer a retry with its original offsets. Kafka remembers the
 * last 5 batches (an idempotent producer keeps at most 5 requests in flight); one request
 * always lies inside one run, so this covers at least the producer's last 5 requests
 * (API.md) however many batches each holds.
 */
export const producerRunsRemembered = 5;

/** API.md: producer state idle this long may be forgotten (Kafka's transactional.id.expiration.ms default). */
export const producerIdleMsMax = 7 * 24 * 60 * 60 * 1000;

/**
 * Producers one partition remembers. Each costs a row of ~200 bytes, read once per
 * idempotent append; Kafka bounds none, but a Worker that makes a producer per invocation
 * creates producer ids by the thousand. Past the bound the producer idle longest is
 * forgotten first (a retry of its last requests is then written again, as after expiry).
 */
export const producersPerPartitionMax = 10_000;

// ---- Consumer groups ----------------------------------------------------------------

/**
 * Members of one group. The coordinator is one single-threaded object (~1,000 requests/s):
 * 1,000 members heartbeating every 5 s are 200 requests/s before any poll, and each
 * heartbeat walks the group's ownership in O(partitions). Kafka leaves this unbounded
 * (group.consumer.max.size); a group larger than its partition count idles members anyway.
 */
export const membersPerGroupMax = 1_000;

/** Topics in one member's subscription: a subscription names topics, it is not a catalogue. */
export const subscribedTopicsMax = 32;

/**
 * Distinct topics across every subscription of the group. With partitionsPerTopicMax (256)
 * this bounds a group at 16,384 partitions, so the serialized state (each partition in a
 * target, an assignment and at most one previous assignment) stays well under the platform's
 * 2 MB row and the assignor runs in milliseconds.
 */
export const groupTopicsMax = 64;

/**
 * Characters in a group name. Kafka bounds none, but a group name names the coordinator
 * object, travels in every group URL and is a key of the controller's group index: a few
 * hundred characters is plenty, as for topic names (249).
 */
export const groupIdLengthMax = 255;

/** Kafka's group.consumer.min.session.timeout.ms: shorter sessions expire members on a hiccup. */
export const sessionTimeoutMsMin = 6_000;

/** Kafka's group.consumer.max.session.timeout.ms: a dead member holds its partitions at most this long. */
export const sessionTimeoutMsMax = 1_800_000;

/** Kafka's group.consumer.session.timeout.ms. */
export const sessionTimeoutMsDefault = 45_000;

/**
 * Kafka's group.consumer.heartbeat.interval.ms. A member is told to heartbeat at most a third
 * of its session timeout apart, so two lost heartbeats in a row still do not expire it.
 */
export const heartbeatIntervalMsDefault = 5_000;

/**
 * A member's contact time is written to the coordinator's state row at least once per this
 * fraction of its session, not on every heartbeat (that would be a row written per heartbeat):
 * a heartbeat writes the row when the member's contact has moved a quarter session or more
 * past the one the row holds. After a restart (Cloudflare evicts idle objects routinely, and
 * the expiry alarm starts a fresh one) each member counts as heard from at the latest time it
 * may have been — the row's time plus a quarter session, never later than the restart — so a
 * member that stopped heartbeating is removed at most a quarter session late (the slack: 11.25 s
 * at the 45 s default), never early, however often the object restarts. The row is then written
 * about once per quarter session per active group, whatever its size.
 */
export const memberContactPersistDivisor = 4;

/**
 * Characters of a member's client id (Kafka's client.id, shown by describe): a label for
 * people, sent with every join, so a few hundred characters is plenty, as for group names.
 */
export const clientIdLengthMax = 255;

/** Characters of the client address a describe shows: an IPv6 address in text is at most 45. */
export const clientHostLengthMax = 45;

/** Times the group asks its id generator for an unused member id before giving up. */
export const memberIdAttemptsMax = 3;

// ---- Tiered storage -----------------------------------------------------------------

/**
 * A sealed segment's index holds one entry per run of whole batches at least this long
 * (Kafka's index.interval.bytes, 4 KiB by default), so the index stays sparse however small
 * the batches: a 64 MiB segment has at most ~16,400 entries of 36 bytes (~590 KiB), which fits
 * the manifest's row in SQLite (a row is at most 2 MB) and an isolate's memory. A batch at
 * least this long gets an entry of its own. A reader reads at most this much before the offset
 * it wants, and skips those records as it does for any batch that starts before it.
 */
export const segmentIndexIntervalBytes = 4 * KiB;

/**
 * Segments' worth of bytes the SQLite tier may hold before produce answers a retriable
 * 503 BROKER_BUSY: sealing runs as soon as a segment is full, so more than a few segments
 * unsealed means R2 writes are failing or the leader cannot keep up, and SQLite must stay
 * bounded whatever is written (uncommitted batches above the high watermark count too).
 */
export const unsealedSegmentsMax = 4;

/**
 * The SQLite tier's bound in bytes whatever segment.bytes says: unsealedSegmentsMax segments
 * of the largest segment.bytes. Far below the platform's 10 GB per object.
 */
export const unsealedBytesMax = unsealedSegmentsMax * segmentBytesMax;

/**
 * Distinct keys one compaction pass maps to their latest offset. A map entry costs ~100 bytes
 * of an isolate's 128 MB (shared with other objects) beyond the key itself; a pass that meets
 * more keys compacts up to where its map filled and the next pass continues from there (as
 * Kafka's cleaner does with log.cleaner.dedupe.buffer.size).
 */
export const compactionKeysMax = 200_000;

/** Bytes of keys one compaction pass holds in its map: with compactionKeysMax, ~36 MiB at most. */
export const compactionKeyBytesMax = 16 * MiB;

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

// ---- Streaming reads (SSE and WebSocket) ------------------------------------------------

/**
 * Longest gap between two things an SSE stream sends while idle (and the longest before the
 * first): proxies and browsers drop connections silent for ~30–100 s, so half of the
 * shortest common timeout.
 */
export const streamKeepaliveIntervalMs = 15_000;

/**
 * The wait of each long poll an SSE stream makes: under the keep-alive interval, so that an
 * idle stream's keep-alive (sent after each empty poll) goes out in time, with 5 s to spare
 * for the poll's own latency.
 */
export const streamPollWaitMs = 10_000;

/**
 * How long the router holds one SSE stream before ending it (the client reconnects with
 * Last-Event-ID). It bounds the work one request keeps alive in an isolate (a long poll
 * every few seconds), lets deploys drain within minutes, and keeps the reconnect cost (one
 * request) negligible against what the stream delivered.
 */
export const streamDurationMsMax = 5 * 60 * 1000;

/**
 * Partition reads one SSE stream makes before the server ends it (the client reconnects with
 * Last-Event-ID, as after streamDurationMsMax). Each read is a subrequest of the one
 * invocation holding the stream, and the platform bounds those (1,000 on paid plans); a busy
 * partition answers a poll per event, so without this a stream could meet that bound and die
 * mid-event. The rest of the bound is left for metadata and token lookups.
 */
export const streamReadsMax = 900;

/**
 * Streams one token may hold open at once: per router isolate for SSE, per partition object
 * for WebSockets. Bounds what one credential (a leaked read token, a buggy page opening a
 * stream per render) can pin in memory and in long polls. Past it: 429 THROTTLING_QUOTA_EXCEEDED.
 */
export const streamsPerTokenMax = 100;

/**
 * WebSocket subscribers one partition leader object holds. Each holds a socket and its
 * window state in an object whose 128 MB its isolate shares, and a committed batch is sent
 * to each in one pass. Past it the upgrade is 503 BROKER_BUSY (retriable).
 */
export const streamsPerPartitionMax = 1_000;

/**
 * A WebSocket's flow-control window: frame bytes the leader may have sent and not had
 * credited back. Bounds what one slow subscriber makes the leader (and the socket's buffer)
 * hold; one fetch answer's default size, so a caught-up reader never waits on credit.
 */
export const streamWindowBytes = 1 * MiB;

/**
 * How long a WebSocket may stay without room in its window while records wait before the
 * leader closes it (4429): bounds how long a stalled reader occupies a subscriber slot.
 */
export const streamStalledMsMax = 60_000;

/**
 * How often an SSE stream over a whole topic visits each partition while idle, at most, and
 * how long it trusts the topic's partitions: the metadata cache's 5 s plus this stays within
 * docs/api.md's 10 s for reading a partition added while streaming.
 */
export const streamTopicVisitMs = 5_000;

/**
 * Long polls one SSE stream over a whole topic holds at once (the platform lets one
 * invocation hold 6 connections open at once). A topic may have 256 partitions: more than this many are visited in turn, each poll waiting
 * streamTopicVisitMs × this / partitions, so every partition is read at least every
 * streamTopicVisitMs. An idle stream thus costs about partitions / 5 s reads per second (≈ 51
 * at 256 partitions): large topics are cheaper streamed per partition or by WebSocket.
 */
export const streamTopicPollsMax = 6;

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

// ---- Share groups (KIP-932; issue 15) --------------------------------------------------

/**
 * A share-partition's in-flight window: offsets from its start (every record below is
 * accepted or archived) to its end (the next record never fetched). No record at or past
 * start + this is acquired until the start moves, so the state an object keeps and writes
 * per request stays bounded whatever consumers do (Kafka bounds the same window with
 * group.share.partition.max.record.locks). A record stuck under a long lock holds the window
 * back at most for its lock duration.
 */
export const shareInFlightRecordsMax = 5_000;

/** Kafka's group.share.record.lock.duration.ms bounds: a lock short enough to notice a dead consumer, long enough to work. */
export const shareLockDurationMsMin = 1_000;
export const shareLockDurationMsMax = 3_600_000;
export const shareLockDurationMsDefault = 30_000;

/** Kafka's group.share.delivery.count.limit bounds: a record is delivered at most this many times. */
export const shareDeliveryCountLimitMin = 2;
export const shareDeliveryCountLimitMax = 10;
export const shareDeliveryCountLimitDefault = 5;

/**
 * Share-partitions (topic partitions it has fetched) one share group keeps: its describe and
 * delete walk them all, two subrequests each (the partition's leader or object, and its
 * state), and an invocation's subrequests are bounded (1,000 on paid plans).
 */
export const shareGroupPartitionsMax = 256;

/** Share groups the index lists (GET /v1/share-groups answers them all in one response). */
export const shareGroupsMax = 10_000;

/** Acknowledgements (offsets, over all entries) in one request: bounds one object transaction. */
export const shareAcknowledgedOffsetsMax = 10_000;

/**
 * Records handed out to one router at a time for a dead-letter write; another router may take
 * them over after this long (the write failed or its router died), so nothing is stuck.
 */
export const shareDeadLetterClaimMs = 30_000;

/** Records one router dead-letters per request (one read and one append each way), so a backlog drains over requests, bounded each. */
export const shareDeadLettersPerRequestMax = 500;

/**
 * Partitions one share fetch asks to acquire per round (a random choice each time, so every
 * partition is asked over a few fetches), besides those whose acknowledgements ride along:
 * each costs a call to its share-partition and one or two reads of its leader, and an
 * invocation's subrequests are bounded (1,000 on paid plans) over all rounds of a long poll.
 */
export const shareFetchPartitionsPerRoundMax = 16;

/** Rounds of acquire-then-wait in one share fetch's long poll (each wait ends at the deadline, a lock's expiry or new records). */
export const shareFetchWaitRoundsMax = 8;
// ---------------------------------------------------------------------------------------------
// Kafka gateway (`tributary gateway`, src/gateway/): what one gateway process holds per client.
// ---------------------------------------------------------------------------------------------

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

/** After SIGINT/SIGTERM, in-flight requests get this long to be answered before the gateway exits. */
export const gatewayDrainMs = 10_000;

/** How long the gateway trusts a topic listing for Metadata (API.md's propagation bound). */
export const gatewayMetadataMaxAgeMs = 5_000;
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
// ---- Subscriptions: Tributary pushes to a webhook or a Worker (docs/api.md, Subscriptions) ----

/** A subscription's name: as a topic's (it names a share group and an object), Kafka's 249 characters. */
export const subscriptionNameLengthMax = 249;

/** Records one delivery carries at most: a webhook body of up to this many records stays a few MiB. */
export const subscriptionBatchSizeMax = 1_000;

/** Bytes of record payload one delivery reads at most (a single larger record still goes alone). */
export const subscriptionBatchBytesMax = 4 * 1024 * 1024;

/** The longest wait for a batch to fill, and the longest delay between retries of the same records (Queues' bounds). */
export const subscriptionWaitMsMax = 60_000;
export const subscriptionRetryDelayMsMax = 60_000;

/** Batches one subscription delivers at once (across partitions in ordered mode). */
export const subscriptionInFlightMax = 64;
export const subscriptionInFlightDefault = 8;

/** A target's answer time: a webhook or Worker that takes longer has failed this delivery (it is retried). */
export const subscriptionDeliveryTimeoutMs = 30_000;

/** Bytes of a webhook's answer read for acknowledgements; a longer body is only a 2xx. */
export const subscriptionAnswerBytesMax = 1024 * 1024;

/** Subscriptions a deployment holds: the listing answers them all in one response. */
export const subscriptionsMax = 1_000;

/** A secret's length, and the characters of a target's error kept as `lastError`. */
export const subscriptionSecretLengthMax = 256;
export const subscriptionErrorLengthMax = 500;

/**
 * Deliveries one alarm run makes before it re-arms the alarm for at once: a subscription far
 * behind yields to other calls (pause, delete, wakes) and never meets the alarm's wall-time limit.
 */
export const subscriptionDeliveriesPerRunMax = 200;

/** Subscriptions one partition wakes when it commits records (rows in the leader's SQLite). */
export const partitionWakeupsMax = 1_000;

/**
 * Records a subscription reads ahead of its batches, per partition, kept in its object's
 * memory: a stored batch is read and decoded once, not once per delivery of `batchSize`
 * records (a producer's batch often holds hundreds). A read brings at most
 * subscriptionReadAheadBytes of payload (one larger record alone), so a subscription over
 * 64 partitions keeps at most 32 MiB, within an object's 128 MB.
 */
export const subscriptionReadAheadRecords = 2_000;
export const subscriptionReadAheadBytes = 512 * 1024;

/**
 * How often a subscription writes the positions its target accepted, as a Kafka consumer's
 * auto.commit.interval.ms (5 s there): a write per batch would hold each next delivery until it
 * is durable. A restart redelivers at most this long's accepted batches (at least once).
 */
export const subscriptionCommitIntervalMs = 1_000;
// ---- Durable Streams (src/durable-streams/, docs/durable-streams.md) ------------------

/**
 * One protocol append is one record: its bytes stay within recordBytesMax, less room for the
 * record's framing and its closing header. A larger body is 413, nothing written.
 */
export const streamAppendBytesMax = recordBytesMax - 1 * KiB;

/**
 * The bytes one catch-up read answers at most (the protocol's "server-defined chunk size"):
 * the reader continues from Stream-Next-Offset. A whole record always comes, as in a fetch.
 */
export const streamReadBytesMax = 1 * MiB;

/**
 * How long a long-poll read waits for data before 204 when the Worker's
 * DURABLE_STREAMS_LONG_POLL_MS does not say otherwise: within fetchWaitMsMax, the wait a
 * partition leader holds a read for, and under the protocol's usual CDN intervals (20 s).
 */
export const streamLongPollWaitMsDefault = 20_000;

/** Stream-TTL at most: a hundred years, so an expiry time stays a safe integer of milliseconds. */
export const streamTtlSecondsMax = 100 * 365 * 24 * 3600;

/** Stream-Seq and Producer-Id: opaque strings a writer picks; bounded as the metadata they are. */
export const streamSeqLengthMax = 256;
export const streamProducerIdLengthMax = 256;

/**
 * Producer-Epoch and Producer-Seq ride in the record batch's producer fields (Kafka's int16
 * epoch and int32 sequence): the protocol allows up to 2^53 − 1, this server up to these.
 */
export const streamProducerEpochMax = 0x7fff;
export const streamProducerSeqMax = 0x7fffffff;

/** The protocol's cursor intervals for CDN collapsing: 20 s each, counted from 2024-10-09T00:00:00Z. */
export const streamCursorIntervalMs = 20_000;

/**
 * A fork copies its source's records up to the fork offset into its own topic when it is
 * created (docs/durable-streams.md, "Forks"): at most this many bytes of values, read into
 * the router's memory first so that a refused fork writes nothing (413 beyond).
 */
export const streamForkBytesMax = 16 * MiB;
// ---- WebSocket credit ahead of consumption (issue 14's billed-requests target) ---------

/**
 * The largest flow-control window a WebSocket subscriber may grant itself: credit is
 * additive (HTTP/2 WINDOW_UPDATE-style) and may run ahead of what the client has processed,
 * so a window starts at streamWindowBytes and grows with credit up to this; credit past it
 * is clamped, not refused. It bounds the frame bytes the leader may have sent to one socket
 * that the client has not processed (and the runtime may hold queued for a socket that stops
 * reading), for a client that grants no more than the opening grant plus what it processed:
 * 4 MiB, or 3 MiB plus one frame larger than the room left (docs/api.md). Large enough that a client returning credit at half of it sends one message
 * per ~2 MiB of frames (~9,700 records of 216 B: 0.005 billed requests per 1,000 records, as
 * Cloudflare bills incoming WebSocket messages 20 to a request). Worst case per partition:
 * streamsPerPartitionMax × this = 4 GiB if every subscriber granted the most and stopped
 * reading at once (1 GiB with the starting window); streamsPerTokenMax (100) makes that take
 * at least 10 read credentials, and streamStalledMsMax closes each such socket within 60 s.
 */
export const streamWindowBytesMax = 4 * MiB;

/**
 * A client's WebSocket stream (the group consumer's default) that opens this many records or
 * more behind the high watermark first catches up over binary fetches, then opens its socket
 * near the head (src/client/stream-catch-up.ts). Fetches of sealed offsets are served by the
 * router from R2 (ARCHITECTURE decision 11) without a partition object request, and go one
 * ahead of the consumer, where a socket's history comes through the partition object in
 * window-bounded frames (and, on Node, deflated by the runtime: 3–5 × slower measured on
 * this machine). One fetch's worth: less than this behind, the socket alone is as cheap.
 */
export const streamCatchUpRecordsMin = 10_000;

/** A catch-up fetch's bytes at most: the stream's largest window, so catching up holds no more than a socket may. */
export const streamCatchUpFetchBytes = streamWindowBytesMax;

// ---- Share-partition state replication (issue 15) -------------------------------------------

/**
 * How often a leading share-partition state replica tries again, on calls that write nothing,
 * to bring a region that did not answer up to date (src/objects/share-state-leadership.ts):
 * once a second keeps an outage from costing a failed request per idle fetch, and a returning
 * region in sync long before its log replica can catch up and rejoin the ISR.
 */
export const shareStateSyncRetryMs = 1_000;

/**
 * Share groups a fault injection (POST /v1/faults, TRIBUTARY_FAULTS=1) asks at once for their
 * share-partitions of the faulted partition (src/router/share-faults.ts): the drill's request
 * keeps its subrequests in flight well under a Worker's limits, however many groups exist.
 */
export const shareFaultGroupsAtOnceMax = 50;

// ---- Kafka gateway: Fetch read-ahead (src/gateway/handlers/fetch-read-ahead.ts, issue 16) ----

/**
 * Per client connection, the byte bounds (each partition's Fetch bound, as asked) of the
 * partitions the gateway reads ahead of the client's next Fetch add up to at most this: one
 * binary fetch's largest answer, so a read-ahead holds no more than one more answer than the
 * client's own Fetch already may, and any single partition fits.
 */
export const gatewayReadAheadBytesMax = fetchMaxBytesMax;

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

// ---- Kafka gateway: chained Fetch read-ahead (src/gateway/handlers/fetch-read-ahead.ts, issue 16) ----

/**
 * Per partition of a client connection, at most this many reads are made ahead of the client's
 * Fetches (each starting where the one before it ended): one answer ready for the next Fetch and
 * one read under way meanwhile, so that a read slower than the client's handling of one answer
 * still does not keep the client waiting. (With one, kafkajs waited up to 70 ms for a read of
 * 10,000 records on a busy 2-core machine.) Their byte bounds still add up to at most
 * gatewayReadAheadBytesMax per connection.
 */
export const gatewayReadAheadDepth = 2;
