/**
 * ConsumerGroupDescribe (KIP-848) from the coordinator's description (`GET /v1/groups/{g}`).
 * A group on Kafka's classic path (classic members only, a leader assigning) is not a consumer
 * group in Kafka's sense: GROUP_ID_NOT_FOUND, as Kafka 4 answers, and the Java Admin client
 * describes it with DescribeGroups instead. The coordinator keeps one epoch per member, not
 * Kafka's group and assignment epochs: both are answered as the largest member epoch; a
 * member's target assignment is shown as its current one, and its subscription as the topics
 * it is assigned.
 */
import type { Assignment } from "../../group/assignment.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import type { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, DescribedAssignment, DescribedConsumerGroup } from "./consumer-messages.ts";
import { kafkaCodes, orKafkaCode } from "./kafka-codes.ts";

const authorizedOperationsOmitted = -2147483648;
const memberTypes = { classic: 0, consumer: 1 } as const;

export async function consumerGroupDescribe(request: ConsumerGroupDescribeRequest, context: GatewayRequestContext): Promise<ConsumerGroupDescribeResponse> {
  const groups = await Promise.all(request.groupIds.map((groupId) => describeOne(groupId, context)));
  return { throttleTimeMs: 0, groups };
}

async function describeOne(groupId: string, context: GatewayRequestContext): Promise<DescribedConsumerGroup> {
  const base = { groupId, groupState: "", groupEpoch: -1, assignmentEpoch: -1, assignorName: "", members: [], authorizedOperations: authorizedOperationsOmitted };
  if (groupId === "") return { ...base, errorCode: kafkaCodes.INVALID_GROUP_ID, errorMessage: "GroupId can't be empty." };
  const described = await orKafkaCode(() => context.tributary.admin().groups.describe(groupId));
  if (described.value === undefined) return { ...base, errorCode: described.errorCode, errorMessage: `group ${groupId} could not be described` };
  const { state, assignor, members, classic } = described.value;
  if (classic !== undefined) return { ...base, errorCode: kafkaCodes.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a consumer group.` };
  const epoch = Math.max(0, ...members.map(({ memberEpoch }) => memberEpoch));
  return {
    ...base,
    errorCode: 0,
    errorMessage: null,
    groupState: state,
    groupEpoch: epoch,
    assignmentEpoch: epoch,
    assignorName: assignor,
    members: await Promise.all(
      members.map(async (member) => {
        const assignment = await describedAssignment(member.assignment, context);
        return {
          memberId: member.memberId,
          instanceId: member.groupInstanceId ?? null,
          rackId: null,
          memberEpoch: member.memberEpoch,
          clientId: member.clientId ?? "",
          clientHost: member.host ?? "",
          subscribedTopicNames: member.assignment.map(({ topic }) => topic),
          subscribedTopicRegex: null,
          assignment,
          targetAssignment: assignment,
          memberType: memberTypeOf(member.groupInstanceId),
        };
      }),
    ),
  };
}

/**
 * Describe gives a classic member's instance id (null when dynamic), a static consumer's, and
 * none for the other consumers: a static member's kind is not known from it (-1, Kafka's unknown).
 */
function memberTypeOf(groupInstanceId: string | null | undefined): number {
  if (groupInstanceId === undefined) return memberTypes.consumer;
  return groupInstanceId === null ? memberTypes.classic : -1;
}

/** An assignment by topic id and name (a topic that cannot be described any more shows the zero id). */
async function describedAssignment(assignment: Assignment, context: GatewayRequestContext): Promise<DescribedAssignment> {
  return {
    topicPartitions: await Promise.all(
      assignment.map(async ({ topic, partitions }) => ({ topicId: (await context.session.topicId(topic)) ?? new Uint8Array(16), topicName: topic, partitions: [...partitions] })),
    ),
  };
}
