/**
 * The world of the transactions-under-replication simulation (transaction-replication.sim
 * .test.ts): the real transaction machine driven as its object drives it
 * (transaction-sim-coordinator.ts: crashes before each persist and mid marker round, evictions,
 * timeouts by alarm), two instances of one transactional id fencing each other, two groups with
 * the real transactional offsets rules (transaction-sim-parts.ts), and three partitions, each the
 * replication simulation's world of real replicas (transaction-replication-sim-partition.ts:
 * leaders and followers, lost, duplicated, delayed and reordered messages, crashes and restarts,
 * cut links, elections, truncations). Producers' requests, writes and the coordinator's marker
 * writes travel a network that loses, duplicates, delays and reorders them; a write and a marker
 * are answered as acks=all appends. Readers read read_committed from any live replica. Every step
 * is followed by the checks of transaction-replication-sim-checks.ts.
 */

import { PartitionLog } from "../../src/log/partition-log.ts";
import type { ProducerIdentity, TopicPartition } from "../../src/transactions/transaction-metadata.ts";
import { SeededRandom } from "./group-sim-random.ts";
import type { LogFactory } from "./replication-sim-replica.ts";
import { Crash, SimCoordinator, type CoordinatorAnswer, type CoordinatorRequest, type CoordinatorWorld, type TxnSimBug } from "./transaction-sim-coordinator.ts";
import { SimGroup, type SimMarker } from "./transaction-sim-parts.ts";
import { LsoCheck, PartitionReader, TxnScan, type ReaderBug, type ScannedMarker } from "./transaction-replication-sim-checks.ts";
import { TxnPartition, type Answered } from "./transaction-replication-sim-partition.ts";

const topicPartitions: TopicPartition[] = [{ topic: "a", partition: 0 }, { topic: "a", partition: 1 }, { topic: "b", partition: 0 }];
const nameOf = (target: TopicPartition) => `${target.topic}-${target.partition}`;
const groupNames = ["g1", "g2"];
const requestTimeoutMs = 3_000;
/** Kafka's retry.backoff.ms: a producer's refused write goes again after it. */
const retryBackoffMs = 100;

/** A bug injected into the partitions' last stable offset (a PartitionLog doing that one duty wrong). */
export type LogBug = "lso-ignores-open" | "lso-past-high-watermark";
/**
 * `acks-1-writes`: a producer counts its transactional writes as written once the leader appended
 * them (acks=1); `group-commits-aborted-offsets`: a group makes an ABORT's pending offsets its
 * committed offsets as a COMMIT's.
 */
export type TxnReplicationBug = TxnSimBug | ReaderBug | LogBug | "acks-1-writes" | "group-commits-aborted-offsets";

const logBugs: Record<LogBug, LogFactory> = {
  "lso-ignores-open": (store, transactions) => new (class extends PartitionLog {
    override get lastStableOffset(): number {
      return this.highWatermark;
    }
  })(store, transactions),
  "lso-past-high-watermark": (store, transactions) => new (class extends PartitionLog {
    override get lastStableOffset(): number {
      const open = this.transactions.openTransactions()[0]?.firstOffset;
      return Math.min(open ?? this.logEndOffset, this.logEndOffset);
    }
  })(store, transactions),
};

interface Write {
  partition: number;
  identity: ProducerIdentity;
  serial: number;
  baseSequence: number;
  values: string[];
  /** Sent with no add before it: the router's implicit add at the coordinator goes first (KIP-890 part 2). */
  implicit: boolean;
  sentAt: number;
  attempt: number;
}

class Producer {
  identity: ProducerIdentity | null = null;
  txn: { serial: number; partitions: Set<number> } | null = null;
  outstanding: { request: CoordinatorRequest; sentAt: number; attempt: number } | null = null;
  /** Per partition, the write on its way (one at a time per partition: its sequences follow each other). */
  readonly writing = new Map<number, Write>();
  /** Next sequence per partition, for the current epoch (every end bumps it: they start again at 0). */
  sequences = new Map<number, number>();
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  reset(identity: ProducerIdentity | null): void {
    this.identity = identity;
    this.txn = null;
    this.writing.clear();
    this.sequences.clear();
  }
}

