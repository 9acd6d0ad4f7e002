/**
 * A group moving between Kafka's classic protocol (classic-group.ts) and server-side
 * assignment (group.ts), as Kafka 4 converts a classic group when a KIP-848 member joins and
 * back when the last one leaves (ARCHITECTURE.md decision 19):
 *
 * - Up, when an HTTP member joins a classic group: only a group of Kafka consumers whose
 *   assignor the server can stand in for (classic-protocols.ts) converts; each member keeps the
 *   partitions its leader gave it, as its assignment, and learns of the new layout from its
 *   next heartbeat. Any other group refuses the HTTP member (INCONSISTENT_GROUP_PROTOCOL, why).
 * - Down, when the last HTTP member leaves and the classic members left share a protocol:
 *   the group rebalances under Kafka's classic protocol, each member starting from what it
 *   owned, at the generation it had (its member epoch).
 *
 * Pure: states in, states out.
 */
import { encodeBase64 } from "../protocol/base64.ts";
import { decodeAssignment, encodeAssignment, MalformedConsumerProtocol } from "../protocol/consumer-protocol.ts";
import { compareStrings, normalizeAssignment, partitionKey, partitionsIn } from "./assignment.ts";
import type { Assignment, TopicsMeta } from "./assignment.ts";
import type { ClassicGroupState, ClassicMemberState } from "./classic-group-state.ts";
import { bytesOf, classicGroupStateVersion, metadataFor } from "./classic-group-state.ts";
import { consumerProtocolType, selectProtocol, serverAssignmentRefusal, subscriptionOf } from "./classic-protocols.ts";
import type { GroupState, MemberState, TopicState } from "./group-state.ts";
import { groupStateVersion } from "./group-state.ts";

/** Why the server cannot take over this classic group's assignment (an HTTP member may not join); null when it can. */
export function serverAssignmentRefusalFor(classic: ClassicGroupState): string | null {
  if (classic.members.length === 0) return null;
  if (classic.protocolType !== consumerProtocolType) {
    return `its members speak protocol type "${classic.protocolType ?? ""}" (Kafka Connect's is "connect"), not Kafka consumers' ("${consumerProtocolType}"), so only they can assign its work`;
  }
  const protocolName = classic.protocolName ?? selectProtocol(classic.members);
  if (protocolName === null) return "its members share no protocol";
  for (const member of classic.members) {
    const refusal = serverAssignmentRefusal({ name: protocolName, metadata: metadataFor(member, protocolName) ?? "" });
    if (refusal !== null) return `its members' leader assigns its partitions, and ${refusal}`;
  }
  return null;
}

/**
 * The classic group as a server-assigned group's state (call only when serverAssignmentRefusalFor
 * is null): every member keeps what its leader gave it (of partitions that exist, each to its
 * first holder), subscribed to its subscription's topics that exist.
 */
export function classicToServerAssigned(classic: ClassicGroupState, meta: TopicsMeta): GroupState {
  const protocolName = classic.protocolName ?? selectProtocol(classic.members) ?? "";
  const taken = new Set<string>();
  const topics = new Map<string, TopicState>();
  const members: MemberState[] = classic.members.map((member) => {
    const subscribed = (subscriptionOf(metadataFor(member, protocolName) ?? "")?.topics ?? []).filter((topic) => (partitionsIn(meta, topic) ?? 0) > 0);
    for (const topic of subscribed) topics.set(topic, { topic, partitions: partitionsIn(meta, topic)!, partitionsAtSubscribe: partitionsIn(meta, topic)! });
    const assignment = heldPartitions(member.assignment, meta, taken);
    return {
      memberId: member.memberId,
      memberEpoch: Math.max(1, member.generationId ?? classic.generationId),
      previousMemberEpoch: null,
      previousAssignment: [],
      assignment,
      pendingRevocation: [],
      targetAssignment: assignment,
      subscribedTopics: [...new Set(subscribed)].sort(compareStrings),
      assignorPreference: protocolName === "range" ? "range" : null,
      autoOffsetReset: "latest",
      sessionTimeoutMs: member.sessionTimeoutMs,
      lastContactMs: member.lastContactMs,
      clientId: member.clientId,
      host: member.host,
      classic: { groupInstanceId: member.groupInstanceId, protocols: member.protocols.map((protocol) => ({ ...protocol })), rebalanceTimeoutMs: member.rebalanceTimeoutMs },
    };
  });
  return {
    version: groupStateVersion,
    revision: 0,
    assignor: protocolName === "range" ? "range" : "uniform",
    members: members.sort((a, b) => compareStrings(a.memberId, b.memberId)),
    topics: [...topics.values()].sort((a, b) => compareStrings(a.topic, b.topic)),
  };
}

/**
 * The server-assigned group back under Kafka's classic protocol, rebalancing; null while any
 * member is not a classic one, or the classic members share no protocol (then the server keeps
 * assigning, as when they joined).
 */
export function serverAssignedToClassic(state: GroupState, nowMs: number): ClassicGroupState | null {
  if (state.members.length === 0) return null;
  const classicMembers = state.members.map((member) => (member.classic == null ? null : { member, classic: member.classic }));
  if (classicMembers.some((entry) => entry === null)) return null;
  const entries = classicMembers as { member: MemberState; classic: NonNullable<MemberState["classic"]> }[];
  if (selectProtocol(entries.map(({ classic }) => classic)) === null) return null;
  const members: ClassicMemberState[] = entries.map(({ member, classic }) => ({
    memberId: member.memberId,
    groupInstanceId: classic.groupInstanceId,
    clientId: member.clientId,
    host: member.host,
    protocols: classic.protocols.map((protocol) => ({ ...protocol })),
    rebalanceTimeoutMs: classic.rebalanceTimeoutMs,
    sessionTimeoutMs: member.sessionTimeoutMs,
    // What it holds, as the bytes a classic leader would have sent it.
    assignment: encodeBase64(encodeAssignment(normalizeAssignment([...member.assignment, ...member.pendingRevocation]))),
    generationId: member.memberEpoch,
    awaitingJoin: false,
    synced: true,
    lastContactMs: member.lastContactMs,
  }));
  return {
    version: classicGroupStateVersion,
    revision: 0,
    status: "PreparingRebalance",
    generationId: Math.max(...members.map(({ generationId }) => generationId ?? 0)),
    protocolType: consumerProtocolType,
    protocolName: null,
    leaderId: members[0]!.memberId,
    members,
    pendingMembers: [],
    joinDeadlineMs: nowMs + Math.max(...members.map(({ rebalanceTimeoutMs }) => rebalanceTimeoutMs)),
    initialRebalance: null,
    syncDeadlineMs: null,
  };
}

/** The partitions of a leader's Assignment bytes that exist and no earlier member holds (recorded in `taken`). */
function heldPartitions(assignment: string, meta: TopicsMeta, taken: Set<string>): Assignment {
  let decoded: Assignment;
  try {
    decoded = decodeAssignment(bytesOf(assignment)).assignment;
  } catch (error) {
    if (!(error instanceof MalformedConsumerProtocol)) throw error;
    return [];
  }
  const held: Assignment = [];
  for (const { topic, partitions } of decoded) {
    const count = partitionsIn(meta, topic) ?? 0;
    const fresh = partitions.filter((partition) => partition < count && !taken.has(partitionKey(topic, partition)));
    for (const partition of fresh) taken.add(partitionKey(topic, partition));
    if (fresh.length > 0) held.push({ topic, partitions: fresh });
  }
  return normalizeAssignment(held);
}
