/**
 * A seeded world of one share-partition whose state is replicated over three regions
 * (src/replication/state-replication.ts), as SharePartitionState runs it: each region holds a
 * StateReplica (its row) and, while it leads, the window in memory; a leader call at a new
 * epoch pulls the reachable regions' snapshots and fences them, each write is pushed to the
 * reachable regions and commits when every ISR member (the caller's view) stored it.
 *
 * Around it: a controller that loses a region at a time (the leader's storage gone or kept; or a
 * "zombie" still reachable by callers and able to push, but deemed down), elects a new leader
 * from the ISR with a higher epoch, shrinks and regrows the ISR; consumers whose views of the
 * placement go stale (refreshed on a refusal, on an unreachable leader, or now and then) fetch,
 * accept, release and reject; a clock that expires locks.
 */
import { TributaryError } from "../../src/errors.ts";
import { SharePartition, type AcknowledgeType, type SharePartitionConfig } from "../../src/share/share-partition.ts";
import type { PersistedSharePartition } from "../../src/share/share-partition-persisted.ts";
import { StateReplica, commitOutcome, compareStamps, otherRegions, type PushOutcome, type StateSnapshot, type StateStamp } from "../../src/replication/state-replication.ts";
import { SeededRandom } from "./group-sim-random.ts";

type Payload = string; // the window's row (PersistedSharePartition JSON)

interface Region {
  name: string;
  replica: StateReplica<Payload>;
  window: SharePartition | null;
  parsedFrom: StateSnapshot<Payload> | null;
  down: boolean;
  /** Deemed down by the controller, but callers reach it and it reaches the others. */
  zombie: boolean;
  /** While it leads (memory): the newest stamp each other region acknowledged. */
  acknowledgedBy: Map<string, StateStamp>;
  /** The count of calls served when it came back: it rejoins the ISR only after a call served since. */
  backAtServed: number;
}

interface View {
  leader: string;
  epoch: number;
  isr: string[];
}

interface Held {
  lease: string;
  offsets: Set<number>;
  untilMs: number;
  /** An acknowledgement of it failed after a write (deposed, or an in-sync replica missing): it may have been applied. */
  ambiguous?: boolean;
}

interface Consumer {
  name: string;
  view: View;
  leases: Held[];
}

export interface ReplicationSimCounts {
  served: number;
  takeovers: number;
  adoptedFromOthers: number;
  refusedStale: number;
  deposed: number;
  notEnoughReplicas: number;
  unreachable: number;
  elections: number;
  regionsLost: number;
  storageLost: number;
  zombies: number;
  accepted: number;
}

type Answer<T> = { ok: true; value: T } | { ok: false; why: "refused" | "deposed" | "not-enough" | "unreachable" };

export class ShareReplicationSim {
  readonly log: string[] = [];
  readonly counts: ReplicationSimCounts = {
    served: 0, takeovers: 0, adoptedFromOthers: 0, refusedStale: 0, deposed: 0, notEnoughReplicas: 0, unreachable: 0,
    elections: 0, regionsLost: 0, storageLost: 0, zombies: 0, accepted: 0,
  };
  readonly #random: SeededRandom;
  readonly #config: SharePartitionConfig;
  readonly #records: number;
  readonly #regions: Region[];
  #controller: View;
  /** Every placement the controller has had: a router's cached metadata may be any of them. */
  readonly #pastViews: View[] = [];
  #consumers: Consumer[];
  #nowMs = 1_000_000;
  #highWatermark = 0;
  #leases = 0;
  /** Offsets whose accept was answered (committed): never acquired again, never accepted twice. */
  readonly #accepted = new Set<number>();

