/** A member id chosen by the client (ConsumerGroupHeartbeat v1, KIP-1082): join under it, rejoin under it. */
import { describe, expect, it } from "vitest";
import { memberIdLengthMax } from "../../../src/limits.ts";
import { expectRefused, expectSingleOwners, memberOf, meta, newGroup, t0 } from "./group-fixtures.ts";

const orders = (...partitions: number[]) => [{ topic: "orders", partitions }];

describe("join with a chosen member id", () => {
  it("joins a new member under the id the client chose", () => {
    const group = newGroup();
    expect(group.join({ topics: ["orders"], chosenMemberId: "client-a" }, meta, t0)).toEqual({
      memberId: "client-a",
      memberEpoch: 1,
      assignment: orders(0, 1, 2, 3),
      heartbeatIntervalMs: 5_000,
    });
    expect(group.heartbeat("client-a", { memberEpoch: 1 }, meta, t0 + 1).memberEpoch).toBe(1);
  });

  it("rejoins the member that has the id (Kafka's epoch 0 under a known id): it gives up what it held, no second member", () => {
    const group = newGroup();
    group.join({ topics: ["orders"], chosenMemberId: "client-a" }, meta, t0);
    group.join({ topics: ["orders"], chosenMemberId: "client-b" }, meta, t0 + 1);
    const again = group.join({ topics: ["orders"], chosenMemberId: "client-a" }, meta, t0 + 2);
    expect(again.memberId).toBe("client-a");
    expect(group.toState().members.map(({ memberId }) => memberId).sort()).toEqual(["client-a", "client-b"]);
    expect(memberOf(group, "client-a").memberEpoch).toBeGreaterThan(1);
    expectSingleOwners(group);
  });

  it("refuses an empty or over-long chosen id with INVALID_REQUEST, the group unchanged", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    for (const chosenMemberId of ["", "x".repeat(memberIdLengthMax + 1), 7]) {
      expectRefused(group, "INVALID_REQUEST", () => group.join({ topics: ["orders"], chosenMemberId: chosenMemberId as string }, meta, t0 + 1));
    }
  });
});
