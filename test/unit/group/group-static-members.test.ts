/** Static members of KIP-848 (static-members.ts): leaving for now keeps the place; coming back under the instance id takes it. */
import { describe, expect, it } from "vitest";
import { expectRefused, expectSingleOwners, memberOf, meta, newGroup, t0 } from "./group-fixtures.ts";

/** a (instance ia) and b (dynamic) share orders, each at its target. */
function twoMembers() {
  const group = newGroup();
  group.join({ topics: ["orders"], chosenMemberId: "a", groupInstanceId: "ia" }, meta, t0);
  group.join({ topics: ["orders"], chosenMemberId: "b" }, meta, t0 + 1);
  let a = group.heartbeat("a", { memberEpoch: 1 }, meta, t0 + 2);
  a = group.heartbeat("a", { memberEpoch: a.memberEpoch, ownedPartitions: a.assignment }, meta, t0 + 3);
  const b = group.heartbeat("b", { memberEpoch: memberOf(group, "b").memberEpoch }, meta, t0 + 4);
  expect(a.assignment.length + b.assignment.length).toBeGreaterThan(0);
  return group;
}

describe("static members", () => {
  it("a member back under its instance id after leaving for now takes its place: same assignment and epoch, new member id, no rebalance for the others", () => {
    const group = twoMembers();
    const before = memberOf(group, "a");
    const ofB = memberOf(group, "b");
    group.leaveForNow("a");
    // Its partitions are still its own: b's next heartbeat gets nothing more.
    expect(group.heartbeat("b", { memberEpoch: ofB.memberEpoch }, meta, t0 + 5).assignment).toEqual(ofB.assignment);
    const back = group.join({ topics: ["orders"], chosenMemberId: "a2", groupInstanceId: "ia" }, meta, t0 + 6);
    expect(back).toEqual({ memberId: "a2", memberEpoch: before.memberEpoch, assignment: before.assignment, heartbeatIntervalMs: 5_000 });
    expect(group.member("a")).toBeUndefined();
    expect(group.describe().members.find(({ memberId }) => memberId === "a2")).toMatchObject({ groupInstanceId: "ia" });
    expect(memberOf(group, "b").memberEpoch).toBe(ofB.memberEpoch);
    expectSingleOwners(group);
  });

  it("refuses a join under the instance id of a member that has not left with UNRELEASED_INSTANCE_ID, the group unchanged", () => {
    const group = twoMembers();
    expectRefused(group, "UNRELEASED_INSTANCE_ID", () => group.join({ topics: ["orders"], chosenMemberId: "a2", groupInstanceId: "ia" }, meta, t0 + 5));
  });

  it("a member away past its session expires and its partitions go to the others", () => {
    const group = twoMembers();
    group.leaveForNow("a");
    const sessionEnd = memberOf(group, "a").lastContactMs + memberOf(group, "a").sessionTimeoutMs;
    group.heartbeat("b", { memberEpoch: memberOf(group, "b").memberEpoch }, meta, sessionEnd - 1);
    expect(group.expire(sessionEnd)).toEqual(["a"]);
    const b = group.heartbeat("b", { memberEpoch: memberOf(group, "b").memberEpoch }, meta, sessionEnd + 1);
    expect(b.assignment).toEqual([{ topic: "orders", partitions: [0, 1, 2, 3] }]);
  });

  it("a dynamic member's leave for now is a leave", () => {
    const group = twoMembers();
    group.leaveForNow("b");
    expect(group.member("b")).toBeUndefined();
  });
});
