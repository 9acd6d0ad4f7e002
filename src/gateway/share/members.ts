/**
 * ShareGroupHeartbeat (KIP-932) and ShareGroupDescribe. Tributary's share groups have no
 * membership: any fetch may take any available record of the group's topics, and a lock, not
 * an owner, keeps a record with one consumer (docs/api.md, Share groups). So every member is
 * assigned every partition of the topics it subscribes to — a valid share-group assignment,
 * since a share-partition may go to many members — and the gateway keeps the members itself,
 * in memory, for the heartbeats' epochs and for ShareGroupDescribe: a member not heard from for
 * a session timeout is gone. Members of one group behind two gateway processes do not see each
 * other in a describe; their consumption is shared all the same, through Tributary.
 */
import { path } from "../../client/transport.ts";
import { gatewayShareMembersMax, gatewayShareSessionTimeoutMs } from "../../limits.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaCodes } from "../groups/kafka-codes.ts";
import { kafkaErrors } from "../kafka-errors.ts";

/** The heartbeat interval the gateway asks of its share members. */
const heartbeatIntervalMs = 5_000;

export interface ShareMember {
  memberId: string;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  rackId: string | null;
  topics: string[];
  /** The assignment last answered, as topic:partition keys joined (to answer it only when it changes). */
  sentAssignment: string | null;
  lastSeenMs: number;
}

interface ShareGroupMembers {
  groupEpoch: number;
  members: Map<string, ShareMember>;
}

const groups = new Map<string, ShareGroupMembers>();

/** The group's members heard from within a session timeout (the others are dropped). */
export function liveMembers(groupId: string, nowMs = Date.now()): ShareGroupMembers | undefined {
  const group = groups.get(groupId);
  if (group === undefined) return undefined;
  for (const [id, member] of group.members) if (nowMs - member.lastSeenMs > gatewayShareSessionTimeoutMs) group.members.delete(id);
  if (group.members.size === 0) groups.delete(groupId);
  return group.members.size === 0 ? undefined : group;
}

/** Forgets the group's members (DeleteGroups of a share group). */
export function forgetShareGroup(groupId: string): void {
  groups.delete(groupId);
}

interface HeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  rackId: string | null;
  subscribedTopicNames: string[] | null;
}

interface TopicIdPartitions {
  topicId: Uint8Array;
  partitions: number[];
}

