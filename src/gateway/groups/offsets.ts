/**
 * OffsetCommit and OffsetFetch on the coordinator's committed offsets, the very ones
 * `GET /v1/groups/{group}/offsets` and the CLI show. A member commits with its generation as a
 * classic member: on Kafka's classic path as Kafka checks it (its generation, its instance id,
 * not while the leader assigns); on the server's path for the partitions it still owns, until
 * it rejoins. A commit with generation -1 and no member comes from outside
 * the group (admin tools, a consumer with manual assignment): accepted while the group is empty.
 * Each commit's metadata string is kept and answered by OffsetFetch; one longer than Kafka's
 * offset.metadata.max.bytes is OFFSET_METADATA_TOO_LARGE for its partition alone, the others
 * committed (Kafka's answer). Tributary keeps no leader epoch: OffsetFetch answers -1.
 * OffsetFetch's require_stable (v7+) is `?requireStable=true`: the partitions a transaction
 * holds uncommitted offsets of answer UNSTABLE_OFFSET_COMMIT (retriable: the client asks
 * again once the transaction ended), the others their committed offsets.
 */
import { offsetMetadataLengthMax } from "../../limits.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { consumerCodes } from "./consumer-heartbeat.ts";
import { isConsumerMember } from "./consumer-subscriptions.ts";
import { kafkaCodeOf, kafkaCodes, orKafkaCode } from "./kafka-codes.ts";
import { commitOffsets } from "./member-calls.ts";
import { offsetCommitById, offsetFetchById } from "./offsets-by-id.ts";
import { path } from "../../client/transport.ts";
import { TributaryError } from "../../errors.ts";
import type {
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetFetchRequest,
  OffsetFetchResponse,
  OffsetFetchTopicAnswer,
  OffsetFetchTopics,
} from "./messages.ts";

/** A commit's partitions (OffsetCommit's, TxnOffsetCommit's) as the commit routes take them. */
export function committedPositions(topics: readonly { name: string; partitions: readonly { partitionIndex: number; committedOffset: bigint; committedMetadata: string | null; committedLeaderEpoch?: number }[] }[]) {
  return topics.flatMap(({ name, partitions }) =>
    partitions.map(({ partitionIndex, committedOffset, committedMetadata, committedLeaderEpoch = -1 }) => ({
      topic: name,
      partition: partitionIndex,
      offset: Number(committedOffset),
      metadata: committedMetadata ?? "",
      // KIP-320: kept with the offset and answered by OffsetFetch, for the consumer's check of its position there.
      ...(committedLeaderEpoch >= 0 ? { leaderEpoch: committedLeaderEpoch } : {}),
    })),
  );
}

export async function offsetCommit(request: OffsetCommitRequest, context: GatewayRequestContext): Promise<OffsetCommitResponse> {
  if (context.apiVersion >= 10) return offsetCommitById(request, context, (named) => offsetCommitByName(named, context));
  return offsetCommitByName(request, context);
}

async function offsetCommitByName(request: OffsetCommitRequest, context: GatewayRequestContext): Promise<OffsetCommitResponse> {
  const requested = committedPositions(request.topics);
  const tooLarge = (metadata: string) => metadata.length > offsetMetadataLengthMax;
  const offsets = requested.filter(({ metadata }) => !tooLarge(metadata));
  const generation = request.generationIdOrMemberEpoch ?? -1;
  const memberId = request.memberId ?? "";
  const valid = offsets.every(({ offset }) => Number.isSafeInteger(offset) && offset >= 0);
  let errorCode: number = kafkaCodes.NONE;
  if (request.groupId === "") errorCode = kafkaCodes.INVALID_GROUP_ID;
  else if (!valid) errorCode = kafkaCodes.INVALID_REQUEST;
  else if (offsets.length > 0) {
    // A KIP-848 member's commit is checked by the server's rule (its previous epoch too: a commit sent before the heartbeat answer that moved it).
    const consumer = isConsumerMember(context, request.groupId, memberId);
    const member = generation >= 0 && memberId !== "" ? { memberId, memberEpoch: generation, classic: !consumer, groupInstanceId: request.groupInstanceId ?? null } : {};
    errorCode = (await orKafkaCode(() => commitOffsets(context, request.groupId, { ...member, offsets }))).errorCode;
    // Kafka's answer to a commit from outside a group that has members.
    if (errorCode === kafkaCodes.NON_EMPTY_GROUP) errorCode = kafkaCodes.UNKNOWN_MEMBER_ID;
    // A KIP-848 member at an older epoch commits again once its heartbeat brought the new one.
    if (errorCode === kafkaCodes.ILLEGAL_GENERATION && consumer) errorCode = consumerCodes.STALE_MEMBER_EPOCH;
  }
  return {
    throttleTimeMs: 0,
    topics: request.topics.map(({ name, partitions }) => ({
      name,
      partitions: partitions.map(({ partitionIndex, committedMetadata }) => ({
        partitionIndex,
        errorCode: request.groupId !== "" && tooLarge(committedMetadata ?? "") ? kafkaCodes.OFFSET_METADATA_TOO_LARGE : errorCode,
      })),
    })),
  };
}

