/**
 * A seeded world around one share-partition (src/share/share-partition.ts), as its object
 * runs it: every request works on the state in memory and writes it back as its one row; a
 * crash before that write loses the request's effect and its answer (the state is restored
 * from the row), a crash after it loses only the answer. Around it: a producer that moves the
 * high watermark, consumers that fetch, accept, release, reject, acknowledge late or with a
 * lease they never had, give records back, and die holding locks; a fake clock that expires
 * locks; a router that writes dead letters (sometimes failing) before confirming them.
 */
import { TributaryError } from "../../src/errors.ts";
import { SharePartition, type AcknowledgeType, type SharePartitionConfig } from "../../src/share/share-partition.ts";
import type { PersistedSharePartition } from "../../src/share/share-partition-persisted.ts";
import { SeededRandom } from "./group-sim-random.ts";

interface Held {
  lease: string;
  offsets: Set<number>;
  untilMs: number;
}

interface Consumer {
  name: string;
  leases: Held[];
}

export interface ShareSimCounts {
  fetches: number;
  acquired: number;
  accepts: number;
  releases: number;
  rejects: number;
  refused: number;
  expiries: number;
  crashesBeforeWrite: number;
  crashesAfterWrite: number;
  deaths: number;
  deadLetterFailures: number;
  deadLettered: number;
  archivedAtLimit: number;
  skipped: number;
}

