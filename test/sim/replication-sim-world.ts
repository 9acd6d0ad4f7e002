/**
 * A seeded world around the pure replication core (issue 4): 3 or 5 ReplicaNodes named by
 * region, each over its own in-memory store; a controller holding the PartitionState
 * (replication-sim-controller.ts); clients producing with acks "all" and some acks 1
 * (replication-sim-clients.ts) and idempotent producers whose requests arrive in any order
 * (replication-sim-producers.ts); a fake clock and the fake network of
 * replication-sim-network.ts. Every step is one event — a message delivered, a produce, a
 * leader's or the controller's timer, a crash, a restart, a cut link, a heal, a controller
 * timeout — and is followed by every check of replication-sim-checks.ts. Everything is
 * logged, so a failing seed reads as a story and replays exactly.
 *
 * The replicas behave as the PartitionReplica Durable Object does:
 * - produce: appendAsLeader, then pushFor each follower; on a reply, onReply with the send
 *   time and the leader's log end at send; a truncation it asks for is sent, its reply fed to
 *   onReply again; a follower still behind after an ok gets the next push. A leader's timer
 *   re-pushes to followers that are behind (lost messages) and proposes its ISR
 *   (proposedIsr → AlterPartition → becomeLeader with the new state on success).
 * - per seed, either "pipelined" (every produce pushes at once and every answer reaches
 *   onReply: the brief's literal flow) or one call per follower at a time, as an object
 *   awaiting each, with a timeout after which the answer is dropped and a new call may start.
 * - a crash keeps the store and loses the rest; a restart rebuilds the node from the role it
 *   persisted (replication-sim-replica.ts), and a leader kicks its followers on waking.
 * - a leader probes a follower it has not heard from while records wait on it, and its timer
 *   (the alarm) tells caught-up followers the high watermark (ReplicaNode.syncDue).
 * - the controller: AlterPartition is compare-and-set; a leader unreachable (crashed, cut
 *   off, or cut from the controller) for detectMs is replaced by electLeader(unclean = false),
 *   and now and then it times out on a live one; the outcome goes to every replica as
 *   becomeLeader / becomeFollower (messages that can be lost too), and is sent again now and
 *   then.
 */

import type { ReplicateReply } from "../../src/replication/messages.ts";
import type { ReplicaRole } from "../../src/replication/replica-node.ts";
import { SeededRandom } from "./group-sim-random.ts";
import { ReplicationChecks, describeWrite } from "./replication-sim-checks.ts";
import type { AckedWrite, CheckedWorld } from "./replication-sim-checks.ts";
import { SimClients } from "./replication-sim-clients.ts";
import { SimController } from "./replication-sim-controller.ts";
import { SimIdempotentProducers, type ProducerCounts, type ProducerWorld } from "./replication-sim-producers.ts";
import { LogView, ObservedStore } from "./replication-sim-log-view.ts";
import { SimNetwork, controllerName, describeMessage, describeReply, describeState } from "./replication-sim-network.ts";
import type { Envelope, Message, SendContext } from "./replication-sim-network.ts";
import { buildNode, copyRole, describeRole, reachable } from "./replication-sim-replica.ts";
import type { LogFactory, SimReplica } from "./replication-sim-replica.ts";
import { MemoryTransactionStore } from "../../src/log/transaction-state.ts";

const allRegions = ["wnam", "enam", "weur", "apac", "oc"];

/** What happened across a run, so a test can show that every fault was exercised. */
export interface SimCounts extends ProducerCounts {
  produced: number;
  acked: number;
  ackFailures: number;
  lost: number;
  duplicated: number;
  crashes: number;
  isolations: number;
  elections: number;
  fenced: number;
  mismatches: number;
  truncations: number;
  isrShrinks: number;
  isrExpansions: number;
  alterRefused: number;
  settles: number;
  controllerCuts: number;
  /** Records removed by truncations, and those of them a replica had written as a leader. */
  truncatedRecords: number;
  deposedTails: number;
  /** Syncs sent (ReplicaNode.syncDue): probes by restarted or new leaders, high watermark announcements. */
  probes: number;
  announcements: number;
  /** Quiet phases in which a restarted leader re-established its high watermark without a write. */
  quietRecoveries: number;
}

