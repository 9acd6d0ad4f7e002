/**
 * Kafka's OffsetDelete (KIP-496; `kafka-consumer-groups --delete-offsets`, Admin's
 * deleteConsumerGroupOffsets) as a rule over a group's view: which of the named partitions'
 * committed offsets go, and each partition's answer. Kafka's group coordinator decides so:
 *
 * - a group that does not exist is GROUP_ID_NOT_FOUND, and nothing is deleted;
 * - a group on Kafka's classic path whose members are not Kafka consumers (Connect, a custom
 *   protocol type: Kafka cannot tell what they read) is NON_EMPTY_GROUP while it has members;
 * - a partition of a topic the members subscribe to is refused on its own with
 *   GROUP_SUBSCRIBED_TO_TOPIC (its members would only commit it again); an empty group
 *   subscribes to nothing;
 * - any other partition is answered without an error, committed or not, and its offset —
 *   and any a transaction holds for it — is deleted.
 *
 * Kafka's broker answers a partition of a topic it does not have UNKNOWN_TOPIC_OR_PARTITION
 * before the coordinator sees it; so does this rule. Pure: the object deletes what it answers.
 */
import { TributaryError, type ErrorCode } from "../errors.ts";

export interface PartitionRef {
  topic: string;
  partition: number;
}

/** What the rule needs of the group. */
export interface OffsetDeletionGroup {
  exists: boolean;
  empty: boolean;
  /** The protocol type of a group on Kafka's classic path; null on the server's path. */
  classicProtocolType: string | null;
  /** Every topic the members subscribe to. */
  subscribedTopics: readonly string[];
}

export interface PartitionDeletion extends PartitionRef {
  /** null: the partition's offset is deleted (or there was none). */
  error: { code: Extract<ErrorCode, "GROUP_SUBSCRIBED_TO_TOPIC" | "UNKNOWN_TOPIC_OR_PARTITION">; message: string } | null;
}

export interface OffsetDeletionPlan {
  /** The partitions whose offsets go, in request order. */
  deletes: PartitionRef[];
  /** One answer per partition named, in request order. */
  partitions: PartitionDeletion[];
}

const consumerProtocolType = "consumer";

/** `partitionsOf(topic)`: the topic's partition count, undefined for a topic that does not exist. */
export function planOffsetDeletion(
  group: OffsetDeletionGroup,
  name: string,
  partitions: readonly PartitionRef[],
  partitionsOf: (topic: string) => number | undefined,
): OffsetDeletionPlan {
  if (!group.exists) throw new TributaryError("GROUP_ID_NOT_FOUND", `group ${name} does not exist`);
  if (!group.empty && group.classicProtocolType !== null && group.classicProtocolType !== consumerProtocolType) {
    throw new TributaryError("NON_EMPTY_GROUP", `cannot delete offsets of group ${name}: its members (protocol type ${group.classicProtocolType}) are not Kafka consumers`);
  }
  const subscribed = new Set(group.empty ? [] : group.subscribedTopics);
  const deletes: PartitionRef[] = [];
  const answers = partitions.map(({ topic, partition }): PartitionDeletion => {
    const count = partitionsOf(topic);
    if (count === undefined || partition >= count) {
      const message = count === undefined ? `topic ${topic} does not exist` : `topic ${topic} has no partition ${partition}`;
      return { topic, partition, error: { code: "UNKNOWN_TOPIC_OR_PARTITION", message } };
    }
    if (subscribed.has(topic)) {
      return { topic, partition, error: { code: "GROUP_SUBSCRIBED_TO_TOPIC", message: `group ${name} has members subscribed to topic ${topic}` } };
    }
    deletes.push({ topic, partition });
    return { topic, partition, error: null };
  });
  return { deletes, partitions: answers };
}
