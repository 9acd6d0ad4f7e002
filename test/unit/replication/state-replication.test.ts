/** The rules of state replicated across regions, share-partition state's and the registry's (src/replication/state-replication.ts). */
import { describe, expect, it } from "vitest";
import { StateReplica, commitOutcome, compareStamps, newestSnapshot, noEpoch, otherRegions, type StateSnapshot } from "../../../src/replication/state-replication.ts";

const snapshot = (epoch: number, version: number, payload = `${epoch}.${version}`): StateSnapshot<string> => ({ epoch, version, payload });

describe("snapshot order", () => {
  it("orders by epoch first, then version", () => {
    expect(compareStamps(snapshot(2, 1), snapshot(1, 9))).toBeGreaterThan(0);
    expect(compareStamps(snapshot(1, 3), snapshot(1, 4))).toBeLessThan(0);
    expect(compareStamps(snapshot(1, 3), snapshot(1, 3))).toBe(0);
  });

  it("picks the newest, the first of equals, and null from nothing", () => {
    const own = snapshot(1, 5, "own");
    expect(newestSnapshot([own, snapshot(1, 5, "other"), null])).toBe(own);
    expect(newestSnapshot([own, snapshot(2, 1), snapshot(1, 9)])?.payload).toBe("2.1");
    expect(newestSnapshot([null, null])).toBeNull();
  });
});

describe("a leader call", () => {
  it("takes over at a new epoch (epoch 0 included), serves at the one it leads, refuses an older one", () => {
    const replica = new StateReplica<string>();
    expect(replica.leaderCall(0)).toBe("take-over");
    replica.beginTakeover(0);
    replica.finishTakeover(0, []);
    expect(replica.leaderCall(0)).toBe("serve");
    expect(replica.leaderCall(1)).toBe("take-over");
    replica.beginTakeover(3);
    expect(replica.leaderCall(0)).toBe("refuse");
    expect(replica.leaderCall(2)).toBe("refuse");
  });

  it("is refused once deposed, and takes over again at a newer epoch", () => {
    const replica = new StateReplica<string>();
    replica.beginTakeover(1);
    replica.finishTakeover(1, []);
    expect(replica.leading).toBe(true);
    replica.deposedAt(2);
    expect([replica.leading, replica.leaderCall(1), replica.leaderCall(2), replica.leaderCall(3)]).toEqual([false, "refuse", "take-over", "take-over"]);
    expect(() => replica.stamp("x")).toThrow(/not leading/);
  });

  it("adopts the newest snapshot at a takeover, its own when no other is newer", () => {
    const replica = new StateReplica<string>(1, 1, snapshot(1, 7, "own"));
    replica.beginTakeover(2);
    expect(replica.finishTakeover(2, [snapshot(1, 6), null])?.payload).toBe("own");
    const behind = new StateReplica<string>(1, noEpoch, snapshot(1, 3, "behind"));
    behind.beginTakeover(2);
    expect(behind.finishTakeover(2, [snapshot(1, 7, "newest"), snapshot(1, 5)])?.payload).toBe("newest");
  });

  it("stamps each write after everything it has, at the epoch it leads", () => {
    const replica = new StateReplica<string>(1, noEpoch, snapshot(1, 7));
    replica.beginTakeover(2);
    replica.finishTakeover(2, [snapshot(1, 9)]);
    expect(replica.stamp("a")).toEqual(snapshot(2, 10, "a"));
    expect(replica.stamp("b")).toEqual(snapshot(2, 11, "b"));
  });
});

describe("a clear", () => {
  it("forgets the snapshot but never counts versions again from 1, so a replica left with the old state holds nothing newer", () => {
    const leader = new StateReplica<string>(2, 2, snapshot(2, 9, "old group"));
    const notCleared = new StateReplica<string>(2, noEpoch, snapshot(2, 9, "old group"));
    leader.clear();
    expect(leader.current).toBeNull();
    const next = leader.stamp("new group");
    expect([next.epoch, next.version]).toEqual([2, 10]);
    expect(notCleared.acceptPush(next)).toEqual({ stored: true });
    expect(notCleared.current?.payload).toBe("new group");
  });
});