export class TxnReplicationSim {
  readonly rng: SeededRandom;
  readonly log: string[] = [];
  now = 1_000_000;
  faults = true;
  readonly counts = {
    writesAcked: 0, writesRefused: 0, markersAcked: 0, committedReads: 0, coordinatorCrashes: 0, evictions: 0, requestsLost: 0, requestsDuplicated: 0,
    commits: 0, aborts: 0, fencedAnswers: 0, partitionSteps: 0, readsPastCommits: 0,
  };
  readonly coordinator: SimCoordinator;
  readonly partitions: TxnPartition[];
  readonly groups = new Map(groupNames.map((name) => [name, new SimGroup(name)]));
  readonly producers = [new Producer("p0"), new Producer("p1")];
  readonly decisions = new Map<number, { marker: SimMarker; partitions: TopicPartition[]; groups: string[] }>();
  /** Per "partition#serial": values acknowledged to producers. */
  readonly #acked = new Map<string, string[]>();
  readonly #markersAcked = new Set<string>();
  /** Per marker call on its way or awaiting its answer: when it was made. */
  readonly #markersInFlight = new Map<string, number>();
  readonly #scans = new Map<string, TxnScan>();
  readonly #lsoChecks = new Map<string, LsoCheck>();
  readonly #readers: PartitionReader[];
  #network: { at: number; deliver: () => void }[] = [];
  #nextProducerId = 5_000;
  /** A marker call was answered: the coordinator's round goes on. */
  #roundDue = false;
  #nextValue = 1;
  readonly #fencedBelow = new Map<number, number>();
  readonly #replaced = new Set<number>();
  readonly bug: TxnReplicationBug | undefined;

