/**
 * One consumer group, as KIP-848 runs it on the server: members join and heartbeat, the
 * coordinator computes target assignments with an assignor and moves each member toward its
 * target cooperatively (reconcile.ts), and member epochs fence stale requests.
 *
 * Pure: no I/O, no clock (callers pass `nowMs`), no randomness (callers pass an id
 * generator). A GroupCoordinator object keeps one instance per group and:
 * - builds it from its persisted state: `new ConsumerGroup({generateMemberId}, state)`;
 * - passes the metadata of the group's topics with join and heartbeat — at least
 *   `subscribedTopics()` and the topics of the request (a topic missing is "no news");
 * - persists `toState()` when `revision` moved (contact times change without it);
 * - arms its alarm at `nextDeadlineMs()` and calls `expire(now)` when it fires;
 * - in a poll, calls `checkCommit` with the positions before `heartbeat`: those positions
 *   were earned under the epoch the member sends, before this heartbeat revokes anything;
 * - wakes a waiting poll when `needsReconciliation(memberId)` turns true.
 *
 * Every method validates everything before it changes anything: a thrown TributaryError
 * leaves the group exactly as it was.
 */

import { TributaryError } from "../errors.ts";
import { assignmentKeys, compareStrings, isPartitionNumber, partitionKey, sameAssignment } from "./assignment.ts";
import type { TopicPartition, TopicsMeta } from "./assignment.ts";
import { assignorNameDefault, assignorNames } from "./assignor.ts";
import { assignors } from "./assignors.ts";
import type { AssignorName } from "./assignor.ts";
import { groupTopicsMax, memberIdAttemptsMax, membersPerGroupMax } from "../limits.ts";
import { invalid, parseHeartbeat, parseJoin } from "./group-requests.ts";
import type { ClassicHeartbeatResponse, HeartbeatRequest, JoinRequest, JoinResponse, MemberResponse, ParsedJoin } from "./group-requests.ts";
import {
  copyAssignment,
  copyClassicInfo,
  copyGroupState,
  copyMember,
  emptyGroupState,
  groupStateVersion,
  heartbeatIntervalMsFor,
} from "./group-state.ts";
import type { AutoOffsetReset, ClassicMemberInfo, GroupState, MemberState, TopicState } from "./group-state.ts";
import { acceptEpoch, fenced, giveAssignment, nextAssignment, sharedOwnership } from "./reconcile.ts";
import { refreshTopics } from "./topics.ts";
import { staticHolder, takeStaticPlace } from "./static-members.ts";
import type { GroupDescription } from "./group-description.ts";
import type { MemberContact } from "./member-contacts.ts";

export interface GroupDeps {
  /** A fresh unique id per call; the coordinator passes `() => crypto.randomUUID()`. */
  generateMemberId(): string;
}

export class ConsumerGroup {
  readonly #deps: GroupDeps;
  #revision: number;
  #assignor: AssignorName;
  /** Kept sorted by id on output; a Map so that ids are only ever keys, never properties. */
  readonly #members = new Map<string, MemberState>();
  readonly #topics = new Map<string, TopicState>();

