import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { followLogStart, moveLogStart } from "../../../src/log/log-start.ts";
import { batch, follower, lagMs, leaderOf, records, state, sync, unlimited } from "./replica-support.ts";

describe("ReplicaNode: pushes and the high watermark", () => {
  it("pushes what a follower lacks, fenced by the epoch, as the leader stored it", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam", "weur"], 2));
    const enam = follower("enam", 2);
    leader.appendAsLeader([batch("a", "b")]);
    const push = leader.pushFor("enam", unlimited)!;
    expect(push).toMatchObject({ leader: "wnam", leaderEpoch: 2, prevLogEndOffset: 0, prevEpoch: -1, leaderHighWatermark: 0 });
    expect(enam.handleReplicate(push)).toMatchObject({ kind: "ok", logEndOffset: 2 });
    expect(records(enam)).toEqual(["a@e2", "b@e2"]);
    expect(leader.pushFor("weur", unlimited)!.batches[0]).toEqual(push.batches[0]);
  });

  it("keeps the high watermark at the smallest log end in the ISR, the leader's own included", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam", "weur"]));
    const enam = follower("enam");
    const weur = follower("weur");
    leader.appendAsLeader([batch("a"), batch("b", "c")]);
    expect(leader.log.highWatermark).toBe(0);
    sync(leader, enam, 0);
    expect(leader.log.highWatermark).toBe(0);
    sync(leader, weur, 0);
    expect(leader.log.highWatermark).toBe(3);
    leader.appendAsLeader([batch("d")]);
    expect(leader.log.highWatermark).toBe(3);
  });

  it("does not wait for a replica outside the ISR", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    leader.appendAsLeader([batch("a")]);
    expect(leader.log.highWatermark).toBe(0);
    sync(leader, follower("enam"), 0);
    expect(leader.log.highWatermark).toBe(1);
    const alone = leaderOf(state("wnam", ["wnam"]));
    alone.appendAsLeader([batch("a")]);
    expect(alone.log.highWatermark).toBe(1);
  });

  it("tells followers the high watermark with the next push, never past their own log end", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    expect(enam.log.highWatermark).toBe(0);
    leader.appendAsLeader([batch("b")]);
    sync(leader, enam, 0);
    expect([leader.log.highWatermark, enam.log.highWatermark]).toEqual([2, 1]);
  });
});

describe("ReplicaNode: fencing by epoch", () => {
  it("a follower refuses a push or a truncation from an older epoch, and names the newer one", () => {
    const enam = follower("enam", 2, "weur");
    const old = leaderOf(state("wnam", ["wnam", "enam"], 1));
    old.appendAsLeader([batch("a")]);
    const fenced = { kind: "fenced", leaderEpoch: 2, leader: "weur" };
    expect(enam.handleReplicate(old.pushFor("enam", unlimited)!)).toEqual(fenced);
    expect(enam.handleTruncate({ leader: "wnam", leaderEpoch: 1, epochEnd: { epoch: -1, endOffset: 0 }, followerLogEndOffset: 0, followerLatestEpoch: -1 })).toEqual(fenced);
    expect(enam.log.logEndOffset).toBe(0);
  });

  it("a fenced leader steps down: it follows the newer epoch and refuses appends", () => {
    const old = leaderOf(state("wnam", ["wnam", "enam"], 1));
    old.appendAsLeader([batch("a")]);
    const result = old.onReply("enam", { kind: "fenced", leaderEpoch: 2, leader: "weur" }, 1);
    expect(result).toEqual({ fenced: true });
    expect(old.isLeader).toBe(false);
    expect(old.role).toEqual({ kind: "follower", leaderEpoch: 2, leader: "weur" });
    expect(() => old.appendAsLeader([batch("b")])).toThrow(TributaryError);
    expect(() => old.pushFor("enam", unlimited)).toThrow(TributaryError);
  });

  it("a deposed leader that hears a push from a newer epoch follows its sender", () => {
    const old = leaderOf(state("wnam", ["wnam", "enam"], 1));
    const next = leaderOf(state("enam", ["enam"], 2));
    next.appendAsLeader([batch("x")]);
    const reply = old.handleReplicate(next.pushFor("wnam", unlimited)!);
    expect(reply).toMatchObject({ kind: "ok", logEndOffset: 1 });
    expect(old.role).toEqual({ kind: "follower", leaderEpoch: 2, leader: "enam" });
    expect(records(old)).toEqual(["x@e2"]);
  });

  it("the leader of an epoch refuses a push claiming the same epoch: one writer per epoch", () => {
    const leader = leaderOf(state("wnam", ["wnam"], 3));
    const reply = leader.handleReplicate({ leader: "enam", leaderEpoch: 3, prevLogEndOffset: 0, prevEpoch: -1, batches: [batch("x")], leaderHighWatermark: 0 });
    expect(reply).toEqual({ kind: "fenced", leaderEpoch: 3, leader: "wnam" });
    expect(leader.isLeader).toBe(true);
    expect(leader.log.logEndOffset).toBe(0);
  });

  it("ignores a controller state for another replica or an older epoch, and an older becomeFollower", () => {
    const node = follower("wnam", 3, "enam");
    expect(node.becomeLeader(state("enam", ["enam"], 4))).toBe(false);
    expect(node.becomeLeader(state("wnam", ["wnam"], 2))).toBe(false);
    expect(node.becomeFollower(2, "weur")).toBe(false);
    expect(node.role).toEqual({ kind: "follower", leaderEpoch: 3, leader: "enam" });
    expect(node.becomeLeader(state("wnam", ["wnam"], 4, 5))).toBe(true);
    expect(node.becomeLeader(state("wnam", ["wnam", "enam"], 4, 4))).toBe(false);
    expect(node.inSyncReplicas).toEqual(["wnam"]);
  });
});

