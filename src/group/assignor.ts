/**
 * Server-side assignors (KIP-848), their contract: the coordinator computes every member's
 * target assignment with one of them (by name: assignors.ts). An assignor is a pure function
 * of its input — same input, same output, no randomness — so a restarted coordinator computes
 * what its predecessor did.
 *
 * Contract every assignor honours (test/unit/group/assignor.case.ts checks it):
 * - the result has one entry per input member, in member-id order, each normalized;
 * - each partition of a topic that some member subscribes to goes to exactly one member
 *   that subscribes to it; topics missing from `topics` or with no partitions are skipped;
 * - the result does not depend on the order of `members` or of their subscriptions.
 */

import type { Assignment, TopicsMeta } from "./assignment.ts";

export const assignorNames = ["uniform", "range"] as const;
export type AssignorName = (typeof assignorNames)[number];
export const assignorNameDefault: AssignorName = "uniform";

export interface AssignorMember {
  readonly memberId: string;
  readonly subscribedTopics: readonly string[];
  /** Where the member stands now; sticky assignors keep as much of it as balance allows. */
  readonly currentAssignment: Assignment;
}

export interface AssignorInput {
  readonly members: readonly AssignorMember[];
  readonly topics: TopicsMeta;
}

export interface Assignor {
  readonly name: AssignorName;
  assign(input: AssignorInput): Map<string, Assignment>;
}

export function isAssignorName(value: unknown): value is AssignorName {
  return typeof value === "string" && (assignorNames as readonly string[]).includes(value);
}
