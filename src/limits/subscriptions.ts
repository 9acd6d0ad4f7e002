/**
 * Bounds of push subscriptions: batches, retries, deliveries in flight, read-ahead, commits.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

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
