/**
 * The invariants the group simulation checks, written independently of the code under test
 * (no assignor or reconcile import): ownership, epochs, subscriptions, stickiness, and the
 * settled layout. Each throws a plain Error with what it found.
 */

import { assignmentKeys } from "../../src/group/assignment.ts";
import type { Assignment } from "../../src/group/assignment.ts";
import type { GroupState, MemberState } from "../../src/group/group-state.ts";

/** What a simulated consumer believes; `memberId` null until a join answer reaches it. */
export interface ClientView {
  name: string;
  memberId: string | null;
  owned: Assignment;
}

function fail(message: string): never {
  throw new Error(message);
}

export function ownedBy(member: MemberState): Set<string> {
  const owned = assignmentKeys(member.assignment);
  for (const key of assignmentKeys(member.pendingRevocation)) owned.add(key);
  return owned;
}

/**
 * No partition has two owners — on the server (assignment ∪ pendingRevocation), and among
 * the clients the server still counts as members. And the server never forgets what such a
 * client holds: a client's belief is inside what the server says it owns.
 */
export function checkOwnership(state: GroupState, clients: readonly ClientView[]): void {
  const owners = new Map<string, string>();
  for (const member of state.members) {
    for (const key of ownedBy(member)) {
      const other = owners.get(key);
      if (other !== undefined) fail(`${key} owned by both ${other} and ${member.memberId} on the server`);
      owners.set(key, member.memberId);
    }
  }
  const believers = new Map<string, string>();
  for (const client of clients) {
    const member = state.members.find((candidate) => candidate.memberId === client.memberId);
    if (member === undefined) continue; // expired or left: fenced on its next request
    const serverOwned = ownedBy(member);
    for (const key of assignmentKeys(client.owned)) {
      if (!serverOwned.has(key)) fail(`${client.name} (${client.memberId}) holds ${key}, which the server does not count as its`);
      const other = believers.get(key);
      if (other !== undefined) fail(`${key} held by both ${other} and ${client.name}`);
      believers.set(key, client.name);
    }
  }
}

/**
 * The object persists only when `revision` moves, so an unmoved revision must mean nothing
 * but contact times changed — else a restart would lose what the group promised.
 */
export function checkUnchanged(before: GroupState, after: GroupState): void {
  if (!sameIgnoringContacts(before, after)) fail("the group changed without moving its revision");
}