export async function offsetFetch(request: OffsetFetchRequest, context: GatewayRequestContext): Promise<OffsetFetchResponse> {
  if (context.apiVersion >= 10) return offsetFetchById(request, context, (groupId, topics) => fetchGroup(groupId, topics, context, request.requireStable === true));
  if (request.groups !== undefined) {
    const groups = await Promise.all(
      request.groups.map(async ({ groupId, topics }) => ({ groupId, ...(await fetchGroup(groupId, topics, context, request.requireStable === true)) })),
    );
    return { throttleTimeMs: 0, groups };
  }
  const answer = await fetchGroup(request.groupId ?? "", request.topics ?? null, context, request.requireStable === true);
  return { throttleTimeMs: 0, topics: answer.topics, errorCode: answer.errorCode };
}

/** One group's committed offsets for the named partitions (all committed ones when `topics` is null); -1 where none is. */
async function fetchGroup(group: string, topics: OffsetFetchTopics[] | null, context: GatewayRequestContext, requireStable: boolean) {
  const unstable = new Set<string>();
  if (requireStable) {
    try {
      await context.transport.json({ method: "GET", path: path("groups", group, "offsets"), query: { requireStable: "true" } });
    } catch (error) {
      // An unknown group has nothing unstable: its offsets are read as usual below.
      const unknownGroup = error instanceof TributaryError && error.code === "GROUP_ID_NOT_FOUND";
      if (!unknownGroup && !(error instanceof TributaryError && error.code === "UNSTABLE_OFFSET_COMMIT")) return { topics: [], errorCode: kafkaCodeOf(error) };
      const pending = unknownGroup ? [] : ((error.data as { partitions?: { topic: string; partition: number }[] }).partitions ?? []);
      for (const { topic, partition } of pending) unstable.add(`${partition}:${topic}`);
    }
  }
  const listed = await orKafkaCode(() => context.tributary.admin().groups.offsets(group));
  // An unknown group has committed nothing: Kafka answers -1 for every partition, no error.
  if (listed.errorCode !== 0 && listed.errorCode !== kafkaCodes.GROUP_ID_NOT_FOUND) return { topics: [], errorCode: listed.errorCode };
  const committed = new Map<string, { offset: number; metadata: string | null; leaderEpoch?: number }>();
  for (const { topic, partition, offset, metadata, leaderEpoch } of listed.value ?? []) if (offset !== null) committed.set(`${partition}:${topic}`, { offset, metadata, leaderEpoch });
  const wanted = topics ?? committedTopics(listed.value ?? []);
  const answer: OffsetFetchTopicAnswer[] = wanted.map(({ name, partitionIndexes }) => ({
    name,
    partitions: partitionIndexes.map((partitionIndex) => {
      const key = `${partitionIndex}:${name}`;
      if (unstable.has(key)) return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: "", errorCode: kafkaCodes.UNSTABLE_OFFSET_COMMIT };
      const entry = committed.get(key);
      return { partitionIndex, committedOffset: BigInt(entry?.offset ?? -1), committedLeaderEpoch: entry?.leaderEpoch ?? -1, metadata: entry?.metadata ?? "", errorCode: 0 };
    }),
  }));
  return { topics: answer, errorCode: 0 };
}

function committedTopics(offsets: readonly { topic: string; partition: number; offset: number | null }[]): OffsetFetchTopics[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition, offset } of offsets) {
    if (offset !== null) byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  }
  return [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
}
