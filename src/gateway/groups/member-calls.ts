/**
 * The HTTP calls a classic member's requests become (docs/api.md, Classic members): JoinGroup,
 * SyncGroup, Heartbeat and LeaveGroup at `/v1/groups/{g}/classic/…`, OffsetCommit as a
 * commit with `classic: true`. Through the connection's own credentials, so Tributary's ACLs
 * apply as they do to any member. Bytes travel as base64.
 */
import { path } from "../../client/transport.ts";
import type { ErrorValue } from "../../errors.ts";
import type { ClassicJoinAnswer, ClassicJoinRequest, ClassicSyncAnswer, ClassicSyncRequest } from "../../group/classic-group-requests.ts";
import { classicWaitMsMax } from "../../limits.ts";
import type { GatewayRequestContext } from "../handler-types.ts";

/** The route's body: the coordinator's request but the host, which the router fills in. */
export type ClassicJoinBody = Omit<ClassicJoinRequest, "host">;

/** The route's answers: the coordinator's join answer, or "call again" (held past the wait) or KIP-394's member id. */
export type ClassicJoinReply =
  | ({ outcome: "joined" } & ClassicJoinAnswer)
  | { outcome: "pending"; memberId: string }
  | { outcome: "member-id-required"; memberId: string };

export type ClassicSyncBody = ClassicSyncRequest;

export type ClassicSyncReply = ({ outcome: "synced" } & ClassicSyncAnswer) | { outcome: "pending" };

/** One JoinGroup call, held by the coordinator at most classicWaitMsMax (then "pending": call again). */
export function classicJoin(context: GatewayRequestContext, group: string, body: ClassicJoinBody): Promise<ClassicJoinReply> {
  return context.transport.json({ method: "POST", path: path("groups", group, "classic", "join"), json: { ...body, waitMs: classicWaitMsMax }, waitMs: classicWaitMsMax });
}

/** One SyncGroup call, held as a JoinGroup call is. */
export function classicSync(context: GatewayRequestContext, group: string, body: ClassicSyncBody): Promise<ClassicSyncReply> {
  return context.transport.json({ method: "POST", path: path("groups", group, "classic", "sync"), json: { ...body, waitMs: classicWaitMsMax }, waitMs: classicWaitMsMax });
}

export function classicHeartbeat(context: GatewayRequestContext, group: string, body: { memberId: string; groupInstanceId: string | null; generationId: number }): Promise<{ rebalance: boolean }> {
  return context.transport.json({ method: "POST", path: path("groups", group, "classic", "heartbeat"), json: body });
}

export interface ClassicLeaveReply {
  members: { memberId: string; groupInstanceId: string | null; error: ErrorValue | null }[];
}

export function classicLeave(context: GatewayRequestContext, group: string, members: { memberId: string; groupInstanceId: string | null }[]): Promise<ClassicLeaveReply> {
  return context.transport.json({ method: "POST", path: path("groups", group, "classic", "leave"), json: { members } });
}

export interface CommitBody {
  memberId?: string;
  memberEpoch?: number;
  classic?: boolean;
  groupInstanceId?: string | null;
  offsets: { topic: string; partition: number; offset: number; metadata?: string; leaderEpoch?: number }[];
}

export function commitOffsets(context: GatewayRequestContext, group: string, body: CommitBody): Promise<void> {
  return context.transport.empty({ method: "POST", path: path("groups", group, "offsets"), json: body });
}
