/**
 * Bounds of consumer groups: members, subscriptions, sessions and heartbeats, the coordinator's
 * writes of members' contact times, commit metadata, Kafka's classic protocol (issue 35).
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

import { MiB } from "./units.ts";

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

/**
 * Characters of a member id a Kafka client chose for itself (ConsumerGroupHeartbeat v1,
 * KIP-1082): the Java client's is a 22-character UUID, franz-go's a 36-character one; a
 * bound keeps what a member stores small, as for group names.
 */
export const memberIdLengthMax = 255;

/** Times the group asks its id generator for an unused member id before giving up. */
export const memberIdAttemptsMax = 3;

/**
 * Characters of a committed offset's metadata string: Kafka's offset.metadata.max.bytes (4096).
 * Kafka compares it with the string's length (Java's String.length, UTF-16 code units, which is
 * JavaScript's too), not its encoded bytes; so does Tributary. A partition's row then stays a few
 * KiB at most (≤ 3 bytes of UTF-8 per unit).
 */
export const offsetMetadataLengthMax = 4_096;

/**
 * Bytes of protocol metadata and assignments a classic group keeps (issue 35), all members
 * together: Kafka keeps them in one group metadata record of its offsets topic, which must fit
 * the topic's 1 MB message size, so no Kafka group holds more. Tributary keeps them as base64
 * in the coordinator's state row (⁴⁄₃ larger), under the platform's 2 MB row. A JoinGroup or a
 * leader's SyncGroup past it is refused (MESSAGE_TOO_LARGE), as Kafka fails a record too large.
 */
export const classicGroupBytesMax = 1 * MiB;

/**
 * Kafka's group.initial.rebalance.delay.ms: a classic group rebalancing from empty waits this
 * long for more members before it completes the join phase (extended while members keep
 * coming, up to the rebalance timeout), so consumers started together rebalance once.
 */
export const classicInitialRebalanceDelayMs = 3_000;

/**
 * How long the coordinator holds one call of a classic member that waits (a JoinGroup for the
 * rebalance to complete, a follower's SyncGroup for the leader's assignments) before it
 * answers "pending" and the gateway calls again. Kafka holds the request for up to the
 * rebalance timeout; a bounded call keeps each HTTP request and object call short, and a call
 * lost with a restarted object is just made again.
 */
export const classicWaitMsMax = 10_000;

/** Protocols (assignors) one classic member lists in its JoinGroup: clients offer a few, in preference order. */
export const classicProtocolsMax = 16;

/**
 * Bytes of a classic JoinGroup or SyncGroup body: a leader's SyncGroup carries every member's
 * assignment, up to classicGroupBytesMax as base64 (⁴⁄₃ larger) with the members' ids.
 */
export const classicRequestBytesMax = 2 * MiB;