/** Deep equality of plain JSON values, skipping lastContactMs (faster than comparing JSON text). */
function sameIgnoringContacts(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a).filter((key) => key !== "lastContactMs");
  if (keys.length !== Object.keys(b).filter((key) => key !== "lastContactMs").length) return false;
  return keys.every((key) => sameIgnoringContacts((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Member epochs never go back (a rejoin moves forward too). */
export function checkEpochs(state: GroupState, highest: Map<string, number>): void {
  for (const member of state.members) {
    const before = highest.get(member.memberId) ?? 0;
    if (member.memberEpoch < before) fail(`${member.memberId} epoch went back from ${before} to ${member.memberEpoch}`);
    if (member.memberEpoch < 1) fail(`${member.memberId} has epoch ${member.memberEpoch}`);
    highest.set(member.memberId, member.memberEpoch);
  }
}

/** A member is only ever given partitions of topics it subscribes to, that exist. */
export function checkSubscribed(state: GroupState): void {
  const counts = new Map(state.topics.map((topic) => [topic.topic, topic.partitions]));
  for (const member of state.members) {
    for (const { topic, partitions } of [...member.assignment, ...member.targetAssignment]) {
      if (!member.subscribedTopics.includes(topic)) fail(`${member.memberId} given ${topic}, not subscribed`);
      if (partitions.some((partition) => partition >= (counts.get(topic) ?? 0))) fail(`${member.memberId} given a missing partition of ${topic}`);
    }
  }
}

function subscriptionKey(member: MemberState): string {
  return member.subscribedTopics.join(",");
}

function ownerOf(members: readonly MemberState[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const member of members) for (const key of assignmentKeys(member.targetAssignment)) owners.set(key, member.memberId);
  return owners;
}

/**
 * With every member on the same subscription and the uniform assignor before and after, the
 * targets moved exactly as many partitions as balance forces: a member keeps at most its
 * quota, and the larger quotas go to the members that held most.
 */
export function checkMinimalMoves(before: GroupState, after: GroupState): void {
  if (before.assignor !== "uniform" || after.assignor !== "uniform" || after.members.length === 0) return;
  const subscriptions = new Set([...before.members, ...after.members].map(subscriptionKey));
  if (subscriptions.size !== 1) return;
  const valid = new Set(after.topics.flatMap(({ topic, partitions }) => Array.from({ length: partitions }, (_, p) => `${topic}:${p}`)));
  const previousOwner = ownerOf(before.members);
  const nextOwner = ownerOf(after.members);
  const present = new Set(after.members.map((member) => member.memberId));
  let moved = 0;
  for (const [key, owner] of previousOwner) {
    if (present.has(owner) && valid.has(key) && nextOwner.get(key) !== owner) moved += 1;
  }
  const held = after.members
    .map((member) => {
      const previous = before.members.find((candidate) => candidate.memberId === member.memberId);
      return previous === undefined ? 0 : [...assignmentKeys(previous.targetAssignment)].filter((key) => valid.has(key)).length;
    })
    .sort((a, b) => b - a);
  const base = Math.floor(valid.size / held.length);
  const extra = valid.size % held.length;
  const needed = held.reduce((sum, count, rank) => sum + Math.max(0, count - base - (rank < extra ? 1 : 0)), 0);
  if (moved !== needed) fail(`uniform moved ${moved} partitions where ${needed} were needed`);
}

/** Once settled: each subscribed partition has exactly one owner, and the layout is balanced. */
export function checkSettled(state: GroupState): void {
  for (const member of state.members) {
    if (member.pendingRevocation.length > 0) fail(`${member.memberId} still has partitions to let go`);
    if (JSON.stringify(member.assignment) !== JSON.stringify(member.targetAssignment)) fail(`${member.memberId} is not at its target`);
  }
  const owners = new Map<string, string>();
  for (const member of state.members) for (const key of assignmentKeys(member.assignment)) owners.set(key, member.memberId);
  for (const { topic, partitions } of state.topics) {
    for (let partition = 0; partition < partitions; partition++) {
      if (!owners.has(`${topic}:${partition}`)) fail(`${topic}:${partition} has no owner once settled`);
    }
  }
  if (state.assignor === "range") checkRangeLayout(state);
  else checkBalanced(state);
}

function checkBalanced(state: GroupState): void {
  const counts = new Map<string, number[]>();
  for (const member of state.members) {
    const key = subscriptionKey(member);
    counts.set(key, [...(counts.get(key) ?? []), assignmentKeys(member.assignment).size]);
  }
  for (const [subscription, list] of counts) {
    if (Math.max(...list) - Math.min(...list) > 1) fail(`members subscribed to ${subscription} hold ${list.join("/")} partitions`);
  }
}

/** Kafka's range layout, recomputed here from scratch. */
function checkRangeLayout(state: GroupState): void {
  for (const { topic, partitions } of state.topics) {
    const subscribers = state.members.filter((member) => member.subscribedTopics.includes(topic)).map((member) => member.memberId).sort();
    let next = 0;
    subscribers.forEach((memberId, index) => {
      const count = Math.floor(partitions / subscribers.length) + (index < partitions % subscribers.length ? 1 : 0);
      const member = state.members.find((candidate) => candidate.memberId === memberId)!;
      const got = member.assignment.find((entry) => entry.topic === topic)?.partitions ?? [];
      const expected = Array.from({ length: count }, (_, offset) => next + offset);
      if (got.join() !== expected.join()) fail(`range: ${memberId} holds ${topic} [${got.join()}], expected [${expected.join()}]`);
      next += count;
    });
  }
}