  constructor(seed: number, bug?: TxnReplicationBug) {
    this.bug = bug;
    this.rng = new SeededRandom(seed);
    const makeLog = bug !== undefined && bug in logBugs ? logBugs[bug as LogBug] : undefined;
    this.partitions = topicPartitions.map((target, index) => new TxnPartition(nameOf(target), seed * 7 + index, makeLog));
    const readerBug = bug === "reader-ignores-aborted" || bug === "reader-pages-off-by-one" || bug === "follower-read-to-leader-lso" ? bug : undefined;
    this.#readers = this.partitions.map(() => new PartitionReader(readerBug));
    const coordinatorBugs: readonly string[] = ["no-epoch-bump", "markers-before-decision", "no-fencing", "complete-early", "no-timeout", "implicit-add-old-epoch"] satisfies TxnSimBug[];
    const coordinatorBug = bug !== undefined && coordinatorBugs.includes(bug) ? (bug as TxnSimBug) : undefined;
    const nearMax = this.rng.chance(0.2);
    this.coordinator = new SimCoordinator(this.#coordinatorWorld(), coordinatorBug, nearMax ? 32_760 : 0, nearMax ? this.#nextProducerId++ : null);
  }

  #say(line: string): void {
    this.log.push(`[${this.now}] ${line}`);
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
          this.counts.coordinatorCrashes++;
          this.#say(`coordinator crashed ${where}`);
        }
        return crashed;
      },
      allocateProducerId: () => this.#nextProducerId++,
      writeMarker: (target, marker) => (target.group !== undefined ? this.#groupMarker(target.group, marker) : this.#partitionMarker(target.partition!, marker)),
      recordDecision: (serial, decision) => {
        const known = this.decisions.get(serial);
        if (known === undefined) this.decisions.set(serial, structuredClone(decision));
        else if (known.marker.result !== decision.marker.result || known.marker.producerEpoch !== decision.marker.producerEpoch) {
          throw new Error(`decision #${serial} changed from ${JSON.stringify(known.marker)} to ${JSON.stringify(decision.marker)}`);
        }
      },
      recordAccepted: (request, original) => {
        if (original === null) return;
        const below = this.#fencedBelow.get(original.producerId);
        if (this.#replaced.has(original.producerId) || (below !== undefined && original.producerEpoch < below)) {
          throw new Error(`fencing: the coordinator accepted ${request.kind} from fenced producer ${original.producerId} epoch ${original.producerEpoch}`);
        }
      },
      recordInit: (identity, previousProducerId) => {
        this.#fencedBelow.set(identity.producerId, identity.producerEpoch);
        if (previousProducerId !== null) this.#replaced.add(previousProducerId);
      },
      log: (line) => this.#say(line),
    };
  }

  #groupMarker(group: string, marker: SimMarker): boolean {
    if (this.faults && this.rng.chance(0.1)) return false;
    this.groups.get(group)!.marker(this.bug === "group-commits-aborted-offsets" ? { ...marker, result: "commit" } : marker);
    return !(this.faults && this.rng.chance(0.1));
  }

  /** Done once an acks=all marker append was answered; else one is sent (if none is on its way) and the alarm asks again. */
  #partitionMarker(target: TopicPartition, marker: SimMarker): boolean {
    const index = topicPartitions.findIndex((candidate) => nameOf(candidate) === nameOf(target));
    const key = `${index}#${marker.serial}`;
    if (this.#markersAcked.has(key)) return true;
    // The object's call waits for its answer, until it times out: then the next round calls again (a retry is idempotent).
    const sentAt = this.#markersInFlight.get(key);
    if (sentAt !== undefined && this.now - sentAt < requestTimeoutMs) return false;
    const sentAtNow = this.now;
    this.#markersInFlight.set(key, sentAtNow);
    const answered: Answered = (outcome) => {
      if (this.#markersInFlight.get(key) === sentAtNow) this.#markersInFlight.delete(key);
      this.#say(`marker #${marker.serial} to ${nameOf(target)}: ${outcome.ok ? "acknowledged" : outcome.code}`);
      if (!outcome.ok) return;
      // The object's round awaits its marker calls: an answer lets it go on (the next round now, not at the alarm's backoff).
      this.#roundDue = true;
      this.#markersAcked.add(key);
      this.counts.markersAcked++;
    };
    this.#send(() => this.#onPartition(index, (partition) => partition.appendMarker({ ...marker }, answered)), `marker #${marker.serial} to ${nameOf(target)}`, true, () => this.#markersInFlight.delete(key));
    return false;
  }

  /**
   * Runs `act` on a partition. Each partition keeps its own clock (its deliveries and sleeps
   * move it; another partition's do not: a sleep there would push this one's followers out of
   * its ISR); the world's clock (the coordinator's, the producers') is never behind any of them.
   */
  #onPartition(index: number, act: (partition: TxnPartition) => void): void {
    const partition = this.partitions[index]!;
    act(partition);
    this.now = Math.max(this.now, partition.now);
  }

  #send(deliver: () => void, what: string, duplicable: boolean, lost?: () => void): void {
    if (this.faults && this.rng.chance(0.05)) {
      this.counts.requestsLost++;
      this.#say(`lost ${what}`);
      lost?.();
      return;
    }
    const copies = duplicable && this.faults && this.rng.chance(0.05) ? 2 : 1;
    if (copies === 2) this.counts.requestsDuplicated++;
    for (let copy = 0; copy < copies; copy++) {
      const delay = !this.faults ? 0 : this.rng.chance(0.03) ? this.rng.int(3_000, 12_000) : this.rng.int(0, 150);
      this.#network.push({ at: this.now + delay, deliver });
    }
  }

  #call(producer: Producer, request: CoordinatorRequest, attempt: number): void {
    this.#send(() => {
      const answer = this.coordinator.answerUnlessCrashed(request);
      if (answer === undefined) return;
      this.#say(`coordinator ${producer.name} ${request.kind} → ${JSON.stringify(answer)}`);
      this.#send(() => this.#answer(producer, request, attempt, answer), `answer to ${producer.name}`, false);
    }, `${producer.name} ${request.kind}`, true);
  }

  #answer(producer: Producer, request: CoordinatorRequest, attempt: number, answer: CoordinatorAnswer): void {
    if (producer.outstanding?.request !== request || producer.outstanding.attempt > attempt + 3) return;
    producer.outstanding = null;
    if (!answer.ok) {
      if (answer.code === "CONCURRENT_TRANSACTIONS") return;
      this.counts.fencedAnswers++;
      return producer.reset(null);
    }
    if (request.kind === "init" || request.kind === "end") return producer.reset(answer.identity);
    const serial = producer.txn?.serial ?? answer.serial;
    const partitions = producer.txn?.partitions ?? new Set<number>();
    producer.txn = { serial, partitions };
    if (request.kind === "add") {
      for (const target of request.partitions) partitions.add(topicPartitions.findIndex((candidate) => nameOf(candidate) === nameOf(target)));
      return;
    }
    if (request.kind !== "group") return;
    const { producerId, producerEpoch } = request.identity;
    const group = this.groups.get(request.group)!;
    this.#send(() => group.commit(producerId, producerEpoch, serial), `offsets to ${request.group}`, true);
  }

  #request(producer: Producer, request: CoordinatorRequest): void {
    producer.outstanding = { request, sentAt: this.now, attempt: 0 };
    this.#call(producer, request, 0);
  }

  /** A producer's move: a retry of what got no answer, or its next request or write. */
  #produce(producer: Producer): void {
    const out = producer.outstanding;
    if (out !== null) {
      if (this.now - out.sentAt < requestTimeoutMs) return;
      out.sentAt = this.now;
      out.attempt++;
      return this.#call(producer, out.request, out.attempt);
    }
    const unanswered = [...producer.writing.values()].find((write) => this.now - write.sentAt >= requestTimeoutMs);
    if (unanswered) return this.#sendWrite(producer, unanswered);
    const identity = producer.identity;
    if (identity === null || this.rng.chance(0.01)) {
      producer.reset(null);
      return this.#request(producer, { kind: "init", timeoutMs: this.rng.int(10_000, 40_000) });
    }
    const txn = producer.txn;
    const move = this.rng.weighted({ add: 2, write: 8, group: 1, end: 2, idle: 2 });
    if (move === "add" || txn === null) {
      return this.#request(producer, { kind: "add", identity, partitions: [this.rng.pick(topicPartitions), this.rng.pick(topicPartitions)] });
    }
    // Now and then a write to a partition not added yet: the router adds it (KIP-890 part 2's implicit add).
    const implicit = this.rng.chance(0.3);
    const writable = topicPartitions.map((_, index) => index).filter((partition) => txn.partitions.has(partition) !== implicit && !producer.writing.has(partition));
    if (move === "write" && writable.length > 0) {
      const partition = this.rng.pick(writable);
      const values = Array.from({ length: this.rng.int(1, 2) }, () => `s${txn.serial}-${producer.name}-${this.#nextValue++}`);
      const write: Write = { partition, identity, serial: txn.serial, baseSequence: producer.sequences.get(partition) ?? 0, values, implicit, sentAt: this.now, attempt: 0 };
      producer.writing.set(partition, write);
      return this.#sendWrite(producer, write);
    }
    if (move === "group") return this.#request(producer, { kind: "group", identity, group: this.rng.pick(groupNames) });
    // Mostly a producer flushes its writes before it ends (Kafka's does); now and then one is still on its way.
    if (move === "end" && (producer.writing.size === 0 || this.rng.chance(0.2))) {
      const commit = this.rng.chance(0.6);
      this.counts[commit ? "commits" : "aborts"]++;
      return this.#request(producer, { kind: "end", identity, commit });
    }
  }

  #sendWrite(producer: Producer, write: Write): void {
    write.sentAt = this.now;
    write.attempt++;
    const answered: Answered = (outcome) => {
      if (producer.writing.get(write.partition) !== write) return;
      if (outcome.ok) {
        producer.writing.delete(write.partition);
        if (write.implicit && producer.txn?.serial === write.serial) producer.txn.partitions.add(write.partition);
        producer.sequences.set(write.partition, write.baseSequence + write.values.length);
        this.counts.writesAcked++;
        this.#say(`${producer.name} write ${write.values.join(",")} acknowledged`);
        const key = `${this.partitions[write.partition]!.name}#${write.serial}`;
        this.#acked.set(key, [...(this.#acked.get(key) ?? []), ...write.values]);
        return;
      }
      this.counts.writesRefused++;
      this.#say(`${producer.name} write ${write.values.join(",")} refused: ${outcome.code}`);
      // Retried as it was (same sequences), after Kafka's retry backoff, while it may still land; given up on otherwise, with the instance.
      if (outcome.code === "NOT_LEADER_OR_FOLLOWER" || outcome.code === "REQUEST_TIMED_OUT" || outcome.code === "CONCURRENT_TRANSACTIONS") write.sentAt = this.now - requestTimeoutMs + retryBackoffMs;
      else producer.reset(null);
    };
    const { identity } = write;
    const append = () => this.#onPartition(write.partition, (partition) => {
      const acksOne = this.bug === "acks-1-writes";
      partition.appendTransactional({ producerId: identity.producerId, producerEpoch: identity.producerEpoch, baseSequence: write.baseSequence, values: write.values }, acksOne ? () => {} : answered);
      if (acksOne) answered({ ok: true });
    });
    if (!write.implicit) return this.#send(append, `${producer.name} write ${write.values.join(",")}`, true);
    // The router's call first (addPartitionsForWrite), then its forward to the partition: two hops.
    this.#send(() => {
      const answer = this.coordinator.answerUnlessCrashed({ kind: "write", identity, partitions: [topicPartitions[write.partition]!] });
      if (answer === undefined) return;
      this.#say(`coordinator ${producer.name} write ${write.values.join(",")} → ${JSON.stringify(answer)}`);
      if (answer.ok) this.#send(append, `${producer.name} write ${write.values.join(",")} forwarded`, true);
      else this.#send(() => answered(answer), `refusal to ${producer.name}`, false);
    }, `${producer.name} write ${write.values.join(",")} (implicit add)`, true);
  }

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
    const due = this.#roundDue && this.coordinator.stored.metadata.pending !== null;
    this.#roundDue = false;
    if (!due && (alarmAt === null || alarmAt > this.now)) return;
    try {
      this.coordinator.alarm();
    } catch (error) {
      if (!(error instanceof Crash)) throw error;
    }
  }

  step(): void {
    this.now += this.rng.int(0, 10);
    for (const [index] of this.partitions.entries()) {
      for (let turns = this.rng.int(0, 2); turns > 0; turns--) {
        this.counts.partitionSteps++;
        this.#onPartition(index, (partition) => partition.step());
      }
    }
    if (this.rng.chance(0.01)) {
      this.counts.evictions++;
      this.coordinator.evict();
    }
    this.#deliver();
    this.#fireAlarm();
    for (const [at, producer] of this.producers.entries()) if (this.rng.chance(at === 0 ? 0.7 : 0.005)) this.#produce(producer);
    if (this.rng.chance(0.15)) this.#read(this.rng.int(0, this.partitions.length - 1));
    this.check();
  }

  run(steps: number): void {
    for (let step = 0; step < steps; step++) this.step();
    this.settle();
  }

  /** A read_committed reader of one partition, at any live replica (the leader, or a follower: KIP-392). */
  #read(index: number, region?: string): void {
    const partition = this.partitions[index]!;
    const at = region ?? this.rng.pick(partition.replicas).region;
    this.#readers[index]!.read(partition, at, this.#scan(partition, at), {
      decision: (serial) => this.decisions.get(serial)?.marker.result,
      acked: (name, serial) => this.#acked.get(`${name}#${serial}`) ?? [],
    });
    this.counts.committedReads++;
  }

  #scan(partition: TxnPartition, region: string): TxnScan {
    const key = `${partition.name}@${region}`;
    let scan = this.#scans.get(key);
    if (!scan) this.#scans.set(key, (scan = new TxnScan(key, (marker, where) => this.#checkMarker(marker, where))));
    scan.sync(partition.replicaAt(region).store);
    return scan;
  }

  /** After every step: each replica's log and last stable offset, each group's offsets. */
  check(): void {
    for (const partition of this.partitions) {
      for (const replica of partition.replicas) {
        const scan = this.#scan(partition, replica.region);
        const key = `${partition.name}@${replica.region}`;
        const lso = this.#lsoChecks.get(key) ?? new LsoCheck();
        this.#lsoChecks.set(key, lso);
        const log: PartitionLog = replica.node.log;
        lso.check(key, log.lastStableOffset, log.highWatermark, scan, replica.store.truncations);
      }
    }
    for (const group of this.groups.values()) {
      for (const serial of group.committedSerials) {
        if (this.decisions.get(serial)?.marker.result !== "commit") throw new Error(`offsets committed without a commit: ${group.name} committed the offsets of transaction #${serial}`);
      }
      for (const landed of group.landed) {
        this.#checkMarker(landed.marker, group.name);
        const foreign = landed.offsetSerials.filter((serial) => serial !== landed.marker.serial);
        if (foreign.length > 0) throw new Error(`late offset commit: ${group.name}'s marker of transaction #${landed.marker.serial} ended offsets of transaction(s) #${foreign.join(", #")}`);
      }
    }
  }

  #checkMarker(marker: Pick<ScannedMarker, "serial" | "producerId" | "producerEpoch" | "result">, where: string): void {
    const decision = this.decisions.get(marker.serial);
    if (decision === undefined) throw new Error(`marker without a durable decision: ${where} holds ${JSON.stringify(marker)}`);
    const { result, producerId, producerEpoch } = decision.marker;
    if (result !== marker.result || producerId !== marker.producerId || producerEpoch !== marker.producerEpoch) {
      throw new Error(`marker unlike its decision: ${where} holds ${JSON.stringify(marker)}, the decision was ${JSON.stringify(decision.marker)}`);
    }
  }

  /**
   * No more faults nor requests: each partition heals (the replication simulation's settling:
   * every replica back, a last write acknowledged, every acknowledged write read back), then
   * time passes and everything is delivered until the coordinator has carried out every decision.
   */
  settle(): void {
    this.faults = false;
    for (const producer of this.producers) {
      producer.outstanding = null;
      producer.writing.clear();
    }
    for (const [index] of this.partitions.entries()) this.#onPartition(index, (partition) => partition.settle());
    // Until the coordinator has nothing open or ending (an open transaction times out: up to its timeout, 40 s), then a few rounds more.
    for (let round = 0, quiet = 0; round < 120 && quiet < 5; round++) {
      this.now += 1_000;
      this.#fireAlarm();
      this.#deliver(true);
      for (const [index] of this.partitions.entries()) this.#onPartition(index, (partition) => partition.pump());
      this.check();
      const { state } = this.coordinator.stored.metadata;
      quiet = state === "Ongoing" || state === "PrepareCommit" || state === "PrepareAbort" || this.#network.length > 0 ? 0 : quiet + 1;
    }
    this.checkSettled();
  }

  /** Once settled: nothing open or ending, every marker everywhere, the reader at each leader past every transaction, offsets exactly for commits. */
  checkSettled(): void {
    const state = this.coordinator.stored.metadata.state;
    if (state === "Ongoing" || state === "PrepareCommit" || state === "PrepareAbort") throw new Error(`a transaction never ended: the coordinator is ${state}`);
    for (const [index, partition] of this.partitions.entries()) {
      const leader = partition.leaderRegion;
      const scan = this.#scan(partition, leader);
      const { log } = partition.replicaAt(leader).node;
      if (scan.open.size > 0 || log.lastStableOffset !== log.highWatermark) {
        throw new Error(`hanging transaction: ${partition.name} at ${leader} holds open transaction(s) of producer(s) ${[...scan.open.keys()].join(", ")} (LSO ${log.lastStableOffset}, hw ${log.highWatermark})`);
      }
      for (const [serial, decision] of this.decisions) {
        if (decision.partitions.some((target) => nameOf(target) === partition.name) && !scan.markers.has(serial)) throw new Error(`${partition.name} never got transaction #${serial}'s marker`);
      }
      this.#read(index, leader);
    }
    this.counts.readsPastCommits = this.#readers.reduce((sum, reader) => sum + reader.pastCommits, 0);
    for (const group of this.groups.values()) {
      if (group.state.pending.length > 0) throw new Error(`hanging transaction: ${group.name} holds pending offsets of a transaction that ended`);
      for (const serial of group.stagedSerials) {
        const committed = this.decisions.get(serial)?.marker.result === "commit";
        if (committed !== group.committedSerials.includes(serial)) throw new Error(`${group.name}: transaction #${serial}'s offsets ${committed ? "missing after its commit" : "committed without a commit"}`);
      }
    }
  }
}
