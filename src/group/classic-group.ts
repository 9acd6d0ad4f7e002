/**
 * One group that runs Kafka's classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup),
 * as Kafka's group coordinator does (GroupMetadataManager and ClassicGroup): while every member
 * speaks it, the group elects a leader, the leader gets every member's protocol metadata byte
 * for byte and computes the assignment on the client, and each member gets exactly the bytes the
 * leader sent for it. So client-side assignors with user data (Kafka Streams, Connect,
 * cooperative-sticky, custom ones) work unchanged (ARCHITECTURE.md decision 19).
 *
 *   Empty ──join──▶ PreparingRebalance ──every member joined, or the join deadline──▶
 *   CompletingRebalance ──the leader's SyncGroup──▶ Stable ──join, leave, expiry──▶ PreparingRebalance
 *
 * - A rebalance waits for every known member to rejoin (a member learns of it from its
 *   heartbeat, REBALANCE_IN_PROGRESS) or for the rebalance timeout; dynamic members that did not
 *   rejoin are removed. From empty it first waits the initial delay for more members.
 * - The protocol is the one every member supports that most members prefer.
 * - Static members (groupInstanceId, KIP-345): one rejoining without its member id replaces its
 *   old id and keeps its assignment, without a rebalance when the group is stable; the old id is
 *   then fenced (FENCED_INSTANCE_ID).
 *
 * Requests that Kafka holds (a JoinGroup until the rebalance completes, a follower's SyncGroup
 * until the leader's arrives) answer "waiting" here; the caller waits for a change and asks
 * `joinAnswer` / `syncAnswer`, which never change anything. Pure: no I/O, no clock (callers pass
 * `nowMs` and call `expire(nowMs)` at `nextDeadlineMs()`), ids from the caller's generator.
 * Every method checks before it changes: a thrown TributaryError leaves the group as it was.
 * Refusals are Tributary's codes: ILLEGAL_GENERATION is FENCED_MEMBER_EPOCH.
 */
import { TributaryError } from "../errors.ts";
import { classicGroupBytesMax, membersPerGroupMax } from "../limits.ts";
import type {
  ClassicGroupDeps,
  ClassicJoinAnswer,
  ClassicJoinOutcome,
  ClassicJoinRequest,
  ClassicLeaveResult,
  ClassicSyncAnswer,
  ClassicSyncOutcome,
  ClassicSyncRequest,
} from "./classic-group-requests.ts";
import { inconsistent, invalid, rebalancing, sameProtocols, tooLarge, unknownMember } from "./classic-group-requests.ts";
import type { ClassicGroupState, ClassicGroupStatus, ClassicMemberState, ClassicProtocol } from "./classic-group-state.ts";
import { classicGroupStateVersion, copyClassicGroupState, emptyClassicGroupState, groupBytes, metadataFor } from "./classic-group-state.ts";
import { selectProtocol, supportsProtocols } from "./classic-protocols.ts";
import {
  afterDeparture,
  allJoined,
  answeredHeldSyncs,
  changed,
  completeJoin,
  maybeCompleteJoin,
  nextDeadlineMs,
  prepareRebalance,
  removeMember,
  runDeadlines,
  satisfied,
} from "./classic-rebalance.ts";
import type { MemberContact } from "./member-contacts.ts";

export type {
  ClassicGroupDeps,
  ClassicJoinAnswer,
  ClassicJoinOutcome,
  ClassicJoinRequest,
  ClassicLeaveResult,
  ClassicSyncAnswer,
  ClassicSyncOutcome,
  ClassicSyncRequest,
} from "./classic-group-requests.ts";

export class ClassicGroup {
  readonly #deps: ClassicGroupDeps;
  #state: ClassicGroupState;

  constructor(deps: ClassicGroupDeps, state: ClassicGroupState = emptyClassicGroupState()) {
    if (state.version !== classicGroupStateVersion) throw new Error(`unknown classic group state version ${String(state.version)}`);
    this.#deps = deps;
    this.#state = copyClassicGroupState(state);
  }

