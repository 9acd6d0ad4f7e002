/**
 * Bugs the pure replication core had, each reduced to a few calls and fixed since. Every test
 * states the behaviour the protocol needs. Most were found by the replication simulation
 * (test/sim/replication.sim.test.ts, whose regression seeds replay them); a name's "guard"
 * is the harness work-around that once hid the bug there.
 */

import { describe, expect, it } from "vitest";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { alterPartition, electLeader } from "../../../src/replication/partition-state.ts";
import { ReplicaNode } from "../../../src/replication/replica-node.ts";
import { batch, follower, lagMs, leaderOf, records, state, sync, unlimited } from "./replica-support.ts";

describe("known bugs: truncation", () => {
  it("1a. a truncation that arrives late (retried, reordered) never removes records the follower took since — same epoch (guard staleTruncate, sim seed 1)", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    const push = leader.pushFor("enam", unlimited)!;
    leader.onReply("enam", enam.handleReplicate(push), 1);
    // A copy of the same push arrives: a mismatch, and the truncation it asks for is delayed.
    const { truncate } = leader.onReply("enam", enam.handleReplicate(push), 1);
    expect(truncate).toBeDefined();
    leader.appendAsLeader([batch("b")]);
    sync(leader, enam, 0);
    expect(leader.log.highWatermark).toBe(2); // "b" is acknowledged: both ISR members have it
    enam.handleTruncate(truncate!);
    expect(records(enam)).toEqual(["a@e0", "b@e0"]);
  });

  it("1b. … nor when it names an older epoch (the story of sim seed 1 without any guard)", () => {
    const wnam = leaderOf(state("wnam", ["wnam", "enam", "weur"]));
    const enam = follower("enam");
    const weur = follower("weur");
    wnam.appendAsLeader([batch("a")]);
    sync(wnam, enam, 0);
    sync(wnam, weur, 0);
    wnam.appendAsLeader([batch("stray")]);
    sync(wnam, weur, 0); // weur holds "stray", enam does not
    const enamLeads = leaderOf(state("enam", ["enam", "weur"], 1, 1), 0, enam);
    enamLeads.appendAsLeader([batch("b")]);
    const push = enamLeads.pushFor("weur", unlimited)!;
    const { truncate } = enamLeads.onReply("weur", weur.handleReplicate(push), 2);
    expect(truncate?.epochEnd.epoch).toBe(0);
    // A copy of that truncation goes first; the follower catches up and "b" is acknowledged.
    enamLeads.onReply("weur", weur.handleTruncate(truncate!), 2);
    sync(enamLeads, weur, 0);
    expect(enamLeads.log.highWatermark).toBe(2);
    weur.handleTruncate(truncate!);
    expect(records(weur)).toEqual(["a@e0", "b@e1"]);
  });

  it("8. a follower that lacks the epoch a truncation names does not keep a diverging prefix, nor cut inside a batch (guard truncateRounds, sim seed 4402)", () => {
    // The leader of epoch 4 holds epoch 1 only; the follower holds epochs 0 and 3.
    const leader = follower("wnam", 4, undefined);
    leader.log.append([batch("x", "y")], 1);
    const enam = follower("enam", 3, "weur");
    enam.log.append([batch("v1", "v2", "v3")], 0);
    enam.log.append([batch("w")], 3);
    leaderOf(state("wnam", ["wnam", "enam"], 4, 4), 0, leader);
    leader.appendAsLeader([batch("z")]);
    expect(() => sync(leader, enam, 0)).not.toThrow();
    expect(records(enam)).toEqual(records(leader));
  });

  it("8b. … with one record per batch, one truncation round leaves v1,v2@e0 where the leader has x,y@e1, and answers ok", () => {
    const leader = follower("wnam", 4, undefined);
    leader.log.append([batch("x"), batch("y")], 1);
    const enam = follower("enam", 3, "weur");
    enam.log.append([batch("v1"), batch("v2"), batch("v3")], 0);
    enam.log.append([batch("w")], 3);
    leaderOf(state("wnam", ["wnam", "enam"], 4, 4), 0, leader);
    const { truncate } = leader.onReply("enam", enam.handleReplicate(leader.pushFor("enam", unlimited)!), 2);
    const reply = enam.handleTruncate(truncate!);
    // Whatever the follower answers, an "ok" must mean its log is a prefix of the leader's.
    if (reply.kind === "ok") expect(records(leader).slice(0, enam.log.logEndOffset)).toEqual(records(enam));
  });
});

