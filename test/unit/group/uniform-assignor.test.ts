import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignmentKeys } from "../../../src/group/assignment.ts";
import type { Assignment, TopicsMeta } from "../../../src/group/assignment.ts";
import type { AssignorMember } from "../../../src/group/assignor.ts";
import { uniformAssignor } from "../../../src/group/uniform-assignor.ts";
import { assignorInputs, countsOf, expectValidAssignment, metaOf, runAssignorConformance } from "./assignor.case.ts";

runAssignorConformance(uniformAssignor);

function owners(output: Map<string, Assignment>): Map<string, string> {
  const result = new Map<string, string>();
  for (const [memberId, assignment] of output) for (const key of assignmentKeys(assignment)) result.set(key, memberId);
  return result;
}

/** Partitions that changed owner although their owner is still a member: what a rebalance costs. */
function moved(before: Map<string, Assignment>, after: Map<string, Assignment>): number {
  const afterOwners = owners(after);
  let count = 0;
  for (const [key, owner] of owners(before)) {
    if (after.has(owner) && afterOwners.has(key) && afterOwners.get(key) !== owner) count += 1;
  }
  return count;
}

/**
 * The fewest moves any balanced assignment needs when everyone subscribes to the same topics:
 * each member keeps at most its quota, and the larger quotas go to those holding the most.
 */
function movesNeeded(before: Map<string, Assignment>, memberIds: readonly string[], meta: TopicsMeta): number {
  const valid = new Set(Object.entries(meta).flatMap(([topic, { partitions }]) => Array.from({ length: partitions }, (_, p) => `${topic}:${p}`)));
  const held = memberIds
    .map((memberId) => [...assignmentKeys(before.get(memberId) ?? [])].filter((key) => valid.has(key)).length)
    .sort((a, b) => b - a);
  const base = Math.floor(valid.size / memberIds.length);
  const extra = valid.size % memberIds.length;
  return held.reduce((sum, count, rank) => sum + Math.max(0, count - (base + (rank < extra ? 1 : 0))), 0);
}

function sameSubscription(memberIds: readonly string[], topics: string[], current: Map<string, Assignment>): AssignorMember[] {
  return memberIds.map((memberId) => ({ memberId, subscribedTopics: topics, currentAssignment: current.get(memberId) ?? [] }));
}

