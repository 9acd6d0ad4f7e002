/**
 * The classic group's requests, answers and refusals (classic-group.ts): Kafka's JoinGroup,
 * SyncGroup and LeaveGroup as the coordinator takes them, bytes as base64.
 */
import { TributaryError } from "../errors.ts";
import { classicGroupBytesMax } from "../limits.ts";
import type { ClassicProtocol } from "./classic-group-state.ts";

export interface ClassicJoinRequest {
  /** "" for a member that has no id yet. */
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: ClassicProtocol[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  clientId: string | null;
  host: string | null;
  /** JoinGroup v4+: a new dynamic member first gets its id with MEMBER_ID_REQUIRED (KIP-394). */
  requireKnownMemberId: boolean;
  /** JoinGroup v9+: a static leader replaced in a stable group is told so without assigning again (KIP-814). */
  supportsSkipAssignment: boolean;
}

export interface ClassicJoinAnswer {
  memberId: string;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  /** "" when the group has none. */
  leader: string;
  skipAssignment: boolean;
  /** The leader's answer lists every member with its metadata for the chosen protocol; others' are empty. */
  members: { memberId: string; groupInstanceId: string | null; metadata: string }[];
}

export type ClassicJoinOutcome =
  | { kind: "joined"; answer: ClassicJoinAnswer }
  | { kind: "waiting"; memberId: string }
  | { kind: "member-id-required"; memberId: string };

export interface ClassicSyncRequest {
  memberId: string;
  groupInstanceId: string | null;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  /** The leader's assignments (base64 bytes); a follower's are ignored. */
  assignments: { memberId: string; assignment: string }[];
}

export interface ClassicSyncAnswer {
  protocolType: string | null;
  protocolName: string | null;
  assignment: string;
}

export type ClassicSyncOutcome = { kind: "synced"; answer: ClassicSyncAnswer } | { kind: "waiting" };

export interface ClassicLeaveResult {
  memberId: string;
  groupInstanceId: string | null;
  error: TributaryError | null;
}

export interface ClassicGroupDeps {
  /** A fresh unique string per call; the coordinator passes `() => crypto.randomUUID()`. */
  generateId(): string;
}

export function sameProtocols(a: readonly ClassicProtocol[], b: readonly ClassicProtocol[]): boolean {
  return a.length === b.length && a.every((protocol, index) => protocol.name === b[index]!.name && protocol.metadata === b[index]!.metadata);
}

export function unknownMember(memberId: string): TributaryError {
  return new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId} in this group`, { memberId });
}

export function inconsistent(message: string): TributaryError {
  return new TributaryError("INCONSISTENT_GROUP_PROTOCOL", message);
}

export function rebalancing(): TributaryError {
  return new TributaryError("REBALANCE_IN_PROGRESS", "the group is rebalancing: rejoin");
}

export function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_REQUEST", message);
}

export function tooLarge(): TributaryError {
  return new TributaryError("MESSAGE_TOO_LARGE", `a classic group keeps at most ${classicGroupBytesMax} bytes of protocol metadata and assignments`, { bytesMax: classicGroupBytesMax });
}
