import { describe, expect, it } from "vitest";
import { expectRefused, expectSingleOwners, memberOf, meta, newGroup, t0 } from "./group-fixtures.ts";

const orders = (...partitions: number[]) => [{ topic: "orders", partitions }];

/** m1 held all of orders; m2 joined; m1's heartbeat revoked 2 and 3 (epoch 2), not yet let go. */
function revoking() {
  const group = newGroup();
  group.join({ topics: ["orders"] }, meta, t0);
  group.join({ topics: ["orders"] }, meta, t0 + 1);
  const revoked = group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 2);
  expect(revoked).toEqual({ memberEpoch: 2, assignment: orders(0, 1), heartbeatIntervalMs: 5_000 });
  expect(memberOf(group, "m1").pendingRevocation).toEqual(orders(2, 3));
  return group;
}

describe("heartbeat: the epoch rule", () => {
  it("accepts the current epoch and answers with no change when there is none", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    expect(group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 1)).toEqual({ memberEpoch: 1, assignment: orders(0, 1, 2, 3), heartbeatIntervalMs: 5_000 });
  });

  it("refuses an unknown member with UNKNOWN_MEMBER_ID", () => {
    const group = revoking();
    expectRefused(group, "UNKNOWN_MEMBER_ID", () => group.heartbeat("m9", { memberEpoch: 1 }, meta, t0 + 3));
  });

  it.each([[-1], [1.5], [Number.NaN]])("refuses memberEpoch %s with INVALID_REQUEST", (memberEpoch) => {
    const group = revoking();
    expectRefused(group, "INVALID_REQUEST", () => group.heartbeat("m1", { memberEpoch }, meta, t0 + 3));
  });

  it("refuses malformed ownedPartitions with INVALID_REQUEST", () => {
    const group = revoking();
    for (const ownedPartitions of [[{ topic: "orders", partitions: [-1] }], [{ topic: "", partitions: [0] }], "orders"]) {
      expectRefused(group, "INVALID_REQUEST", () => group.heartbeat("m1", { memberEpoch: 2, ownedPartitions: ownedPartitions as never }, meta, t0 + 3));
    }
  });

  it("fences an epoch it never issued, and one older than the previous, changing nothing", () => {
    const group = revoking();
    group.heartbeat("m1", { memberEpoch: 2 }, meta, t0 + 3);
    expect(group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 4).memberEpoch).toBe(2);
    group.heartbeat("m2", { memberEpoch: 2 }, meta, t0 + 5);
    const error = expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.heartbeat("m1", { memberEpoch: 3 }, meta, t0 + 6));
    expect(error.status).toBe(409);
    group.join({ topics: ["orders"] }, meta, t0 + 7);
    expect(group.heartbeat("m2", { memberEpoch: 2 }, meta, t0 + 8).memberEpoch).toBe(3); // gives one to m3
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.heartbeat("m2", { memberEpoch: 1, ownedPartitions: [] }, meta, t0 + 9));
  });

  it("accepts the previous epoch when what the member owns is inside its current assignment", () => {
    const group = revoking();
    expect(group.heartbeat("m1", { memberEpoch: 1, ownedPartitions: orders(0, 1) }, meta, t0 + 3)).toEqual({
      memberEpoch: 2,
      assignment: orders(0, 1),
      heartbeatIntervalMs: 5_000,
    });
    // Listing nothing shows it let go of 2 and 3 as well.
    expect(memberOf(group, "m1").pendingRevocation).toEqual([]);
  });

  it("fences the previous epoch when the member still holds what the missed response took away", () => {
    const group = revoking();
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.heartbeat("m1", { memberEpoch: 1, ownedPartitions: orders(0, 1, 2) }, meta, t0 + 3));
    // Without ownedPartitions the member holds what epoch 1 gave it: all four.
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 3));
  });

  it("accepts the previous epoch without ownedPartitions when the missed response only added", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, { orders: { partitions: 2 } }, t0);
    expect(group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 1)).toMatchObject({ memberEpoch: 2, assignment: orders(0, 1, 2, 3) });
    expect(group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 2)).toMatchObject({ memberEpoch: 2, assignment: orders(0, 1, 2, 3) });
  });

  it("rejoins on epoch 0: the member gave up everything, and its epoch still moves forward", () => {
    const group = revoking();
    const rejoined = group.heartbeat("m1", { memberEpoch: 0 }, meta, t0 + 3);
    expect(rejoined.memberEpoch).toBe(3);
    expect(rejoined.assignment).toEqual(orders(0, 1));
    expect(memberOf(group, "m1").previousMemberEpoch).toBeNull();
    // 2 and 3 were let go with everything else: m2 gets them.
    expect(group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 4).assignment).toEqual(orders(2, 3));
    expectSingleOwners(group);
    // A request from before the rejoin is stale now.
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.heartbeat("m1", { memberEpoch: 2 }, meta, t0 + 5));
  });

  it("changes the subscription, checking the new topics first", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    expectRefused(group, "UNKNOWN_TOPIC_OR_PARTITION", () => group.heartbeat("m1", { memberEpoch: 1, topics: ["nope"] }, meta, t0 + 1));
    expectRefused(group, "INVALID_REQUEST", () => group.heartbeat("m1", { memberEpoch: 1, topics: [] }, meta, t0 + 1));
    expect(group.heartbeat("m1", { memberEpoch: 1, topics: ["audit"] }, meta, t0 + 1)).toMatchObject({
      memberEpoch: 2,
      assignment: [{ topic: "audit", partitions: [0, 1] }],
    });
    expect(group.subscribedTopics()).toEqual(["audit"]);
  });

  it("takes a new subscription with an epoch 0 rejoin", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    expect(group.heartbeat("m1", { memberEpoch: 0, topics: ["audit"] }, meta, t0 + 1).assignment).toEqual([{ topic: "audit", partitions: [0, 1] }]);
  });
});

