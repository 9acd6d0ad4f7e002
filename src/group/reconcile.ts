/**
 * Cooperative reconciliation (KIP-848): how a member's assignment moves toward its target one
 * response at a time, and how the member epoch fences requests. Pure functions over
 * MemberState; ConsumerGroup decides when to call them.
 *
 * A partition moving from A to B:
 *   1. the assignor puts it in B's target instead of A's;
 *   2. A's next response leaves it out (new epoch); it stays A's as pendingRevocation;
 *   3. A shows it let go — a request at that new epoch, or ownedPartitions without it — or A
 *      leaves, expires or rejoins with epoch 0: it is nobody's;
 *   4. B's next response includes it (new epoch).
 * A member may lose and gain partitions in one response: what it gains was already free,
 * so revoke-before-assign holds per partition without costing an extra round trip.
 */

import { TributaryError } from "../errors.ts";
import { assignmentFromKeys, assignmentKeys, isSubset, sameAssignment } from "./assignment.ts";
import type { Assignment, PartitionKey } from "./assignment.ts";
import type { MemberState } from "./group-state.ts";

/** Every partition some member other than `memberId` owns (assignment ∪ pendingRevocation). */
export function ownedByOthers(members: Iterable<MemberState>, memberId: string): Set<PartitionKey> {
  const owned = new Set<PartitionKey>();
  for (const member of members) {
    if (member.memberId === memberId) continue;
    for (const key of assignmentKeys(member.assignment)) owned.add(key);
    for (const key of assignmentKeys(member.pendingRevocation)) owned.add(key);
  }
  return owned;
}

/**
 * The member's next assignment: its target, less what another member still owns. When the
 * member already holds its whole target — every heartbeat of a stable group — nobody else can
 * own any of it, and the walk over the whole group's ownership is skipped.
 */
export function nextAssignment(member: MemberState, members: Iterable<MemberState>): Assignment {
  const held = assignmentKeys(member.assignment);
  const wanted = [...assignmentKeys(member.targetAssignment)];
  if (wanted.every((key) => held.has(key))) return assignmentFromKeys(wanted);
  const othersOwn = ownedByOthers(members, member.memberId);
  return assignmentFromKeys(wanted.filter((key) => held.has(key) || !othersOwn.has(key)));
}

/**
 * Gives the member `next` if it differs from what it has (or always, after a rejoin), with a
 * new epoch. What it loses joins pendingRevocation: the response may never arrive, so the
 * member owns it until it shows otherwise. Returns whether anything changed.
 */
export function giveAssignment(member: MemberState, next: Assignment, rejoined: boolean): boolean {
  if (!rejoined && sameAssignment(next, member.assignment)) return false;
  const nextKeys = assignmentKeys(next);
  const pending = assignmentKeys(member.pendingRevocation);
  for (const key of assignmentKeys(member.assignment)) pending.add(key);
  for (const key of nextKeys) pending.delete(key);
  member.previousMemberEpoch = rejoined ? null : member.memberEpoch;
  member.previousAssignment = rejoined ? [] : member.assignment;
  member.memberEpoch += 1;
  member.assignment = next;
  member.pendingRevocation = assignmentFromKeys(pending);
  return true;
}

/**
 * The epoch rule (API.md): a request is accepted with the member's current epoch, or with the
 * previous one when what it owns is a subset of its current assignment (it missed the latest
 * response, and that response took nothing away that it still holds). Anything else is
 * FENCED_MEMBER_EPOCH, thrown before any change.
 *
 * Returns the pendingRevocation that remains once the request is accepted:
 * - current epoch: the member has the response that revoked those partitions, so it let them
 *   go — except any it still lists in ownedPartitions (it says it has not let go yet);
 * - previous epoch: nothing; what it owns is inside its current assignment, and pending
 *   partitions never are.
 * `owned` omitted means "what you gave me with the epoch I send".
 */
export function acceptEpoch(member: MemberState, memberEpoch: number, owned: Assignment | undefined): Assignment {
  if (memberEpoch === member.memberEpoch) {
    if (owned === undefined) return [];
    const listed = assignmentKeys(owned);
    return assignmentFromKeys([...assignmentKeys(member.pendingRevocation)].filter((key) => listed.has(key)));
  }
  if (memberEpoch === member.previousMemberEpoch && isSubset(owned ?? member.previousAssignment, member.assignment)) {
    return [];
  }
  throw fenced(member.memberId, memberEpoch);
}

export function fenced(memberId: string, memberEpoch: number, data: Record<string, unknown> = {}): TributaryError {
  return new TributaryError(
    "FENCED_MEMBER_EPOCH",
    `member ${memberId} is fenced at epoch ${memberEpoch}: give up all partitions and rejoin with memberEpoch 0`,
    data,
  );
}

/** Pairs of members that own the same partition; empty while the group is sound. */
export function sharedOwnership(members: Iterable<MemberState>): { partition: PartitionKey; owners: string[] }[] {
  const owners = new Map<PartitionKey, string[]>();
  for (const member of members) {
    const owned = assignmentKeys(member.assignment);
    for (const key of assignmentKeys(member.pendingRevocation)) owned.add(key);
    for (const key of owned) owners.set(key, [...(owners.get(key) ?? []), member.memberId]);
  }
  return [...owners].filter(([, ids]) => ids.length > 1).map(([partition, ids]) => ({ partition, owners: ids }));
}
