/**
 * One consumer group whatever its members speak (ARCHITECTURE.md decision 19): the one
 * server-side state that classic JoinGroup members, HTTP members (and later KIP-848 members)
 * are views of. It takes one of two paths, never both at once:
 *
 * - classic: every member speaks Kafka's classic protocol (classic-group.ts): a leader assigns
 *   on the client, and the coordinator keeps and hands on its bytes;
 * - server: some member is an HTTP member: the coordinator assigns (group.ts), and classic
 *   members are bridged onto it (classic-bridge.ts), as Kafka 4's mixed groups.
 *
 * An empty group takes the path of the first member that joins. An HTTP member joining a
 * classic group converts it (group-conversion.ts) or is refused naming why; when the last HTTP
 * member leaves, classic members that share a protocol go back to the classic path.
 *
 * Pure, as the two groups it holds: the coordinator object persists `toState()` when `revision`
 * moves, passes topic metadata (`subscribedTopics()`, and `topicsOf` a classic JoinGroup's), arms
 * its alarm at `nextDeadlineMs()` and calls `expire` then.
 */
import { TributaryError } from "../errors.ts";
import { decodeAssignment, MalformedConsumerProtocol } from "../protocol/consumer-protocol.ts";
import { compareStrings } from "./assignment.ts";
import type { Assignment, TopicPartition, TopicsMeta } from "./assignment.ts";
import { bridgeCheckCommit, bridgeHeartbeat, bridgeJoin, bridgeLeave, bridgeSync, subscribedTopicsOf } from "./classic-bridge.ts";
import { ClassicGroup } from "./classic-group.ts";
import type { ClassicJoinAnswer, ClassicJoinOutcome, ClassicJoinRequest, ClassicLeaveResult, ClassicSyncAnswer, ClassicSyncOutcome, ClassicSyncRequest } from "./classic-group.ts";
import type { ClassicGroupState, ClassicGroupStatus, ClassicMemberState } from "./classic-group-state.ts";
import { bytesOf, emptyClassicGroupState, metadataFor } from "./classic-group-state.ts";
import { consumerProtocolType, selectProtocol, subscriptionOf } from "./classic-protocols.ts";
import { ConsumerGroup } from "./group.ts";
import type { GroupDescription, MemberDescription } from "./group-description.ts";
import { classicToServerAssigned, serverAssignedToClassic, serverAssignmentRefusalFor } from "./group-conversion.ts";
import type { JoinRequest, JoinResponse } from "./group-requests.ts";
import type { GroupState } from "./group-state.ts";
import { emptyGroupState } from "./group-state.ts";
import type { MemberContact } from "./member-contacts.ts";

export type GroupPath = "classic" | "server" | "empty";

export interface MembershipState {
  /** The server-assigned group (empty while the group takes the classic path). */
  server: GroupState;
  /** The classic group (empty while the group takes the server's path). */
  classic: ClassicGroupState;
}

/** What describe adds for a group on the classic path: Kafka's own view of it. */
export interface ClassicGroupDescription {
  state: ClassicGroupStatus;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string | null;
}

export interface MembershipDescription extends GroupDescription {
  /** Present while the group takes the classic path. */
  classic?: ClassicGroupDescription;
}

export class GroupMembership {
  readonly #generateId: () => string;
  #server: ConsumerGroup;
  #classic: ClassicGroup;
  /** Keeps `revision` moving up when a conversion replaces one group by a fresh one. */
  #revisionBase = 0;

