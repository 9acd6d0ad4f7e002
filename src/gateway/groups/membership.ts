/**
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup of classic members: translated onto the
 * group's coordinator, which runs Kafka's classic protocol while only classic members are in
 * the group (a leader assigns; its bytes are handed on as sent) and bridges them onto its own
 * assignment once an HTTP member is (docs/gateway.md, Consumer groups). The gateway keeps no
 * membership: each request is one or more HTTP calls.
 *
 * Kafka holds a JoinGroup until the rebalance completes and a follower's SyncGroup until the
 * leader's assignments came; the coordinator holds each call a few seconds at most and answers
 * "pending", and the handler calls again until there is an answer or the connection closed.
 */
import { TributaryError } from "../../errors.ts";
import { decodeBase64, encodeBase64 } from "../../protocol/base64.ts";
import { sessionTimeoutMsMax, sessionTimeoutMsMin } from "../../limits.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaCodeOf, kafkaCodes, orKafkaCode } from "./kafka-codes.ts";
import { classicHeartbeat, classicJoin, classicLeave, classicSync } from "./member-calls.ts";
import type { ClassicJoinBody } from "./member-calls.ts";
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

export async function joinGroup(request: JoinGroupRequest, context: GatewayRequestContext): Promise<JoinGroupResponse> {
  const failed = (errorCode: number, memberId = request.memberId): JoinGroupResponse => ({ ...emptyJoinAnswer(memberId), errorCode });
  if (request.groupId === "") return failed(kafkaCodes.INVALID_GROUP_ID);
  if (!sessionTimeoutAccepted(request.sessionTimeoutMs)) return failed(kafkaCodes.INVALID_SESSION_TIMEOUT);
  if (request.protocolType === "" || request.protocols.length === 0) return failed(kafkaCodes.INCONSISTENT_GROUP_PROTOCOL);
  const body: ClassicJoinBody = {
    memberId: request.memberId,
    groupInstanceId: request.groupInstanceId ?? null,
    protocolType: request.protocolType,
    protocols: request.protocols.map(({ name, metadata }) => ({ name, metadata: encodeBase64(metadata) })),
    sessionTimeoutMs: request.sessionTimeoutMs,
    // JoinGroup v0 has no rebalance timeout: Kafka uses the session timeout.
    rebalanceTimeoutMs: request.rebalanceTimeoutMs === undefined || request.rebalanceTimeoutMs < 0 ? request.sessionTimeoutMs : request.rebalanceTimeoutMs,
    clientId: context.clientId,
    requireKnownMemberId: context.apiVersion >= 4,
    supportsSkipAssignment: context.apiVersion >= 9,
  };
  const closed = connectionClosed(context);
  try {
    for (;;) {
      const reply = await classicJoin(context, request.groupId, body);
      if (reply.outcome === "member-id-required") return failed(kafkaCodes.MEMBER_ID_REQUIRED, reply.memberId);
      if (reply.outcome === "joined") {
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          generationId: reply.generationId,
          protocolType: reply.protocolType,
          protocolName: reply.protocolName,
          leader: reply.leader,
          skipAssignment: reply.skipAssignment,
          memberId: reply.memberId,
          members: reply.members.map(({ memberId, groupInstanceId, metadata }) => ({ memberId, groupInstanceId, metadata: bytes(metadata) })),
        };
      }
      // Still held: the rebalance goes on. Nobody is left to answer once the connection closed.
      body.memberId = reply.memberId;
      if (closed()) return failed(kafkaCodes.REBALANCE_IN_PROGRESS, reply.memberId);
    }
  } catch (error) {
    return failed(kafkaCodeOf(error));
  }
}

export async function syncGroup(request: SyncGroupRequest, context: GatewayRequestContext): Promise<SyncGroupResponse> {
  const failed = (errorCode: number): SyncGroupResponse => ({ throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: new Uint8Array(0) });
  const refused = unnamed(request.groupId, request.memberId);
  if (refused !== 0) return failed(refused);
  const body = {
    memberId: request.memberId,
    groupInstanceId: request.groupInstanceId ?? null,
    generationId: request.generationId,
    protocolType: request.protocolType ?? null,
    protocolName: request.protocolName ?? null,
    assignments: request.assignments.map(({ memberId, assignment }) => ({ memberId, assignment: encodeBase64(assignment) })),
  };
  const closed = connectionClosed(context);
  try {
    for (;;) {
      const reply = await classicSync(context, request.groupId, body);
      if (reply.outcome === "synced") {
        return { throttleTimeMs: 0, errorCode: 0, protocolType: reply.protocolType, protocolName: reply.protocolName, assignment: bytes(reply.assignment) };
      }
      if (closed()) return failed(kafkaCodes.REBALANCE_IN_PROGRESS);
    }
  } catch (error) {
    return failed(kafkaCodeOf(error));
  }
}

