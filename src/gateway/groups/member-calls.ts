/**
 * The HTTP calls a classic member's requests become (API.md, Consumer groups): join, heartbeat
 * (plain, or `classic: true`: nothing moves, the answer says whether to rejoin), leave and
 * commit. Through the connection's own credentials, so Tributary's ACLs apply as they do to
 * any member.
 */
import type { Assignment } from "../../client/types.ts";
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";

export interface MemberAnswer {
  memberEpoch: number;
  assignment: Assignment;
  heartbeatIntervalMs: number;
}

export interface ClassicCheckAnswer extends MemberAnswer {
  rebalance: boolean;
}

export interface JoinSettings {
  topics: string[];
  sessionTimeoutMs: number;
  assignor?: "uniform" | "range";
  clientId?: string;
}

export function joinMember(context: GatewayRequestContext, group: string, settings: JoinSettings): Promise<MemberAnswer & { memberId: string }> {
  return context.transport.json({ method: "POST", path: path("groups", group, "members"), json: settings });
}

export function heartbeatMember(
  context: GatewayRequestContext,
  group: string,
  memberId: string,
  body: { memberEpoch: number; ownedPartitions?: Assignment; topics?: string[] },
): Promise<MemberAnswer> {
  return context.transport.json({ method: "POST", path: path("groups", group, "members", memberId, "heartbeat"), json: body });
}

/** A classic member checks in at its generation: its assignment, and whether it must rejoin. */
export function checkInMember(context: GatewayRequestContext, group: string, memberId: string, memberEpoch: number): Promise<ClassicCheckAnswer> {
  return context.transport.json({
    method: "POST",
    path: path("groups", group, "members", memberId, "heartbeat"),
    json: { memberEpoch, classic: true },
  });
}

export function leaveMember(context: GatewayRequestContext, group: string, memberId: string): Promise<void> {
  return context.transport.empty({ method: "DELETE", path: path("groups", group, "members", memberId) });
}

export interface CommitBody {
  memberId?: string;
  memberEpoch?: number;
  classic?: boolean;
  offsets: { topic: string; partition: number; offset: number; metadata?: string }[];
}

export function commitOffsets(context: GatewayRequestContext, group: string, body: CommitBody): Promise<void> {
  return context.transport.empty({ method: "POST", path: path("groups", group, "offsets"), json: body });
}