/** The world and its events; the phases that end a run (settling, quiet) are in replication-sim-phases.ts. */
export class SimWorld {
  readonly log: string[] = [];
  readonly counts: SimCounts = {
    produced: 0, acked: 0, ackFailures: 0, lost: 0, duplicated: 0, crashes: 0, isolations: 0, elections: 0,
    fenced: 0, mismatches: 0, truncations: 0, isrShrinks: 0, isrExpansions: 0, alterRefused: 0, settles: 0,
    controllerCuts: 0, truncatedRecords: 0, deposedTails: 0, probes: 0, announcements: 0, quietRecoveries: 0,
    idempotentAcked: 0, idempotentDuplicates: 0, overtaken: 0, epochBumps: 0,
  };
  readonly replicas: SimReplica[];
  readonly checks = new ReplicationChecks();
  readonly clients = new SimClients();
  readonly #producers = new SimIdempotentProducers();
  protected readonly random: SeededRandom;
  protected readonly network: SimNetwork;
  protected readonly controller: SimController;
  /** Per "leader>follower": the replication call in flight. */
  readonly #chains = new Map<string, { chain: number; sinceMs: number }>();
  #nextChain = 1;
  /** Pushes and syncs sent by leaders. */
  protected replicationCalls = 0;
  /** Every produce pushes at once, answers are never dropped (the brief's literal flow); else one call per follower. */
  protected pipelined: boolean;
  readonly #rpcTimeoutMs: number;
  readonly #minInsync: number;
  protected readonly lagMaxMs: number;
  readonly #detectMs: number;
  readonly #maxBytes: number;
  protected nowMs = 1_000_000;
  /** How often crashes, cut links and controller timeouts come, relative to this simulation's own rates (a world of several partitions lowers it). */
  protected faultScale = 1;
  /** How often its own clients (acks all/1 and idempotent producers) write, relative to this simulation's rates. */
  protected clientScale = 1;
  readonly #makeLog: LogFactory | undefined;

