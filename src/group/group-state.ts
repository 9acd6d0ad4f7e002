/**
 * The state of one consumer group as a plain, JSON-serializable value: what the coordinator
 * object persists and hands back to `new ConsumerGroup(deps, state)` after a restart.
 * Arrays sorted by name rather than objects keyed by name, so a member id or topic called
 * `__proto__` is just a string, and so the same group always serializes to the same bytes.
 *
 * Ownership, the rule everything else serves (API.md: no partition has two owners): a member
 * owns `assignment ∪ pendingRevocation`. `assignment` is what the latest response to the
 * member gave it; `pendingRevocation` is what earlier responses gave it and a later one took
 * away, until the member shows it let go (see ConsumerGroup.heartbeat). A partition is handed
 * to a member only while no other member owns it.
 */

import type { Assignment } from "./assignment.ts";
import type { AssignorName } from "./assignor.ts";
import type { ClassicProtocol } from "./classic-group-state.ts";
import { heartbeatIntervalMsDefault } from "../limits.ts";

export const groupStateVersion = 1;

export type AutoOffsetReset = "latest" | "earliest";

export interface MemberState {
  memberId: string;
  /** Epoch of the latest response to this member; 0 is never issued (it means "join"). */
  memberEpoch: number;
  /** Epoch of the response before the latest, or null right after a (re)join. */
  previousMemberEpoch: number | null;
  /** Assignment given with previousMemberEpoch: what a member that missed the latest response holds. */
  previousAssignment: Assignment;
  /** Assignment given with memberEpoch. */
  assignment: Assignment;
  /** Taken away by a response the member has not yet shown it received; still the member's. */
  pendingRevocation: Assignment;
  /** Where the assignor wants the member; it gets there one heartbeat at a time. */
  targetAssignment: Assignment;
  /** Sorted, distinct. */
  subscribedTopics: string[];
  /** The assignor this member asked for at join, if it asked. */
  assignorPreference: AssignorName | null;
  autoOffsetReset: AutoOffsetReset;
  sessionTimeoutMs: number;
  /** Kafka's client.id, as the member's join gave it; null when it gave none (or in a state persisted before it existed). */
  clientId: string | null;
  /** The client's address as the router saw it at join; null when unknown. */
  host: string | null;
  /**
   * Last accepted request. It changes on every heartbeat without bumping `revision`: an object
   * that writes only on revision changes must keep contact times some other way.
   */
  lastContactMs: number;
  /**
   * A classic member's (Kafka's JoinGroup protocol, bridged: classic-bridge.ts) settings as its
   * last JoinGroup gave them: the group goes back to Kafka's classic protocol with them once
   * only classic members are left (group-conversion.ts). Absent or null for an HTTP member.
   */
  classic?: ClassicMemberInfo | null;
  /** A static member's instance id (Kafka's group.instance.id, KIP-848); absent or null for a dynamic member. */
  instanceId?: string | null;
  /** A static member that left for now (Kafka's epoch -2): its partitions stay its own until its session ends or its instance id joins again. */
  away?: boolean;
}

export interface ClassicMemberInfo {
  groupInstanceId: string | null;
  /** Every protocol of its JoinGroup, in its order of preference. */
  protocols: ClassicProtocol[];
  rebalanceTimeoutMs: number;
}

export interface TopicState {
  topic: string;
  /** Highest partition count seen. It never shrinks from metadata (a stale cache must not revoke). */
  partitions: number;
  /**
   * Partition count when the group started subscribing to the topic. Partitions numbered from
   * here on were added later and are read from their start (API.md: partition increase).
   */
  partitionsAtSubscribe: number;
}

export interface GroupState {
  version: typeof groupStateVersion;
  /** Bumped by every change except contact times: persist when it moves. */
  revision: number;
  /** The assignor in use: the one most members asked for (Kafka's rule), uniform by default. */
  assignor: AssignorName;
  /** Sorted by memberId. */
  members: MemberState[];
  /** Topics some member subscribes to, sorted by name. */
  topics: TopicState[];
}

export function emptyGroupState(): GroupState {
  return { version: groupStateVersion, revision: 0, assignor: "uniform", members: [], topics: [] };
}

/** Kafka's 5 s, or a third of the session when that is shorter: two lost heartbeats are survivable. */
export function heartbeatIntervalMsFor(sessionTimeoutMs: number): number {
  return Math.min(heartbeatIntervalMsDefault, Math.floor(sessionTimeoutMs / 3));
}

/*
 * Deep copies by hand: the group hands out and takes in copies on every call, and
 * structuredClone costs far more than copying these known shapes (it dominated a profile).
 */

export function copyAssignment(assignment: Assignment): Assignment {
  return assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] }));
}

export function copyMember(member: MemberState): MemberState {
  return {
    ...member,
    clientId: member.clientId ?? null,
    host: member.host ?? null,
    previousAssignment: copyAssignment(member.previousAssignment),
    assignment: copyAssignment(member.assignment),
    pendingRevocation: copyAssignment(member.pendingRevocation),
    targetAssignment: copyAssignment(member.targetAssignment),
    subscribedTopics: [...member.subscribedTopics],
    // HTTP members' state stays as it was before classic members had settings here.
    ...(member.classic == null ? {} : { classic: copyClassicInfo(member.classic) }),
  };
}

export function copyClassicInfo(classic: ClassicMemberInfo | null): ClassicMemberInfo | null {
  return classic === null ? null : { ...classic, protocols: classic.protocols.map((protocol) => ({ ...protocol })) };
}

export function copyGroupState(state: GroupState): GroupState {
  return {
    ...state,
    members: state.members.map(copyMember),
    topics: state.topics.map((topic) => ({ ...topic })),
  };
}
