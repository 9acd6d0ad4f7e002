import { describe, expect, it } from "vitest";
import type { TopicsMeta } from "../../../src/group/assignment.ts";
import { ConsumerGroup } from "../../../src/group/group.ts";
import { expectSingleOwners, memberOf, meta, newGroup, t0 } from "./group-fixtures.ts";

const orders = (...partitions: number[]) => [{ topic: "orders", partitions }];
/** What describe says of a member besides its id, epoch and assignment, for members joined with defaults. */
const described = { clientId: null, host: null, sessionTimeoutMs: 45_000 };

describe("reconciliation: revoke before assign", () => {
  it("hands a moving partition to its new owner only after the old owner lets go", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    // m2 joins while m1 owns everything: a member, nothing to read yet.
    expect(group.join({ topics: ["orders"] }, meta, t0 + 1)).toMatchObject({ memberId: "m2", memberEpoch: 1, assignment: [] });
    expect(group.describe().state).toBe("Reconciling");
    expect(group.needsReconciliation("m2")).toBe(false);
    // m1 is told to give up 2 and 3 …
    expect(group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 2)).toMatchObject({ memberEpoch: 2, assignment: orders(0, 1) });
    expectSingleOwners(group);
    // … and still owns them until it shows it let go, so m2 waits.
    expect(group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 3)).toMatchObject({ memberEpoch: 1, assignment: [] });
    expect(group.needsReconciliation("m2")).toBe(false);
    // A request at epoch 2 shows m1 has the response that took them away.
    group.heartbeat("m1", { memberEpoch: 2 }, meta, t0 + 4);
    expect(group.needsReconciliation("m2")).toBe(true);
    expect(group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 5)).toMatchObject({ memberEpoch: 2, assignment: orders(2, 3) });
    expect(group.needsReconciliation("m2")).toBe(false);
    expectSingleOwners(group);
    expect(group.describe()).toEqual({
      state: "Stable",
      assignor: "uniform",
      members: [
        { ...described, memberId: "m1", memberEpoch: 2, assignment: orders(0, 1), lastHeartbeatAt: t0 + 4 },
        { ...described, memberId: "m2", memberEpoch: 2, assignment: orders(2, 3), lastHeartbeatAt: t0 + 5 },
      ],
    });
  });

  it("keeps a revoked partition with a member that still lists it at its current epoch", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0);
    group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 1);
    group.heartbeat("m1", { memberEpoch: 2, ownedPartitions: orders(0, 1, 3) }, meta, t0 + 2);
    expect(memberOf(group, "m1").pendingRevocation).toEqual(orders(3));
    expect(group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 3)).toMatchObject({ memberEpoch: 2, assignment: orders(2) });
    expectSingleOwners(group);
    group.heartbeat("m1", { memberEpoch: 2, ownedPartitions: orders(0, 1) }, meta, t0 + 4);
    expect(group.heartbeat("m2", { memberEpoch: 2 }, meta, t0 + 5)).toMatchObject({ memberEpoch: 3, assignment: orders(2, 3) });
  });

  it.each([
    ["leaves", (group: ConsumerGroup) => group.leave("m1")],
    ["expires", (group: ConsumerGroup) => expect(group.expire(t0 + 45_001)).toEqual(["m1"])],
    ["rejoins with epoch 0", (group: ConsumerGroup) => group.heartbeat("m1", { memberEpoch: 0 }, meta, t0 + 2)],
  ])("frees partitions not yet let go when the old owner %s", (_, release) => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0 + 10_000);
    group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 1);
    expect(group.needsReconciliation("m2")).toBe(false);
    release(group);
    expect(group.needsReconciliation("m2")).toBe(true);
    expect(group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 10_001).assignment).toContainEqual(
      expect.objectContaining({ topic: "orders", partitions: expect.arrayContaining([2, 3]) }),
    );
    expectSingleOwners(group);
  });

  it("may take some partitions and give others in one response, giving only free ones", () => {
    const ids = ["b", "c", "a"];
    const group = new ConsumerGroup({ generateMemberId: () => ids.shift()! });
    const t = { t: { partitions: 4 } };
    const tp = (...partitions: number[]) => [{ topic: "t", partitions }];
    group.join({ topics: ["t"], assignor: "range" }, t, t0);
    group.join({ topics: ["t"] }, t, t0);
    group.heartbeat("b", { memberEpoch: 1 }, t, t0); // b: 0,1 (epoch 2)
    group.heartbeat("b", { memberEpoch: 2 }, t, t0);
    group.heartbeat("c", { memberEpoch: 1 }, t, t0); // c: 2,3 (epoch 2)
    group.join({ topics: ["t"] }, t, t0); // range now: a 0,1 · b 2 · c 3
    expect(group.heartbeat("c", { memberEpoch: 2 }, t, t0)).toMatchObject({ memberEpoch: 3, assignment: tp(3) });
    group.heartbeat("c", { memberEpoch: 3 }, t, t0);
    // b gives up 0 and 1 and takes 2, which c has let go, in one response.
    expect(group.heartbeat("b", { memberEpoch: 2 }, t, t0)).toMatchObject({ memberEpoch: 3, assignment: tp(2) });
    expect(memberOf(group, "b").pendingRevocation).toEqual(tp(0, 1));
    expect(group.heartbeat("a", { memberEpoch: 1 }, t, t0)).toMatchObject({ memberEpoch: 1, assignment: [] });
    group.heartbeat("b", { memberEpoch: 3 }, t, t0);
    expect(group.heartbeat("a", { memberEpoch: 1 }, t, t0)).toMatchObject({ memberEpoch: 2, assignment: tp(0, 1) });
    expect(group.describe().state).toBe("Stable");
  });

  it("moves the epoch by one exactly when the assignment changes", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    for (let i = 0; i < 3; i++) expect(group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + i).memberEpoch).toBe(1);
    expect(group.heartbeat("m1", { memberEpoch: 1 }, { orders: { partitions: 5 } }, t0 + 5).memberEpoch).toBe(2);
  });
});

