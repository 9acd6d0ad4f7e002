/** Helpers shared by the group state machine tests. */

import { expect } from "vitest";
import type { ErrorCode } from "../../../src/errors.ts";
import { TributaryError } from "../../../src/errors.ts";
import { assignmentKeys } from "../../../src/group/assignment.ts";
import type { TopicsMeta } from "../../../src/group/assignment.ts";
import { ConsumerGroup } from "../../../src/group/group.ts";
import type { GroupState } from "../../../src/group/group-state.ts";

export const meta: TopicsMeta = { orders: { partitions: 4 }, audit: { partitions: 2 } };
export const t0 = 1_000_000;

/** Member ids m1, m2, … in order, as crypto.randomUUID would give unique ones. */
export function sequentialIds(prefix = "m"): () => string {
  let next = 0;
  return () => `${prefix}${++next}`;
}

export function newGroup(state?: GroupState): ConsumerGroup {
  return new ConsumerGroup({ generateMemberId: sequentialIds() }, state);
}

export function thrown(action: () => unknown): TributaryError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(TributaryError);
    return error as TributaryError;
  }
  throw new Error("expected a TributaryError, nothing was thrown");
}

/** The call fails with `code` and the group's serialized state does not change at all. */
export function expectRefused(group: ConsumerGroup, code: ErrorCode, action: () => unknown): TributaryError {
  const before = JSON.stringify(group.toState());
  const error = thrown(action);
  expect(error.code).toBe(code);
  expect(JSON.stringify(group.toState())).toBe(before);
  return error;
}

/** The rule of rules: no partition is in two members' assignment ∪ pendingRevocation. */
export function expectSingleOwners(group: ConsumerGroup): void {
  const owners = new Map<string, string>();
  for (const member of group.toState().members) {
    const owned = assignmentKeys(member.assignment);
    for (const key of assignmentKeys(member.pendingRevocation)) owned.add(key);
    for (const key of owned) {
      expect(owners.get(key), `${key} owned by ${owners.get(key)} and ${member.memberId}`).toBeUndefined();
      owners.set(key, member.memberId);
    }
  }
}

export function memberOf(group: ConsumerGroup, memberId: string) {
  const member = group.member(memberId);
  if (member === undefined) throw new Error(`no member ${memberId}`);
  return member;
}