export async function shareGroupHeartbeat(request: HeartbeatRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const answer = (errorCode: number, errorMessage: string | null, memberEpoch: number, assignment: { topicPartitions: TopicIdPartitions[] } | null = null) => ({
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    memberId: request.memberId === "" ? null : request.memberId,
    memberEpoch,
    heartbeatIntervalMs: errorCode === 0 ? heartbeatIntervalMs : 0,
    assignment,
  });
  if (request.groupId === "") return answer(kafkaErrors.INVALID_REQUEST, "GroupId can't be empty.", request.memberEpoch);
  if (request.memberId === "") return answer(kafkaErrors.INVALID_REQUEST, "MemberId can't be empty.", request.memberEpoch);
  const group = liveMembers(request.groupId);
  let member = group?.members.get(request.memberId);
  if (request.memberEpoch === -1) {
    if (member === undefined) return answer(kafkaErrors.UNKNOWN_MEMBER_ID, null, -1);
    group!.members.delete(request.memberId);
    group!.groupEpoch += 1;
    return answer(kafkaErrors.NONE, null, -1);
  }
  if (request.memberEpoch === 0) {
    if (request.subscribedTopicNames === null || request.subscribedTopicNames.length === 0) return answer(kafkaErrors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.", 0);
    const joined = group ?? { groupEpoch: 0, members: new Map<string, ShareMember>() };
    if (member === undefined && joined.members.size >= gatewayShareMembersMax) return answer(kafkaCodes.GROUP_MAX_SIZE_REACHED, `at most ${gatewayShareMembersMax} members of a share group per gateway`, 0);
    groups.set(request.groupId, joined);
    joined.groupEpoch += 1;
    member = { memberId: request.memberId, memberEpoch: joined.groupEpoch, clientId: context.clientId ?? "", clientHost: context.clientHost, rackId: request.rackId, topics: [], sentAssignment: null, lastSeenMs: Date.now() };
    joined.members.set(request.memberId, member);
  } else if (member === undefined) {
    return answer(kafkaErrors.UNKNOWN_MEMBER_ID, `member ${request.memberId} is not in share group ${request.groupId}`, request.memberEpoch);
  } else if (request.memberEpoch !== member.memberEpoch) {
    return answer(kafkaErrors.FENCED_MEMBER_EPOCH, `member epoch ${request.memberEpoch} is not the member's ${member.memberEpoch}`, request.memberEpoch);
  }
  member.lastSeenMs = Date.now();
  if (request.rackId !== null) member.rackId = request.rackId;
  if (request.subscribedTopicNames !== null) member.topics = [...new Set(request.subscribedTopicNames)].sort();
  const assignment = await assignedPartitions(member.topics, context);
  const key = assignment.map(({ topic, partitions }) => `${topic}:${partitions.join(",")}`).join(";");
  if (key === member.sentAssignment) return answer(kafkaErrors.NONE, null, member.memberEpoch);
  if (member.sentAssignment !== null) {
    const owner = groups.get(request.groupId)!;
    owner.groupEpoch += 1;
    member.memberEpoch = owner.groupEpoch;
  }
  member.sentAssignment = key;
  return answer(kafkaErrors.NONE, null, member.memberEpoch, { topicPartitions: assignment.map(({ topicId, partitions }) => ({ topicId, partitions })) });
}

/** Every partition of the subscribed topics that exist now (one a gateway token may not describe is left out). */
async function assignedPartitions(topics: readonly string[], context: GatewayRequestContext): Promise<{ topic: string; topicId: Uint8Array; partitions: number[] }[]> {
  const listing = new Map((await context.session.topics()).map((topic) => [topic.name, topic]));
  const assigned = await Promise.all(
    topics.map(async (topic) => {
      const summary = listing.get(topic);
      const topicId = summary === undefined ? undefined : await context.session.topicId(topic);
      return summary === undefined || topicId === undefined ? undefined : { topic, topicId, partitions: Array.from({ length: summary.partitions }, (_, partition) => partition) };
    }),
  );
  return assigned.filter((entry) => entry !== undefined);
}

interface DescribeRequest {
  groupIds: string[];
}

/** ShareGroupDescribe: the gateway's members of each group (a group with none is Empty when Tributary knows it, else GROUP_ID_NOT_FOUND). */
export async function shareGroupDescribe(request: DescribeRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const described = await Promise.all(
    request.groupIds.map(async (groupId) => {
      const base = { groupId, errorMessage: null, groupEpoch: 0, assignmentEpoch: 0, assignorName: "simple", members: [] as unknown[], authorizedOperations: -2147483648 };
      const group = liveMembers(groupId);
      if (group === undefined) {
        const known = await context.transport.json({ method: "GET", path: path("share-groups", groupId) }).then(
          () => true,
          () => false,
        );
        return known ? { ...base, errorCode: 0, groupState: "Empty" } : { ...base, errorCode: kafkaErrors.GROUP_ID_NOT_FOUND, errorMessage: `share group ${groupId} not found`, groupState: "Dead" };
      }
      const members = await Promise.all(
        [...group.members.values()].map(async (member) => ({
          memberId: member.memberId,
          rackId: member.rackId,
          memberEpoch: member.memberEpoch,
          clientId: member.clientId,
          clientHost: member.clientHost,
          subscribedTopicNames: member.topics,
          assignment: { topicPartitions: (await assignedPartitions(member.topics, context)).map(({ topic, topicId, partitions }) => ({ topicId, topicName: topic, partitions })) },
        })),
      );
      return { ...base, errorCode: 0, groupState: "Stable", groupEpoch: group.groupEpoch, assignmentEpoch: group.groupEpoch, members };
    }),
  );
  return { throttleTimeMs: 0, groups: described };
}
