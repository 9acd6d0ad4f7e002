/**
 * The share-group offset admin calls (KIP-932) on Tributary's share groups:
 * DescribeShareGroupOffsets from the group's description (`GET /v1/share-groups/{g}`: each
 * share-partition's start offset, and as lag the records not yet done — available plus
 * acquired), AlterShareGroupOffsets as the group's reset to an offset (`POST …/offsets/reset`;
 * a group Tributary does not know yet is made first, as Kafka's call makes the group's state),
 * and DeleteShareGroupOffsets as the reset of the topic's partitions to where the group's
 * `auto.offset.reset` starts a new share-partition — what a deleted share-partition comes
 * back as in Kafka; Tributary keeps the share-partitions (describe still lists them). Both
 * changes are refused (NON_EMPTY_GROUP) while a record of the group is acquired.
 */
import { path } from "../../client/transport.ts";
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";

interface DescribedPartition {
  topic: string;
  partition: number;
  startOffset: number;
  available: number;
  acquired: number;
}

interface DescribedGroup {
  configs: Record<string, string>;
  partitions: DescribedPartition[];
}

const zeroId = new Uint8Array(16);

async function described(groupId: string, context: GatewayRequestContext): Promise<DescribedGroup> {
  return context.transport.json<DescribedGroup>({ method: "GET", path: path("share-groups", groupId) });
}

interface DescribeRequest {
  groups: { groupId: string; topics: { topicName: string; partitions: number[] }[] | null }[];
}

export async function describeShareGroupOffsets(request: DescribeRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const groups = await Promise.all(
    request.groups.map(async ({ groupId, topics }) => {
      let group: DescribedGroup;
      try {
        group = await described(groupId, context);
      } catch (error) {
        return { groupId, topics: [], errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error) };
      }
      const byKey = new Map(group.partitions.map((entry) => [`${entry.topic}\u0000${entry.partition}`, entry]));
      const wanted = topics ?? [...new Set(group.partitions.map(({ topic }) => topic))].map((topicName) => ({ topicName, partitions: group.partitions.filter(({ topic }) => topic === topicName).map(({ partition }) => partition) }));
      const answered = await Promise.all(
        wanted.map(async ({ topicName, partitions }) => ({
          topicName,
          topicId: (await context.session.topicId(topicName)) ?? zeroId,
          partitions: partitions.map((partitionIndex) => {
            const state = byKey.get(`${topicName}\u0000${partitionIndex}`);
            // A partition the group never fetched has no start offset (-1), as in Kafka.
            return { partitionIndex, startOffset: BigInt(state?.startOffset ?? -1), leaderEpoch: -1, lag: BigInt(state === undefined ? -1 : state.available + state.acquired), errorCode: 0, errorMessage: null };
          }),
        })),
      );
      return { groupId, topics: answered, errorCode: 0, errorMessage: null };
    }),
  );
  return { throttleTimeMs: 0, groups };
}

/** The group's reset of `topic` (its `partitions`, else all) to `to`; a group Tributary does not know is made first. */
async function reset(groupId: string, topic: string, to: unknown, partitions: number[] | undefined, context: GatewayRequestContext): Promise<void> {
  const call = () => context.transport.json({ method: "POST", path: path("share-groups", groupId, "offsets", "reset"), json: { topic, to, ...(partitions === undefined ? {} : { partitions }) } });
  try {
    await call();
  } catch (error) {
    if (!(error instanceof TributaryError) || error.code !== "GROUP_ID_NOT_FOUND") throw error;
    await context.transport.json({ method: "PATCH", path: path("share-groups", groupId, "configs"), json: { configs: {} } });
    await call();
  }
}

interface AlterRequest {
  groupId: string;
  topics: { topicName: string; partitions: { partitionIndex: number; startOffset: bigint }[] }[];
}

export async function alterShareGroupOffsets(request: AlterRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const responses = await Promise.all(
    request.topics.map(async ({ topicName, partitions }) => {
      const answered = await Promise.all(
        partitions.map(async ({ partitionIndex, startOffset }) => {
          try {
            await reset(request.groupId, topicName, { offset: Number(startOffset) }, [partitionIndex], context);
            return { partitionIndex, errorCode: 0, errorMessage: null };
          } catch (error) {
            return { partitionIndex, errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error) };
          }
        }),
      );
      return { topicName, topicId: (await context.session.topicId(topicName)) ?? zeroId, partitions: answered };
    }),
  );
  return { throttleTimeMs: 0, errorCode: kafkaErrors.NONE, errorMessage: null, responses };
}

interface DeleteRequest {
  groupId: string;
  topics: { topicName: string }[];
}

export async function deleteShareGroupOffsets(request: DeleteRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let group: DescribedGroup;
  try {
    group = await described(request.groupId, context);
  } catch (error) {
    return { throttleTimeMs: 0, errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error), responses: [] };
  }
  const to = group.configs["auto.offset.reset"] === "earliest" ? "earliest" : "latest";
  const responses = await Promise.all(
    request.topics.map(async ({ topicName }) => {
      const topicId = (await context.session.topicId(topicName)) ?? zeroId;
      const partitions = group.partitions.filter(({ topic }) => topic === topicName).map(({ partition }) => partition);
      if (partitions.length === 0) return { topicName, topicId, errorCode: 0, errorMessage: null };
      try {
        await reset(request.groupId, topicName, to, partitions, context);
        return { topicName, topicId, errorCode: 0, errorMessage: null };
      } catch (error) {
        return { topicName, topicId, errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error) };
      }
    }),
  );
  return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses };
}
