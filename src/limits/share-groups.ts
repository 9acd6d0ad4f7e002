/**
 * Bounds of share groups (KIP-932): a share-partition's in-flight window, locks, delivery
 * counts, acknowledgements, dead letters, share fetches, and the replication of its state.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

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
