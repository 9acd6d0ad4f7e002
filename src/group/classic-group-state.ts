/**
 * The state of a group that runs Kafka's classic protocol (classic-group.ts) as a plain,
 * JSON-serializable value: what the coordinator object persists beside the server-assigned
 * group's (group-state.ts) and hands back after a restart.
 *
 * Protocol metadata and assignments are the clients' bytes, kept as standard base64 and never
 * parsed to be kept: the leader gets every member's metadata and each member gets the leader's
 * bytes for it exactly as they were sent (ARCHITECTURE.md decision 19).
 */
import { decodeBase64 } from "../protocol/base64.ts";

export const classicGroupStateVersion = 1;

/** Kafka's ClassicGroupState, less Dead (the coordinator's, once the group is deleted). */
export type ClassicGroupStatus = "Empty" | "PreparingRebalance" | "CompletingRebalance" | "Stable";

/** One of a member's protocols (an assignor, for consumers): its name and its metadata bytes (base64). */
export interface ClassicProtocol {
  name: string;
  metadata: string;
}

export interface ClassicMemberState {
  memberId: string;
  /** Static membership (KIP-345): the id the member keeps across restarts; null for a dynamic member. */
  groupInstanceId: string | null;
  clientId: string | null;
  host: string | null;
  /** In the member's order of preference, as its last JoinGroup listed them. */
  protocols: ClassicProtocol[];
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  /** The leader's bytes for this member at its generation (base64); "" when it has none. */
  assignment: string;
  /**
   * The generation this member was given (its JoinGroup answer); null when it has none it may
   * use: new, or a static member that did not rejoin the latest rebalance. Kafka checks requests
   * against the group's generation; a member's is the group's except right after the group came
   * from server-side assignment (group-conversion.ts), when each member still has its epoch.
   */
  generationId: number | null;
  /** Joined the rebalance under way (Kafka's awaiting-join members); such a member does not expire. */
  awaitingJoin: boolean;
  /** Sent SyncGroup for its generation; one that has not by `syncDeadlineMs` is removed. */
  synced: boolean;
  /** Last accepted request; changes without a revision (member-contacts.ts). */
  lastContactMs: number;
}

/** Kafka's initial rebalance delay: a group rebalancing from empty waits for more members to come. */
export interface InitialRebalance {
  /** When the delay ends, unless a member joined meanwhile. */
  checkAtMs: number;
  /** What is left of the rebalance timeout for further extensions. */
  remainingMs: number;
  newMemberAdded: boolean;
}

export interface ClassicGroupState {
  version: typeof classicGroupStateVersion;
  /** Bumped by every change except contact times: persist when it moves. */
  revision: number;
  status: ClassicGroupStatus;
  generationId: number;
  /** The members' protocol type ("consumer" for consumers, "connect" for Kafka Connect…); null while empty. */
  protocolType: string | null;
  /** The protocol chosen for the current generation; null before one. */
  protocolName: string | null;
  leaderId: string | null;
  /** In the order they joined: a leader that did not rejoin is replaced by the first that did. */
  members: ClassicMemberState[];
  /** Ids given with MEMBER_ID_REQUIRED (KIP-394), until the member joins with one or its session passes. */
  pendingMembers: { memberId: string; deadlineMs: number }[];
  /** PreparingRebalance: when the join phase completes with whoever joined. */
  joinDeadlineMs: number | null;
  initialRebalance: InitialRebalance | null;
  /** CompletingRebalance and Stable: when members that have not sent SyncGroup are removed. */
  syncDeadlineMs: number | null;
}

export function emptyClassicGroupState(): ClassicGroupState {
  return {
    version: classicGroupStateVersion,
    revision: 0,
    status: "Empty",
    generationId: 0,
    protocolType: null,
    protocolName: null,
    leaderId: null,
    members: [],
    pendingMembers: [],
    joinDeadlineMs: null,
    initialRebalance: null,
    syncDeadlineMs: null,
  };
}

export function copyClassicMember(member: ClassicMemberState): ClassicMemberState {
  return { ...member, protocols: member.protocols.map((protocol) => ({ ...protocol })) };
}

export function copyClassicGroupState(state: ClassicGroupState): ClassicGroupState {
  return {
    ...state,
    members: state.members.map(copyClassicMember),
    pendingMembers: state.pendingMembers.map((pending) => ({ ...pending })),
    initialRebalance: state.initialRebalance === null ? null : { ...state.initialRebalance },
  };
}

/** The decoded size of standard base64 text, without decoding it. */
export function base64Bytes(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/** The bytes of base64 text the router has checked; empty for anything else. */
export function bytesOf(text: string): Uint8Array {
  return decodeBase64(text) ?? new Uint8Array(0);
}

/** The member's metadata for a protocol; undefined when it does not support it. */
export function metadataFor(member: ClassicMemberState, protocolName: string): string | undefined {
  return member.protocols.find(({ name }) => name === protocolName)?.metadata;
}

/** Every byte of metadata and assignment the group keeps (classicGroupBytesMax bounds it). */
export function groupBytes(members: readonly ClassicMemberState[]): number {
  let total = 0;
  for (const member of members) {
    total += base64Bytes(member.assignment);
    for (const { metadata } of member.protocols) total += base64Bytes(metadata);
  }
  return total;
}
