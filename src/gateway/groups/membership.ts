/**
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup of classic consumers, bridged onto the
 * coordinator's server-side assignment (classic-bridge.ts has the decisions):
 * - JoinGroup joins or rejoins the member and answers its generation (= member epoch). No
 *   member is the leader: every member sends an empty SyncGroup, and the coordinator assigns.
 * - SyncGroup answers the member's assignment at that generation, as ConsumerProtocol
 *   Assignment bytes. It holds only partitions nobody else owns.
 * - Heartbeat checks in without moving anything; REBALANCE_IN_PROGRESS when the member's
 *   assignment must change (or it holds partitions it must give up): it rejoins.
 * - LeaveGroup frees the member's partitions at once.
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { assignorFor, chooseProtocol, consumerProtocolType, joinPlan, sessionTimeoutAccepted } from "./classic-bridge.ts";
import type { ChosenProtocol } from "./classic-bridge.ts";
import { encodeAssignment } from "../../protocol/consumer-protocol.ts";
import { kafkaCodeOf, kafkaCodes, orKafkaCode } from "./kafka-codes.ts";
import { checkInMember, heartbeatMember, joinMember, leaveMember } from "./member-calls.ts";
import type { MemberAnswer } from "./member-calls.ts";
import type {
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
} from "./messages.ts";
import { TributaryError } from "../../errors.ts";

export async function joinGroup(request: JoinGroupRequest, context: GatewayRequestContext): Promise<JoinGroupResponse> {
  const failed = (errorCode: number, memberId = request.memberId): JoinGroupResponse => joinAnswer(errorCode, memberId, -1, null);
  if (request.protocolType !== consumerProtocolType) return failed(kafkaCodes.INCONSISTENT_GROUP_PROTOCOL);
  const chosen = chooseProtocol(request.protocols);
  if (chosen === null) return failed(kafkaCodes.INCONSISTENT_GROUP_PROTOCOL);
  if (!sessionTimeoutAccepted(request.sessionTimeoutMs)) return failed(kafkaCodes.INVALID_SESSION_TIMEOUT);
  if (request.groupId === "") return failed(kafkaCodes.INVALID_GROUP_ID);
  try {
    const plan = joinPlan(request.memberId, context.apiVersion, chosen.cooperative);
    if (plan === "join" || plan === "join-then-require-id") {
      const joined = await joinNew(request, chosen, context);
      if (plan === "join-then-require-id") return failed(kafkaCodes.MEMBER_ID_REQUIRED, joined.memberId);
      return joinAnswer(0, joined.memberId, joined.memberEpoch, chosen.name);
    }
    const answer = plan === "rejoin-eager"
      ? await rejoinEager(request.groupId, request.memberId, chosen, context)
      : await rejoinCooperative(request.groupId, request.memberId, chosen, context);
    return joinAnswer(0, request.memberId, answer.memberEpoch, chosen.name);
  } catch (error) {
    return failed(kafkaCodeOf(error));
  }
}

function joinAnswer(errorCode: number, memberId: string, generationId: number, protocolName: string | null): JoinGroupResponse {
  return {
    throttleTimeMs: 0,
    errorCode,
    generationId,
    protocolType: errorCode === 0 ? consumerProtocolType : null,
    protocolName,
    leader: "",
    skipAssignment: false,
    memberId,
    members: [],
  };
}

/** Joins with the subscription's topics. */
async function joinNew(request: JoinGroupRequest, chosen: ChosenProtocol, context: GatewayRequestContext) {
  const settings = { sessionTimeoutMs: request.sessionTimeoutMs, assignor: assignorFor(chosen.name), clientId: context.clientId ?? undefined };
  return withKnownTopics(chosen.subscription.topics, (topics) => joinMember(context, request.groupId, { topics, ...settings }));
}

/** An eager member rejoins from nothing (epoch 0), with its subscription as it is now. */
async function rejoinEager(group: string, memberId: string, chosen: ChosenProtocol, context: GatewayRequestContext): Promise<MemberAnswer> {
  return withKnownTopics(chosen.subscription.topics, (topics) => heartbeatMember(context, group, memberId, { memberEpoch: 0, topics }));
}

