/**
 * Classic members in a group the server assigns (one with an HTTP member): what Kafka 4 does
 * for classic members of a consumer group (KIP-848's mixed groups). Their JoinGroup and SyncGroup
 * are translated onto the server-assigned ConsumerGroup (group.ts): no member leads, the server
 * assigns, and SyncGroup answers the member's partitions as ConsumerProtocol Assignment bytes.
 *
 * - JoinGroup joins or rejoins the member and answers its generation (= member epoch). The
 *   epoch moves only when the member joins, so a generation stays valid until the next one.
 *   An eager member (every assignor but cooperative-sticky) has revoked everything before it
 *   rejoins: it rejoins at epoch 0. A cooperative one keeps what it owns: it rejoins at its
 *   epoch with the Subscription's owned partitions, so only what must move is revoked.
 * - SyncGroup answers the member's assignment at that generation: only partitions nobody else
 *   owns. Heartbeat moves nothing; it tells the member to rejoin (REBALANCE_IN_PROGRESS) when
 *   its assignment must change.
 * - The member's chosen protocol is the first of its list that the server can stand in for
 *   (classic-protocols.ts): a consumer Subscription whose assignor has no user data, or a
 *   sticky one's. Kafka Streams, Connect and custom assignors with user data cannot join such a
 *   group (INCONSISTENT_GROUP_PROTOCOL, naming why).
 *
 * Pure, like the ConsumerGroup it drives; the caller passes the topics' metadata (at least the
 * group's subscribed topics and the topics of the request: `subscribedTopicsOf`).
 */
import { TributaryError } from "../errors.ts";
import { encodeAssignment } from "../protocol/consumer-protocol.ts";
import { encodeBase64 } from "../protocol/base64.ts";
import type { Assignment, TopicPartition, TopicsMeta } from "./assignment.ts";
import { partitionsIn } from "./assignment.ts";
import type { ClassicJoinOutcome, ClassicJoinRequest, ClassicLeaveResult, ClassicSyncAnswer, ClassicSyncRequest } from "./classic-group.ts";
import type { ClassicProtocol } from "./classic-group-state.ts";
import { consumerProtocolType, isCooperative, serverAssignmentRefusal, subscriptionOf } from "./classic-protocols.ts";
import type { ConsumerGroup } from "./group.ts";

export interface BridgedProtocol {
  name: string;
  topics: string[];
  ownedPartitions: Assignment;
}

/**
 * The protocol a classic member uses in a server-assigned group: the first of its list whose
 * metadata is a consumer Subscription with topics that the server can assign for. Throws
 * INCONSISTENT_GROUP_PROTOCOL naming why none is.
 */
export function bridgedProtocol(protocolType: string, protocols: readonly ClassicProtocol[]): BridgedProtocol {
  if (protocolType !== consumerProtocolType) {
    throw new TributaryError(
      "INCONSISTENT_GROUP_PROTOCOL",
      `protocol type ${protocolType} cannot join a group the server assigns (it has HTTP members): only Kafka consumers' ("${consumerProtocolType}") can`,
      { protocolType },
    );
  }
  const refusals: string[] = [];
  for (const protocol of protocols) {
    const refusal = serverAssignmentRefusal(protocol);
    if (refusal !== null) {
      refusals.push(refusal);
      continue;
    }
    const subscription = subscriptionOf(protocol.metadata)!;
    return { name: protocol.name, topics: [...new Set(subscription.topics)], ownedPartitions: subscription.ownedPartitions };
  }
  throw new TributaryError("INCONSISTENT_GROUP_PROTOCOL", `the group has HTTP members, so the server assigns its partitions, and ${refusals.join("; ") || "no protocol was given"}`, {
    protocols: protocols.map(({ name }) => name),
  });
}

/** Topics whose metadata a bridged JoinGroup needs, beyond the group's own (none when no protocol decodes). */
export function subscribedTopicsOf(protocols: readonly ClassicProtocol[]): string[] {
  return [...new Set(protocols.flatMap(({ metadata }) => subscriptionOf(metadata)?.topics ?? []))];
}