  constructor(deps: GroupDeps, state: GroupState = emptyGroupState()) {
    if (state.version !== groupStateVersion) throw new Error(`unknown group state version ${String(state.version)}`);
    const copy = copyGroupState(state);
    this.#deps = deps;
    this.#revision = copy.revision;
    this.#assignor = copy.assignor;
    for (const member of copy.members) this.#members.set(member.memberId, member);
    for (const topic of copy.topics) this.#topics.set(topic.topic, topic);
    const shared = sharedOwnership(this.#members.values());
    if (shared.length > 0) throw new Error(`group state has partitions with two owners: ${JSON.stringify(shared)}`);
  }

  /** A deep copy of the state, sorted, JSON-serializable. */
  toState(): GroupState {
    return copyGroupState({
      version: groupStateVersion,
      revision: this.#revision,
      assignor: this.#assignor,
      members: this.#sortedMembers(),
      topics: [...this.#topics.values()].sort((a, b) => compareStrings(a.topic, b.topic)),
    });
  }

  /** Moves whenever anything but contact times changes. */
  get revision(): number {
    return this.#revision;
  }

  /** A new member, or with `memberId` a known member rejoining with new settings. */
  join(request: JoinRequest, topicsMeta: TopicsMeta, nowMs: number): JoinResponse {
    const parsed = parseJoin(request, topicsMeta);
    const chosen = parsed.chosenMemberId === undefined ? undefined : this.#members.get(parsed.chosenMemberId);
    const existing = parsed.memberId === undefined ? chosen : this.#requireMember(parsed.memberId);
    const holder = existing === undefined && parsed.groupInstanceId !== undefined ? staticHolder(this.#members.values(), parsed.groupInstanceId) : undefined;
    if (holder !== undefined) return this.#joinStatic(holder, parsed, topicsMeta, nowMs);
    if (existing === undefined && this.#members.size >= membersPerGroupMax) {
      throw invalid(`the group has its maximum of ${membersPerGroupMax} members`, { membersMax: membersPerGroupMax });
    }
    this.#checkGroupTopics(parsed.topics, existing?.memberId);
    const member = existing ?? this.#newMember(parsed.chosenMemberId);
    member.subscribedTopics = parsed.topics;
    member.sessionTimeoutMs = parsed.sessionTimeoutMs;
    member.assignorPreference = parsed.assignorPreference;
    member.autoOffsetReset = parsed.autoOffsetReset;
    member.clientId = parsed.clientId;
    member.host = parsed.host;
    if (parsed.groupInstanceId !== undefined) member.instanceId = parsed.groupInstanceId;
    this.#members.set(member.memberId, member);
    return { memberId: member.memberId, ...this.#rejoin(member, topicsMeta, nowMs) };
  }

  /** A static member back under its instance id (static-members.ts): the old member's place, assignment and epoch. */
  #joinStatic(holder: MemberState, parsed: ParsedJoin, topicsMeta: TopicsMeta, nowMs: number): JoinResponse {
    this.#checkGroupTopics(parsed.topics, holder.memberId);
    const member = takeStaticPlace(holder, parsed.chosenMemberId ?? this.#newMember().memberId, nowMs);
    const resubscribed = member.subscribedTopics.join("\n") !== parsed.topics.join("\n");
    Object.assign(member, { subscribedTopics: parsed.topics, sessionTimeoutMs: parsed.sessionTimeoutMs, clientId: parsed.clientId, host: parsed.host });
    this.#members.delete(holder.memberId);
    this.#members.set(member.memberId, member);
    this.#revision += 1;
    if (this.#refreshTopics(topicsMeta) || resubscribed) this.#recomputeTargets();
    this.#reconcile(member, false);
    return { memberId: member.memberId, ...this.#response(member) };
  }

  /** A static member leaves for now (Kafka's epoch -2): it keeps its place until its session ends; a dynamic one leaves. */
  leaveForNow(memberId: string): void {
    const member = this.#requireMember(memberId);
    if (member.instanceId == null) return this.leave(memberId);
    member.away = true;
    this.#revision += 1;
  }

  /**
   * A member's periodic request: accepted by the epoch rule (reconcile.ts acceptEpoch), it
   * records what the member let go, applies a new subscription and any partition growth in
   * `topicsMeta`, and answers with the member's next step toward its target.
   */
  heartbeat(memberId: string, request: HeartbeatRequest, topicsMeta: TopicsMeta, nowMs: number): MemberResponse {
    const parsed = parseHeartbeat(request, topicsMeta);
    const member = this.#requireMember(memberId);
    if (parsed.topics !== undefined) this.#checkGroupTopics(parsed.topics, memberId);
    if (parsed.memberEpoch === 0) {
      if (parsed.topics !== undefined) member.subscribedTopics = parsed.topics;
      return this.#rejoin(member, topicsMeta, nowMs);
    }
    const stillPending = acceptEpoch(member, parsed.memberEpoch, parsed.ownedPartitions);
    member.lastContactMs = nowMs;
    if (!sameAssignment(stillPending, member.pendingRevocation)) {
      member.pendingRevocation = stillPending;
      this.#revision += 1;
    }
    let retarget = false;
    if (parsed.topics !== undefined && parsed.topics.join("\n") !== member.subscribedTopics.join("\n")) {
      member.subscribedTopics = parsed.topics;
      retarget = true;
    }
    if (this.#refreshTopics(topicsMeta) || retarget) this.#recomputeTargets();
    this.#reconcile(member, false);
    return this.#response(member);
  }

  /**
   * A classic member's heartbeat (Kafka's JoinGroup/SyncGroup protocol, bridged by the
   * gateway): at its current epoch only, it records contact and partition growth but moves
   * nothing; `rebalance` says the member must rejoin (its assignment would change, or it holds
   * partitions to give up).
   */
  classicHeartbeat(memberId: string, memberEpoch: number, topicsMeta: TopicsMeta, nowMs: number): ClassicHeartbeatResponse {
    const member = this.#requireMember(memberId);
    if (memberEpoch !== member.memberEpoch) throw fenced(memberId, memberEpoch);
    member.lastContactMs = nowMs;
    if (this.#refreshTopics(topicsMeta)) this.#recomputeTargets();
    const rebalance = member.pendingRevocation.length > 0 || this.needsReconciliation(memberId);
    return { ...this.#response(member), rebalance };
  }

  /** Records a classic member's JoinGroup settings (classic-bridge.ts); null makes it an HTTP member again. */
  setClassic(memberId: string, classic: ClassicMemberInfo | null): void {
    const member = this.#requireMember(memberId);
    if (JSON.stringify(member.classic ?? null) === JSON.stringify(classic)) return;
    if (classic === null) delete member.classic;
    else member.classic = copyClassicInfo(classic);
    this.#revision += 1;
  }

  /** The member leaves; its partitions are free at once (others pick them up as they heartbeat). */
  leave(memberId: string): void {
    this.#requireMember(memberId);
    this.#members.delete(memberId);
    this.#afterDeparture();
  }

  /** Removes members silent for their session timeout (at or past the deadline); returns their ids. */
  expire(nowMs: number): string[] {
    const expired = this.#sortedMembers()
      .filter((member) => nowMs >= member.lastContactMs + member.sessionTimeoutMs)
      .map((member) => member.memberId);
    for (const memberId of expired) this.#members.delete(memberId);
    if (expired.length > 0) this.#afterDeparture();
    return expired;
  }

  /** Every member's contact time and session, uncopied (the object checks them on every request). */
  contacts(): Iterable<MemberContact> {
    return this.#members.values();
  }

  /** When the next member expires, for the object's alarm; null without members. */
  nextDeadlineMs(): number | null {
    let deadline: number | null = null;
    for (const member of this.#members.values()) {
      const memberDeadline = member.lastContactMs + member.sessionTimeoutMs;
      if (deadline === null || memberDeadline < deadline) deadline = memberDeadline;
    }
    return deadline;
  }

  /**
   * May this member commit offsets for these partitions? Only partitions it owns: at its
   * current epoch, its assignment and those it is still giving up (Kafka's consumers commit
   * what they give up in their revocation callbacks); at the previous epoch (a commit sent
   * before the response that moved it arrived, KIP-1251's rule), those it owned then and
   * still owns. Otherwise FENCED_MEMBER_EPOCH. A classic member (`classic`): its current
   * epoch only, as Kafka's classic coordinator. Changes nothing: a commit is not a heartbeat.
   */
  checkCommit(memberId: string, memberEpoch: number, partitions: readonly TopicPartition[], options: { classic?: boolean } = {}): void {
    if (!Number.isSafeInteger(memberEpoch) || memberEpoch < 0) throw invalid("memberEpoch must be an integer >= 0");
    if (!partitions.every((entry) => typeof entry.topic === "string" && isPartitionNumber(entry.partition))) {
      throw invalid("partitions must be {topic, partition} with partition an integer >= 0");
    }
    const member = this.#requireMember(memberId);
    const current = memberEpoch === member.memberEpoch;
    if (!current && (options.classic === true || memberEpoch !== member.previousMemberEpoch)) throw fenced(memberId, memberEpoch);
    // What it is giving up it owned at the previous epoch too; what it gained since, it did not.
    const ownedThen = current ? null : assignmentKeys([...member.previousAssignment, ...member.pendingRevocation]);
    const owned = [...assignmentKeys([...member.assignment, ...member.pendingRevocation])].filter((key) => ownedThen?.has(key) ?? true);
    const mayCommit = new Set(owned);
    const notOwned = partitions.filter(({ topic, partition }) => !mayCommit.has(partitionKey(topic, partition)));
    if (notOwned.length > 0) {
      const list = notOwned.map(({ topic, partition }) => ({ topic, partition }));
      throw fenced(memberId, memberEpoch, { notAssigned: list });
    }
  }

  /**
   * The topic was deleted: its partitions leave every target now, and a topic created later
   * under the name counts as grown from zero (read from its start). Members stay subscribed,
   * as in Kafka. Returns false when no member subscribes to it.
   */
  removeTopic(topic: string): boolean {
    const state = this.#topics.get(topic);
    if (state === undefined) return false;
    state.partitions = 0;
    state.partitionsAtSubscribe = 0;
    this.#recomputeTargets();
    return true;
  }

  isEmpty(): boolean {
    return this.#members.size === 0;
  }

  describe(): GroupDescription {
    const members = this.#sortedMembers();
    const settled = members.every(
      (member) => member.pendingRevocation.length === 0 && sameAssignment(member.assignment, member.targetAssignment),
    );
    return {
      state: members.length === 0 ? "Empty" : settled ? "Stable" : "Reconciling",
      assignor: this.#assignor,
      members: members.map((member) => ({
        memberId: member.memberId,
        memberEpoch: member.memberEpoch,
        assignment: copyAssignment(member.assignment),
        clientId: member.clientId,
        host: member.host,
        lastHeartbeatAt: member.lastContactMs,
        sessionTimeoutMs: member.sessionTimeoutMs,
        ...(member.classic == null ? (member.instanceId == null ? {} : { groupInstanceId: member.instanceId }) : { groupInstanceId: member.classic.groupInstanceId }),
      })),
    };
  }

  /** A copy of one member's state, or undefined. */
  member(memberId: string): MemberState | undefined {
    const member = this.#members.get(memberId);
    return member === undefined ? undefined : copyMember(member);
  }

  /** Every topic some member subscribes to, sorted: the metadata the object must pass in. */
  subscribedTopics(): string[] {
    return [...this.#topics.keys()].sort(compareStrings);
  }

  /**
   * Where a member starts reading a partition with no committed offset: the start, for a
   * partition added after the group subscribed (API.md); else the member's autoOffsetReset.
   */
  offsetResetFor(memberId: string, topic: string, partition: number): AutoOffsetReset {
    const member = this.#requireMember(memberId);
    const topicState = this.#topics.get(topic);
    if (topicState !== undefined && partition >= topicState.partitionsAtSubscribe) return "earliest";
    return member.autoOffsetReset;
  }

  /** Would the member's next heartbeat change its assignment? Then a waiting poll should return. */
  needsReconciliation(memberId: string): boolean {
    const member = this.#members.get(memberId);
    if (member === undefined) return false;
    return !sameAssignment(nextAssignment(member, this.#members.values()), member.assignment);
  }

  #requireMember(memberId: string): MemberState {
    const member = this.#members.get(memberId);
    if (member === undefined) {
      throw new TributaryError("UNKNOWN_MEMBER_ID", `no member ${memberId} in this group`, { memberId });
    }
    return member;
  }

  /** A member under `chosenId` (a Kafka client's own id, KIP-1082; not in use: join checked), else under a fresh id. */
  #newMember(chosenId?: string): MemberState {
    for (let attempt = 0; attempt < memberIdAttemptsMax; attempt++) {
      const memberId = chosenId ?? this.#deps.generateMemberId();
      if (typeof memberId !== "string" || memberId.length === 0 || this.#members.has(memberId)) continue;
      return {
        memberId,
        memberEpoch: 0,
        previousMemberEpoch: null,
        previousAssignment: [],
        assignment: [],
        pendingRevocation: [],
        targetAssignment: [],
        subscribedTopics: [],
        assignorPreference: null,
        autoOffsetReset: "latest",
        sessionTimeoutMs: 0,
        lastContactMs: 0,
        clientId: null,
        host: null,
      };
    }
    throw new TributaryError("UNKNOWN_SERVER_ERROR", "could not generate an unused member id");
  }

  /** The group's topics stay bounded whatever each member subscribes to. */
  #checkGroupTopics(topics: readonly string[], replacing: string | undefined): void {
    const union = new Set(topics);
    for (const member of this.#members.values()) {
      if (member.memberId !== replacing) for (const topic of member.subscribedTopics) union.add(topic);
    }
    if (union.size > groupTopicsMax) {
      throw invalid(`the group's subscriptions may name at most ${groupTopicsMax} topics`, { topicsMax: groupTopicsMax });
    }
  }

  /** Epoch 0: the member holds nothing any more, so everything it owned is free. */
  #rejoin(member: MemberState, topicsMeta: TopicsMeta, nowMs: number): MemberResponse {
    member.assignment = [];
    member.pendingRevocation = [];
    member.lastContactMs = nowMs;
    this.#refreshTopics(topicsMeta);
    this.#recomputeTargets();
    this.#reconcile(member, true);
    return this.#response(member);
  }

  #afterDeparture(): void {
    this.#refreshTopics(undefined);
    this.#recomputeTargets();
  }

  #refreshTopics(topicsMeta: TopicsMeta | undefined): boolean {
    const changed = refreshTopics(this.#topics, this.#members.values(), topicsMeta);
    if (changed) this.#revision += 1;
    return changed;
  }

  /** Runs the assignor the members prefer, sticky to the current targets. */
  #recomputeTargets(): void {
    this.#assignor = preferredAssignor(this.#members.values(), this.#assignor);
    const members = this.#sortedMembers();
    const topics = Object.fromEntries([...this.#topics].map(([topic, state]) => [topic, { partitions: state.partitions }]));
    const targets = assignors[this.#assignor].assign({
      members: members.map((member) => ({
        memberId: member.memberId,
        subscribedTopics: member.subscribedTopics,
        currentAssignment: member.targetAssignment,
      })),
      topics,
    });
    for (const member of members) member.targetAssignment = targets.get(member.memberId) ?? [];
    this.#revision += 1;
  }

  #reconcile(member: MemberState, rejoined: boolean): void {
    if (giveAssignment(member, nextAssignment(member, this.#members.values()), rejoined)) this.#revision += 1;
  }

  #response(member: MemberState): MemberResponse {
    return {
      memberEpoch: member.memberEpoch,
      assignment: copyAssignment(member.assignment),
      heartbeatIntervalMs: heartbeatIntervalMsFor(member.sessionTimeoutMs),
    };
  }

  #sortedMembers(): MemberState[] {
    return [...this.#members.values()].sort((a, b) => compareStrings(a.memberId, b.memberId));
  }
}

/**
 * Kafka's rule for server-side assignors: the one most members ask for, the default when none
 * asks. On a tie the group keeps what it uses, so a join does not flip the layout back and forth.
 */
function preferredAssignor(members: Iterable<MemberState>, current: AssignorName): AssignorName {
  const votes = new Map<AssignorName, number>();
  for (const { assignorPreference } of members) {
    if (assignorPreference !== null) votes.set(assignorPreference, (votes.get(assignorPreference) ?? 0) + 1);
  }
  if (votes.size === 0) return assignorNameDefault;
  const most = Math.max(...votes.values());
  const tied = assignorNames.filter((name) => votes.get(name) === most);
  return tied.includes(current) ? current : (tied[0] ?? assignorNameDefault);
}
