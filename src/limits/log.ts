import { KiB, MiB } from "./units.ts";

/**
 * Bounds of the partition log: records and batches, topics, fetches and what a partition object
 * holds for them (the tail cache, scans, long-poll waiters, group commit), idempotent producers,
 * tiered storage.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

// ---- Records and batches ------------------------------------------------------------

/** Default and largest `max.message.bytes`: one record (key, value, headers). Kafka's default is ~1 MiB too. */
export const recordBytesMax = 1 * MiB;

/**
 * One stored batch is one SQLite row; the platform caps a row at 2 MB, so a batch stays at
 * 1 MiB plus the batch framing of the single record that may fill it. A produce request
 * larger than this is split into several batches, written atomically together.
 */
export const batchBytesMax = 1 * MiB + 64 * KiB;

/**
 * Bytes a compressed batch's records may inflate to (issue 27). Whoever decodes one — the
 * router validating a produce, a reader showing records, compaction, the client — holds the
 * inflated records in memory at once, and a Worker has 128 MB: so a decoder stops at this
 * bound, in time as in memory, and a batch past it is refused as a decompression bomb
 * (MESSAGE_TOO_LARGE). Kafka's clients close a batch at `batch.size` before compressing
 * (16 KiB in the Java client, 1 MB in librdkafka and franz-go), far below it.
 */
export const decompressedBatchBytesMax = 8 * MiB;

/**
 * The heap of the Worker's zstd decoder (libzstd as WebAssembly, src/protocol/compression/
 * zstd-wasm.ts). WebAssembly memory only grows, so what it takes stays the isolate's: it holds
 * one decode at a time — the compressed bytes (a batch, ~1 MiB), the output (at most
 * decompressedBatchBytesMax), libzstd's context (~160 KiB) and emscripten's first 2 MiB — and
 * 32 MiB leaves room for the largest of each while keeping most of a Worker's 128 MB free. A
 * decode that needs more is refused as too large.
 */
export const zstdWasmHeapBytesMax = 32 * MiB;

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
/**
 * Records in one binary fetch answer (docs/api.md): the stored batches are handed on as they
 * are, no record is built, so the bytes bound the answer; this bound stays for readers that
 * count. Kafka's Fetch has no record bound at all: the gateway asks this many, so that a Fetch
 * of small records is cut by its bytes, as Kafka cuts it, and reads ahead in large ranges.
 */
export const binaryFetchMaxRecordsMax = 1_000_000;
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

/**
 * A transactional id's length in characters (produce's `transactionalId`, docs/transactions.md):
 * Kafka bounds it only by its int16 string length; this keeps it within a Durable Object name
 * and a log line.
 */
export const transactionalIdLengthMax = 256;

/**
 * Partitions one `writeTransactionMarkers` call writes markers to at once (the coordinator's
 * end of a transaction): each is one subrequest to a partition leader, and a Worker invocation
 * has a bounded number of simultaneous open connections (6).
 */
export const markerWritesInParallelMax = 6;
