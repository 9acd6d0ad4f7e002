/**
 * Bounds of consumer groups. They belong in src/limits.ts (ARCHITECTURE.md decision 8) and
 * live here only until the lead moves them there; each is named with its unit last and says
 * why it has its value, as the rest of src/limits.ts does.
 */

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

/** Times the group asks its id generator for an unused member id before giving up. */
export const memberIdAttemptsMax = 3;