export async function heartbeat(request: HeartbeatRequest, context: GatewayRequestContext): Promise<HeartbeatResponse> {
  const refused = unnamed(request.groupId, request.memberId);
  if (refused !== 0) return { throttleTimeMs: 0, errorCode: refused };
  const checked = await orKafkaCode(() =>
    classicHeartbeat(context, request.groupId, { memberId: request.memberId, groupInstanceId: request.groupInstanceId ?? null, generationId: request.generationId }),
  );
  const errorCode = checked.value?.rebalance === true ? kafkaCodes.REBALANCE_IN_PROGRESS : checked.errorCode;
  return { throttleTimeMs: 0, errorCode };
}

export async function leaveGroup(request: LeaveGroupRequest, context: GatewayRequestContext): Promise<LeaveGroupResponse> {
  const leaving = request.members ?? (request.memberId === undefined ? [] : [{ memberId: request.memberId, groupInstanceId: null }]);
  const members = leaving.map(({ memberId, groupInstanceId }) => ({ memberId, groupInstanceId: groupInstanceId ?? null }));
  // v0–v2 name one member: its outcome is the answer's; v3+ answers per member.
  const answer = (results: { memberId: string; groupInstanceId: string | null; errorCode: number }[], errorCode?: number): LeaveGroupResponse => ({
    throttleTimeMs: 0,
    errorCode: errorCode ?? (request.members === undefined ? (results[0]?.errorCode ?? 0) : 0),
    members: results,
  });
  if (request.groupId === "") return answer(members.map((member) => ({ ...member, errorCode: kafkaCodes.INVALID_GROUP_ID })), kafkaCodes.INVALID_GROUP_ID);
  if (members.length === 0) return answer([]);
  const left = await orKafkaCode(() => classicLeave(context, request.groupId, members));
  if (left.value === undefined) return answer(members.map((member) => ({ ...member, errorCode: left.errorCode })), left.errorCode);
  return answer(
    left.value.members.map(({ memberId, groupInstanceId, error }) => ({ memberId, groupInstanceId, errorCode: error === null ? 0 : kafkaCodeOf(TributaryError.fromValue(error)) })),
  );
}

/** Kafka refuses a session timeout outside the broker's bounds with INVALID_SESSION_TIMEOUT; these are the coordinator's. */
export function sessionTimeoutAccepted(sessionTimeoutMs: number): boolean {
  return Number.isSafeInteger(sessionTimeoutMs) && sessionTimeoutMs >= sessionTimeoutMsMin && sessionTimeoutMs <= sessionTimeoutMsMax;
}

function emptyJoinAnswer(memberId: string): JoinGroupResponse {
  return { throttleTimeMs: 0, errorCode: 0, generationId: -1, protocolType: null, protocolName: null, leader: "", skipAssignment: false, memberId, members: [] };
}

/** What a request naming no group or no member is answered, before any call (Kafka's codes for them). */
function unnamed(groupId: string, memberId: string): number {
  if (groupId === "") return kafkaCodes.INVALID_GROUP_ID;
  return memberId === "" ? kafkaCodes.UNKNOWN_MEMBER_ID : 0;
}

/** Open connections that held a request, each with one close listener (not one per held request). */
const watched = new Map<number, { closed: boolean }>();

/** Whether the connection has closed since (a held request then stops calling again). */
function connectionClosed(context: GatewayRequestContext): () => boolean {
  let watch = watched.get(context.connectionId);
  if (watch === undefined) {
    const created = { closed: false };
    watched.set(context.connectionId, created);
    context.onClose(() => {
      created.closed = true;
      watched.delete(context.connectionId);
    });
    watch = watched.get(context.connectionId) ?? created;
  }
  const current = watch;
  return () => current.closed;
}

/** Base64 the coordinator answered (it only hands on what it was given). */
function bytes(base64: string): Uint8Array {
  return decodeBase64(base64) ?? new Uint8Array(0);
}