describe("ReplicaNode: divergence, truncation and catching up (KIP-101)", () => {
  it("an old leader that comes back truncates its unreplicated tail and takes the new leader's records", () => {
    // wnam leads epoch 0; "a" reaches everyone, "lost" only wnam; enam leads epoch 1.
    const wnam = leaderOf(state("wnam", ["wnam", "enam", "weur"]));
    const enam = follower("enam");
    const weur = follower("weur");
    wnam.appendAsLeader([batch("a")]);
    sync(wnam, enam, 0);
    sync(wnam, weur, 0);
    wnam.appendAsLeader([batch("lost", "too")]);
    const enamLeads = state("enam", ["enam", "weur"], 1, 1);
    leaderOf(enamLeads, 10, enam);
    weur.becomeFollower(1, "enam");
    enam.appendAsLeader([batch("b")]);
    sync(enam, weur, 10);
    expect(enam.log.highWatermark).toBe(2);

    sync(enam, wnam, 20);
    expect(wnam.isLeader).toBe(false);
    expect(wnam.role).toEqual({ kind: "follower", leaderEpoch: 1, leader: "enam" });
    expect(records(wnam)).toEqual(["a@e0", "b@e1"]);
    expect(records(wnam)).toEqual(records(enam));
  });

  it("a follower whose log ends at a different offset answers a mismatch, and the truncation it gets keeps the common part", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"], 0));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    const first = leader.pushFor("enam", unlimited)!;
    expect(enam.handleReplicate(first)).toMatchObject({ kind: "ok", logEndOffset: 1 });
    // The same push again (a retry): the follower's log no longer ends there.
    const reply = enam.handleReplicate(first);
    expect(reply).toEqual({ kind: "mismatch", logEndOffset: 1, latestEpoch: 0, askEpoch: 0, leaderEpoch: 0 });
    const { truncate } = leader.onReply("enam", reply, 1);
    expect(truncate).toMatchObject({ leader: "wnam", leaderEpoch: 0, epochEnd: { epoch: 0, endOffset: 1 } });
    expect(enam.handleTruncate(truncate!)).toMatchObject({ kind: "ok", logEndOffset: 1 });
    expect(records(enam)).toEqual(["a@e0"]);
  });

  it("a follower with nothing in common with the leader truncates to its log start", () => {
    const enam = follower("enam", 0, "wnam");
    enam.log.append([batch("stray")], 0);
    const leader = leaderOf(state("weur", ["weur", "enam"], 1, 1));
    leader.appendAsLeader([batch("x")]);
    sync(leader, enam, 0);
    expect(records(enam)).toEqual(["x@e1"]);
  });

  it("a log start inside the leader's first held batch (DeleteRecords): a follower started over at that batch's base is pushed it and catches up", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a", "b", "c")]);
    leader.appendAsLeader([batch("d", "e", "f")]);
    sync(leader, enam, 0);
    moveLogStart(leader.log, 4);
    const weur = follower("weur");
    expect(leader.needsTier("weur")).toBe(true);
    // What adopting the leader's tier does for a follower holding none of it (SegmentTier.install).
    followLogStart(weur.log, { logStartOffset: 4, localStartOffset: leader.log.localStartOffset, epochs: leader.log.epochStarts() });
    leader.onTierInstalled("weur", { kind: "ok", logEndOffset: weur.log.logEndOffset, leaderEpoch: 0, highWatermark: weur.log.highWatermark }, leader.log.logEndOffset);
    sync(leader, weur, 0);
    expect({ start: weur.log.logStartOffset, end: weur.log.logEndOffset, highWatermark: weur.log.highWatermark }).toEqual({ start: 4, end: 6, highWatermark: 6 });
    expect(records(weur)).toEqual(["d@e0", "e@e0", "f@e0"]); // the whole batch holding the log start
  });
});

describe("ReplicaNode: proposedIsr", () => {
  function caughtUpPair() {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    return { leader, enam };
  }

  it("keeps an ISR whose followers are caught up", () => {
    const { leader } = caughtUpPair();
    expect(leader.proposedIsr(0, lagMs)).toBeUndefined();
    expect(leader.proposedIsr(10 * lagMs, lagMs)).toBeUndefined();
  });

  it("drops a follower behind for longer than the lag bound (from when the leader first saw it behind), not before", () => {
    const { leader } = caughtUpPair();
    leader.appendAsLeader([batch("b")]);
    expect(leader.proposedIsr(10, lagMs)).toBeUndefined();
    expect(leader.proposedIsr(10 + lagMs, lagMs)).toBeUndefined();
    expect(leader.proposedIsr(10 + lagMs + 1, lagMs)).toEqual(["wnam"]);
  });

  it("takes a follower back once it has caught up, and not while it is behind", () => {
    const { leader, enam } = caughtUpPair();
    leader.appendAsLeader([batch("b")]);
    expect(leader.becomeLeader(state("wnam", ["wnam"], 0, 1))).toBe(true);
    leader.appendAsLeader([batch("c")]);
    expect(leader.log.highWatermark).toBe(3);
    expect(leader.proposedIsr(lagMs + 2, lagMs)).toBeUndefined();
    sync(leader, enam, lagMs + 3);
    expect(leader.proposedIsr(lagMs + 4, lagMs)).toEqual(["wnam", "enam"]);
  });

  it("is undefined on a follower", () => {
    expect(follower("enam").proposedIsr(0, lagMs)).toBeUndefined();
  });
});
