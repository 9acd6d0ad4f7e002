import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { alterPartition, electLeader } from "../../../src/replication/partition-state.ts";
import type { PartitionState } from "../../../src/replication/partition-state.ts";

const state: PartitionState = { leader: "wnam", replicas: ["wnam", "enam", "weur"], isr: ["wnam", "enam", "weur"], leaderEpoch: 3, partitionEpoch: 7 };

function refusal(run: () => unknown): TributaryError {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("alterPartition (compare-and-set on the partition epoch)", () => {
  it("accepts the current leader at the current epochs: new ISR in replica order, partition epoch + 1, leader epoch kept", () => {
    const next = alterPartition(state, { leader: "wnam", leaderEpoch: 3, partitionEpoch: 7, isr: ["weur", "wnam"] });
    expect(next).toEqual({ ...state, isr: ["wnam", "weur"], partitionEpoch: 8 });
    expect(alterPartition(next, { leader: "wnam", leaderEpoch: 3, partitionEpoch: 8, isr: ["enam", "weur", "wnam"] })).toEqual({
      ...state,
      partitionEpoch: 9,
    });
  });

  it("does not change the state it was given", () => {
    const before = structuredClone(state);
    alterPartition(state, { leader: "wnam", leaderEpoch: 3, partitionEpoch: 7, isr: ["wnam"] });
    expect(state).toEqual(before);
  });

  it("refuses a replica that is not the leader, and a leader of another epoch, naming the current epoch", () => {
    const notLeader = refusal(() => alterPartition(state, { leader: "enam", leaderEpoch: 3, partitionEpoch: 7, isr: ["enam"] }));
    expect(notLeader.code).toBe("NOT_LEADER_OR_FOLLOWER");
    expect(notLeader.data).toMatchObject({ leaderEpoch: 3 });
    for (const leaderEpoch of [2, 4]) {
      const stale = refusal(() => alterPartition(state, { leader: "wnam", leaderEpoch, partitionEpoch: 7, isr: ["wnam"] }));
      expect(stale.code).toBe("NOT_LEADER_OR_FOLLOWER");
      expect(stale.data).toMatchObject({ leaderEpoch: 3 });
    }
  });

  it("refuses a stale (or future) partition epoch: the compare-and-set", () => {
    for (const partitionEpoch of [6, 8]) {
      const stale = refusal(() => alterPartition(state, { leader: "wnam", leaderEpoch: 3, partitionEpoch, isr: ["wnam"] }));
      expect(stale.code).toBe("NOT_LEADER_OR_FOLLOWER");
      expect(stale.data).toMatchObject({ leaderEpoch: 3 });
    }
  });

  it("refuses an ISR without the leader, or with a replica the partition does not have", () => {
    for (const isr of [["enam", "weur"], [], ["wnam", "apac"]]) {
      expect(refusal(() => alterPartition(state, { leader: "wnam", leaderEpoch: 3, partitionEpoch: 7, isr })).code).toBe("INVALID_REQUEST");
    }
  });

  it("takes a replica named twice once", () => {
    const next = alterPartition(state, { leader: "wnam", leaderEpoch: 3, partitionEpoch: 7, isr: ["wnam", "enam", "wnam"] });
    expect(next.isr).toEqual(["wnam", "enam"]);
  });
});

describe("electLeader", () => {
  const all = () => true;

  it("clean: the first live ISR member in replica order; the old leader leaves the ISR; both epochs go up", () => {
    const next = electLeader(state, "wnam", all, false);
    expect(next).toEqual({ leader: "enam", replicas: state.replicas, isr: ["enam", "weur"], leaderEpoch: 4, partitionEpoch: 8 });
    expect(electLeader(state, "wnam", (replica) => replica !== "enam", false)).toMatchObject({ leader: "weur", isr: ["enam", "weur"] });
  });

  it("never picks the unreachable leader, even when it looks alive", () => {
    const alone = { ...state, isr: ["wnam"] };
    expect(electLeader(alone, "wnam", all, false)).toBeUndefined();
  });

  it("clean: prefers an ISR member over an earlier replica outside the ISR", () => {
    const next = electLeader({ ...state, isr: ["wnam", "weur"] }, "wnam", all, false);
    expect(next).toMatchObject({ leader: "weur", isr: ["weur"] });
  });

  it("none: no live ISR member and no unclean election", () => {
    expect(electLeader({ ...state, isr: ["wnam", "enam"] }, "wnam", (replica) => replica === "weur", false)).toBeUndefined();
  });

  it("unclean: only when allowed and no clean candidate; the ISR restarts with the new leader alone", () => {
    const lost = { ...state, isr: ["wnam", "enam"] };
    const alive = (replica: string) => replica === "weur";
    expect(electLeader(lost, "wnam", alive, true)).toEqual({ leader: "weur", replicas: state.replicas, isr: ["weur"], leaderEpoch: 4, partitionEpoch: 8 });
    expect(electLeader(state, "wnam", all, true)).toMatchObject({ leader: "enam", isr: ["enam", "weur"] });
    expect(electLeader(lost, "wnam", () => false, true)).toBeUndefined();
  });
});
