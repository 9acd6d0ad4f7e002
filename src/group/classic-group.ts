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
import { classicGroupBytesMax, classicInitialRebalanceDelayMs, membersPerGroupMax } from "../limits.ts";
import type { ClassicGroupState, ClassicGroupStatus, ClassicMemberState, ClassicProtocol } from "./classic-group-state.ts";
import { classicGroupStateVersion, copyClassicGroupState, emptyClassicGroupState, groupBytes, metadataFor } from "./classic-group-state.ts";
import { selectProtocol, supportsProtocols } from "./classic-protocols.ts";
import type { MemberContact } from "./member-contacts.ts";

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
      this.#maybeCompleteJoin(nowMs);
    } else if ((status === "CompletingRebalance" || (status === "Stable" && member.memberId !== this.#state.leaderId)) && unchanged) {
      // A follower (or a member that lost its JoinGroup answer) with nothing new: the current generation.
      this.#giveGeneration(member);
    } else {
      // New metadata, or the leader rejoining a stable group (it may have seen topics change): a rebalance.
      this.#updateMember(member, request);
      this.#prepareRebalance(nowMs);
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
      this.#changed();
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
    if (status === "Stable" || status === "CompletingRebalance") this.#prepareRebalance(nowMs);
    else this.#maybeCompleteJoin(nowMs);
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
    if (state.status === "PreparingRebalance") this.#maybeCompleteJoin(nowMs);
    else this.#prepareRebalance(nowMs);
  }

  /** New protocols and timeouts (`#checkBytes` passed); the member now awaits the join. */
  #updateMember(member: ClassicMemberState, request: ClassicJoinRequest): void {
    member.protocols = request.protocols.map(({ name, metadata }) => ({ name, metadata }));
    member.rebalanceTimeoutMs = request.rebalanceTimeoutMs;
    member.sessionTimeoutMs = request.sessionTimeoutMs;
    member.clientId = request.clientId ?? member.clientId;
    member.host = request.host ?? member.host;
    member.awaitingJoin = true;
    this.#changed();
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
    this.#changed();
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
      this.#changed();
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
    this.#answeredHeldSyncs(nowMs);
    this.#state.status = "Stable";
    this.#changed();
  }

  /** Kafka restarts the session of each member whose held SyncGroup it answers (propagateAssignment). */
  #answeredHeldSyncs(nowMs: number): void {
    for (const member of this.#state.members) if (member.synced) member.lastContactMs = Math.max(member.lastContactMs, nowMs);
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
          this.#remove(member.memberId);
        } else if (this.#state.pendingMembers.some((pending) => pending.memberId === memberId)) {
          this.#state.pendingMembers = this.#state.pendingMembers.filter((pending) => pending.memberId !== memberId);
          this.#changed();
        } else {
          this.#validateMember(memberId, groupInstanceId);
          this.#remove(memberId);
        }
        left = true;
      } catch (caught) {
        if (!(caught instanceof TributaryError)) throw caught;
        error = caught;
      }
      results.push({ memberId, groupInstanceId, error });
    }
    if (left) this.#afterDeparture(nowMs);
    return results;
  }

  /** Removes pending ids and members past their deadlines and moves rebalances on at theirs; returns removed member ids. */
  expire(nowMs: number): string[] {
    const removed: string[] = [];
    const state = this.#state;
    const pendingBefore = state.pendingMembers.length;
    state.pendingMembers = state.pendingMembers.filter(({ deadlineMs }) => nowMs < deadlineMs);
    if (state.pendingMembers.length !== pendingBefore) {
      this.#changed();
      if (state.status === "PreparingRebalance" && this.#allJoined()) this.#completeJoin(nowMs);
    }
    for (const member of [...state.members]) {
      if (this.#satisfied(member) || nowMs < member.lastContactMs + member.sessionTimeoutMs) continue;
      this.#remove(member.memberId);
      removed.push(member.memberId);
    }
    if (removed.length > 0) this.#afterDeparture(nowMs);
    this.#runDeadlines(nowMs);
    return removed;
  }

  /** When `expire` has something to do next; null when nothing is due ever. */
  nextDeadlineMs(): number | null {
    const state = this.#state;
    const deadlines = [
      ...state.pendingMembers.map(({ deadlineMs }) => deadlineMs),
      ...state.members.filter((member) => !this.#satisfied(member)).map((member) => member.lastContactMs + member.sessionTimeoutMs),
      state.initialRebalance?.checkAtMs ?? null,
      state.initialRebalance === null ? state.joinDeadlineMs : null,
      state.syncDeadlineMs,
    ].filter((at): at is number => at !== null);
    return deadlines.length === 0 ? null : Math.min(...deadlines);
  }

  #runDeadlines(nowMs: number): void {
    const state = this.#state;
    const initial = state.initialRebalance;
    if (state.status === "PreparingRebalance" && initial !== null && nowMs >= initial.checkAtMs) {
      if (initial.newMemberAdded && initial.remainingMs > 0) {
        // Members keep coming: wait once more, within the rebalance timeout.
        const delayMs = Math.min(classicInitialRebalanceDelayMs, initial.remainingMs);
        state.initialRebalance = { checkAtMs: nowMs + delayMs, remainingMs: Math.max(initial.remainingMs - delayMs, 0), newMemberAdded: false };
        this.#changed();
      } else {
        this.#completeJoin(nowMs);
      }
    } else if (state.status === "PreparingRebalance" && initial === null && state.joinDeadlineMs !== null && nowMs >= state.joinDeadlineMs) {
      this.#completeJoin(nowMs);
    }
    if (state.syncDeadlineMs !== null && nowMs >= state.syncDeadlineMs && state.status !== "PreparingRebalance") {
      state.syncDeadlineMs = null;
      const unsynced = state.members.filter(({ synced }) => !synced).map(({ memberId }) => memberId);
      for (const memberId of unsynced) this.#remove(memberId);
      this.#changed();
      if (unsynced.length > 0) this.#prepareRebalance(nowMs);
    }
  }

  // ---- Kafka's rebalance steps ---------------------------------------------------------------

  /** Kafka's prepareRebalance: members learn of it from their heartbeats and rejoin. */
  #prepareRebalance(nowMs: number): void {
    const state = this.#state;
    if (state.status === "CompletingRebalance") {
      for (const member of state.members) member.assignment = "";
      // A held SyncGroup is answered REBALANCE_IN_PROGRESS: its member's session starts over then, as in Kafka.
      this.#answeredHeldSyncs(nowMs);
    }
    state.syncDeadlineMs = null;
    const initial = state.status === "Empty";
    state.status = "PreparingRebalance";
    this.#changed();
    if (initial) {
      const rebalanceTimeoutMs = this.#rebalanceTimeoutMs();
      state.initialRebalance = {
        checkAtMs: nowMs + classicInitialRebalanceDelayMs,
        remainingMs: Math.max(rebalanceTimeoutMs - classicInitialRebalanceDelayMs, 0),
        newMemberAdded: false,
      };
      return;
    }
    if (this.#allJoined()) this.#completeJoin(nowMs);
    else state.joinDeadlineMs = nowMs + this.#rebalanceTimeoutMs();
  }

  #maybeCompleteJoin(nowMs: number): void {
    if (this.#state.status === "PreparingRebalance" && this.#state.initialRebalance === null && this.#allJoined()) this.#completeJoin(nowMs);
  }

  /**
   * Kafka's completeClassicGroupJoin: dynamic members that did not rejoin are removed; a leader
   * that did not is replaced by the first member that did; the next generation starts with the
   * protocol the members choose, and every member has until the rebalance timeout to sync.
   */
  #completeJoin(nowMs: number): void {
    const state = this.#state;
    state.initialRebalance = null;
    state.joinDeadlineMs = null;
    for (const member of [...state.members]) if (!member.awaitingJoin && member.groupInstanceId === null) this.#remove(member.memberId);
    this.#changed();
    const leader = state.members.find(({ memberId }) => memberId === state.leaderId);
    if (leader !== undefined && !leader.awaitingJoin) {
      const joined = state.members.find(({ awaitingJoin }) => awaitingJoin);
      if (joined === undefined) {
        // Only static members that did not rejoin are left: wait for them again, until their sessions pass.
        state.joinDeadlineMs = nowMs + this.#rebalanceTimeoutMs();
        return;
      }
      state.leaderId = joined.memberId;
    }
    state.generationId += 1;
    if (state.members.length === 0) {
      state.status = "Empty";
      state.protocolName = null;
      state.leaderId = null;
      return;
    }
    state.protocolName = selectProtocol(state.members);
    state.status = "CompletingRebalance";
    for (const member of state.members) {
      member.generationId = member.awaitingJoin ? state.generationId : null;
      member.awaitingJoin = false;
      member.synced = false;
      member.lastContactMs = nowMs;
    }
    state.syncDeadlineMs = nowMs + this.#rebalanceTimeoutMs();
  }

  /** A member left or expired: the others rebalance (or the one under way may now complete). */
  #afterDeparture(nowMs: number): void {
    const { status } = this.#state;
    if (status === "Stable" || status === "CompletingRebalance") this.#prepareRebalance(nowMs);
    else if (status === "PreparingRebalance" && this.#allJoined()) this.#completeJoin(nowMs);
  }

  #remove(memberId: string): void {
    const state = this.#state;
    state.members = state.members.filter((member) => member.memberId !== memberId);
    if (state.leaderId === memberId) state.leaderId = state.members[0]?.memberId ?? null;
    this.#changed();
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

  #allJoined(): boolean {
    return this.#state.pendingMembers.length === 0 && this.#state.members.every(({ awaitingJoin }) => awaitingJoin);
  }

  /** Kafka's hasSatisfiedHeartbeat: a member awaiting the join, or whose SyncGroup waits for the leader's, does not expire. */
  #satisfied(member: ClassicMemberState): boolean {
    return member.awaitingJoin || (this.#state.status === "CompletingRebalance" && member.synced);
  }

  #rebalanceTimeoutMs(): number {
    return Math.max(0, ...this.#state.members.map(({ rebalanceTimeoutMs }) => rebalanceTimeoutMs));
  }

  #find(memberId: string): ClassicMemberState | undefined {
    return this.#state.members.find((member) => member.memberId === memberId);
  }

  #staticMember(groupInstanceId: string): ClassicMemberState | undefined {
    return this.#state.members.find((member) => member.groupInstanceId === groupInstanceId);
  }

  #changed(): void {
    this.#state.revision += 1;
  }
}

function sameProtocols(a: readonly ClassicProtocol[], b: readonly ClassicProtocol[]): boolean {
  return a.length === b.length && a.every((protocol, index) => protocol.name === b[index]!.name && protocol.metadata === b[index]!.metadata);
}

function unknownMember(memberId: string): TributaryError {
  return new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId} in this group`, { memberId });
}

function inconsistent(message: string): TributaryError {
  return new TributaryError("INCONSISTENT_GROUP_PROTOCOL", message);
}

function rebalancing(): TributaryError {
  return new TributaryError("REBALANCE_IN_PROGRESS", "the group is rebalancing: rejoin");
}

function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_REQUEST", message);
}

function tooLarge(): TributaryError {
  return new TributaryError("MESSAGE_TOO_LARGE", `a classic group keeps at most ${classicGroupBytesMax} bytes of protocol metadata and assignments`, { bytesMax: classicGroupBytesMax });
}