describe("a follower", () => {
  it("stores a push not older than its snapshot, keeps a newer one, and refuses an older epoch", () => {
    const follower = new StateReplica<string>();
    expect(follower.acceptPush(snapshot(1, 2))).toEqual({ stored: true });
    expect(follower.acceptPush(snapshot(1, 1))).toEqual({ stored: false }); // a late push: it holds newer
    expect(follower.current?.version).toBe(2);
    expect(follower.acceptPush(snapshot(2, 1))).toEqual({ stored: true }); // a newer epoch wins over a larger version
    expect(follower.acceptPush(snapshot(1, 9))).toEqual({ refusedAt: 2 });
    expect(follower.current).toEqual(snapshot(2, 1));
  });

  it("is fenced by a pull: the old leader's pushes are refused from then on", () => {
    const follower = new StateReplica<string>(1, noEpoch, snapshot(1, 4));
    expect(follower.answerPull(2)).toEqual({ snapshot: snapshot(1, 4) });
    expect(follower.acceptPush(snapshot(1, 5))).toEqual({ refusedAt: 2 });
    expect(follower.answerPull(1)).toEqual({ refusedAt: 2 });
  });
});

describe("commit", () => {
  const stored = (region: string) => ({ region, answer: { stored: true } });
  it("commits when every in-sync replica stored it, whatever the others did", () => {
    expect(commitOutcome([stored("b"), { region: "c", unreachable: true }], ["a", "b"])).toEqual({ kind: "committed" });
    expect(commitOutcome([], ["a"])).toEqual({ kind: "committed" });
    expect(commitOutcome([{ region: "b", answer: { stored: false } }], ["a", "b"])).toEqual({ kind: "committed" });
  });

  it("fails when an in-sync replica did not answer", () => {
    expect(commitOutcome([stored("b"), { region: "c", unreachable: true }], ["a", "b", "c"])).toEqual({ kind: "not-enough-replicas", missing: ["c"] });
  });

  it("is deposed when any replica, in sync or not, saw a newer epoch", () => {
    expect(commitOutcome([stored("b"), { region: "c", answer: { refusedAt: 4 } }], ["a", "b"])).toEqual({ kind: "deposed", seenEpoch: 4 });
  });

  it("pushes to the regions other than the leader's", () => {
    expect(otherRegions(["a", "b", "c"], "b")).toEqual(["a", "c"]);
  });
});

describe("a change pushed on top of a stamp (the schema registry's pushes)", () => {
  it("is stored only on exactly its base; a replica that missed a change, or holds a deposed leader's write, is behind", () => {
    const replica = new StateReplica<null>();
    const first = { epoch: 0, version: 1, payload: null };
    expect(replica.acceptChange(null, first)).toEqual({ stored: true });
    expect(replica.acceptChange(null, first)).toEqual({ stored: true }); // a repeat: already held
    // A change whose base it does not hold (it missed version 2).
    expect(replica.acceptChange({ epoch: 0, version: 2 }, { epoch: 0, version: 3, payload: null })).toEqual({ behind: true });
    expect(replica.current).toBe(first);
    // A deposed leader's write at epoch 0 held here; the new leader's change at epoch 1 is on another base.
    replica.acceptChange(first, { epoch: 0, version: 2, payload: null });
    expect(replica.acceptChange(first, { epoch: 1, version: 2, payload: null })).toEqual({ behind: true });
    expect(replica.seenEpoch).toBe(1);
    // The whole snapshot catches it up; an old epoch's change is then refused.
    expect(replica.acceptPush({ epoch: 1, version: 2, payload: null })).toEqual({ stored: true });
    expect(replica.acceptChange({ epoch: 0, version: 2 }, { epoch: 0, version: 3, payload: null })).toEqual({ refusedAt: 1 });
  });

  it("is behind from nothing unless its base is nothing", () => {
    expect(new StateReplica<null>().acceptChange({ epoch: 0, version: 4 }, { epoch: 0, version: 5, payload: null })).toEqual({ behind: true });
  });
});
