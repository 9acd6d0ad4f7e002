/**
 * The phases that end each run of the replication simulation (replication.sim.test.ts), over
 * the world of replication-sim-world.ts: settling (everything healed, one more acks-"all"
 * write acknowledged, every acknowledged write read back), then quiet (the leader restarts and
 * no one writes: issue 12 item 5).
 */

import { describeState, reliable } from "./replication-sim-network.ts";
import type { SimReplica } from "./replication-sim-replica.ts";
import { SimWorld } from "./replication-sim-world.ts";

/** Rounds of deliveries and alarms a restarted leader gets to make its partition whole without a write (a probe, its truncations and pushes, an announcement). */
const quietRoundsMax = 8;

export class ReplicationSim extends SimWorld {
  run(steps: number): void {
    for (let step = 0; step < steps; step++) this.step();
    this.settle();
    this.quiet();
  }

  /**
   * Heals everything, then runs the protocol until the partition is whole again: every
   * replica in the ISR with the leader's log, the high watermark at the log end; then one more
   * acks-"all" write must be acknowledged, and every acknowledged write read back.
   */
  settle(): void {
    this.say("settle: network reliable, every replica restarted and reachable");
    this.network.faults = reliable;
    this.pipelined = false;
    for (const replica of this.replicas) {
      replica.isolated = false;
      replica.cutFromController = false;
      if (replica.crashed) this.restart(replica);
    }
    this.afterStep();
    let final: string | undefined;
    for (let round = 0; round < 200; round++) {
      this.controllerTimer(true);
      this.afterStep();
      this.deliverAll();
      // Timers after the deliveries too: a follower is caught up only once a push's answer is in.
      for (const replica of this.replicas.filter((candidate) => candidate.node.isLeader)) this.leaderTimer(replica);
      this.afterStep();
      this.deliverAll();
      this.nowMs += Math.ceil(this.lagMaxMs / 4);
      if (final !== undefined && !this.clients.isPending(final) && !this.clients.isAcked(final)) {
        // Refused on a healed partition: a liveness bug.
        throw new Error(`settle: the healed partition refused ${final}: ${this.log.findLast((line) => line.includes(`produce ${final}`))}`);
      }
      const leader = this.replica(this.controller.state.leader).node;
      if (final === undefined && leader.isLeader && leader.leaderEpoch === this.controller.state.leaderEpoch) {
        final = this.clients.value("final");
        if (!this.produce(this.controller.state.leader, final, true)) {
          // Not enough replicas in the ISR yet: an acks-1 write gets replication going.
          final = undefined;
          this.produce(this.controller.state.leader, this.clients.value("nudge"), false);
        }
      }
      if (final !== undefined && this.clients.isAcked(final) && this.#whole()) {
        this.clients.readBack(leader.log);
        this.counts.settles += 1;
        this.say(`settled after ${round + 1} rounds: ${describeState(this.controller.state)}, log end ${leader.log.logEndOffset}`);
        return;
      }
    }
    const leader = this.replica(this.controller.state.leader).node;
    throw new Error(
      `settle: the partition did not heal in 200 rounds: the controller has ${describeState(this.controller.state)}; ` +
        `its leader is ${leader.isLeader ? "leading" : "not leading"} at e${leader.leaderEpoch}, hw ${leader.log.highWatermark}`,
    );
  }

  /**
   * After settling, no more writes (issue 12 item 5): the leader crashes — half the time right
   * after a write its followers store but whose answers it never gets — and restarts. Then
   * only deliveries and its alarm: within quietRoundsMax rounds its high watermark must reach
   * its log end (every acknowledged record, and the unanswered write), every follower must
   * hold the log and know that high watermark (nearest-replica reads), and then its alarm must
   * send nothing more (idle costs nothing).
   */
  quiet(): void {
    const leader = this.replica(this.controller.state.leader);
    const unanswered = this.random.chance(0.5);
    this.say(`quiet: the leader ${leader.region} crashes${unanswered ? " right after a write" : ""} and restarts; no more writes`);
    if (unanswered) this.produce(leader.region, this.clients.value("unanswered"), this.random.chance(0.5));
    this.crash(leader);
    this.afterStep();
    this.deliverAll();
    this.restart(leader);
    this.afterStep();
    for (let round = 0; round < quietRoundsMax; round++) {
      this.deliverAll();
      if (this.#quietlyWhole(leader)) {
        const callsBefore = this.replicationCalls;
        this.leaderTimer(leader);
        if (this.replicationCalls !== callsBefore) throw new Error("quiet: the alarm of a whole, idle partition still calls its followers");
        this.counts.quietRecoveries += 1;
        return this.say(`quiet: whole after ${round} rounds without a write, hw ${leader.node.log.highWatermark}`);
      }
      this.leaderTimer(leader);
      this.afterStep();
    }
    throw new Error(`quiet: ${quietRoundsMax} rounds after the leader's restart, without writes, the partition is not whole:\n${this.describeReplicas()}`);
  }

  /**
   * The leader's high watermark at its log end and past every acknowledged write; every
   * follower holding its log and knowing it; and the leader knowing that (nothing due).
   */
  #quietlyWhole(leader: SimReplica): boolean {
    const { node } = leader;
    const { log } = node;
    if (!node.isLeader || log.highWatermark !== log.logEndOffset) return false;
    if (this.clients.acked.some((write) => write.lastOffset >= log.highWatermark)) return false;
    if (node.followers().some((follower) => node.isBehind(follower) || node.syncDue(follower) !== undefined)) return false;
    return this.replicas.every((replica) => replica.node.log.logEndOffset === log.logEndOffset && replica.node.log.highWatermark === log.highWatermark);
  }

  #whole(): boolean {
    const leader = this.replica(this.controller.state.leader);
    const { node } = leader;
    const { state } = this.controller;
    if (!node.isLeader || node.leaderEpoch !== state.leaderEpoch || state.isr.length !== this.replicas.length) return false;
    if (node.log.highWatermark !== node.log.logEndOffset) return false;
    return this.replicas.every((replica) => replica.view.length === leader.view.length && replica.view.agreesBelow(leader.view, leader.view.length));
  }
}
