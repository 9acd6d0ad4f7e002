/**
 * The transaction coordinator simulation's world (test/sim/transaction-coordinator.sim.test.ts):
 * two producer instances sharing one transactional id (so one fences the other), writing after
 * an explicit add or by the router's implicit add (KIP-890 part 2), four
 * partitions and two groups (transaction-sim-parts.ts), a network that delays, reorders,
 * duplicates and loses messages, and the coordinator (transaction-sim-coordinator.ts) crashing
 * and restarting at every step, its markers failing or landing unacknowledged. The checks run
 * after every step; `settle` ends the faults and checks what must hold once all is delivered.
 */
import { partitionKey, type ProducerIdentity, type TopicPartition } from "../../src/transactions/transaction-metadata.ts";
import { SeededRandom } from "./group-sim-random.ts";
import { Crash, SimCoordinator, type CoordinatorAnswer, type CoordinatorRequest, type CoordinatorWorld, type TxnSimBug } from "./transaction-sim-coordinator.ts";
import { SimGroup, SimPartition, type SimMarker } from "./transaction-sim-parts.ts";

const topicPartitions: TopicPartition[] = [0, 1, 2, 3].map((partition) => ({ topic: partition < 2 ? "a" : "b", partition }));
const groupNames = ["g1", "g2"];
const requestTimeoutMs = 1_500;

interface Delivery {
  at: number;
  deliver: () => void;
}

class SimProducer {
  identity: ProducerIdentity | null = null;
  /** The open transaction as this instance believes it: its ghost serial and what it added. */
  txn: { serial: number; partitions: TopicPartition[] } | null = null;
  outstanding: { request: CoordinatorRequest; sentAt: number; attempt: number } | null = null;

  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }
}

export type TxnSimCounts = TxnSim["counts"];

export class TxnSim {
  readonly rng: SeededRandom;
  readonly log: string[] = [];
  now = 0;
  faults = true;
  readonly counts = {
    writesAccepted: 0, writesRefused: 0, offsetCommitsRefused: 0, fencedAnswers: 0, crashes: 0, evictions: 0,
    duplicates: 0, lost: 0, inits: 0, commits: 0, aborts: 0, markersFailed: 0, producerIdsAllocated: 0,
  };
  readonly coordinator: SimCoordinator;
  readonly partitions = new Map(topicPartitions.map((partition) => [partitionKey(partition), new SimPartition(`${partition.topic}-${partition.partition}`)]));
  readonly groups = new Map(groupNames.map((name) => [name, new SimGroup(name)]));
  readonly producers = [new SimProducer("p0"), new SimProducer("p1")];
  /** Every decision the coordinator made durable, by ghost serial. */
  readonly decisions = new Map<number, { marker: SimMarker; partitions: TopicPartition[]; groups: string[] }>();
  #network: Delivery[] = [];
  #nextProducerId = 100;
  /** Per producer id, the epoch below which an init fenced it; producer ids an init replaced. */
  #fencedBelow = new Map<number, number>();
  #replaced = new Set<number>();

  readonly seed: number;
  readonly bug: TxnSimBug | undefined;

  constructor(seed: number, bug?: TxnSimBug) {
    this.seed = seed;
    this.bug = bug;
    this.rng = new SeededRandom(seed);
    // Some seeds start near the epoch's maximum, so the move to a new producer id happens.
    const nearMax = this.rng.chance(0.3);
    this.coordinator = new SimCoordinator(this.#coordinatorWorld(), bug, nearMax ? 32_760 : 0, nearMax ? this.#nextProducerId++ : null);
  }

  #coordinatorWorld(): CoordinatorWorld {
    const world = this;
    return {
      get now() {
        return world.now;
      },
      crash: (where) => {
        const crashed = this.faults && this.rng.chance(0.03);
        if (crashed) {
          this.counts.crashes++;
          this.log.push(`${this.now} coordinator crashed ${where}`);
        }
        return crashed;
      },
      allocateProducerId: () => {
        this.counts.producerIdsAllocated++;
        return this.#nextProducerId++;
      },
      writeMarker: (target, marker) => this.#writeMarker(target, marker),
      recordDecision: (serial, decision) => {
        const known = this.decisions.get(serial);
        if (known === undefined) this.decisions.set(serial, structuredClone(decision));
        else if (known.marker.result !== decision.marker.result || known.marker.producerEpoch !== decision.marker.producerEpoch) {
          throw new Error(`decision #${serial} changed from ${JSON.stringify(known.marker)} to ${JSON.stringify(decision.marker)}`);
        }
      },
      recordAccepted: (request, original) => this.#checkNotFenced(request, original),
      recordInit: (identity, previousProducerId) => {
        this.#fencedBelow.set(identity.producerId, identity.producerEpoch);
        if (previousProducerId !== null) this.#replaced.add(previousProducerId);
      },
      log: (line) => this.log.push(`${this.now} ${line}`),
    };
  }

