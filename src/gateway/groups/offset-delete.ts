/**
 * OffsetDelete (`kafka-consumer-groups --delete-offsets`, the Java Admin's
 * deleteConsumerGroupOffsets) onto `POST /v1/groups/{g}/offsets/delete`: the coordinator
 * applies Kafka's rule (src/group/offset-deletion.ts) and answers each partition, which is
 * Kafka's answer as it stands — GROUP_SUBSCRIBED_TO_TOPIC for a partition of a topic the
 * members subscribe to, UNKNOWN_TOPIC_OR_PARTITION for one that does not exist. A refusal of
 * the whole request is the top-level error with no topics (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP,
 * GROUP_AUTHORIZATION_FAILED), except a topic the token may not read: Kafka answers each
 * partition of it TOPIC_AUTHORIZATION_FAILED, and the route refuses the request whole, so every
 * partition named is answered so (nothing was deleted).
 */
import { isErrorCode, TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode } from "../kafka-errors.ts";
import { kafkaCodes, orKafkaCode } from "./kafka-codes.ts";
import type { OffsetDeleteRequest, OffsetDeleteResponse } from "./messages.ts";

export async function offsetDelete(request: OffsetDeleteRequest, context: GatewayRequestContext): Promise<OffsetDeleteResponse> {
  const groups = context.tributary.admin().groups;
  // A topic or partition named twice is asked once (the route refuses repeats) and answered as named.
  const named = request.topics.flatMap(({ name, partitions }) => partitions.map(({ partitionIndex }) => ({ topic: name, partition: partitionIndex })));
  const distinct = [...new Map(named.map((entry) => [`${entry.topic}\u0000${entry.partition}`, entry])).values()];
  if (distinct.length === 0) {
    // Nothing to delete: Kafka still answers whether the group exists.
    return { errorCode: (await orKafkaCode(() => groups.describe(request.groupId))).errorCode, throttleTimeMs: 0, topics: [] };
  }
  const deleted = await orKafkaCode(() => groups.deleteOffsets(request.groupId, distinct));
  const codes = new Map<string, number>();
  if (deleted.value === undefined) {
    if (deleted.errorCode !== kafkaCodes.TOPIC_AUTHORIZATION_FAILED) return { errorCode: deleted.errorCode, throttleTimeMs: 0, topics: [] };
    for (const { topic, partition } of distinct) codes.set(`${topic}\u0000${partition}`, deleted.errorCode);
  } else {
    for (const { topic, partition, error } of deleted.value) {
      const code = error === null ? kafkaCodes.NONE : isErrorCode(error.code) ? kafkaErrorCode(new TributaryError(error.code, error.message)) : kafkaCodes.UNKNOWN_SERVER_ERROR;
      codes.set(`${topic}\u0000${partition}`, code);
    }
  }
  return {
    errorCode: kafkaCodes.NONE,
    throttleTimeMs: 0,
    topics: request.topics.map(({ name, partitions }) => ({
      name,
      partitions: partitions.map(({ partitionIndex }) => ({ partitionIndex, errorCode: codes.get(`${name}\u0000${partitionIndex}`) ?? kafkaCodes.UNKNOWN_SERVER_ERROR })),
    })),
  };
}