describe("known bugs: follower progress and the high watermark", () => {
  it("2. a mismatch does not count the diverging follower's log end toward the high watermark (guard mismatchProgress, sim seed 37)", () => {
    const wnam = leaderOf(state("wnam", ["wnam", "enam", "weur"]));
    const enam = follower("enam");
    const weur = follower("weur");
    wnam.appendAsLeader([batch("a")]);
    sync(wnam, enam, 0);
    sync(wnam, weur, 0);
    wnam.appendAsLeader([batch("b"), batch("c"), batch("d")]);
    sync(wnam, weur, 0); // weur: a b c d (epoch 0); enam: a
    const enamLeads = leaderOf(state("enam", ["enam", "weur"], 1, 1), 0, enam);
    enamLeads.appendAsLeader([batch("x")]);
    const push = enamLeads.pushFor("weur", unlimited)!;
    const { truncate } = enamLeads.onReply("weur", weur.handleReplicate(push), 2);
    expect(truncate).toBeDefined(); // in flight
    enamLeads.appendAsLeader([batch("y")]);
    // weur holds a,b,c,d@e0: only offset 0 is common, so "x" at 1 is on one ISR member only.
    expect(enamLeads.log.highWatermark).toBeLessThanOrEqual(1);
  });

  it("3. a new leader does not propose followers it has not heard from this leadership for the ISR (guard unconfirmedExpansion, sim seed 2)", () => {
    const leader = follower("wnam", 0, undefined);
    leader.log.append([batch("a")], 0);
    leader.log.advanceHighWatermark(1);
    // enam and weur hold nothing; the new leader assumes they are at its high watermark.
    leaderOf(state("wnam", ["wnam"], 1, 1), 0, leader);
    expect(leader.proposedIsr(0, lagMs)).toBeUndefined();
  });

  it("3b. … nor after a restart that rebuilds the leader from its persisted state", () => {
    const store = new MemoryLogStore();
    const before = new ReplicaNode("wnam", new PartitionLog(store), { kind: "follower", leaderEpoch: 1, leader: undefined });
    leaderOf(state("wnam", ["wnam"], 1, 1), 0, before);
    before.appendAsLeader([batch("a"), batch("b")]);
    const restarted = new ReplicaNode("wnam", new PartitionLog(store), { kind: "follower", leaderEpoch: 1, leader: "wnam" });
    leaderOf(state("wnam", ["wnam"], 1, 1), 5, restarted);
    expect(restarted.proposedIsr(5, lagMs)).toBeUndefined();
  });

  it("4. while an ISR expansion may be in the controller's hands, the high watermark waits for the follower being added (guard inflightExpansion, sim seed 13)", () => {
    let controller = state("wnam", ["wnam"]);
    const leader = leaderOf(controller);
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    const isr = leader.proposedIsr(0, lagMs)!;
    expect(isr).toEqual(["wnam", "enam"]);
    controller = alterPartition(controller, { leader: "wnam", leaderEpoch: 0, partitionEpoch: 0, isr }); // the answer is in flight
    leader.appendAsLeader([batch("b")]);
    // The controller may now elect enam, which does not have "b".
    expect(electLeader(controller, "wnam", () => true, false)?.leader).toBe("enam");
    expect(leader.log.highWatermark).toBeLessThanOrEqual(enam.log.logEndOffset);
  });

  it("5. a follower that was caught up until the leader's first append after an idle spell stays in the ISR (guard idleIsrShrink, sim seed 999)", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    // Idle for 5 lag bounds, then one append; its push is on its way when the timer runs.
    leader.appendAsLeader([batch("b")]);
    expect(leader.proposedIsr(5 * lagMs, lagMs)).toBeUndefined();
  });

  it("6. a node built with a leader role (an object waking up) can push and propose an ISR (found by reading)", () => {
    const leader = new ReplicaNode("wnam", new PartitionLog(new MemoryLogStore()), { kind: "leader", state: state("wnam", ["wnam", "enam"]) });
    leader.appendAsLeader([batch("a")]);
    expect(leader.pushFor("enam", unlimited)).toBeDefined();
    expect(() => leader.proposedIsr(0, lagMs)).not.toThrow();
  });

  it("9. a follower's answer to adopting the tier does not count its diverging tail as a match (found by reading; the sim has no tier)", () => {
    // enam holds a, then x and y from epoch 0 that the leader of epoch 1 never had; it knows a high watermark of 1.
    const enam = follower("enam", 0, undefined);
    enam.log.append([batch("a")], 0);
    enam.log.append([batch("x"), batch("y")], 0);
    enam.log.advanceHighWatermark(1);
    const leader = follower("wnam", 0, undefined);
    leader.log.append([batch("a")], 0);
    leaderOf(state("wnam", ["wnam"], 1, 1), 0, leader);
    leader.appendAsLeader([batch("b")]);
    // The object's installTier answers with the follower's log end and high watermark.
    leader.onTierInstalled("enam", { kind: "ok", logEndOffset: 3, leaderEpoch: 1, highWatermark: 1 }, 2);
    expect(leader.proposedIsr(0, lagMs)).toBeUndefined(); // not back in the ISR with "x" where the leader has "b"
    sync(leader, enam, 0);
    expect(records(enam)).toEqual(["a@e0", "b@e1"]);
    expect(leader.proposedIsr(0, lagMs)).toEqual(["wnam", "enam"]);
  });

  it("9b. … nor sends the tier again and again when the follower's high watermark is below the leader's held batches", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    leader.appendAsLeader([batch("b")]);
    sync(leader, enam, 0); // enam holds a and b but knows a high watermark of 1
    expect([leader.log.highWatermark, enam.log.highWatermark]).toEqual([2, 1]);
    leader.log.dropBefore(2); // both batches sealed: the leader holds none below 2
    const restarted = new ReplicaNode("wnam", leader.log, leader.role);
    restarted.onTierInstalled("enam", { kind: "ok", logEndOffset: 2, leaderEpoch: 0, highWatermark: 1 }, 2);
    expect(restarted.needsTier("enam")).toBe(false);
    // Believed at the log end but confirmed only up to 1: a probe confirms the rest, and the follower learns the high watermark.
    expect(restarted.nextFor("enam", unlimited, false)?.kind).toBe("probe");
    restarted.onReply("enam", enam.handleReplicate(restarted.syncFor("enam")!), 2);
    expect([restarted.syncDue("enam"), enam.log.highWatermark]).toEqual([undefined, 2]);
    expect(restarted.proposedIsr(10 * lagMs, lagMs)).toBeUndefined(); // caught up: stays in the ISR
  });

  it("7. an answer to a push of an older epoch does not count in a later leadership (found by reading; the sim has not hit it)", () => {
    const wnam = leaderOf(state("wnam", ["wnam", "enam", "weur"]));
    const weur = follower("weur");
    const enam = follower("enam");
    wnam.appendAsLeader([batch("a", "b")]);
    const push = wnam.pushFor("weur", unlimited)!;
    const lateReply = weur.handleReplicate(push); // ok, log end 2 — its delivery to wnam is slow
    // enam leads epoch 1 (its log is empty), catches up both others.
    const enamLeads = leaderOf(state("enam", ["enam", "weur", "wnam"], 1, 1), 0, enam);
    enamLeads.appendAsLeader([batch("x")]);
    sync(enamLeads, weur, 0);
    sync(enamLeads, wnam, 0);
    expect(records(weur)).toEqual(["x@e1"]);
    // wnam leads epoch 2; the answer to its epoch-0 push arrives now.
    leaderOf(state("wnam", ["wnam", "weur"], 2, 2), 0, wnam);
    wnam.onReply("weur", lateReply, 2);
    wnam.appendAsLeader([batch("y")]);
    expect(wnam.log.highWatermark).toBeLessThanOrEqual(weur.log.logEndOffset);
  });
});