  constructor(seed: number) {
    const random = (this.#random = new SeededRandom(seed));
    this.#config = { lockDurationMs: random.int(1, 4) * 1_000, deliveryCountLimit: random.int(2, 5), deadLetter: false, inFlightRecordsMax: random.int(4, 30) };
    this.#records = random.int(20, 120);
    const names = ["wnam", "weur", "apac"];
    this.#regions = names.map((name) => ({ name, replica: new StateReplica<Payload>(), window: null, parsedFrom: null, down: false, zombie: false, acknowledgedBy: new Map(), backAtServed: 0 }));
    this.#controller = { leader: names[0]!, epoch: 0, isr: [...names] };
    this.#consumers = Array.from({ length: random.int(2, 4) }, (_, index) => ({ name: `c${index}`, view: this.#freshView(), leases: [] }));
    this.log.push(`seed ${seed}: ${this.#records} records, ${JSON.stringify(this.#config)}`);
  }

  run(steps: number): void {
    for (let step = 0; step < steps; step++) {
      this.#step();
      this.#check();
    }
    this.#drain();
  }

  #step(): void {
    const random = this.#random;
    const consumer = random.pick(this.#consumers);
    const action = random.weighted({ produce: 2, fetch: 6, acknowledge: 5, tick: 3, lose: 0.6, elect: 0.5, back: 0.8, shrink: 0.8, rejoin: 0.8, stale: 1, refresh: 2 });
    if (action === "produce") this.#highWatermark = Math.min(this.#records, this.#highWatermark + random.int(1, 10));
    else if (action === "fetch") this.#fetch(consumer);
    else if (action === "acknowledge") this.#acknowledge(consumer);
    else if (action === "tick") this.#nowMs += random.chance(0.7) ? random.int(1, 500) : random.int(1_000, 5_000);
    else if (action === "lose") this.#lose();
    else if (action === "back") this.#back();
    else if (action === "shrink") this.#controller.isr = this.#controller.isr.filter((name) => name === this.#controller.leader || !this.#deemedDown(this.#region(name)));
    else if (action === "rejoin") this.#rejoin();
    else if (action === "elect") this.#elect();
    else if (action === "stale") consumer.view = { ...random.pick(this.#pastViews) }; // a router with old metadata calls an old leader
    else consumer.view = this.#freshView();
  }

  #freshView(): View {
    const view = { ...this.#controller, isr: [...this.#controller.isr] };
    this.#pastViews.push(view);
    return { ...view };
  }

  #region(name: string): Region {
    return this.#regions.find((region) => region.name === name)!;
  }

  #deemedDown(region: Region): boolean {
    return region.down || region.zombie;
  }

  /** One region at a time is lost (RF 3 survives one loss): the leader's more often. */
  #lose(): void {
    if (this.#regions.some((region) => this.#deemedDown(region))) return;
    const region = this.#random.chance(0.6) ? this.#region(this.#controller.leader) : this.#random.pick(this.#regions);
    this.counts.regionsLost += 1;
    if (region.name === this.#controller.leader && this.#random.chance(0.3)) {
      region.zombie = true;
      this.counts.zombies += 1;
      this.log.push(`${region.name} is a zombie (deemed down, still reachable by callers)`);
    } else {
      region.down = true;
      // The leader's storage may be gone with its region while another replica is in sync (as for the log, losing
      // the last in-sync copy loses data); a follower's comes back (Durable Object storage is durable).
      if (region.name === this.#controller.leader && this.#controller.isr.length > 1 && this.#random.chance(0.5)) {
        region.replica = new StateReplica<Payload>();
        region.window = null;
        region.parsedFrom = null;
        region.acknowledgedBy = new Map();
        this.counts.storageLost += 1;
      }
      this.log.push(`${region.name} lost${region.replica.current === null ? " with its storage" : ""}`);
    }
    if (region.name === this.#controller.leader && this.#random.chance(0.5)) this.#elect();
  }

  #back(): void {
    for (const region of this.#regions) {
      if (!region.down && !region.zombie) continue;
      region.down = false;
      region.zombie = false;
      region.backAtServed = this.counts.served;
      this.log.push(`${region.name} back`);
    }
  }

  /**
   * A region back and caught up with the log rejoins the ISR. Its log replica catches up over
   * pushes and round trips, so a share call is assumed to come first (the leader then brings its
   * state up to date: ShareStateLeadership.syncLagging); docs/api.md says what is left without one.
   */
  #rejoin(): void {
    const back = this.#regions.find((region) => !this.#deemedDown(region) && !this.#controller.isr.includes(region.name) && this.counts.served > region.backAtServed);
    if (back) this.#controller.isr = this.#regions.map(({ name }) => name).filter((name) => this.#controller.isr.includes(name) || name === back.name);
  }