describe("checkCommit", () => {
  it("accepts the current epoch for assigned partitions, and changes nothing", () => {
    const group = revoking();
    const before = JSON.stringify(group.toState());
    group.checkCommit("m1", 2, [{ topic: "orders", partition: 0 }, { topic: "orders", partition: 1 }]);
    group.checkCommit("m1", 2, []);
    expect(JSON.stringify(group.toState())).toBe(before);
  });

  it("accepts the previous epoch for partitions still owned: a commit sent before the answer that moved the member", () => {
    const group = revoking();
    group.checkCommit("m1", 1, [{ topic: "orders", partition: 1 }]);
    group.checkCommit("m1", 1, [{ topic: "orders", partition: 3 }]);
  });

  it("accepts partitions the member is still giving up, at either epoch (Kafka's consumers commit them in their revocation callbacks)", () => {
    const group = revoking();
    for (const epoch of [1, 2]) group.checkCommit("m1", epoch, [{ topic: "orders", partition: 2 }, { topic: "orders", partition: 0 }]);
    const error = expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit("m2", memberOf(group, "m2").memberEpoch, [{ topic: "orders", partition: 2 }]));
    expect(error.data).toEqual({ notAssigned: [{ topic: "orders", partition: 2 }] });
  });

  it("fences partitions the member let go, and at the previous epoch those it gained since, naming them", () => {
    const group = revoking();
    group.heartbeat("m1", { memberEpoch: 2 }, meta, t0 + 3); // m1 let 2 and 3 go
    const gone = expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit("m1", 2, [{ topic: "orders", partition: 2 }, { topic: "orders", partition: 0 }]));
    expect(gone.data).toEqual({ notAssigned: [{ topic: "orders", partition: 2 }] });
    const gained = group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 4);
    expect(gained.assignment).toEqual(orders(2, 3));
    const early = expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit("m2", gained.memberEpoch - 1, [{ topic: "orders", partition: 3 }]));
    expect(early.data).toEqual({ notAssigned: [{ topic: "orders", partition: 3 }] });
    group.checkCommit("m2", gained.memberEpoch, [{ topic: "orders", partition: 3 }]);
  });

  it("fences other epochs, refuses unknown members and malformed partitions", () => {
    const group = revoking();
    for (const epoch of [0, 3, 7]) {
      expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit("m1", epoch, [{ topic: "orders", partition: 0 }]));
    }
    expectRefused(group, "UNKNOWN_MEMBER_ID", () => group.checkCommit("m9", 1, []));
    expectRefused(group, "INVALID_REQUEST", () => group.checkCommit("m1", 2, [{ topic: "orders", partition: -1 }]));
    expectRefused(group, "INVALID_REQUEST", () => group.checkCommit("m1", -2, []));
  });
});
