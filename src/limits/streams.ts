import { recordBytesMax } from "./log.ts";
import { KiB, MiB } from "./units.ts";

/**
 * Bounds of streaming reads: SSE streams, WebSocket subscribers and their credit, and the
 * Durable Streams protocol at /ds.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

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