  /** `makeLog`: how each replica's log is built (the transactions simulation injects bugs there). */
  constructor(seed: number, makeLog?: LogFactory) {
    this.#makeLog = makeLog;
    this.random = new SeededRandom(seed);
    const random = this.random;
    const count = random.chance(0.2) ? 5 : 3;
    const regions = [...allRegions].sort(() => random.next() - 0.5).slice(0, count);
    this.#minInsync = random.int(1, count === 5 ? 3 : 2);
    this.lagMaxMs = random.int(200, 3_000);
    this.#detectMs = random.int(50, 2_000);
    this.#maxBytes = random.int(80, 600);
    this.pipelined = random.chance(0.4);
    this.network = new SimNetwork(random, {
      lossRate: random.pick([0, 0.02, 0.1, 0.25]),
      duplicateRate: random.pick([0, 0.05, 0.15]),
      delayMaxMs: random.int(2, 150),
      stragglerRate: random.pick([0, 0.02, 0.08]),
    });
    this.#rpcTimeoutMs = 50 + random.int(2, 6) * this.network.faults.delayMaxMs;
    this.controller = new SimController(regions, this.#detectMs);
    this.replicas = regions.map((region) => {
      const store = new ObservedStore();
      const role: ReplicaRole = { kind: "follower", leaderEpoch: 0, leader: regions[0] };
      const transactions = new MemoryTransactionStore();
      const node = buildNode(region, store, role, transactions, makeLog);
      return { region, store, transactions, view: new LogView(store), node, crashed: false, isolated: false, cutFromController: false, incarnation: 1, persisted: role };
    });
    this.replicas[0]!.node.becomeLeader(this.controller.state);
    this.#persistRoles();
    const faults = this.network.faults;
    this.say(
      `world: ${describeState(this.controller.state)} min.insync=${this.#minInsync} lag=${this.lagMaxMs}ms detect=${this.#detectMs}ms ` +
        `push≤${this.#maxBytes}B ${this.pipelined ? "pipelined" : `one call per follower (timeout ${this.#rpcTimeoutMs}ms)`} loss=${faults.lossRate} dup=${faults.duplicateRate} delay≤${faults.delayMaxMs}ms stragglers=${faults.stragglerRate}`,
    );
  }

  step(): void {
    const live = this.replicas.filter((replica) => !replica.crashed);
    const crashed = this.replicas.filter((replica) => replica.crashed);
    const isolated = live.filter((replica) => replica.isolated || replica.cutFromController);
    const action = this.random.weighted({
      deliver: this.network.size > 0 ? 60 : 0,
      produce: 14 * this.clientScale,
      idempotentSend: 6 * this.clientScale,
      idempotentDeliver: this.#producers.sending > 0 ? 10 : 0,
      leaderTimer: 8,
      controllerTimer: 6,
      sleep: 5,
      crash: live.length > 1 ? 1.5 * this.faultScale : 0,
      restart: crashed.length > 0 ? 4 : 0,
      isolate: live.length - isolated.length > 1 ? 1 * this.faultScale : 0,
      heal: isolated.length > 0 ? 3 : 0,
      timeout: 1.5 * this.faultScale,
    });
    this.nowMs += this.random.int(0, 5);
    if (action === "deliver") this.#deliver(this.network.next()!);
    if (action === "produce") this.produce();
    if (action === "idempotentSend") this.#producers.send(this.#producerWorld());
    if (action === "idempotentDeliver") this.#producers.deliver(this.#producerWorld());
    if (action === "leaderTimer") {
      const leaders = live.filter((replica) => replica.node.isLeader);
      if (leaders.length > 0) this.leaderTimer(this.random.pick(leaders));
    }
    if (action === "controllerTimer") this.controllerTimer(this.random.chance(0.3));
    if (action === "sleep") this.nowMs += this.random.int(1, this.lagMaxMs);
    if (action === "crash") this.crash(this.random.chance(0.5) ? this.replica(this.controller.state.leader) : this.random.pick(live));
    if (action === "restart") this.restart(this.random.pick(crashed));
    if (action === "isolate") {
      const target = this.random.chance(0.5) ? this.replica(this.controller.state.leader) : this.random.pick(live);
      if (!target.crashed && !target.isolated && !target.cutFromController) {
        if (this.random.chance(0.5)) {
          target.isolated = true;
          this.counts.isolations += 1;
          this.say(`${target.region} is cut off from everyone`);
        } else {
          target.cutFromController = true;
          this.counts.controllerCuts += 1;
          this.say(`${target.region} is cut off from the controller`);
        }
      }
    }
    if (action === "heal") {
      const target = this.random.pick(isolated);
      target.isolated = false;
      target.cutFromController = false;
      this.say(`${target.region} is reachable again`);
    }
    if (action === "timeout") {
      this.say(`controller times out on leader ${this.controller.state.leader}`);
      this.#elect();
    }
    this.afterStep();
  }

  #countTruncation(replica: SimReplica, epochsBefore: { epoch: number; startOffset: number }[], endBefore: number): void {
    const end = replica.node.log.logEndOffset;
    this.counts.truncatedRecords += endBefore - end;
    const removed = epochsBefore.filter((start, index) => (epochsBefore[index + 1]?.startOffset ?? endBefore) > end);
    if (removed.some((start) => this.controller.electedLeaders.get(start.epoch) === replica.region)) this.counts.deposedTails += 1;
  }

  protected deliverAll(): void {
    for (let deliveries = 0; deliveries < 500 && this.network.size > 0; deliveries++) {
      this.#deliver(this.network.next()!);
      this.afterStep();
    }
  }

  // ---- events ----------------------------------------------------------------------------

  #deliver(envelope: Envelope): void {
    this.nowMs = Math.max(this.nowMs, envelope.deliverAtMs);
    const { from, to, message } = envelope;
    const line = `${from}→${to} ${describeMessage(message)}`;
    if (to === controllerName) {
      if (this.replica(from).cutFromController) return this.say(`${line}: dropped (cut off)`);
      return this.#controllerReceives(from, message, line);
    }
    const replica = this.replica(to);
    const cut = replica.isolated || (from === controllerName && replica.cutFromController);
    if (replica.crashed || cut) return this.say(`${line}: dropped (${replica.crashed ? "crashed" : "cut off"})`);
    const { node } = replica;
    switch (message.kind) {
      case "replicate":
      case "truncate": {
        const reported = (reply: ReplicateReply) => this.#send(to, from, { kind: "reply", of: message.kind, reply, context: message.context });
        const endBefore = node.log.logEndOffset;
        const epochsBefore = message.kind === "truncate" ? node.log.epochStarts() : [];
        const reply = message.kind === "replicate" ? node.handleReplicate(message.request) : node.handleTruncate(message.request);
        if (reply.kind === "mismatch") this.counts.mismatches += 1;
        if (node.log.logEndOffset < endBefore) this.#countTruncation(replica, epochsBefore, endBefore);
        this.say(`${line} → ${describeReply(reply)} (log end ${node.log.logEndOffset}, hw ${node.log.highWatermark})`);
        return reported(reply);
      }
      case "reply": {
        if (message.context.incarnation !== replica.incarnation) return this.say(`${line}: dropped (sent before a restart)`);
        const chainKey = `${to}>${from}`;
        const current = this.#chains.get(chainKey)?.chain === message.context.chain;
        if (current) this.#chains.delete(chainKey);
        else if (!this.pipelined) return this.say(`${line}: dropped (the call timed out)`);
        const result = node.onReply(from, message.reply, message.context.leaderEndAtSend);
        this.say(`${line} → hw ${node.log.highWatermark}${result.fenced ? ", fenced: now follows" : ""}${result.truncate ? ", asks to truncate" : ""}`);
        if (result.fenced) this.counts.fenced += 1;
        if (result.truncate) {
          return this.#send(to, from, { kind: "truncate", request: result.truncate, context: this.#context(replica, from) });
        }
        if (message.reply.kind === "ok" && node.isLeader && (node.isBehind(from) || node.syncDue(from) === "probe")) this.#push(replica, from);
        return;
      }
      case "alterReply": {
        if (message.incarnation !== replica.incarnation) return this.say(`${line}: dropped (sent before a restart)`);
        const state = message.state ?? message.known;
        if (!state) return this.say(line);
        const applied = node.becomeLeader(state);
        return this.say(`${line} → ${applied ? "applied" : "ignored"}`);
      }
      case "becomeLeader": {
        const applied = node.becomeLeader(message.state);
        if (applied) this.kick(replica);
        return this.say(`${line} → ${applied ? "applied" : "ignored"}`);
      }
      case "becomeFollower":
        return this.say(`${line} → ${node.becomeFollower(message.leaderEpoch, message.leader) ? "applied" : "ignored"}`);
      case "alter":
        throw new Error(`an AlterPartition sent to replica ${to}`);
    }
  }

  /** A client's produce; the target is the leader the metadata names, or (stale metadata) any replica. */
  protected produce(target?: string, finalValue?: string, finalAcksAll = true): boolean {
    const region = target ?? (this.random.chance(0.85) ? this.controller.state.leader : this.random.pick(this.replicas).region);
    const replica = this.replica(region);
    const acksAll = finalValue !== undefined ? finalAcksAll : this.random.chance(0.8);
    const values: string[][] = finalValue !== undefined
      ? [[finalValue]]
      : Array.from({ length: this.random.int(1, 2) }, () => Array.from({ length: this.random.int(1, 3) }, () => this.clients.value()));
    const request = `produce acks=${acksAll ? "all" : "1"} [${values.map((batch) => batch.join(",")).join(" | ")}] to ${region}`;
    if (!this.canAppend(replica, request, acksAll)) return false;
    const { node } = replica;
    const { baseOffset, lastOffset } = node.appendAsLeader(this.clients.batches(values, this.nowMs));
    this.counts.produced += 1;
    this.say(`${request}: appended at ${baseOffset}..${lastOffset} in e${node.leaderEpoch}`);
    if (acksAll) this.clients.wait(replica, baseOffset, lastOffset, values.flat(), this.nowMs);
    this.kick(replica);
    return true;
  }

  /** Whether a client's write can be appended at `replica`; says why not. */
  protected canAppend(replica: SimReplica, request: string, acksAll: boolean): boolean {
    const { node } = replica;
    if (replica.crashed || replica.isolated) return this.say(`${request}: unreachable`), false;
    if (!node.isLeader) return this.say(`${request}: NOT_LEADER_OR_FOLLOWER (e${node.leaderEpoch})`), false;
    if (acksAll && node.inSyncReplicas.length < this.#minInsync) return this.say(`${request}: NOT_ENOUGH_REPLICAS (isr [${node.inSyncReplicas.join(",")}])`), false;
    return true;
  }

  /** The world as the idempotent producers see it: their requests go where produce()'s do. */
  #producerWorld(): ProducerWorld {
    return {
      random: this.random,
      clients: this.clients,
      nowMs: this.nowMs,
      say: (line) => this.say(line),
      appendTarget: (request) => {
        const replica = this.replica(this.random.chance(0.85) ? this.controller.state.leader : this.random.pick(this.replicas).region);
        return this.canAppend(replica, `${request} to ${replica.region}`, true) ? replica : undefined;
      },
      appended: (replica) => this.kick(replica),
    };
  }

  /** What the object does on a write, a new role or waking up: push to (or probe) every follower due it. */
  protected kick(replica: SimReplica): void {
    for (const follower of replica.node.followers()) this.#push(replica, follower);
  }

  /** The leader's alarm: re-push to followers that are behind, probe or announce, and propose an ISR change. */
  protected leaderTimer(replica: SimReplica): void {
    const { node } = replica;
    for (const follower of node.followers()) this.#push(replica, follower, true);
    const isr = node.proposedIsr(this.nowMs, this.lagMaxMs);
    if (isr === undefined || node.role.kind !== "leader") return;
    const { state } = node.role;
    if (isr.length < state.isr.length) this.counts.isrShrinks += 1;
    else this.counts.isrExpansions += 1;
    const request = { leader: replica.region, leaderEpoch: state.leaderEpoch, partitionEpoch: state.partitionEpoch, isr };
    this.#send(replica.region, controllerName, { kind: "alter", request, incarnation: replica.incarnation });
  }

  /**
   * Pushes what the follower lacks, probing first when due (ReplicaNode.syncDue); with
   * `announce` (the alarm), a caught-up follower is told the high watermark. Unless pipelined,
   * one call per follower at a time, as an object that awaits each: a new push waits for the
   * call in flight, or for its timeout.
   */
  #push(replica: SimReplica, follower: string, announce = false): void {
    const inFlight = this.#chains.get(`${replica.region}>${follower}`);
    if (!this.pipelined && inFlight && this.nowMs - inFlight.sinceMs < this.#rpcTimeoutMs) return;
    const next = replica.node.nextFor(follower, { maxBytes: this.#maxBytes }, announce);
    if (!next) return;
    if (next.kind !== "push") this.counts[next.kind === "probe" ? "probes" : "announcements"] += 1;
    this.replicationCalls += 1;
    this.#send(replica.region, follower, { kind: "replicate", request: next.request, context: this.#context(replica, follower) });
  }

  #controllerReceives(from: string, message: Message, line: string): void {
    if (message.kind !== "alter") throw new Error(`the controller got ${message.kind}`);
    const outcome = this.controller.alter(message.request);
    if (outcome.accepted) this.say(`${line} → accepted: ${describeState(outcome.state)}`);
    else {
      this.counts.alterRefused += 1;
      this.say(`${line} → ${outcome.code}: ${outcome.message}`);
    }
    const reply: Message = outcome.accepted
      ? { kind: "alterReply", state: outcome.state, known: undefined, error: undefined, incarnation: message.incarnation }
      : { kind: "alterReply", state: undefined, known: outcome.known, error: outcome.code, incarnation: message.incarnation };
    this.#send(controllerName, from, reply);
  }

  /** The controller's timer: replaces a leader unreachable for detectMs; sometimes re-announces its state. */
  protected controllerTimer(announce: boolean): void {
    const lostForMs = this.controller.leaderLost(this.nowMs, (region) => reachable(this.replica(region)));
    if (lostForMs !== undefined) {
      this.say(`controller: leader ${this.controller.state.leader} unreachable for ${lostForMs}ms`);
      if (this.#elect()) return;
    }
    if (announce) this.#announce();
  }

  #elect(): boolean {
    const next = this.controller.elect((region) => reachable(this.replica(region)));
    if (!next) return this.say(`controller: no replica of isr [${this.controller.state.isr.join(",")}] can lead`), false;
    this.counts.elections += 1;
    this.say(`controller elects ${describeState(next)}`);
    this.#announce();
    return true;
  }

  #announce(): void {
    for (const { to, message } of this.controller.announcements()) this.#send(controllerName, to, message);
  }

  protected crash(replica: SimReplica): void {
    if (replica.crashed) return;
    replica.crashed = true;
    this.counts.crashes += 1;
    this.say(`${replica.region} crashes (role ${describeRole(replica.persisted)}, log end ${replica.node.log.logEndOffset}, hw ${replica.node.log.highWatermark})`);
  }

  /**
   * A new object over the same store, with the role it persisted (see the header). Its calls
   * in flight died with the old one; a leader kicks its followers on waking, as the object does.
   */
  protected restart(replica: SimReplica): void {
    const role = replica.persisted;
    replica.incarnation += 1;
    replica.crashed = false;
    replica.node = buildNode(replica.region, replica.store, role, replica.transactions, this.#makeLog);
    for (const key of [...this.#chains.keys()]) if (key.startsWith(`${replica.region}>`)) this.#chains.delete(key);
    this.say(`${replica.region} restarts as ${describeRole(role)} (log end ${replica.node.log.logEndOffset}, hw ${replica.node.log.highWatermark})`);
    if (replica.node.isLeader) this.kick(replica);
  }

  // ---- after every step --------------------------------------------------------------

  protected afterStep(): void {
    const { acked, refused } = this.clients.answer((region) => this.replica(region), this.#minInsync, this.nowMs);
    for (const write of acked) this.say(`acknowledged ${describeWrite(write)}`);
    for (const line of refused) this.say(line);
    this.counts.acked += acked.length;
    Object.assign(this.counts, this.#producers.counts);
    this.counts.ackFailures += refused.length;
    this.#persistRoles();
    this.counts.lost = this.network.lost;
    this.counts.duplicated = this.network.duplicated;
    this.counts.truncations = this.replicas.reduce((sum, replica) => sum + replica.store.truncations, 0);
    const { state, electedLeaders } = this.controller;
    const world: CheckedWorld = { replicas: this.replicas, controller: state, electedLeaders, acked: this.clients.acked };
    this.checks.check(world);
  }

  #persistRoles(): void {
    for (const replica of this.replicas) if (!replica.crashed) replica.persisted = copyRole(replica.node.role);
  }

  // ---- helpers -----------------------------------------------------------------------

  /** Each replica's role, bounds and batches: the end of a failure's story. */
  describeReplicas(): string {
    return this.replicas.map(({ region, node, view, crashed, incarnation }) => {
      view.sync();
      const role = crashed ? "crashed" : describeRole(node.role);
      return `${region} (${role}, incarnation ${incarnation}, log end ${node.log.logEndOffset}, hw ${node.log.highWatermark}): ${view.batches()}`;
    }).join("\n");
  }

  /** A new call from the leader to a follower: what onReply will need, and its place as the follower's call in flight. */
  #context(replica: SimReplica, follower: string): SendContext {
    const chain = this.#nextChain++;
    this.#chains.set(`${replica.region}>${follower}`, { chain, sinceMs: this.nowMs });
    return { sentAtMs: this.nowMs, leaderEndAtSend: replica.node.log.logEndOffset, epoch: replica.node.leaderEpoch, incarnation: replica.incarnation, chain };
  }

  #send(from: string, to: string, message: Message): void {
    const sender = from === controllerName ? undefined : this.replica(from);
    const receiver = to === controllerName ? undefined : this.replica(to);
    const line = `${from}→${to} sends ${describeMessage(message)}`;
    const controllerLink = from === controllerName || to === controllerName;
    const cut = sender?.isolated || receiver?.isolated || (controllerLink && (sender?.cutFromController || receiver?.cutFromController));
    if (cut) return this.say(`${line} (cut off)`);
    this.say(line + this.network.send(from, to, message, this.nowMs));
  }

  protected replica(region: string): SimReplica {
    const replica = this.replicas.find((candidate) => candidate.region === region);
    if (!replica) throw new Error(`no replica ${region}`);
    return replica;
  }

  protected say(line: string): void {
    this.log.push(`[${this.nowMs}] ${line}`);
  }
}
