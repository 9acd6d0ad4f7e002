/**
 * Kafka's rebalance steps of a classic group (GroupMetadataManager's prepareRebalance,
 * completeClassicGroupJoin and their deadlines), as functions on the group's state: what
 * classic-group.ts runs when requests, departures and time move a rebalance on. Pure; each
 * change bumps the state's revision.
 */
import { classicInitialRebalanceDelayMs } from "../limits.ts";
import type { ClassicGroupState, ClassicMemberState } from "./classic-group-state.ts";
import { selectProtocol } from "./classic-protocols.ts";

export function changed(state: ClassicGroupState): void {
  state.revision += 1;
}

/** Every member has joined the rebalance under way, and no id given with MEMBER_ID_REQUIRED is still out. */
export function allJoined(state: ClassicGroupState): boolean {
  return state.pendingMembers.length === 0 && state.members.every(({ awaitingJoin }) => awaitingJoin);
}

/** Kafka's hasSatisfiedHeartbeat: a member awaiting the join, or whose SyncGroup waits for the leader's, does not expire. */
export function satisfied(state: ClassicGroupState, member: ClassicMemberState): boolean {
  return member.awaitingJoin || (state.status === "CompletingRebalance" && member.synced);
}

/** The group's rebalance timeout: its members' largest. */
export function rebalanceTimeoutMs(state: ClassicGroupState): number {
  return Math.max(0, ...state.members.map((member) => member.rebalanceTimeoutMs));
}

/** Kafka restarts the session of each member whose held SyncGroup it answers (propagateAssignment). */
export function answeredHeldSyncs(state: ClassicGroupState, nowMs: number): void {
  for (const member of state.members) if (member.synced) member.lastContactMs = Math.max(member.lastContactMs, nowMs);
}

/** When the group has something to do next (a member's session, a pending id, a rebalance deadline); null when nothing is due. */
export function nextDeadlineMs(state: ClassicGroupState): number | null {
  const deadlines = [
    ...state.pendingMembers.map(({ deadlineMs }) => deadlineMs),
    ...state.members.filter((member) => !satisfied(state, member)).map((member) => member.lastContactMs + member.sessionTimeoutMs),
    state.initialRebalance?.checkAtMs ?? null,
    state.initialRebalance === null ? state.joinDeadlineMs : null,
    state.syncDeadlineMs,
  ].filter((at): at is number => at !== null);
  return deadlines.length === 0 ? null : Math.min(...deadlines);
}

/** Moves rebalances on at their deadlines: the initial delay, the join deadline, the sync deadline. */
export function runDeadlines(state: ClassicGroupState, nowMs: number): void {
  const initial = state.initialRebalance;
  if (state.status === "PreparingRebalance" && initial !== null && nowMs >= initial.checkAtMs) {
    if (initial.newMemberAdded && initial.remainingMs > 0) {
      // Members keep coming: wait once more, within the rebalance timeout.
      const delayMs = Math.min(classicInitialRebalanceDelayMs, initial.remainingMs);
      state.initialRebalance = { checkAtMs: nowMs + delayMs, remainingMs: Math.max(initial.remainingMs - delayMs, 0), newMemberAdded: false };
      changed(state);
    } else {
      completeJoin(state, nowMs);
    }
  } else if (state.status === "PreparingRebalance" && initial === null && state.joinDeadlineMs !== null && nowMs >= state.joinDeadlineMs) {
    completeJoin(state, nowMs);
  }
  if (state.syncDeadlineMs !== null && nowMs >= state.syncDeadlineMs && state.status !== "PreparingRebalance") {
    state.syncDeadlineMs = null;
    const unsynced = state.members.filter(({ synced }) => !synced).map(({ memberId }) => memberId);
    for (const memberId of unsynced) removeMember(state, memberId);
    changed(state);
    if (unsynced.length > 0) prepareRebalance(state, nowMs);
  }
}

/** Kafka's prepareRebalance: members learn of it from their heartbeats and rejoin. */
export function prepareRebalance(state: ClassicGroupState, nowMs: number): void {
  if (state.status === "CompletingRebalance") {
    for (const member of state.members) member.assignment = "";
    // A held SyncGroup is answered REBALANCE_IN_PROGRESS: its member's session starts over then, as in Kafka.
    answeredHeldSyncs(state, nowMs);
  }
  state.syncDeadlineMs = null;
  const initial = state.status === "Empty";
  state.status = "PreparingRebalance";
  changed(state);
  if (initial) {
    state.initialRebalance = {
      checkAtMs: nowMs + classicInitialRebalanceDelayMs,
      remainingMs: Math.max(rebalanceTimeoutMs(state) - classicInitialRebalanceDelayMs, 0),
      newMemberAdded: false,
    };
    return;
  }
  if (allJoined(state)) completeJoin(state, nowMs);
  else state.joinDeadlineMs = nowMs + rebalanceTimeoutMs(state);
}

/** Completes the join phase once every member joined (not during the initial delay). */
export function maybeCompleteJoin(state: ClassicGroupState, nowMs: number): void {
  if (state.status === "PreparingRebalance" && state.initialRebalance === null && allJoined(state)) completeJoin(state, nowMs);
}

/**
 * Kafka's completeClassicGroupJoin: dynamic members that did not rejoin are removed; a leader
 * that did not is replaced by the first member that did; the next generation starts with the
 * protocol the members choose, and every member has until the rebalance timeout to sync.
 */
export function completeJoin(state: ClassicGroupState, nowMs: number): void {
  state.initialRebalance = null;
  state.joinDeadlineMs = null;
  for (const member of [...state.members]) if (!member.awaitingJoin && member.groupInstanceId === null) removeMember(state, member.memberId);
  changed(state);
  const leader = state.members.find(({ memberId }) => memberId === state.leaderId);
  if (leader !== undefined && !leader.awaitingJoin) {
    const joined = state.members.find(({ awaitingJoin }) => awaitingJoin);
    if (joined === undefined) {
      // Only static members that did not rejoin are left: wait for them again, until their sessions pass.
      state.joinDeadlineMs = nowMs + rebalanceTimeoutMs(state);
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
  state.syncDeadlineMs = nowMs + rebalanceTimeoutMs(state);
}

/** A member left or expired: the others rebalance (or the one under way may now complete). */
export function afterDeparture(state: ClassicGroupState, nowMs: number): void {
  const { status } = state;
  if (status === "Stable" || status === "CompletingRebalance") prepareRebalance(state, nowMs);
  else if (status === "PreparingRebalance" && allJoined(state)) completeJoin(state, nowMs);
}

/** Removes a member; a leader that goes is replaced by the first member left. */
export function removeMember(state: ClassicGroupState, memberId: string): void {
  state.members = state.members.filter((member) => member.memberId !== memberId);
  if (state.leaderId === memberId) state.leaderId = state.members[0]?.memberId ?? null;
  changed(state);
}
