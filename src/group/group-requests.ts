/**
 * Requests and responses of the group core, and the checks a request passes before it may
 * touch state. The router validates shapes first (zod); these checks are the core's own, so
 * that whatever calls it, bad input is refused with API.md's error and the group unchanged.
 */

import { TributaryError } from "../errors.ts";
import { compareStrings, parseAssignment, partitionsIn } from "./assignment.ts";
import type { Assignment, TopicsMeta } from "./assignment.ts";
import { isAssignorName } from "./assignor.ts";
import type { AssignorName } from "./assignor.ts";
import { clientHostLengthMax, clientIdLengthMax, memberIdLengthMax, sessionTimeoutMsDefault, sessionTimeoutMsMax, sessionTimeoutMsMin, subscribedTopicsMax } from "../limits.ts";
import type { AutoOffsetReset } from "./group-state.ts";

export interface JoinRequest {
  /** A known member rejoining with new settings; omit to join as a new member. */
  memberId?: string | null;
  /**
   * The id a Kafka client chose for itself (ConsumerGroupHeartbeat v1, KIP-1082): a new member
   * joins under it; the member that has it rejoins (as with `memberId`).
   */
  chosenMemberId?: string | null;
  /** A static member's instance id (Kafka's group.instance.id): a member that comes back under it takes its place (static-members.ts). */
  groupInstanceId?: string | null;
  topics: readonly string[];
  sessionTimeoutMs?: number | null;
  assignor?: AssignorName | null;
  autoOffsetReset?: AutoOffsetReset | null;
  /** Kafka's client.id: a label describe shows. */
  clientId?: string | null;
  /** The client's address, as the router saw the request (not taken from the request's body). */
  host?: string | null;
}

export interface HeartbeatRequest {
  /** 0 rejoins: the member gives up everything it held. */
  memberEpoch: number;
  /** What the member holds; omitted means "what you gave me with memberEpoch". */
  ownedPartitions?: Assignment | null;
  /** A new subscription; omitted keeps the current one. */
  topics?: readonly string[] | null;
  /** A classic member's heartbeat (ConsumerGroup.classicHeartbeat): nothing moves. */
  classic?: boolean | null;
}

export interface MemberResponse {
  memberEpoch: number;
  assignment: Assignment;
  heartbeatIntervalMs: number;
}

/** A classic member's heartbeat answer: `rebalance` tells it to rejoin (Kafka's REBALANCE_IN_PROGRESS). */
export interface ClassicHeartbeatResponse extends MemberResponse {
  rebalance: boolean;
}

export interface JoinResponse extends MemberResponse {
  memberId: string;
}

export interface ParsedJoin {
  memberId: string | undefined;
  chosenMemberId: string | undefined;
  groupInstanceId: string | undefined;
  topics: string[];
  sessionTimeoutMs: number;
  assignorPreference: AssignorName | null;
  autoOffsetReset: AutoOffsetReset;
  clientId: string | null;
  host: string | null;
}

export interface ParsedHeartbeat {
  memberEpoch: number;
  ownedPartitions: Assignment | undefined;
  topics: string[] | undefined;
}

export function parseJoin(request: JoinRequest, meta: TopicsMeta): ParsedJoin {
  const { memberId, chosenMemberId, groupInstanceId, sessionTimeoutMs, assignor, autoOffsetReset, clientId, host } = request;
  if (memberId != null && (typeof memberId !== "string" || memberId.length === 0)) {
    throw invalid("memberId must be a non-empty string");
  }
  if (chosenMemberId != null && (typeof chosenMemberId !== "string" || chosenMemberId.length === 0 || chosenMemberId.length > memberIdLengthMax)) {
    throw invalid(`a chosen memberId must be a string of 1 to ${memberIdLengthMax} characters`);
  }
  if (groupInstanceId != null && (typeof groupInstanceId !== "string" || groupInstanceId.length === 0 || groupInstanceId.length > memberIdLengthMax)) {
    throw invalid(`groupInstanceId must be a string of 1 to ${memberIdLengthMax} characters`);
  }
  const sessionInRange =
    Number.isSafeInteger(sessionTimeoutMs) &&
    (sessionTimeoutMs as number) >= sessionTimeoutMsMin &&
    (sessionTimeoutMs as number) <= sessionTimeoutMsMax;
  if (sessionTimeoutMs != null && !sessionInRange) {
    throw invalid(`sessionTimeoutMs must be an integer from ${sessionTimeoutMsMin} to ${sessionTimeoutMsMax}`);
  }
  if (assignor != null && !isAssignorName(assignor)) throw invalid('assignor must be "uniform" or "range"');
  if (autoOffsetReset != null && autoOffsetReset !== "latest" && autoOffsetReset !== "earliest") {
    throw invalid('autoOffsetReset must be "latest" or "earliest"');
  }
  if (clientId != null && (typeof clientId !== "string" || clientId.length > clientIdLengthMax)) {
    throw invalid(`clientId must be a string of at most ${clientIdLengthMax} characters`);
  }
  return {
    memberId: memberId ?? undefined,
    chosenMemberId: chosenMemberId ?? undefined,
    groupInstanceId: groupInstanceId ?? undefined,
    topics: parseTopics(request.topics, meta),
    sessionTimeoutMs: sessionTimeoutMs ?? sessionTimeoutMsDefault,
    assignorPreference: assignor ?? null,
    autoOffsetReset: autoOffsetReset ?? "latest",
    clientId: clientId == null || clientId.length === 0 ? null : clientId,
    // The router's view of the client, not the client's word: an unusable one is dropped, not refused.
    host: typeof host === "string" && host.length > 0 && host.length <= clientHostLengthMax ? host : null,
  };
}

export function parseHeartbeat(request: HeartbeatRequest, meta: TopicsMeta): ParsedHeartbeat {
  if (!Number.isSafeInteger(request.memberEpoch) || request.memberEpoch < 0) {
    throw invalid("memberEpoch must be an integer >= 0");
  }
  return {
    memberEpoch: request.memberEpoch,
    ownedPartitions: request.ownedPartitions == null ? undefined : parseAssignment(request.ownedPartitions, "ownedPartitions"),
    topics: request.topics == null ? undefined : parseTopics(request.topics, meta),
  };
}

/** A subscription: 1 to subscribedTopicsMax existing topics; repeats are dropped (it is a set). */
export function parseTopics(topics: unknown, meta: TopicsMeta): string[] {
  if (!Array.isArray(topics) || topics.length === 0 || topics.length > subscribedTopicsMax) {
    throw invalid(`topics must list 1 to ${subscribedTopicsMax} topic names`);
  }
  if (!topics.every((topic) => typeof topic === "string" && topic.length > 0)) {
    throw invalid("topics must be non-empty strings");
  }
  const distinct = [...new Set(topics as string[])].sort(compareStrings);
  const unknown = distinct.filter((topic) => (partitionsIn(meta, topic) ?? 0) <= 0);
  if (unknown.length > 0) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `unknown topics: ${unknown.join(", ")}`, { topics: unknown });
  }
  return distinct;
}

export function invalid(message: string, data?: Record<string, unknown>): TributaryError {
  return new TributaryError("INVALID_REQUEST", message, data);
}
