/** Classic members (Kafka's JoinGroup protocol, as the gateway bridges them): heartbeats that move nothing, commits of what they give up. */
import { describe, expect, it } from "vitest";
import { expectRefused, expectSingleOwners, memberOf, meta, newGroup, t0 } from "./group-fixtures.ts";

const orders = (...partitions: number[]) => [{ topic: "orders", partitions }];

describe("classicHeartbeat", () => {
  it("answers rebalance: false to a settled member and changes nothing but its contact time", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    const revision = group.revision;
    expect(group.classicHeartbeat("m1", 1, meta, t0 + 5)).toEqual({ memberEpoch: 1, assignment: orders(0, 1, 2, 3), heartbeatIntervalMs: 5_000, rebalance: false });
    expect(group.revision).toBe(revision);
    expect(memberOf(group, "m1").lastContactMs).toBe(t0 + 5);
  });

  it("tells a member that must give partitions up to rejoin, without revoking them yet", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0 + 1);
    expect(group.classicHeartbeat("m1", 1, meta, t0 + 2)).toMatchObject({ memberEpoch: 1, assignment: orders(0, 1, 2, 3), rebalance: true });
    expect(memberOf(group, "m1").pendingRevocation).toEqual([]);
    // The newcomer waits: what it would gain is still m1's.
    expect(group.classicHeartbeat("m2", 1, meta, t0 + 2)).toMatchObject({ assignment: [], rebalance: false });
    // m1 rejoins eagerly (epoch 0: it gave everything up), then m2 is told to rejoin for its share.
    expect(group.heartbeat("m1", { memberEpoch: 0 }, meta, t0 + 3)).toMatchObject({ memberEpoch: 2, assignment: orders(0, 1) });
    expect(group.classicHeartbeat("m2", 1, meta, t0 + 4).rebalance).toBe(true);
    expect(group.heartbeat("m2", { memberEpoch: 0 }, meta, t0 + 5)).toMatchObject({ memberEpoch: 2, assignment: orders(2, 3) });
    expectSingleOwners(group);
  });

  it("keeps telling a cooperative member to rejoin while it holds partitions it must give up", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0 + 1);
    // A cooperative rejoin: the current epoch with what it owns; it loses 2 and 3 but still holds them.
    expect(group.heartbeat("m1", { memberEpoch: 1, ownedPartitions: orders(0, 1, 2, 3) }, meta, t0 + 2)).toMatchObject({ memberEpoch: 2, assignment: orders(0, 1) });
    expect(group.classicHeartbeat("m1", 2, meta, t0 + 3).rebalance).toBe(true);
    expect(group.heartbeat("m1", { memberEpoch: 2, ownedPartitions: orders(0, 1) }, meta, t0 + 4)).toMatchObject({ memberEpoch: 2, assignment: orders(0, 1) });
    expect(group.classicHeartbeat("m1", 2, meta, t0 + 5).rebalance).toBe(false);
  });

  it("fences any epoch but the current one (the gateway's ILLEGAL_GENERATION) and unknown members", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0 + 1);
    group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 2);
    for (const epoch of [0, 1, 3]) expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.classicHeartbeat("m1", epoch, meta, t0 + 3));
    expectRefused(group, "UNKNOWN_MEMBER_ID", () => group.classicHeartbeat("m9", 1, meta, t0 + 3));
  });
});

describe("checkCommit of a classic member", () => {
  /** m1 rejoined cooperatively at epoch 2 and lost 2 and 3, which it still holds. */
  function giving() {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0 + 1);
    group.heartbeat("m1", { memberEpoch: 1, ownedPartitions: orders(0, 1, 2, 3) }, meta, t0 + 2);
    return group;
  }

  it("accepts partitions it is giving up, at its current epoch", () => {
    giving().checkCommit("m1", 2, [{ topic: "orders", partition: 2 }, { topic: "orders", partition: 0 }], { classic: true });
  });

  it("refuses the previous epoch, and partitions it never held", () => {
    const group = giving();
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit("m1", 1, [{ topic: "orders", partition: 0 }], { classic: true }));
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit("m2", 1, [{ topic: "orders", partition: 2 }], { classic: true }));
  });
});