  /** The controller elects the first live ISR member other than the unreachable leader, at a higher epoch. */
  #elect(): void {
    const controller = this.#controller;
    if (!this.#deemedDown(this.#region(controller.leader))) return;
    const next = controller.isr.find((name) => name !== controller.leader && !this.#deemedDown(this.#region(name)));
    if (next === undefined) return;
    this.#controller = { leader: next, epoch: controller.epoch + 1, isr: controller.isr.filter((name) => name !== controller.leader) };
    this.counts.elections += 1;
    this.log.push(`elected ${next} at epoch ${this.#controller.epoch}, isr ${this.#controller.isr.join(",")}`);
  }

  /** A call to the state replica the view names leader, as SharePartitionState runs it. */
  #call<T>(view: View, body: (window: SharePartition) => T): Answer<T> {
    const region = this.#region(view.leader);
    if (region.down) return { ok: false, why: "unreachable" };
    const replica = region.replica;
    const decision = replica.leaderCall(view.epoch);
    if (decision === "refuse") return { ok: false, why: "refused" };
    const before = replica.current;
    if (decision === "take-over") {
      // A takeover serves an epoch only while the controller names this region its leader (ShareStateLeadership).
      if (this.#controller.leader !== region.name || this.#controller.epoch !== view.epoch) return { ok: false, why: "refused" };
      this.counts.takeovers += 1;
      replica.beginTakeover(view.epoch);
      region.acknowledgedBy.clear();
      const pulled = this.#pull(region, view.epoch);
      const refusedAt = Math.max(-1, ...pulled.map((answer) => ("refusedAt" in answer ? answer.refusedAt : -1)));
      if (refusedAt > view.epoch) {
        replica.deposedAt(refusedAt);
        return { ok: false, why: "refused" };
      }
      const own = replica.current;
      const adopted = replica.finishTakeover(view.epoch, pulled.map((answer) => ("snapshot" in answer ? answer.snapshot : null)));
      if (adopted !== own) this.counts.adoptedFromOthers += 1;
    }
    if (region.window === null || replica.current !== region.parsedFrom) {
      region.parsedFrom = replica.current;
      region.window = replica.current ? SharePartition.fromPersisted(JSON.parse(replica.current.payload) as PersistedSharePartition) : SharePartition.startingAt(0, 0);
    }
    const window = region.window!;
    let value: T;
    try {
      value = body(window);
    } catch (error) {
      // A refusal changes nothing; the leader first confirms it still leads (a pull at its epoch).
      if (this.#pull(region, view.epoch).some((answer) => "refusedAt" in answer && answer.refusedAt > view.epoch)) {
        replica.deposedAt(view.epoch + 1);
        return { ok: false, why: "refused" };
      }
      throw error;
    }
    const row = JSON.stringify(window.toPersisted());
    if (row !== replica.current?.payload) {
      replica.stamp(row);
      region.parsedFrom = replica.current;
    }
    const snapshot = replica.current;
    const wrote = snapshot !== before && snapshot !== null;
    const lagging = otherRegions(this.#regions.map(({ name }) => name), region.name).filter((name) => {
      const acknowledged = region.acknowledgedBy.get(name);
      return snapshot !== null && (wrote || acknowledged === undefined || compareStamps(acknowledged, snapshot) < 0);
    });
    if (snapshot !== null && lagging.length > 0) {
      // A write goes to every other region (the ISR's required); a call without one brings lagging regions up to date, best-effort.
      const outcomes: PushOutcome[] = lagging.map((name) => {
        const other = this.#region(name);
        if (other.down || other.zombie) return { region: name, unreachable: true as const };
        const answer = other.replica.acceptPush(snapshot);
        if ("stored" in answer) region.acknowledgedBy.set(name, { epoch: snapshot.epoch, version: snapshot.version });
        return { region: name, answer };
      });
      const outcome = commitOutcome(outcomes, wrote ? view.isr : []);
      if (outcome.kind === "deposed") {
        replica.deposedAt(outcome.seenEpoch);
        this.counts.deposed += 1;
        return { ok: false, why: "deposed" };
      }
      if (outcome.kind === "not-enough-replicas") {
        this.counts.notEnoughReplicas += 1;
        return { ok: false, why: "not-enough" };
      }
    }
    this.counts.served += 1;
    return { ok: true, value };
  }

