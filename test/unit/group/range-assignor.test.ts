import { describe, expect, it } from "vitest";
import type { AssignorMember } from "../../../src/group/assignor.ts";
import { rangeAssignor } from "../../../src/group/range-assignor.ts";
import { runAssignorConformance } from "./assignor.case.ts";

runAssignorConformance(rangeAssignor);

function member(memberId: string, subscribedTopics: string[]): AssignorMember {
  return { memberId, subscribedTopics, currentAssignment: [] };
}

describe("range assignor", () => {
  it("lays out Kafka's documented example: two members, two topics of three partitions", () => {
    const output = rangeAssignor.assign({
      members: [member("C1", ["t0", "t1"]), member("C0", ["t0", "t1"])],
      topics: { t0: { partitions: 3 }, t1: { partitions: 3 } },
    });
    expect(output).toEqual(
      new Map([
        ["C0", [{ topic: "t0", partitions: [0, 1] }, { topic: "t1", partitions: [0, 1] }]],
        ["C1", [{ topic: "t0", partitions: [2] }, { topic: "t1", partitions: [2] }]],
      ]),
    );
  });

  it("gives contiguous ranges in member-id order, the first members one extra", () => {
    const output = rangeAssignor.assign({
      members: [member("c", ["t"]), member("a", ["t"]), member("b", ["t"])],
      topics: { t: { partitions: 7 } },
    });
    expect(output.get("a")).toEqual([{ topic: "t", partitions: [0, 1, 2] }]);
    expect(output.get("b")).toEqual([{ topic: "t", partitions: [3, 4] }]);
    expect(output.get("c")).toEqual([{ topic: "t", partitions: [5, 6] }]);
  });

  it("ranges each topic over its own subscribers only", () => {
    const output = rangeAssignor.assign({
      members: [member("a", ["t0"]), member("b", ["t0", "t1"]), member("c", ["t1"])],
      topics: { t0: { partitions: 4 }, t1: { partitions: 3 } },
    });
    expect(output.get("a")).toEqual([{ topic: "t0", partitions: [0, 1] }]);
    expect(output.get("b")).toEqual([{ topic: "t0", partitions: [2, 3] }, { topic: "t1", partitions: [0, 1] }]);
    expect(output.get("c")).toEqual([{ topic: "t1", partitions: [2] }]);
  });

  it("is not sticky: the layout follows member ids, not what members held", () => {
    const output = rangeAssignor.assign({
      members: [
        { memberId: "a", subscribedTopics: ["t"], currentAssignment: [{ topic: "t", partitions: [2, 3] }] },
        { memberId: "b", subscribedTopics: ["t"], currentAssignment: [{ topic: "t", partitions: [0, 1] }] },
      ],
      topics: { t: { partitions: 4 } },
    });
    expect(output.get("a")).toEqual([{ topic: "t", partitions: [0, 1] }]);
  });
});