  /** A marker write: it fails (the leader moved, a timeout), or lands with its answer lost, or lands. */
  #writeMarker(target: { partition?: TopicPartition; group?: string }, marker: SimMarker): boolean {
    if (this.faults && this.rng.chance(0.15)) {
      this.counts.markersFailed++;
      return false;
    }
    if (target.group !== undefined) this.groups.get(target.group)!.marker(marker);
    else if (!this.partitions.get(partitionKey(target.partition!))!.marker(marker)) return false;
    return !(this.faults && this.rng.chance(0.1));
  }

  #checkNotFenced(request: CoordinatorRequest, original: ProducerIdentity | null): void {
    if (original === null) return;
    const below = this.#fencedBelow.get(original.producerId);
    if (this.#replaced.has(original.producerId) || (below !== undefined && original.producerEpoch < below)) {
      throw new Error(`fencing: the coordinator accepted ${request.kind} from fenced producer ${original.producerId} epoch ${original.producerEpoch}`);
    }
  }

  #send(deliver: () => void, what: string, duplicable: boolean): void {
    if (this.faults && this.rng.chance(0.05)) {
      this.counts.lost++;
      this.log.push(`${this.now} lost ${what}`);
      return;
    }
    const copies = duplicable && this.faults && this.rng.chance(0.05) ? 2 : 1;
    if (copies === 2) this.counts.duplicates++;
    for (let copy = 0; copy < copies; copy++) {
      // Mostly quick; now and then held back long enough to arrive after its transaction ended.
      const delay = !this.faults ? 0 : this.rng.chance(0.1) ? this.rng.int(1_000, 5_000) : this.rng.int(0, 400);
      this.#network.push({ at: this.now + delay, deliver });
    }
  }

  /** A request to the coordinator (a turn of its object) and its answer back to the producer. */
  #call(producer: SimProducer, request: CoordinatorRequest, attempt: number): void {
    this.#send(() => {
      const answer = this.coordinator.answerUnlessCrashed(request);
      if (answer === undefined) return;
      this.log.push(`${this.now} coordinator ${producer.name} ${request.kind} ${JSON.stringify("identity" in request ? request.identity : request.timeoutMs)} → ${JSON.stringify(answer)}`);
      this.#send(() => this.#answer(producer, request, attempt, answer), `answer to ${producer.name}`, false);
    }, `${producer.name} ${request.kind}`, true);
  }

  #answer(producer: SimProducer, request: CoordinatorRequest, attempt: number, answer: CoordinatorAnswer): void {
    if (producer.outstanding?.request !== request || producer.outstanding.attempt > attempt + 3) return;
    producer.outstanding = null;
    if (!answer.ok) {
      if (answer.code === "CONCURRENT_TRANSACTIONS") return;
      this.counts.fencedAnswers++;
      // Fenced, timed out or confused: this instance is done; a new one will init.
      producer.identity = null;
      producer.txn = null;
      return;
    }
    if (request.kind === "init") {
      producer.identity = answer.identity;
      producer.txn = null;
    } else if (request.kind === "add") {
      producer.txn = { serial: producer.txn?.serial ?? answer.serial, partitions: [...(producer.txn?.partitions ?? []), ...request.partitions] };
    } else if (request.kind === "group") {
      producer.txn = { serial: producer.txn?.serial ?? answer.serial, partitions: producer.txn?.partitions ?? [] };
      const { producerId, producerEpoch } = request.identity;
      const serial = producer.txn.serial;
      const group = this.groups.get(request.group)!;
      this.#send(() => {
        if (!group.commit(producerId, producerEpoch, serial)) this.counts.offsetCommitsRefused++;
      }, `offsets to ${request.group}`, true);
    } else {
      producer.identity = answer.identity;
      producer.txn = null;
    }
  }

  /** One producer's move: retry what got no answer, or its next request, or a write, or nothing (a slow producer times out). */
  #produce(producer: SimProducer): void {
    const out = producer.outstanding;
    if (out !== null) {
      if (this.now - out.sentAt < requestTimeoutMs) return;
      out.sentAt = this.now;
      out.attempt++;
      this.#call(producer, out.request, out.attempt);
      return;
    }
    const identity = producer.identity;
    if (identity === null || this.rng.chance(0.01)) {
      this.counts.inits++;
      producer.identity = null;
      producer.txn = null;
      return this.#request(producer, { kind: "init", timeoutMs: this.rng.int(1_000, 3_000) });
    }
    const move = this.rng.weighted({ add: 3, write: 6, group: 1, end: 2, idle: 3 });
    const txn = producer.txn;
    // A write to a partition not added yet goes by the router's implicit add (KIP-890 part 2), and may open the transaction.
    if (move === "write" && (txn === null || this.rng.chance(0.4))) return this.#implicitWrite(producer, identity);
    if (move === "add" || txn === null) {
      const partitions = [this.rng.pick(topicPartitions), this.rng.pick(topicPartitions)];
      return this.#request(producer, { kind: "add", identity, partitions });
    }
    if (move === "write" && txn.partitions.length > 0) {
      const target = this.rng.pick(txn.partitions);
      const partition = this.partitions.get(partitionKey(target))!;
      const serial = txn.serial;
      this.#send(() => {
        if (partition.write(identity.producerId, identity.producerEpoch, serial)) this.counts.writesAccepted++;
        else this.counts.writesRefused++;
      }, `${producer.name} write`, true);
      return;
    }
    if (move === "group") return this.#request(producer, { kind: "group", identity, group: this.rng.pick(groupNames) });
    if (move === "end") {
      const commit = this.rng.chance(0.6);
      if (commit) this.counts.commits++;
      else this.counts.aborts++;
      return this.#request(producer, { kind: "end", identity, commit });
    }
  }

  /**
   * A transactional write as Tributary's client sends it, with no add before it: the router asks
   * the coordinator (`addPartitionsForWrite`: the current producer, the partition added), then
   * forwards the write to the partition with the producer's identity, and answers the producer.
   * The write names the transaction the producer meant (the one it knows open, else the one the
   * coordinator opened for it).
   */
  #implicitWrite(producer: SimProducer, identity: ProducerIdentity): void {
    const target = this.rng.pick(topicPartitions);
    const meant = producer.txn?.serial ?? null;
    const request: CoordinatorRequest = { kind: "write", identity, partitions: [target] };
    this.#send(() => {
      const answer = this.coordinator.answerUnlessCrashed(request);
      if (answer === undefined) return;
      this.log.push(`${this.now} coordinator ${producer.name} write ${JSON.stringify(identity)} ${partitionKey(target)} → ${JSON.stringify(answer)}`);
      if (!answer.ok) {
        this.counts.writesRefused++;
        return;
      }
      const serial = meant ?? answer.serial;
      const partition = this.partitions.get(partitionKey(target))!;
      this.#send(() => {
        if (partition.write(identity.producerId, identity.producerEpoch, serial)) this.counts.writesAccepted++;
        else this.counts.writesRefused++;
      }, `${producer.name} write forwarded`, true);
      this.#send(() => {
        const current = producer.identity;
        if (current?.producerId !== identity.producerId || current.producerEpoch !== identity.producerEpoch) return;
        producer.txn = { serial: producer.txn?.serial ?? answer.serial, partitions: [...(producer.txn?.partitions ?? []), target] };
      }, `answer to ${producer.name}`, false);
    }, `${producer.name} write (implicit add)`, true);
  }

  #request(producer: SimProducer, request: CoordinatorRequest): void {
    producer.outstanding = { request, sentAt: this.now, attempt: 0 };
    this.#call(producer, request, 0);
  }

  /** Delivers what is due, in a shuffled order (the network reorders). */
  #deliver(all = false): void {
    const due = this.#network.filter((delivery) => all || delivery.at <= this.now);
    this.#network = this.#network.filter((delivery) => !due.includes(delivery));
    for (let index = due.length - 1; index > 0; index--) {
      const other = this.rng.int(0, index);
      [due[index], due[other]] = [due[other]!, due[index]!];
    }
    for (const delivery of due) delivery.deliver();
  }

  #fireAlarm(): void {
    const alarmAt = this.coordinator.stored.alarmAt;
    if (alarmAt === null || alarmAt > this.now) return;
    try {
      this.coordinator.alarm();
    } catch (error) {
      if (!(error instanceof Crash)) throw error;
    }
  }

  step(): void {
    this.now += this.rng.int(0, 300);
    if (this.faults && this.rng.chance(0.02)) {
      this.counts.evictions++;
      this.coordinator.evict();
    }
    this.#deliver();
    this.#fireAlarm();
    // p0 is busy; p1 is a second instance that wakes now and then (a restarted process, or a zombie).
    if (this.faults) for (const [index, producer] of this.producers.entries()) if (this.rng.chance(index === 0 ? 0.6 : 0.05)) this.#produce(producer);
    this.check();
  }

  run(steps: number): void {
    for (let step = 0; step < steps; step++) this.step();
    this.settle();
  }

  /** No more faults nor requests: everything in flight arrives, time passes, alarms fire; then every transaction is settled. */
  settle(): void {
    this.faults = false;
    for (const producer of this.producers) producer.outstanding = null;
    this.#deliver(true);
    for (let round = 0; round < 40; round++) {
      this.now += 1_000;
      this.#fireAlarm();
      this.#deliver(true);
    }
    this.check();
    this.checkSettled();
  }

  /** What holds after every step. */
  check(): void {
    for (const partition of this.partitions.values()) {
      for (const closed of partition.closed) {
        this.#checkMarker(closed.marker, partition.name);
        const foreign = closed.writeSerials.filter((serial) => serial !== closed.marker.serial);
        if (foreign.length > 0) throw new Error(`late write: ${partition.name}'s marker of transaction #${closed.marker.serial} closed writes of transaction(s) #${foreign.join(", #")}`);
      }
    }
    for (const group of this.groups.values()) {
      for (const landed of group.landed) {
        this.#checkMarker(landed.marker, group.name);
        const foreign = landed.offsetSerials.filter((serial) => serial !== landed.marker.serial);
        if (foreign.length > 0) throw new Error(`late offset commit: ${group.name}'s marker of transaction #${landed.marker.serial} ended offsets of transaction(s) #${foreign.join(", #")}`);
      }
    }
  }

  /** A marker somewhere carries out a durable decision, exactly. */
  #checkMarker(marker: SimMarker, where: string): void {
    const decision = this.decisions.get(marker.serial);
    if (decision === undefined) throw new Error(`marker without a durable decision: ${where} holds ${JSON.stringify(marker)}`);
    if (decision.marker.result !== marker.result || decision.marker.producerId !== marker.producerId || decision.marker.producerEpoch !== marker.producerEpoch) {
      throw new Error(`marker unlike its decision: ${where} holds ${JSON.stringify(marker)}, the decision was ${JSON.stringify(decision.marker)}`);
    }
  }

  /** What holds once everything settled: no transaction open or ending, every marker everywhere, offsets committed exactly for commits. */
  checkSettled(): void {
    const state = this.coordinator.stored.metadata.state;
    if (state === "Ongoing" || state === "PrepareCommit" || state === "PrepareAbort") throw new Error(`a transaction never ended: the coordinator is ${state}`);
    for (const [serial, decision] of this.decisions) {
      for (const target of decision.partitions) {
        if (!this.partitions.get(partitionKey(target))!.acknowledged.has(serial)) throw new Error(`${target.topic}-${target.partition} never got transaction #${serial}'s marker`);
      }
      for (const group of decision.groups) if (!this.groups.get(group)!.acknowledged.has(serial)) throw new Error(`${group} never got transaction #${serial}'s marker`);
    }
    for (const partition of this.partitions.values()) {
      if (partition.open.size > 0) throw new Error(`hanging transaction: ${partition.name} holds open writes of producer(s) ${[...partition.open.keys()].join(", ")}`);
    }
    for (const group of this.groups.values()) {
      if (group.state.pending.length > 0) throw new Error(`${group.name} holds pending offsets of a transaction that ended`);
      for (const serial of group.stagedSerials) {
        const committed = this.decisions.get(serial)?.marker.result === "commit";
        if (committed !== group.committedSerials.includes(serial)) throw new Error(`${group.name}: transaction #${serial}'s offsets ${committed ? "missing after its commit" : "committed without a commit"}`);
      }
    }
  }
}
