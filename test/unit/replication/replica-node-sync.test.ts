/**
 * Syncs (ReplicaNode.syncDue / syncFor, issue 12 item 5): the high watermark moves, and
 * reaches the followers, without a new write — after a leader restarts, and after the last
 * push of a burst — and nothing is due once every follower holds the log and knows it.
 */
import { describe, expect, it } from "vitest";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import type { ReplicateRequest } from "../../../src/replication/messages.ts";
import { ReplicaNode } from "../../../src/replication/replica-node.ts";
import { batch, follower, leaderOf, records, state, sync, unlimited } from "./replica-support.ts";

/** Sends one request (a push or a sync) and answers its truncations, as the object's push loop does. */
function exchange(leader: ReplicaNode, to: ReplicaNode, request: ReplicateRequest): void {
  const endAtSend = leader.log.logEndOffset;
  let result = leader.onReply(to.region, to.handleReplicate(request), endAtSend);
  while (result.truncate) result = leader.onReply(to.region, to.handleTruncate(result.truncate), endAtSend);
}

/** What the object does without any new write: syncs while due, pushes while behind; the number of messages sent. */
function settleWithoutWrites(leader: ReplicaNode, followers: ReplicaNode[]): number {
  let sent = 0;
  for (let round = 0; round < 10; round++) {
    let sentThisRound = 0;
    for (const to of followers) {
      const next = leader.nextFor(to.region, unlimited, true);
      if (!next) continue;
      exchange(leader, to, next.request);
      sentThisRound++;
    }
    if (sentThisRound === 0) return sent;
    sent += sentThisRound;
  }
  throw new Error("still sending after 10 rounds");
}

/** A leader over its own store, so that a restart can build a new node over the same store. */
function restartableLeader(isr = ["wnam", "enam", "weur"]) {
  const store = new MemoryLogStore();
  const leader = leaderOf(state("wnam", isr), 0, new ReplicaNode("wnam", new PartitionLog(store), { kind: "follower", leaderEpoch: 0, leader: undefined }));
  const restart = () => new ReplicaNode("wnam", new PartitionLog(store), leader.role);
  return { leader, restart };
}