  constructor(deps: { generateMemberId(): string }, state: Partial<MembershipState> = {}) {
    this.#generateId = () => deps.generateMemberId();
    this.#server = new ConsumerGroup({ generateMemberId: this.#generateId }, state.server ?? emptyGroupState());
    this.#classic = new ClassicGroup({ generateId: this.#generateId }, state.classic ?? emptyClassicGroupState());
    if (!this.#server.isEmpty() && !this.#classic.isEmpty()) throw new Error("a group has server-assigned and classic members at once");
  }

  get revision(): number {
    return this.#revisionBase + this.#server.revision + this.#classic.revision;
  }

  toState(): MembershipState {
    return { server: this.#server.toState(), classic: this.#classic.toState() };
  }

  /** Which path the group takes now (docs/gateway.md, Consumer groups). */
  get path(): GroupPath {
    if (!this.#classic.isEmpty()) return "classic";
    return this.#server.isEmpty() ? "empty" : "server";
  }

  /** The server-assigned group, for HTTP members' requests that cannot change the path (heartbeat, poll, commit checks). */
  get server(): ConsumerGroup {
    return this.#server;
  }

  isEmpty(): boolean {
    return this.#server.isEmpty() && this.#classic.isEmpty();
  }

  // ---- HTTP members ---------------------------------------------------------------------------

  /** An HTTP member joins: a classic group converts to server-side assignment, or refuses it naming why. */
  join(request: JoinRequest, meta: TopicsMeta, nowMs: number): JoinResponse {
    if (this.path !== "classic") return this.#server.join(request, meta, nowMs);
    const refusal = serverAssignmentRefusalFor(this.#classic.toState());
    if (refusal !== null) {
      const { protocolType, protocolName } = this.#classic.toState();
      throw new TributaryError("INCONSISTENT_GROUP_PROTOCOL", `an HTTP member cannot join this group: ${refusal}`, { protocolType, protocolName });
    }
    const converted = new ConsumerGroup({ generateMemberId: this.#generateId }, classicToServerAssigned(this.#classic.toState(), meta));
    const response = converted.join(request, meta, nowMs);
    this.#replace(converted, new ClassicGroup({ generateId: this.#generateId }));
    return response;
  }

  /** An HTTP member leaves; classic members left alone may go back to the classic path. */
  leave(memberId: string, nowMs: number): void {
    this.#server.leave(memberId);
    this.#maybeBackToClassic(nowMs);
  }

  // ---- classic members --------------------------------------------------------------------------

  /** Topics a classic JoinGroup subscribes to, for the metadata the caller passes. */
  topicsOf(request: Pick<ClassicJoinRequest, "protocols">): string[] {
    return subscribedTopicsOf(request.protocols);
  }

  classicJoin(request: ClassicJoinRequest, meta: TopicsMeta, nowMs: number): ClassicJoinOutcome {
    if (this.path === "server") return bridgeJoin(this.#server, request, meta, nowMs);
    return this.#classic.join(request, nowMs);
  }

  /** A held JoinGroup's answer now (classic-group.ts joinAnswer); REBALANCE_IN_PROGRESS once the group went to the server's path. */
  classicJoinAnswer(memberId: string, groupInstanceId: string | null): ClassicJoinAnswer | "waiting" | "rejoin" {
    if (this.path === "classic") return this.#classic.joinAnswer(memberId, groupInstanceId);
    throw this.#notOnClassicPath(memberId);
  }

  classicSync(request: ClassicSyncRequest, meta: TopicsMeta, nowMs: number): ClassicSyncOutcome {
    if (this.path === "server") return { kind: "synced", answer: bridgeSync(this.#server, request, meta, nowMs) };
    return this.#classic.sync(request, nowMs);
  }

  classicSyncAnswer(memberId: string, groupInstanceId: string | null, generationId: number): ClassicSyncAnswer | "waiting" {
    if (this.path === "classic") return this.#classic.syncAnswer(memberId, groupInstanceId, generationId);
    throw this.#notOnClassicPath(memberId);
  }

  classicHeartbeat(memberId: string, groupInstanceId: string | null, generationId: number, meta: TopicsMeta, nowMs: number): { rebalance: boolean } {
    if (this.path === "server") return bridgeHeartbeat(this.#server, memberId, generationId, meta, nowMs);
    return this.#classic.heartbeat(memberId, groupInstanceId, generationId, nowMs);
  }

  classicLeave(leaving: readonly { memberId: string; groupInstanceId: string | null }[], nowMs: number): ClassicLeaveResult[] {
    if (this.path !== "server") return this.#classic.leave(leaving, nowMs);
    const results = bridgeLeave(this.#server, leaving);
    this.#maybeBackToClassic(nowMs);
    return results;
  }

  /** A classic member's OffsetCommit at its generation; on the server's path, for partitions it owns. Changes nothing. */
  checkClassicCommit(memberId: string, groupInstanceId: string | null, generationId: number, partitions: readonly TopicPartition[]): void {
    if (this.path === "server") bridgeCheckCommit(this.#server, memberId, generationId, partitions);
    else this.#classic.checkCommit(memberId, groupInstanceId, generationId);
  }

  // ---- both paths -------------------------------------------------------------------------------

  /** Removes members past their sessions (and moves classic rebalances on); returns their ids. */
  expire(nowMs: number): string[] {
    const expired = [...this.#server.expire(nowMs), ...this.#classic.expire(nowMs)];
    this.#maybeBackToClassic(nowMs);
    return expired;
  }

  nextDeadlineMs(): number | null {
    const deadlines = [this.#server.nextDeadlineMs(), this.#classic.nextDeadlineMs()].filter((at): at is number => at !== null);
    return deadlines.length === 0 ? null : Math.min(...deadlines);
  }

  contacts(): Iterable<MemberContact> {
    return [...this.#server.contacts(), ...this.#classic.contacts()];
  }

  /** Every topic the members subscribe to, sorted (a classic consumer group's from its members' subscriptions). */
  subscribedTopics(): string[] {
    if (this.path !== "classic") return this.#server.subscribedTopics();
    const { protocolType, protocolName, members } = this.#classic.toState();
    if (protocolType !== consumerProtocolType) return [];
    const chosen = protocolName ?? selectProtocol(members) ?? "";
    return [...new Set(members.flatMap((member) => subscriptionOf(metadataFor(member, chosen) ?? "")?.topics ?? []))].sort(compareStrings);
  }

  describe(): MembershipDescription {
    if (this.path !== "classic") return this.#server.describe();
    const state = this.#classic.toState();
    return {
      state: state.status === "Stable" ? "Stable" : "Reconciling",
      assignor: this.#server.describe().assignor,
      members: [...state.members].sort((a, b) => compareStrings(a.memberId, b.memberId)).map((member) => describeClassicMember(member, state.protocolType)),
      classic: { state: state.status, generationId: state.generationId, protocolType: state.protocolType, protocolName: state.protocolName, leader: state.leaderId },
    };
  }

  #replace(server: ConsumerGroup, classic: ClassicGroup): void {
    const before = this.revision;
    this.#server = server;
    this.#classic = classic;
    this.#revisionBase += before + 1 - this.revision;
  }

  #maybeBackToClassic(nowMs: number): void {
    if (this.path !== "server") return;
    const classic = serverAssignedToClassic(this.#server.toState(), nowMs);
    if (classic !== null) this.#replace(new ConsumerGroup({ generateMemberId: this.#generateId }), new ClassicGroup({ generateId: this.#generateId }, classic));
  }

  /** Kafka answers held requests of a group that left the classic path REBALANCE_IN_PROGRESS: the member rejoins. */
  #notOnClassicPath(memberId: string): TributaryError {
    if (this.#server.member(memberId) !== undefined) return new TributaryError("REBALANCE_IN_PROGRESS", "the group's partitions are now assigned by the server: rejoin");
    return new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId} in this group`, { memberId });
  }
}

/** A classic member as describe shows it: its partitions decoded from the leader's bytes when they are a consumer Assignment. */
function describeClassicMember(member: ClassicMemberState, protocolType: string | null): MemberDescription {
  return {
    memberId: member.memberId,
    memberEpoch: member.generationId ?? 0,
    assignment: protocolType === consumerProtocolType ? partitionsOf(member.assignment) : [],
    clientId: member.clientId,
    host: member.host,
    lastHeartbeatAt: member.lastContactMs,
    sessionTimeoutMs: member.sessionTimeoutMs,
    groupInstanceId: member.groupInstanceId,
  };
}

function partitionsOf(assignment: string): Assignment {
  if (assignment === "") return [];
  try {
    return decodeAssignment(bytesOf(assignment)).assignment;
  } catch (error) {
    if (error instanceof MalformedConsumerProtocol) return [];
    throw error;
  }
}
