/**
 * The contract every assignor honours (src/group/assignor.ts), as one suite that each
 * assignor's own test file runs — the way hono's routers share `common.case.test.ts`.
 * Not a test file itself (no `.test.ts`), so it runs once per assignor and never alone.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignmentKeys, normalizeAssignment } from "../../../src/group/assignment.ts";
import type { Assignment, TopicsMeta } from "../../../src/group/assignment.ts";
import type { Assignor, AssignorInput, AssignorMember } from "../../../src/group/assignor.ts";

/** Topics t0..t4 exist with 0..12 partitions (0: absent from the metadata); t5 never exists. */
export const topicNames = ["t0", "t1", "t2", "t3", "t4", "t5"] as const;

const garbageAssignment: fc.Arbitrary<Assignment> = fc.array(
  fc.record({ topic: fc.constantFrom(...topicNames), partitions: fc.array(fc.nat({ max: 14 }), { maxLength: 6 }) }),
  { maxLength: 4 },
);

/** Any input: members with random subscriptions and a current assignment that may be nonsense. */
export const assignorInputs: fc.Arbitrary<AssignorInput> = fc
  .record({
    counts: fc.array(fc.nat({ max: 12 }), { minLength: 5, maxLength: 5 }),
    members: fc.uniqueArray(
      fc.record({
        memberId: fc.stringMatching(/^[a-z0-9-]{1,8}$/),
        subscribedTopics: fc.subarray([...topicNames], { minLength: 1 }),
        currentAssignment: garbageAssignment,
      }),
      { selector: (member) => member.memberId, maxLength: 9 },
    ),
  })
  .map(({ counts, members }) => ({ members, topics: metaOf(counts) }));

export function metaOf(counts: readonly number[]): TopicsMeta {
  const meta: Record<string, { partitions: number }> = {};
  counts.forEach((partitions, index) => {
    if (partitions > 0) meta[`t${index}`] = { partitions };
  });
  return meta;
}

/** Checks the contract's validity clauses for one input and output; returns the owner of each partition. */
export function expectValidAssignment(input: AssignorInput, output: Map<string, Assignment>): Map<string, string> {
  const ids = input.members.map((member) => member.memberId).sort();
  expect([...output.keys()]).toEqual(ids);
  const owners = new Map<string, string>();
  for (const [memberId, assignment] of output) {
    expect(assignment).toEqual(normalizeAssignment(assignment));
    const member = input.members.find((candidate) => candidate.memberId === memberId)!;
    for (const { topic, partitions } of assignment) {
      expect(member.subscribedTopics).toContain(topic);
      for (const partition of partitions) {
        expect(partition).toBeLessThan(input.topics[topic]?.partitions ?? 0);
        const key = `${topic}:${partition}`;
        expect(owners.get(key), `${key} assigned twice`).toBeUndefined();
        owners.set(key, memberId);
      }
    }
  }
  for (const topic of new Set(input.members.flatMap((member) => member.subscribedTopics))) {
    for (let partition = 0; partition < (input.topics[topic]?.partitions ?? 0); partition++) {
      expect(owners.has(`${topic}:${partition}`), `${topic}:${partition} unassigned`).toBe(true);
    }
  }
  return owners;
}

export function countsOf(output: Map<string, Assignment>): number[] {
  return [...output.values()].map((assignment) => assignmentKeys(assignment).size);
}

function member(memberId: string, subscribedTopics: string[], currentAssignment: Assignment = []): AssignorMember {
  return { memberId, subscribedTopics, currentAssignment };
}

export function runAssignorConformance(assignor: Assignor): void {
  describe(`assignor contract: ${assignor.name}`, () => {
    it("assigns every subscribed partition exactly once, to a subscriber", () => {
      fc.assert(
        fc.property(assignorInputs, (input) => {
          expectValidAssignment(input, assignor.assign(input));
        }),
      );
    });

    it("is deterministic and ignores the order of members and of subscriptions", () => {
      fc.assert(
        fc.property(assignorInputs, (input) => {
          const shuffled: AssignorInput = {
            topics: input.topics,
            members: [...input.members]
              .reverse()
              .map((entry) => ({ ...entry, subscribedTopics: [...entry.subscribedTopics].reverse() })),
          };
          const output = assignor.assign(input);
          expect(assignor.assign(input)).toEqual(output);
          expect(assignor.assign(shuffled)).toEqual(output);
        }),
      );
    });

    it("balances one topic among members with the same subscription", () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 12 }), (partitions, memberCount) => {
          const members = Array.from({ length: memberCount }, (_, index) => member(`m${index}`, ["t0"]));
          const counts = countsOf(assignor.assign({ members, topics: { t0: { partitions } } }));
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        }),
      );
    });

    it("answers an empty group with an empty map", () => {
      expect(assignor.assign({ members: [], topics: { t0: { partitions: 3 } } })).toEqual(new Map());
    });

    it("gives nothing for topics that do not exist or have no partitions", () => {
      const output = assignor.assign({
        members: [member("a", ["gone"]), member("b", ["empty"], [{ topic: "empty", partitions: [0] }])],
        topics: { empty: { partitions: 0 } },
      });
      expect(output).toEqual(new Map([["a", []], ["b", []]]));
    });

    it("never assigns a topic to a member that does not subscribe to it, even if it held it", () => {
      const output = assignor.assign({
        members: [member("a", ["t0"], [{ topic: "t1", partitions: [0, 1] }]), member("b", ["t1"])],
        topics: { t0: { partitions: 2 }, t1: { partitions: 2 } },
      });
      expect(output.get("a")).toEqual([{ topic: "t0", partitions: [0, 1] }]);
      expect(output.get("b")).toEqual([{ topic: "t1", partitions: [0, 1] }]);
    });

    it("ignores current partitions beyond the partition count and claims by two members", () => {
      const claimed = [{ topic: "t0", partitions: [0, 1, 2, 9] }];
      const input = { members: [member("a", ["t0"], claimed), member("b", ["t0"], claimed)], topics: { t0: { partitions: 4 } } };
      expectValidAssignment(input, assignor.assign(input));
    });

    it("gives members beyond the partition count nothing rather than sharing", () => {
      const members = ["a", "b", "c"].map((memberId) => member(memberId, ["t0"]));
      const counts = countsOf(assignor.assign({ members, topics: { t0: { partitions: 2 } } }));
      expect(counts.sort()).toEqual([0, 1, 1]);
    });

    it("handles a group at the size bounds quickly", () => {
      const topics: Record<string, { partitions: number }> = {};
      for (let index = 0; index < 64; index++) topics[`topic-${index}`] = { partitions: 256 };
      const names = Object.keys(topics);
      const members = Array.from({ length: 1_000 }, (_, index) =>
        member(`member-${String(index).padStart(4, "0")}`, names.slice(index % 32, (index % 32) + 32)),
      );
      const started = performance.now();
      const output = assignor.assign({ members, topics });
      expectValidAssignment({ members, topics }, output);
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });
}
