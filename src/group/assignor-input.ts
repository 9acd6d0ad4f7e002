/**
 * What both assignors do to their input before assigning: members in member-id order (so the
 * output never depends on input order), and each subscription reduced to the topics that have
 * partitions, sorted and without repeats.
 */

import { compareStrings, partitionsIn } from "./assignment.ts";
import type { Assignment } from "./assignment.ts";
import type { AssignorInput } from "./assignor.ts";

export interface PreparedMember {
  readonly memberId: string;
  /** Subscribed topics that exist and have partitions, sorted, distinct. */
  readonly topics: readonly string[];
  readonly currentAssignment: Assignment;
}

export function prepareMembers(input: AssignorInput): PreparedMember[] {
  const members = input.members.map((member) => ({
    memberId: member.memberId,
    topics: [...new Set(member.subscribedTopics)]
      .filter((topic) => (partitionsIn(input.topics, topic) ?? 0) > 0)
      .sort(compareStrings),
    currentAssignment: member.currentAssignment,
  }));
  return members.sort((a, b) => compareStrings(a.memberId, b.memberId));
}

/** Partition count of a topic, 0 when unknown; counts are whole and never negative. */
export function partitionCountOf(input: AssignorInput, topic: string): number {
  const count = partitionsIn(input.topics, topic) ?? 0;
  return Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/** Topics anyone subscribes to, sorted. */
export function subscribedTopicsOf(members: readonly PreparedMember[]): string[] {
  return [...new Set(members.flatMap((member) => member.topics))].sort(compareStrings);
}