/**
 * A cooperative member rejoins at its current epoch (the coordinator's, read from describe: a
 * JoinGroup carries no generation before Subscription v2) with what it still owns.
 */
async function rejoinCooperative(group: string, memberId: string, chosen: ChosenProtocol, context: GatewayRequestContext): Promise<MemberAnswer> {
  const described = await context.tributary.admin().groups.describe(group).catch((error: unknown) => {
    // An unknown group has no such member either: the client joins anew.
    if (error instanceof TributaryError && error.code === "GROUP_ID_NOT_FOUND") throw new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId}`);
    throw error;
  });
  const member = described.members.find((entry) => entry.memberId === memberId);
  if (member === undefined) throw new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId} in group ${group}`);
  const { ownedPartitions } = chosen.subscription;
  return withKnownTopics(chosen.subscription.topics, (topics) => heartbeatMember(context, group, memberId, { memberEpoch: member.memberEpoch, ownedPartitions, topics }));
}

/**
 * Runs a join or rejoin with the subscription's topics; when Tributary has some of them not,
 * once more without those (Kafka assigns nothing of a missing topic either). None left: the
 * refusal stands.
 */
async function withKnownTopics<T>(subscribed: readonly string[], call: (topics: string[]) => Promise<T>): Promise<T> {
  const topics = [...new Set(subscribed)];
  try {
    return await call(topics);
  } catch (error) {
    const unknown = error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION" ? error.data.topics : undefined;
    const known = Array.isArray(unknown) ? topics.filter((topic) => !unknown.includes(topic)) : [];
    if (known.length === 0) throw error;
    return call(known);
  }
}

/** What a request naming no group or no member is answered, before any call (Kafka's codes for them). */
function unnamed(groupId: string, memberId: string): number {
  if (groupId === "") return kafkaCodes.INVALID_GROUP_ID;
  return memberId === "" ? kafkaCodes.UNKNOWN_MEMBER_ID : 0;
}

/** A check-in at the member's generation, or the Kafka code that answers it. */
function checkIn(request: { groupId: string; memberId: string; generationId: number }, context: GatewayRequestContext) {
  const refused = unnamed(request.groupId, request.memberId);
  if (refused !== 0) return Promise.resolve({ value: undefined, errorCode: refused });
  return orKafkaCode(() => checkInMember(context, request.groupId, request.memberId, request.generationId));
}

export async function syncGroup(request: SyncGroupRequest, context: GatewayRequestContext): Promise<SyncGroupResponse> {
  const checked = await checkIn(request, context);
  return {
    throttleTimeMs: 0,
    errorCode: checked.errorCode,
    protocolType: checked.errorCode === 0 ? (request.protocolType ?? consumerProtocolType) : null,
    protocolName: checked.errorCode === 0 ? (request.protocolName ?? null) : null,
    assignment: checked.value === undefined ? new Uint8Array(0) : encodeAssignment(checked.value.assignment),
  };
}

export async function heartbeat(request: HeartbeatRequest, context: GatewayRequestContext): Promise<HeartbeatResponse> {
  const checked = await checkIn(request, context);
  const errorCode = checked.value?.rebalance === true ? kafkaCodes.REBALANCE_IN_PROGRESS : checked.errorCode;
  return { throttleTimeMs: 0, errorCode };
}

export async function leaveGroup(request: LeaveGroupRequest, context: GatewayRequestContext): Promise<LeaveGroupResponse> {
  const leaving = request.members ?? (request.memberId === undefined ? [] : [{ memberId: request.memberId, groupInstanceId: null }]);
  const members = await Promise.all(
    leaving.map(async ({ memberId, groupInstanceId }) => {
      const refused = unnamed(request.groupId, memberId);
      const left = refused !== 0 ? { errorCode: refused } : await orKafkaCode(() => leaveMember(context, request.groupId, memberId));
      return { memberId, groupInstanceId, errorCode: left.errorCode };
    }),
  );
  // v0–v2 name one member: its outcome is the answer's; v3+ answers per member.
  const errorCode = request.members === undefined ? (members[0]?.errorCode ?? 0) : 0;
  return { throttleTimeMs: 0, errorCode, members };
}