  /** A leader's pull of the others' snapshots at `epoch` (a zombie cannot be reached by the others). */
  #pull(region: Region, epoch: number) {
    return otherRegions(this.#regions.map(({ name }) => name), region.name)
      .map((name) => this.#region(name))
      .filter((other) => !other.down && !other.zombie)
      .map((other) => other.replica.answerPull(epoch));
  }

  /** The router's reaction to a failed call: refresh the view; report an unreachable leader to the controller. */
  #failed(consumer: Consumer, why: string): void {
    this.log.push(`${consumer.name}'s call to ${consumer.view.leader}@${consumer.view.epoch} (isr ${consumer.view.isr.join(",")}) failed: ${why}`);
    if (why === "refused") this.counts.refusedStale += 1;
    if (why === "unreachable") {
      this.counts.unreachable += 1;
      if (consumer.view.leader === this.#controller.leader && consumer.view.epoch === this.#controller.epoch) this.#elect();
    }
    consumer.view = this.#freshView();
  }

  #fetch(consumer: Consumer): void {
    const lease = `l${++this.#leases}`;
    const maxRecords = this.#random.int(1, 10);
    const nowMs = this.#nowMs;
    const answer = this.#call(consumer.view, (window) => window.acquire({ lease, maxRecords, nowMs, highWatermark: this.#highWatermark }, this.#config));
    if (!answer.ok) return this.#failed(consumer, answer.why);
    for (const { offset, deliveryCount } of answer.value) {
      if (this.#accepted.has(offset)) throw new Error(`offset ${offset} acquired again after its accept was answered (an accepted acknowledgement lost)`);
      if (deliveryCount > this.#config.deliveryCountLimit) throw new Error(`offset ${offset} delivered ${deliveryCount} times`);
    }
    this.log.push(`${consumer.name} fetch ${lease} from ${consumer.view.leader}@${consumer.view.epoch} at ${nowMs}: ${answer.value.map(({ offset }) => offset).join(" ")}`);
    if (answer.value.length > 0) consumer.leases.push({ lease, offsets: new Set(answer.value.map(({ offset }) => offset)), untilMs: nowMs + this.#config.lockDurationMs });
  }

  #acknowledge(consumer: Consumer, type: AcknowledgeType = this.#random.weighted<AcknowledgeType>({ accept: 8, release: 2, reject: 1 })): void {
    const held = consumer.leases.find((lease) => lease.offsets.size > 0);
    if (!held) return;
    const offsets = [...held.offsets];
    const nowMs = this.#nowMs;
    let answer: Answer<number>;
    try {
      answer = this.#call(consumer.view, (window) => window.acknowledge([{ lease: held.lease, offsets, type }], nowMs, this.#config));
    } catch (error) {
      if (!(error instanceof TributaryError) || error.code !== "INVALID_RECORD_STATE") throw error;
      this.log.push(`${consumer.name} ${type} ${held.lease} [${offsets.join(",")}] refused`);
      if (held.untilMs > nowMs && !held.ambiguous) throw new Error(`ack of ${held.lease} [${offsets.join(",")}] refused while its lock held (a lock lost in a failover)`);
      consumer.leases = consumer.leases.filter((lease) => lease !== held);
      return;
    }
    if (!answer.ok) {
      if (answer.why === "deposed" || answer.why === "not-enough") held.ambiguous = true;
      return this.#failed(consumer, answer.why);
    }
    if (held.untilMs <= nowMs) throw new Error(`ack of ${held.lease} applied after its lock expired`);
    this.log.push(`${consumer.name} ${type} ${held.lease} [${offsets.join(",")}] at ${consumer.view.leader}@${consumer.view.epoch}`);
    if (type === "accept") {
      for (const offset of offsets) {
        if (this.#accepted.has(offset)) throw new Error(`offset ${offset} accepted twice`);
        this.#accepted.add(offset);
      }
      this.counts.accepted += offsets.length;
    }
    consumer.leases = consumer.leases.filter((lease) => lease !== held);
  }

  /** After every step: no record held by two live leases; every region's window within its bound. */
  #check(): void {
    const holders = new Map<number, string>();
    for (const consumer of this.#consumers) {
      for (const held of consumer.leases) {
        // A lease whose acknowledgement failed after a write is given up: the write may have released its records.
        if (held.untilMs <= this.#nowMs || held.ambiguous) continue;
        for (const offset of held.offsets) {
          const other = holders.get(offset);
          if (other !== undefined) throw new Error(`offset ${offset} held by ${other} and ${held.lease} at once`);
          holders.set(offset, held.lease);
        }
      }
    }
    for (const region of this.#regions) {
      const payload = region.replica.current?.payload;
      if (payload === undefined) continue;
      const window = SharePartition.fromPersisted(JSON.parse(payload) as PersistedSharePartition);
      if (window.endOffset - window.startOffset > this.#config.inFlightRecordsMax!) throw new Error(`${region.name}'s window spans ${window.endOffset - window.startOffset}`);
    }
  }

  /** Every region back, everything produced, time passing, consumers accepting what they get: every record settles. */
  #drain(): void {
    this.#back();
    this.#highWatermark = this.#records;
    const drainer: Consumer = { name: "drainer", view: this.#freshView(), leases: [] };
    this.#consumers.push(drainer);
    let start = 0;
    for (let round = 0; round < 5_000 && start < this.#records; round++) {
      this.#nowMs += this.#config.lockDurationMs + 1;
      this.#rejoin();
      this.#fetch(drainer);
      while (drainer.leases.some((lease) => lease.offsets.size > 0)) this.#acknowledge(drainer, "accept");
      drainer.leases = [];
      const payload = this.#region(this.#controller.leader).replica.current?.payload;
      if (payload !== undefined) start = SharePartition.fromPersisted(JSON.parse(payload) as PersistedSharePartition).startOffset;
      this.#check();
    }
    if (start !== this.#records) throw new Error(`never settled: start ${start} of ${this.#records}`);
  }
}