export function bridgeJoin(group: ConsumerGroup, request: ClassicJoinRequest, meta: TopicsMeta, nowMs: number): ClassicJoinOutcome {
  const chosen = bridgedProtocol(request.protocolType, request.protocols);
  // Kafka assigns nothing of a topic it does not have; none left: the refusal stands.
  const topics = chosen.topics.filter((topic) => (partitionsIn(meta, topic) ?? 0) > 0);
  if (topics.length === 0) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `unknown topics: ${chosen.topics.join(", ")}`, { topics: chosen.topics });
  const classic = { groupInstanceId: request.groupInstanceId, protocols: request.protocols.map((protocol) => ({ ...protocol })), rebalanceTimeoutMs: request.rebalanceTimeoutMs };
  let memberId = request.memberId;
  let memberEpoch: number;
  if (memberId === "") {
    const joined = group.join(
      { topics, sessionTimeoutMs: request.sessionTimeoutMs, assignor: chosen.name === "range" ? "range" : null, clientId: request.clientId, host: request.host },
      meta,
      nowMs,
    );
    ({ memberId, memberEpoch } = joined);
  } else {
    const member = group.member(memberId);
    if (member === undefined) throw new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId} in this group`, { memberId });
    const rejoin = isCooperative(chosen.name)
      ? { memberEpoch: member.memberEpoch, ownedPartitions: chosen.ownedPartitions, topics }
      : { memberEpoch: 0, topics };
    memberEpoch = group.heartbeat(memberId, rejoin, meta, nowMs).memberEpoch;
  }
  group.setClassic(memberId, classic);
  // Kafka's KIP-394 dance for a dynamic member; it comes back with the id (one that never does expires after its session).
  if (request.memberId === "" && request.requireKnownMemberId && request.groupInstanceId === null) return { kind: "member-id-required", memberId };
  return {
    kind: "joined",
    answer: { memberId, generationId: memberEpoch, protocolType: consumerProtocolType, protocolName: chosen.name, leader: "", skipAssignment: false, members: [] },
  };
}

/** SyncGroup: the member's partitions at its generation, as ConsumerProtocol Assignment bytes (version 0, which every client reads). */
export function bridgeSync(group: ConsumerGroup, request: ClassicSyncRequest, meta: TopicsMeta, nowMs: number): ClassicSyncAnswer {
  const protocolName = protocolOf(group, request.memberId);
  if ((request.protocolType !== null && request.protocolType !== consumerProtocolType) || (request.protocolName !== null && request.protocolName !== protocolName)) {
    throw new TributaryError("INCONSISTENT_GROUP_PROTOCOL", `SyncGroup names protocol ${request.protocolType ?? ""}/${request.protocolName ?? ""}, the member joined with ${consumerProtocolType}/${protocolName}`);
  }
  const { assignment } = group.classicHeartbeat(request.memberId, request.generationId, meta, nowMs);
  return { protocolType: consumerProtocolType, protocolName, assignment: encodeBase64(encodeAssignment(assignment)) };
}

export function bridgeHeartbeat(group: ConsumerGroup, memberId: string, generationId: number, meta: TopicsMeta, nowMs: number): { rebalance: boolean } {
  return { rebalance: group.classicHeartbeat(memberId, generationId, meta, nowMs).rebalance };
}

/** A classic member's commit: its current generation, for the partitions it owns, those it is giving up included. */
export function bridgeCheckCommit(group: ConsumerGroup, memberId: string, generationId: number, partitions: readonly TopicPartition[]): void {
  group.checkCommit(memberId, generationId, partitions, { classic: true });
}

/** LeaveGroup: by member id, or by instance id alone (Kafka's admin removing a static member). */
export function bridgeLeave(group: ConsumerGroup, leaving: readonly { memberId: string; groupInstanceId: string | null }[]): ClassicLeaveResult[] {
  return leaving.map(({ memberId, groupInstanceId }) => {
    try {
      const target = memberId !== "" ? memberId : group.toState().members.find((member) => groupInstanceId !== null && member.classic?.groupInstanceId === groupInstanceId)?.memberId;
      if (target === undefined) throw new TributaryError("UNKNOWN_MEMBER_ID", `no member of instance ${groupInstanceId ?? ""} in this group`);
      group.leave(target);
      return { memberId, groupInstanceId, error: null };
    } catch (error) {
      if (!(error instanceof TributaryError)) throw error;
      return { memberId, groupInstanceId, error };
    }
  });
}

function protocolOf(group: ConsumerGroup, memberId: string): string {
  const member = group.member(memberId);
  if (member === undefined) throw new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId} in this group`, { memberId });
  if (member.classic == null) throw new TributaryError("UNKNOWN_MEMBER_ID", `member ${memberId} is no classic member`, { memberId });
  return bridgedProtocol(consumerProtocolType, member.classic.protocols).name;
}