describe("a restarted leader", () => {
  it("re-establishes its high watermark with probes, without a new write, when its followers' answers were lost", () => {
    const { leader, restart } = restartableLeader();
    const enam = follower("enam");
    const weur = follower("weur");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    sync(leader, weur, 0);
    leader.appendAsLeader([batch("b", "c")]);
    // Both followers store the push; the leader dies before their answers arrive.
    enam.handleReplicate(leader.pushFor("enam", unlimited)!);
    weur.handleReplicate(leader.pushFor("weur", unlimited)!);
    const restarted = restart();
    expect([restarted.log.highWatermark, restarted.log.logEndOffset]).toEqual([1, 3]);
    expect([restarted.syncDue("enam"), restarted.syncDue("weur")]).toEqual(["probe", "probe"]);
    // The probe goes before any push of what the follower may lack (it is behind as far as the new node knows).
    expect(restarted.isBehind("enam")).toBe(true);
    expect(restarted.nextFor("enam", unlimited, false)?.kind).toBe("probe");
    const probe = restarted.syncFor("enam")!;
    expect([probe.prevLogEndOffset, probe.batches.length, probe.leaderHighWatermark]).toEqual([3, 0, 1]);
    settleWithoutWrites(restarted, [enam, weur]);
    expect(restarted.log.highWatermark).toBe(3);
    // …and the followers learn it too (a nearby reader sees every record).
    expect([enam.log.highWatermark, weur.log.highWatermark]).toEqual([3, 3]);
    expect([restarted.syncDue("enam"), restarted.syncDue("weur")]).toEqual([undefined, undefined]);
  });

  it("catches up a follower that never got the last push: its probe is a mismatch, then the usual truncation and push", () => {
    const { leader, restart } = restartableLeader(["wnam", "enam"]);
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    leader.appendAsLeader([batch("b")]); // its push is lost with the leader
    const restarted = restart();
    settleWithoutWrites(restarted, [enam]);
    expect(records(enam)).toEqual(["a@e0", "b@e0"]);
    expect([restarted.log.highWatermark, enam.log.highWatermark]).toEqual([2, 2]);
  });

  it("does not count a follower's diverging tail toward the high watermark when it answers a probe", () => {
    const { leader, restart } = restartableLeader(["wnam", "enam"]);
    // enam once led epoch 0 and holds "x" at offset 1, which the leader of epoch 1 never had.
    const enam = follower("enam", 0, undefined);
    enam.log.append([batch("a")], 0);
    enam.log.append([batch("x")], 0);
    leader.log.append([batch("a")], 0);
    leaderOf(state("wnam", ["wnam", "enam"], 1, 1), 0, leader);
    leader.appendAsLeader([batch("b")]);
    const restarted = restart();
    expect(restarted.syncDue("enam")).toBe("probe");
    exchange(restarted, enam, restarted.syncFor("enam")!);
    expect(restarted.log.highWatermark).toBeLessThanOrEqual(1);
    settleWithoutWrites(restarted, [enam]);
    expect(records(enam)).toEqual(["a@e0", "b@e1"]);
    expect(restarted.log.highWatermark).toBe(2);
  });

  it("waking idle (every record confirmed before) is due no probe, only an announcement", () => {
    const { leader, restart } = restartableLeader();
    leader.appendAsLeader([batch("a")]);
    sync(leader, follower("enam"), 0);
    sync(leader, follower("weur"), 0);
    const restarted = restart();
    expect(restarted.log.highWatermark).toBe(restarted.log.logEndOffset);
    expect(restarted.syncDue("enam")).toBe("announce");
  });
});

describe("announcing the high watermark", () => {
  it("tells a caught-up follower the high watermark its last push could not carry, once", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam", "weur"]));
    const enam = follower("enam");
    const weur = follower("weur");
    leader.appendAsLeader([batch("a", "b")]);
    sync(leader, enam, 0);
    sync(leader, weur, 0);
    expect(leader.log.highWatermark).toBe(2);
    // Each push carried the high watermark as it was before the answers: the followers lag.
    expect(enam.log.highWatermark).toBeLessThan(2);
    expect(leader.syncDue("enam")).toBe("announce");
    expect(leader.pushFor("enam", unlimited)).toBeUndefined();
    // Only in the alarm's turn: a loop started by a write does not announce.
    expect(leader.nextFor("enam", unlimited, false)).toBeUndefined();
    expect(leader.nextFor("enam", unlimited, true)?.kind).toBe("announce");
    expect(settleWithoutWrites(leader, [enam, weur])).toBe(2);
    expect([enam.log.highWatermark, weur.log.highWatermark]).toEqual([2, 2]);
    // Idle costs nothing: no sync is due any more, and none is offered.
    expect([leader.syncDue("enam"), leader.syncFor("enam"), leader.syncFor("weur")]).toEqual([undefined, undefined, undefined]);
  });

  it("is not due to a follower that is behind (its pushes carry the high watermark), nor from a follower", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    const enam = follower("enam");
    leader.appendAsLeader([batch("a")]);
    sync(leader, enam, 0);
    leader.appendAsLeader([batch("b")]);
    expect(leader.syncDue("enam")).toBeUndefined();
    expect(leader.isBehind("enam")).toBe(true);
    expect(enam.syncDue("wnam")).toBeUndefined();
    expect(enam.syncFor("wnam")).toBeUndefined();
  });

  it("is due nothing on an empty partition", () => {
    const leader = leaderOf(state("wnam", ["wnam", "enam"]));
    expect([leader.syncDue("enam"), leader.syncFor("enam")]).toEqual([undefined, undefined]);
  });
});