describe("partition growth", () => {
  it("assigns partitions added to a subscribed topic and reads them from the start", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"], autoOffsetReset: "latest" }, meta, t0);
    group.heartbeat("m1", { memberEpoch: 1 }, meta, t0);
    group.heartbeat("m1", { memberEpoch: 2 }, meta, t0);
    group.heartbeat("m2", { memberEpoch: 1 }, meta, t0);
    const grown = { orders: { partitions: 6 } };
    expect(group.heartbeat("m2", { memberEpoch: 2 }, grown, t0 + 1)).toMatchObject({ memberEpoch: 3, assignment: orders(2, 3, 5) });
    expect(group.heartbeat("m1", { memberEpoch: 2 }, grown, t0 + 2)).toMatchObject({ memberEpoch: 3, assignment: orders(0, 1, 4) });
    expect([3, 4, 5].map((partition) => group.offsetResetFor("m2", "orders", partition))).toEqual(["latest", "earliest", "earliest"]);
    expectSingleOwners(group);
  });

  it("never shrinks a topic on stale metadata, and ignores topics the metadata does not mention", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    const stales: TopicsMeta[] = [{ orders: { partitions: 2 } }, {}];
    for (const stale of stales) {
      expect(group.heartbeat("m1", { memberEpoch: 1 }, stale, t0 + 1).assignment).toEqual(orders(0, 1, 2, 3));
    }
  });

  it("revokes a deleted topic, and reads it from the start if it comes back", () => {
    const group = newGroup();
    group.join({ topics: ["orders", "audit"] }, meta, t0);
    expect(group.removeTopic("nope")).toBe(false);
    expect(group.removeTopic("audit")).toBe(true);
    expect(group.needsReconciliation("m1")).toBe(true);
    expect(group.heartbeat("m1", { memberEpoch: 1 }, { orders: meta.orders! }, t0 + 1).assignment).toEqual(orders(0, 1, 2, 3));
    expect(group.subscribedTopics()).toEqual(["audit", "orders"]);
    const back = group.heartbeat("m1", { memberEpoch: 2 }, { ...meta, audit: { partitions: 1 } }, t0 + 2);
    expect(back.assignment).toContainEqual({ topic: "audit", partitions: [0] });
    expect(group.offsetResetFor("m1", "audit", 0)).toBe("earliest");
  });

  it("answers offsetResetFor with the member's own policy and refuses unknown members", () => {
    const group = newGroup();
    group.join({ topics: ["orders"], autoOffsetReset: "earliest" }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0);
    expect(group.offsetResetFor("m1", "orders", 0)).toBe("earliest");
    expect(group.offsetResetFor("m2", "orders", 0)).toBe("latest");
    expect(() => group.offsetResetFor("m3", "orders", 0)).toThrow(/no member/);
  });
});