  toState(): ClassicGroupState {
    return copyClassicGroupState(this.#state);
  }

  get revision(): number {
    return this.#state.revision;
  }

  get status(): ClassicGroupStatus {
    return this.#state.status;
  }

  /** No members (pending ids may remain until they expire). */
  isEmpty(): boolean {
    return this.#state.members.length === 0;
  }

  /** Uncopied, for the object's contact bookkeeping. */
  contacts(): Iterable<MemberContact> {
    return this.#state.members;
  }

  member(memberId: string): ClassicMemberState | undefined {
    const member = this.#find(memberId);
    return member === undefined ? undefined : { ...member, protocols: member.protocols.map((protocol) => ({ ...protocol })) };
  }

  // ---- JoinGroup -------------------------------------------------------------------------

  join(request: ClassicJoinRequest, nowMs: number): ClassicJoinOutcome {
    this.expire(nowMs);
    if (request.protocolType === "" || request.protocols.length === 0) throw inconsistent("a JoinGroup names a protocol type and at least one protocol");
    if (request.memberId === "") return this.#joinNew(request, nowMs);
    const pending = this.#state.pendingMembers.findIndex(({ memberId }) => memberId === request.memberId);
    if (!this.#supports(request)) throw inconsistent(`member ${request.memberId}'s protocols are not supported by the group`);
    if (pending >= 0) {
      if (request.groupInstanceId !== null) throw invalid("a member that got its id with MEMBER_ID_REQUIRED is not a static member");
      this.#checkRoom();
      this.#checkBytes(null, request.protocols);
      this.#state.pendingMembers.splice(pending, 1);
      this.#addMember(request.memberId, request, nowMs);
      return this.#joinOutcome(request.memberId);
    }
    const member = this.#validateMember(request.memberId, request.groupInstanceId);
    this.#checkBytes(member, request.protocols);
    member.lastContactMs = nowMs;
    const { status } = this.#state;
    const unchanged = sameProtocols(member.protocols, request.protocols);
    if (status === "PreparingRebalance") {
      this.#updateMember(member, request);
      maybeCompleteJoin(this.#state, nowMs);
    } else if ((status === "CompletingRebalance" || (status === "Stable" && member.memberId !== this.#state.leaderId)) && unchanged) {
      // A follower (or a member that lost its JoinGroup answer) with nothing new: the current generation.
      this.#giveGeneration(member);
    } else {
      // New metadata, or the leader rejoining a stable group (it may have seen topics change): a rebalance.
      this.#updateMember(member, request);
      prepareRebalance(this.#state, nowMs);
    }
    return this.#joinOutcome(member.memberId);
  }

  /**
   * The answer a member's held JoinGroup gets now: "waiting" while the rebalance it joined is
   * under way, "rejoin" when that rebalance completed and another began before it was answered
   * (its JoinGroup joins the new one). Throws when the member is gone or fenced. Changes nothing.
   */
  joinAnswer(memberId: string, groupInstanceId: string | null): ClassicJoinAnswer | "waiting" | "rejoin" {
    const member = this.#validateMember(memberId, groupInstanceId);
    if (member.awaitingJoin) return "waiting";
    if (this.#state.status === "PreparingRebalance" || member.generationId !== this.#state.generationId) return "rejoin";
    return this.#answerFor(member);
  }

  #joinNew(request: ClassicJoinRequest, nowMs: number): ClassicJoinOutcome {
    if (!this.#supports(request)) throw inconsistent("the member's protocols are not supported by the group");
    const existing = request.groupInstanceId === null ? undefined : this.#staticMember(request.groupInstanceId);
    if (existing === undefined) this.#checkRoom();
    this.#checkBytes(existing ?? null, request.protocols);
    const memberId = this.#newMemberId(request.groupInstanceId ?? request.clientId);
    if (existing !== undefined) return this.#replaceStaticMember(existing, memberId, request, nowMs);
    if (request.groupInstanceId === null && request.requireKnownMemberId) {
      this.#state.pendingMembers.push({ memberId, deadlineMs: nowMs + request.sessionTimeoutMs });
      changed(this.#state);
      return { kind: "member-id-required", memberId };
    }
    this.#addMember(memberId, request, nowMs);
    return this.#joinOutcome(memberId);
  }

  /** Kafka's updateStaticMemberThenRebalanceOrCompleteJoin: the new id takes the old one's place and assignment. */
  #replaceStaticMember(old: ClassicMemberState, memberId: string, request: ClassicJoinRequest, nowMs: number): ClassicJoinOutcome {
    const formerLeader = this.#state.leaderId;
    const member: ClassicMemberState = { ...old, memberId, lastContactMs: nowMs };
    this.#state.members[this.#state.members.indexOf(old)] = member;
    if (formerLeader === old.memberId) this.#state.leaderId = memberId;
    this.#updateMember(member, request);
    const { status } = this.#state;
    if (status === "Stable" && selectProtocol(this.#state.members) === this.#state.protocolName) {
      // Nothing the assignment depends on changed: the member carries on with its assignment.
      member.awaitingJoin = false;
      this.#giveGeneration(member);
      const answer = this.#answerFor(member);
      const isLeader = memberId === this.#state.leaderId;
      if (request.supportsSkipAssignment) return { kind: "joined", answer: { ...answer, skipAssignment: isLeader } };
      // An older client would assign again as the leader: it is told the former leader id, so it follows.
      return { kind: "joined", answer: { ...answer, leader: isLeader ? old.memberId : answer.leader, members: [] } };
    }
    if (status === "Stable" || status === "CompletingRebalance") prepareRebalance(this.#state, nowMs);
    else maybeCompleteJoin(this.#state, nowMs);
    return this.#joinOutcome(memberId);
  }

  #addMember(memberId: string, request: ClassicJoinRequest, nowMs: number): void {
    const state = this.#state;
    if (state.members.length === 0) state.protocolType = request.protocolType;
    const member: ClassicMemberState = {
      memberId,
      groupInstanceId: request.groupInstanceId,
      clientId: request.clientId,
      host: request.host,
      protocols: [],
      rebalanceTimeoutMs: request.rebalanceTimeoutMs,
      sessionTimeoutMs: request.sessionTimeoutMs,
      assignment: "",
      generationId: null,
      awaitingJoin: true,
      synced: false,
      lastContactMs: nowMs,
    };
    state.members.push(member);
    this.#updateMember(member, request);
    if (state.leaderId === null) state.leaderId = memberId;
    if (state.initialRebalance !== null) state.initialRebalance.newMemberAdded = true;
    if (state.status === "PreparingRebalance") maybeCompleteJoin(this.#state, nowMs);
    else prepareRebalance(this.#state, nowMs);
  }

  /** New protocols and timeouts (`#checkBytes` passed); the member now awaits the join. */
  #updateMember(member: ClassicMemberState, request: ClassicJoinRequest): void {
    member.protocols = request.protocols.map(({ name, metadata }) => ({ name, metadata }));
    member.rebalanceTimeoutMs = request.rebalanceTimeoutMs;
    member.sessionTimeoutMs = request.sessionTimeoutMs;
    member.clientId = request.clientId ?? member.clientId;
    member.host = request.host ?? member.host;
    member.awaitingJoin = true;
    changed(this.#state);
  }

  /** Would the group stay within classicGroupBytesMax with `member` (null: a new one) joining with these protocols? */
  #checkBytes(member: ClassicMemberState | null, protocols: readonly ClassicProtocol[]): void {
    const others = this.#state.members.filter((each) => each !== member);
    const joining = { ...(member ?? { assignment: "" }), protocols } as ClassicMemberState;
    if (groupBytes([...others, joining]) > classicGroupBytesMax) throw tooLarge();
  }

  /** The member gets (again) the current generation's JoinGroup answer. */
  #giveGeneration(member: ClassicMemberState): void {
    if (member.generationId === this.#state.generationId) return;
    member.generationId = this.#state.generationId;
    changed(this.#state);
  }

  #joinOutcome(memberId: string): ClassicJoinOutcome {
    const member = this.#find(memberId)!;
    if (member.awaitingJoin) return { kind: "waiting", memberId };
    return { kind: "joined", answer: this.#answerFor(member) };
  }

  #answerFor(member: ClassicMemberState): ClassicJoinAnswer {
    const { generationId, protocolType, protocolName, leaderId } = this.#state;
    const isLeader = member.memberId === leaderId;
    return {
      memberId: member.memberId,
      generationId,
      protocolType,
      protocolName,
      leader: leaderId ?? "",
      skipAssignment: false,
      members: isLeader && protocolName !== null
        ? this.#state.members.map((each) => ({ memberId: each.memberId, groupInstanceId: each.groupInstanceId, metadata: metadataFor(each, protocolName) ?? "" }))
        : [],
    };
  }

  // ---- SyncGroup, Heartbeat, OffsetCommit ------------------------------------------------

  sync(request: ClassicSyncRequest, nowMs: number): ClassicSyncOutcome {
    this.expire(nowMs);
    const member = this.#validateGeneration(request.memberId, request.groupInstanceId, request.generationId);
    const { protocolType, protocolName } = this.#state;
    if ((request.protocolType !== null && request.protocolType !== protocolType) || (request.protocolName !== null && request.protocolName !== protocolName)) {
      throw inconsistent(`SyncGroup names protocol ${request.protocolType ?? ""}/${request.protocolName ?? ""}, the group uses ${protocolType ?? ""}/${protocolName ?? ""}`);
    }
    if (this.#state.status === "PreparingRebalance") throw rebalancing();
    if (this.#state.status === "CompletingRebalance" && member.memberId === this.#state.leaderId) this.#takeAssignments(request.assignments, nowMs);
    member.lastContactMs = nowMs;
    if (!member.synced) {
      member.synced = true;
      changed(this.#state);
    }
    if (this.#state.members.every(({ synced }) => synced)) this.#state.syncDeadlineMs = null;
    const answer = this.syncAnswer(request.memberId, request.groupInstanceId, request.generationId);
    return answer === "waiting" ? { kind: "waiting" } : { kind: "synced", answer };
  }

  /** The answer a held SyncGroup gets now; "waiting" until the leader's assignments came. Changes nothing. */
  syncAnswer(memberId: string, groupInstanceId: string | null, generationId: number): ClassicSyncAnswer | "waiting" {
    const member = this.#validateMember(memberId, groupInstanceId);
    if (member.generationId !== generationId || this.#state.status === "PreparingRebalance") throw rebalancing();
    if (this.#state.status === "CompletingRebalance") return "waiting";
    return { protocolType: this.#state.protocolType, protocolName: this.#state.protocolName, assignment: member.assignment };
  }

  /** A check-in at the member's generation; `rebalance` when it must rejoin (Kafka's REBALANCE_IN_PROGRESS). */
  heartbeat(memberId: string, groupInstanceId: string | null, generationId: number, nowMs: number): { rebalance: boolean } {
    this.expire(nowMs);
    const member = this.#validateGeneration(memberId, groupInstanceId, generationId);
    member.lastContactMs = nowMs;
    return { rebalance: this.#state.status === "PreparingRebalance" };
  }

  /**
   * May this member commit at this generation? Kafka checks the member and its generation, not
   * which partitions it holds (the leader's assignment is opaque to the coordinator), and
   * refuses while the group waits for the leader's assignment. Changes nothing.
   */
  checkCommit(memberId: string, groupInstanceId: string | null, generationId: number): void {
    this.#validateGeneration(memberId, groupInstanceId, generationId);
    if (this.#state.status === "CompletingRebalance") throw rebalancing();
  }

  #takeAssignments(assignments: readonly { memberId: string; assignment: string }[], nowMs: number): void {
    const byMember = new Map(assignments.map(({ memberId, assignment }) => [memberId, assignment]));
    const given = this.#state.members.map((each) => ({ ...each, assignment: byMember.get(each.memberId) ?? "" }));
    if (groupBytes(given) > classicGroupBytesMax) throw tooLarge();
    for (const each of this.#state.members) each.assignment = byMember.get(each.memberId) ?? "";
    answeredHeldSyncs(this.#state, nowMs);
    this.#state.status = "Stable";
    changed(this.#state);
  }

  // ---- LeaveGroup, expiry -----------------------------------------------------------------

  /** LeaveGroup of one or more members (by id, or by instance id alone as Kafka's admin does); one result each. */
  leave(leaving: readonly { memberId: string; groupInstanceId: string | null }[], nowMs: number): ClassicLeaveResult[] {
    this.expire(nowMs);
    const results: ClassicLeaveResult[] = [];
    let left = false;
    for (const { memberId, groupInstanceId } of leaving) {
      let error: TributaryError | null = null;
      try {
        if (memberId === "") {
          const member = groupInstanceId === null ? undefined : this.#staticMember(groupInstanceId);
          if (member === undefined) throw unknownMember(groupInstanceId ?? "");
          removeMember(this.#state, member.memberId);
        } else if (this.#state.pendingMembers.some((pending) => pending.memberId === memberId)) {
          this.#state.pendingMembers = this.#state.pendingMembers.filter((pending) => pending.memberId !== memberId);
          changed(this.#state);
        } else {
          this.#validateMember(memberId, groupInstanceId);
          removeMember(this.#state, memberId);
        }
        left = true;
      } catch (caught) {
        if (!(caught instanceof TributaryError)) throw caught;
        error = caught;
      }
      results.push({ memberId, groupInstanceId, error });
    }
    if (left) afterDeparture(this.#state, nowMs);
    return results;
  }

  /** Removes pending ids and members past their deadlines and moves rebalances on at theirs; returns removed member ids. */
  expire(nowMs: number): string[] {
    const removed: string[] = [];
    const state = this.#state;
    const pendingBefore = state.pendingMembers.length;
    state.pendingMembers = state.pendingMembers.filter(({ deadlineMs }) => nowMs < deadlineMs);
    if (state.pendingMembers.length !== pendingBefore) {
      changed(this.#state);
      if (state.status === "PreparingRebalance" && allJoined(this.#state)) completeJoin(this.#state, nowMs);
    }
    for (const member of [...state.members]) {
      if (satisfied(this.#state, member) || nowMs < member.lastContactMs + member.sessionTimeoutMs) continue;
      removeMember(this.#state, member.memberId);
      removed.push(member.memberId);
    }
    if (removed.length > 0) afterDeparture(this.#state, nowMs);
    runDeadlines(this.#state, nowMs);
    return removed;
  }

  /** When `expire` has something to do next; null when nothing is due ever. */
  nextDeadlineMs(): number | null {
    return nextDeadlineMs(this.#state);
  }


  // ---- checks and small helpers ------------------------------------------------------------

  /** Kafka's validateMember: an instance id must map to this member id (else FENCED_INSTANCE_ID), and the member must exist. */
  #validateMember(memberId: string, groupInstanceId: string | null): ClassicMemberState {
    if (groupInstanceId !== null) {
      const current = this.#staticMember(groupInstanceId);
      if (current === undefined) throw unknownMember(memberId);
      if (current.memberId !== memberId) {
        throw new TributaryError("FENCED_INSTANCE_ID", `member ${memberId} of instance ${groupInstanceId} was replaced by ${current.memberId}`, { groupInstanceId });
      }
    }
    const member = this.#find(memberId);
    if (member === undefined) throw unknownMember(memberId);
    return member;
  }

  #validateGeneration(memberId: string, groupInstanceId: string | null, generationId: number): ClassicMemberState {
    const member = this.#validateMember(memberId, groupInstanceId);
    if (member.generationId !== generationId) {
      throw new TributaryError("FENCED_MEMBER_EPOCH", `generation ${generationId} is not member ${memberId}'s (${String(member.generationId)})`, { generationId: this.#state.generationId });
    }
    return member;
  }

  #supports(request: ClassicJoinRequest): boolean {
    return supportsProtocols(this.#state.members.length === 0 ? null : this.#state.protocolType, this.#state.members, request);
  }

  #checkRoom(): void {
    if (this.#state.members.length >= membersPerGroupMax) {
      throw new TributaryError("INVALID_REQUEST", `the group has its maximum of ${membersPerGroupMax} members`, { membersMax: membersPerGroupMax });
    }
  }

  /** Kafka's member ids: the client id (or instance id) and a UUID. */
  #newMemberId(prefix: string | null): string {
    return `${(prefix ?? "").slice(0, 100)}-${this.#deps.generateId()}`;
  }

  #find(memberId: string): ClassicMemberState | undefined {
    return this.#state.members.find((member) => member.memberId === memberId);
  }

  #staticMember(groupInstanceId: string): ClassicMemberState | undefined {
    return this.#state.members.find((member) => member.groupInstanceId === groupInstanceId);
  }

}