export class ShareSim {
  readonly log: string[] = [];
  readonly counts: ShareSimCounts = {
    fetches: 0, acquired: 0, accepts: 0, releases: 0, rejects: 0, refused: 0, expiries: 0,
    crashesBeforeWrite: 0, crashesAfterWrite: 0, deaths: 0, deadLetterFailures: 0, deadLettered: 0, archivedAtLimit: 0, skipped: 0,
  };
  readonly #random: SeededRandom;
  readonly #config: SharePartitionConfig;
  readonly #records: number;
  #nowMs = 1_000_000;
  #highWatermark = 0;
  #partition: SharePartition;
  #row: string;
  #consumers: Consumer[] = [];
  #leases = 0;
  /** Offsets whose accept the state applied (by its row), each counted. */
  readonly #accepted = new Map<number, number>();
  /** Offsets the log no longer had when a fetch read them (skipped, done without delivery). */
  readonly #gone = new Set<number>();
  /** Offsets written to the dead-letter topic (at least once each). */
  readonly #deadLetterTopic = new Set<number>();

  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed;
    this.#random = new SeededRandom(seed);
    const random = this.#random;
    this.#config = {
      lockDurationMs: random.int(1, 5) * 1_000,
      deliveryCountLimit: random.int(2, 5),
      deadLetter: random.chance(0.5),
      inFlightRecordsMax: random.int(4, 40),
    };
    this.#records = random.int(20, 150);
    this.#partition = SharePartition.startingAt(0, 0);
    this.#row = JSON.stringify(this.#partition.toPersisted());
    this.#consumers = Array.from({ length: random.int(2, 5) }, (_, index) => ({ name: `c${index}`, leases: [] }));
    this.log.push(`seed ${seed}: ${this.#records} records, ${JSON.stringify(this.#config)}, ${this.#consumers.length} consumers`);
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
    const action = random.weighted({ produce: 2, fetch: 6, acknowledge: 6, badAck: 1, tick: 3, die: 0.4, crash: 0.5, deadLetters: 1.5 });
    const consumer = random.pick(this.#consumers);
    if (action === "produce") this.#highWatermark = Math.min(this.#records, this.#highWatermark + random.int(1, 10));
    else if (action === "fetch") this.#fetch(consumer);
    else if (action === "acknowledge") this.#acknowledge(consumer);
    else if (action === "badAck") this.#badAcknowledge(consumer);
    else if (action === "tick") this.#nowMs += random.chance(0.7) ? random.int(1, 500) : random.int(1_000, 6_000);
    else if (action === "die") {
      this.log.push(`${consumer.name} dies holding ${consumer.leases.length} leases`);
      consumer.leases = [];
      this.counts.deaths += 1;
    } else if (action === "crash") this.#restart("crash between requests");
    else this.#writeDeadLetters(random.chance(0.3));
  }

  /** Runs one request as the object does: on the state in memory, then its row written (or a crash). Answers undefined when the answer was lost. */
  #request<T>(what: string, body: (partition: SharePartition) => T): T | undefined {
    const crash = this.#random.weighted({ none: 20, before: 1, after: 1 });
    let answer: T;
    try {
      answer = body(this.#partition);
    } catch (error) {
      if (!(error instanceof TributaryError)) throw error;
      // A refused request writes nothing: the row must be what it was.
      if (JSON.stringify(this.#partition.toPersisted()) !== this.#row) throw new Error(`${what}: refused (${error.code}) but the state changed`);
      throw error;
    }
    if (crash === "before") {
      this.counts.crashesBeforeWrite += 1;
      this.#restart(`crash before ${what}'s write`);
      return undefined;
    }
    this.#row = JSON.stringify(this.#partition.toPersisted());
    if (crash === "after") {
      this.counts.crashesAfterWrite += 1;
      this.#restart(`crash after ${what}'s write, its answer lost`);
      return undefined;
    }
    return answer;
  }

  #restart(why: string): void {
    this.log.push(`restart: ${why}`);
    this.#partition = SharePartition.fromPersisted(JSON.parse(this.#row) as PersistedSharePartition);
  }

  #fetch(consumer: Consumer): void {
    const lease = `l${++this.#leases}`;
    const maxRecords = this.#random.int(1, 12);
    const nowMs = this.#nowMs;
    const expired = this.#expiredLocks();
    const acquired = this.#request("fetch", (partition) => partition.acquire({ lease, maxRecords, nowMs, highWatermark: this.#highWatermark }, this.#config));
    this.counts.fetches += 1;
    if (acquired === undefined) return;
    this.counts.expiries += expired;
    for (const { offset, deliveryCount } of acquired) {
      if (deliveryCount > this.#config.deliveryCountLimit) throw new Error(`offset ${offset} delivered ${deliveryCount} times, past the limit`);
      if (this.#accepted.has(offset)) throw new Error(`offset ${offset} acquired again after it was accepted`);
      if (this.#gone.has(offset)) throw new Error(`offset ${offset} acquired again after it was skipped as missing`);
    }
    const held: Held = { lease, offsets: new Set(acquired.map(({ offset }) => offset)), untilMs: nowMs + this.#config.lockDurationMs };
    this.counts.acquired += acquired.length;
    this.log.push(`${consumer.name} fetch ${lease} (max ${maxRecords}) at ${nowMs}: ${acquired.map(({ offset, deliveryCount }) => `${offset}#${deliveryCount}`).join(" ")}`);
    // Sometimes the log no longer has a record (compacted away): the router skips it.
    if (acquired.length > 0 && this.#random.chance(0.03)) {
      const missing = acquired[0]!.offset;
      const answered = this.#request("skip missing", (partition) => partition.skipMissing(lease, [missing]));
      // The row tells whether it was skipped (an answer lost after the write still counts).
      if (this.#appliedAccept("accept", [missing])) {
        this.#gone.add(missing);
        this.counts.skipped += 1;
      }
      if (answered === undefined) return;
      held.offsets.delete(missing);
    }
    // Sometimes the answer was full: the router gives the tail back, uncounted.
    if (acquired.length > 1 && this.#random.chance(0.1)) {
      const back = acquired.slice(-1).map(({ offset }) => offset);
      if (this.#request("unacquire", (partition) => partition.unacquire(lease, back)) !== undefined) for (const offset of back) held.offsets.delete(offset);
      else return; // the answer of the fetch is lost with it
    }
    if (held.offsets.size > 0) consumer.leases.push(held);
  }

  #acknowledge(consumer: Consumer): void {
    const held = consumer.leases.length > 0 ? this.#random.pick(consumer.leases) : undefined;
    if (!held || held.offsets.size === 0) return;
    const offsets = [...held.offsets].filter(() => this.#random.chance(0.7));
    if (offsets.length === 0) return;
    const type = this.#random.weighted<AcknowledgeType>({ accept: 8, release: 2, reject: 1 });
    const nowMs = this.#nowMs;
    const valid = held.untilMs > nowMs;
    const states = offsets.map((offset) => this.#partition.recordAt(offset));
    let applied: number | undefined;
    try {
      applied = this.#request(`ack ${type}`, (partition) => partition.acknowledge([{ lease: held.lease, offsets, type }], nowMs, this.#config));
    } catch (error) {
      if (!(error instanceof TributaryError) || error.code !== "INVALID_RECORD_STATE") throw error;
      this.counts.refused += 1;
      // Refused only when the lease no longer holds them: expired, or an earlier answer was lost after its write.
      if (valid && states.every((state) => state?.state === "acquired" && state.lease === held.lease)) throw new Error(`ack of ${held.lease} refused while it held ${offsets.join(",")}`);
      this.log.push(`${consumer.name} ack ${type} ${held.lease} [${offsets.join(",")}] refused`);
      for (const offset of offsets) held.offsets.delete(offset);
      return;
    }
    if (!valid) throw new Error(`ack of ${held.lease} applied after its lock expired at ${held.untilMs} (now ${nowMs})`);
    this.log.push(`${consumer.name} ack ${type} ${held.lease} [${offsets.join(",")}]${applied === undefined ? " (answer lost)" : ""}`);
    // The row tells whether it was applied (an answer lost after the write still counts).
    if (this.#appliedAccept(type, offsets)) for (const offset of offsets) this.#accepted.set(offset, (this.#accepted.get(offset) ?? 0) + 1);
    if (type === "release") this.counts.releases += 1;
    if (type === "reject") this.counts.rejects += 1;
    if (type === "accept") this.counts.accepts += 1;
    // Answered or not, the consumer is done with them (unapplied ones come back when the lock expires).
    for (const offset of offsets) held.offsets.delete(offset);
  }

  /** Whether these offsets are done as accepted (or skipped) in the row now (it was written, whatever the answer). */
  #appliedAccept(type: AcknowledgeType, offsets: readonly number[]): boolean {
    if (type !== "accept") return false;
    const persisted = SharePartition.fromPersisted(JSON.parse(this.#row) as PersistedSharePartition);
    return offsets.every((offset) => offset < persisted.startOffset || persisted.recordAt(offset)?.state === "acknowledged");
  }

  /** An acknowledgement with a lease never handed out, or for offsets another lease holds: refused, nothing changed. */
  #badAcknowledge(consumer: Consumer): void {
    const others = this.#consumers.filter((other) => other !== consumer).flatMap((other) => other.leases);
    const stolen = others.length > 0 && this.#random.chance(0.5) ? this.#random.pick(others) : undefined;
    const offsets = stolen ? [...stolen.offsets].slice(0, 2) : [this.#random.int(0, this.#records)];
    if (offsets.length === 0) return;
    const lease = stolen ? `${stolen.lease}-not` : "never-issued";
    try {
      this.#request("bad ack", (partition) => partition.acknowledge([{ lease, offsets, type: "accept" }], this.#nowMs, this.#config));
    } catch (error) {
      if (!(error instanceof TributaryError) || error.code !== "INVALID_RECORD_STATE") throw error;
      this.counts.refused += 1;
      return;
    }
    throw new Error(`an acknowledgement by ${lease} of ${offsets.join(",")} was applied`);
  }

  /** The router's part: claim dead letters, write them (or fail), confirm. */
  #writeDeadLetters(fail: boolean): void {
    const nowMs = this.#nowMs;
    const claimed = this.#request("claim dead letters", (partition) => partition.claimDeadLetters(nowMs, 5, this.#config));
    if (!claimed?.length) return;
    for (const letter of claimed) {
      if (this.#accepted.has(letter.offset)) throw new Error(`offset ${letter.offset} dead-lettered after it was accepted`);
      if (letter.reason === "delivery-limit" && letter.deliveryCount < this.#config.deliveryCountLimit) throw new Error(`offset ${letter.offset} at the limit with ${letter.deliveryCount} deliveries`);
    }
    if (fail) {
      this.counts.deadLetterFailures += 1;
      this.log.push(`dead-letter write of ${claimed.map(({ offset }) => offset).join(",")} fails`);
      return;
    }
    for (const { offset, reason } of claimed) {
      this.#deadLetterTopic.add(offset);
      if (reason === "delivery-limit") this.counts.archivedAtLimit += 1;
    }
    this.counts.deadLettered += claimed.length;
    this.#request("complete dead letters", (partition) => partition.completeDeadLetters(claimed.map(({ offset }) => offset)));
  }

  /** Records under a lock that has expired by now (released at the next request). */
  #expiredLocks(): number {
    let expired = 0;
    for (let offset = this.#partition.startOffset; offset < this.#partition.endOffset; offset++) {
      const record = this.#partition.recordAt(offset);
      if (record?.state === "acquired" && record.untilMs !== null && record.untilMs <= this.#nowMs) expired += 1;
    }
    return expired;
  }

  /** Invariants after every step. */
  #check(): void {
    const partition = this.#partition;
    const windowMax = this.#config.inFlightRecordsMax!;
    if (partition.endOffset - partition.startOffset > windowMax) throw new Error(`the window spans ${partition.endOffset - partition.startOffset} > ${windowMax}`);
    if (partition.endOffset > this.#highWatermark) throw new Error(`end ${partition.endOffset} past the high watermark ${this.#highWatermark}`);
    // Never held by two leases at once: of the leases consumers hold, at most one is live per offset, and it is the state's.
    const holders = new Map<number, string>();
    for (const consumer of this.#consumers) {
      for (const held of consumer.leases) {
        if (held.untilMs <= this.#nowMs) continue;
        for (const offset of held.offsets) {
          const other = holders.get(offset);
          if (other !== undefined) throw new Error(`offset ${offset} held by ${other} and ${held.lease} at once`);
          holders.set(offset, held.lease);
          const state = partition.recordAt(offset);
          if (state?.state !== "acquired" || state.lease !== held.lease) throw new Error(`${held.lease} believes it holds ${offset}, the state says ${JSON.stringify(state)}`);
        }
      }
    }
    for (const [offset, count] of this.#accepted) if (count > 1) throw new Error(`offset ${offset} accepted ${count} times`);
  }

  /** Everything produced, time passing, consumers accepting all they get, dead-letter writes succeeding: all settles. */
  #drain(): void {
    this.#highWatermark = this.#records;
    const drainer: Consumer = { name: "drainer", leases: [] };
    this.#consumers.push(drainer);
    for (let round = 0; round < 10_000 && this.#partition.startOffset < this.#records; round++) {
      this.#nowMs += this.#config.lockDurationMs + 1;
      this.#fetch(drainer);
      for (const held of drainer.leases) {
        if (held.offsets.size === 0) continue;
        const offsets = [...held.offsets];
        const applied = this.#request("drain accept", (partition) => partition.acknowledge([{ lease: held.lease, offsets, type: "accept" }], this.#nowMs, this.#config));
        if (this.#appliedAccept("accept", offsets)) for (const offset of offsets) this.#accepted.set(offset, (this.#accepted.get(offset) ?? 0) + 1);
        if (applied !== undefined) held.offsets.clear();
      }
      drainer.leases = [];
      this.#writeDeadLetters(false);
      this.#check();
    }
    const partition = this.#partition;
    if (partition.startOffset !== this.#records) throw new Error(`never settled: start ${partition.startOffset} of ${this.#records}`);
    const archived = partition.archivedTotal;
    for (const [offset, count] of this.#accepted) if (count !== 1) throw new Error(`offset ${offset} accepted ${count} times`);
    if (this.#accepted.size + archived + this.#gone.size !== this.#records) {
      throw new Error(`${this.#accepted.size} accepted + ${archived} archived + ${this.#gone.size} gone from the log ≠ ${this.#records} records: some lost`);
    }
    if (this.#config.deadLetter) {
      for (let offset = 0; offset < this.#records; offset++) {
        if (!this.#accepted.has(offset) && !this.#gone.has(offset) && !this.#deadLetterTopic.has(offset)) throw new Error(`offset ${offset} archived without its dead letter`);
        if (this.#accepted.has(offset) && this.#deadLetterTopic.has(offset)) throw new Error(`offset ${offset} accepted and dead-lettered`);
      }
    } else if (this.#deadLetterTopic.size > 0) throw new Error("dead letters written without a dead-letter topic");
  }
}
