import { describe, expect, it } from "vitest";
import {
  assignmentFromKeys,
  assignmentKeys,
  isSubset,
  normalizeAssignment,
  parseAssignment,
  parsePartitionKey,
  partitionKey,
  partitionsIn,
  sameAssignment,
} from "../../../src/group/assignment.ts";
import { thrown } from "./group-fixtures.ts";

describe("assignments", () => {
  it("normalizes: topics sorted and merged, partitions sorted and distinct, empty topics dropped", () => {
    expect(
      normalizeAssignment([
        { topic: "b", partitions: [3, 1, 3] },
        { topic: "a", partitions: [] },
        { topic: "B", partitions: [0] },
        { topic: "b", partitions: [2] },
      ]),
    ).toEqual([
      { topic: "B", partitions: [0] },
      { topic: "b", partitions: [1, 2, 3] },
    ]);
  });

  it("round-trips partition keys, even for topic names with colons", () => {
    expect(parsePartitionKey(partitionKey("a:b", 12))).toEqual({ topic: "a:b", partition: 12 });
    const assignment = [{ topic: "x:1", partitions: [0, 2] }, { topic: "y", partitions: [1] }];
    expect(assignmentFromKeys(assignmentKeys(assignment))).toEqual(assignment);
  });

  it("compares and includes", () => {
    const small = [{ topic: "t", partitions: [1] }];
    const large = [{ topic: "t", partitions: [0, 1] }];
    expect(isSubset(small, large)).toBe(true);
    expect(isSubset(large, small)).toBe(false);
    expect(isSubset([], small)).toBe(true);
    expect(sameAssignment(large, [{ topic: "t", partitions: [0, 1] }])).toBe(true);
    expect(sameAssignment(large, small)).toBe(false);
  });

  it("parses requests strictly, with INVALID_REQUEST", () => {
    expect(parseAssignment([{ topic: "t", partitions: [2, 0] }], "owned")).toEqual([{ topic: "t", partitions: [0, 2] }]);
    for (const bad of [null, {}, [{ topic: "t" }], [{ topic: 1, partitions: [] }], [{ topic: "t", partitions: [0.5] }], [null]]) {
      expect(thrown(() => parseAssignment(bad, "owned")).code).toBe("INVALID_REQUEST");
    }
  });

  it("looks topics up by own property only", () => {
    expect(partitionsIn({ t: { partitions: 3 } }, "t")).toBe(3);
    expect(partitionsIn({}, "constructor")).toBeUndefined();
    expect(partitionsIn({}, "__proto__")).toBeUndefined();
  });
});