describe("uniform assignor", () => {
  it("keeps every member within one partition of the others when subscriptions are equal", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 12 }), { minLength: 5, maxLength: 5 }), fc.integer({ min: 1, max: 12 }), (counts, memberCount) => {
        const meta = metaOf(counts);
        const members = sameSubscription(Array.from({ length: memberCount }, (_, i) => `m${i}`), ["t0", "t1", "t2", "t3", "t4"], new Map());
        const output = uniformAssignor.assign({ members, topics: meta });
        const perMember = countsOf(output);
        expect(Math.max(...perMember) - Math.min(...perMember)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("spreads each topic over the members instead of handing out whole topics", () => {
    const members = sameSubscription(["a", "b", "c"], ["t0", "t1"], new Map());
    const output = uniformAssignor.assign({ members, topics: { t0: { partitions: 3 }, t1: { partitions: 3 } } });
    for (const assignment of output.values()) expect(assignment.map(({ topic }) => topic)).toEqual(["t0", "t1"]);
  });

  it("moves one partition when a fourth member joins three holding six", () => {
    const meta = { t0: { partitions: 6 } };
    const first = uniformAssignor.assign({ members: sameSubscription(["a", "b", "c"], ["t0"], new Map()), topics: meta });
    const second = uniformAssignor.assign({ members: sameSubscription(["a", "b", "c", "d"], ["t0"], first), topics: meta });
    expect(moved(first, second)).toBe(1);
    expect(assignmentKeys(second.get("d")!).size).toBe(1);
    expect(countsOf(second).sort()).toEqual([1, 2, 2, 1].sort());
  });

  it("moves nothing that stays balanced when a member leaves: only the leaver's partitions move", () => {
    const meta = { t0: { partitions: 8 }, t1: { partitions: 4 } };
    const first = uniformAssignor.assign({ members: sameSubscription(["a", "b", "c", "d"], ["t0", "t1"], new Map()), topics: meta });
    const second = uniformAssignor.assign({ members: sameSubscription(["a", "b", "c"], ["t0", "t1"], first), topics: meta });
    expect(moved(first, second)).toBe(0);
    for (const memberId of ["a", "b", "c"]) {
      for (const key of assignmentKeys(first.get(memberId)!)) expect(assignmentKeys(second.get(memberId)!).has(key)).toBe(true);
    }
  });

  it("moves no more partitions than balance requires, over any sequence of joins, leaves and growth", () => {
    const step = fc.record({ join: fc.nat({ max: 3 }), leave: fc.nat({ max: 3 }), grow: fc.array(fc.nat({ max: 4 }), { minLength: 5, maxLength: 5 }) });
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 10 }), { minLength: 5, maxLength: 5 }), fc.array(step, { minLength: 1, maxLength: 8 }), (initial, steps) => {
        let counts = initial;
        let memberIds = ["m00", "m01"];
        let nextId = 2;
        let current = new Map<string, Assignment>();
        const topics = ["t0", "t1", "t2", "t3", "t4"];
        for (const { join, leave, grow } of steps) {
          memberIds = memberIds.slice(Math.min(leave, memberIds.length - 1));
          for (let i = 0; i < join; i++) memberIds.push(`m${String(nextId++).padStart(2, "0")}`);
          counts = counts.map((count, index) => count + (grow[index] ?? 0));
          const meta = metaOf(counts);
          const input = { members: sameSubscription(memberIds, topics, current), topics: meta };
          const next = uniformAssignor.assign(input);
          expectValidAssignment(input, next);
          expect(moved(current, next)).toBe(movesNeeded(current, memberIds, meta));
          current = next;
        }
      }),
    );
  });

  it("moves no more partitions than balance requires, from any starting layout", () => {
    const layouts = fc.record({
      counts: fc.array(fc.nat({ max: 10 }), { minLength: 3, maxLength: 3 }),
      memberCount: fc.integer({ min: 1, max: 9 }),
      // For each partition in order: the index of the member holding it, or none.
      holders: fc.array(fc.integer({ min: -1, max: 8 }), { minLength: 30, maxLength: 30 }),
    });
    fc.assert(
      fc.property(layouts, ({ counts, memberCount, holders }) => {
        const meta = metaOf(counts);
        const memberIds = Array.from({ length: memberCount }, (_, index) => `m${index}`);
        const current = new Map<string, Assignment>(memberIds.map((memberId) => [memberId, []]));
        let next = 0;
        for (const [topic, { partitions }] of Object.entries(meta)) {
          for (let partition = 0; partition < partitions; partition++) {
            const holder = memberIds[holders[next++] ?? -1];
            if (holder !== undefined) current.get(holder)!.push({ topic, partitions: [partition] });
          }
        }
        const input = { members: sameSubscription(memberIds, ["t0", "t1", "t2"], current), topics: meta };
        const output = uniformAssignor.assign(input);
        expectValidAssignment(input, output);
        expect(moved(current, output)).toBe(movesNeeded(current, memberIds, meta));
      }),
    );
  });

  it("keeps members with equal subscriptions within one of each other when subscriptions differ", () => {
    fc.assert(
      fc.property(assignorInputs, (input) => {
        const output = uniformAssignor.assign(input);
        const bySubscription = new Map<string, number[]>();
        for (const member of input.members) {
          const key = [...new Set(member.subscribedTopics.filter((topic) => (input.topics[topic]?.partitions ?? 0) > 0))].sort().join(",");
          bySubscription.set(key, [...(bySubscription.get(key) ?? []), assignmentKeys(output.get(member.memberId)!).size]);
        }
        for (const counts of bySubscription.values()) expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("gives the topic only one member can take to that member and balances the rest around it", () => {
    const members: AssignorMember[] = [
      { memberId: "a", subscribedTopics: ["t0"], currentAssignment: [] },
      { memberId: "b", subscribedTopics: ["t0", "t1"], currentAssignment: [] },
    ];
    const output = uniformAssignor.assign({ members, topics: { t0: { partitions: 4 }, t1: { partitions: 4 } } });
    expect(output.get("a")).toEqual([{ topic: "t0", partitions: [0, 1, 2, 3] }]);
    expect(output.get("b")).toEqual([{ topic: "t1", partitions: [0, 1, 2, 3] }]);
  });

  it("rebalances a heterogeneous group by moving from the heaviest member only what is needed", () => {
    const topics = { t0: { partitions: 6 }, t1: { partitions: 2 } };
    const before = new Map<string, Assignment>([["b", [{ topic: "t0", partitions: [0, 1, 2, 3, 4, 5] }, { topic: "t1", partitions: [0, 1] }]]]);
    const members: AssignorMember[] = [
      { memberId: "a", subscribedTopics: ["t0"], currentAssignment: [] },
      { memberId: "b", subscribedTopics: ["t0", "t1"], currentAssignment: before.get("b")! },
    ];
    const output = uniformAssignor.assign({ members, topics });
    expect(countsOf(output)).toEqual([4, 4]);
    expect(moved(before, output)).toBe(4);
    expect(output.get("b")).toContainEqual({ topic: "t1", partitions: [0, 1] });
  });
});
