/**
 * Bounds of replication: a leader's pushes to its followers and their timeouts, acks "all",
 * the controller's fan-out to a topic's partitions.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

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
