/**
 * The transaction coordinator object as the simulation runs it: the real rules
 * (src/transactions/transaction-machine.ts) driven the way src/objects/transaction-coordinator.ts
 * drives them — one request per turn, the next metadata persisted before any answer or marker
 * (but a round's completion, kept in memory until the next persist or the alarm),
 * a round of marker writes after each decision and at each alarm, the alarm set at each
 * persist, the implicit add of a transactional write's partition (the router's call,
 * `addPartitionsForWrite`) — with crashes at every step. `bug` swaps one of those duties for a wrong one: each
 * must be caught by the simulation's properties (transaction-coordinator.sim.test.ts).
 */
import { TributaryError } from "../../src/errors.ts";
import {
  addGroup,
  addPartitions,
  end,
  expire,
  identityOf,
  init,
  markersWritten,
  nextAlarmAt,
  restarted,
  type InitOutcome,
  type Outcome,
} from "../../src/transactions/transaction-machine.ts";
import {
  emptyMetadata,
  partitionKey,
  type ProducerIdentity,
  type TopicPartition,
  type TransactionMetadata,
} from "../../src/transactions/transaction-metadata.ts";
import type { SimMarker } from "./transaction-sim-parts.ts";

export type TxnSimBug = "no-epoch-bump" | "markers-before-decision" | "no-fencing" | "complete-early" | "no-timeout" | "implicit-add-old-epoch";

export type CoordinatorRequest =
  | { kind: "init"; timeoutMs: number }
  | { kind: "add"; identity: ProducerIdentity; partitions: TopicPartition[] }
  /** The router's call before it forwards a transactional write (addPartitionsForWrite): KIP-890's implicit add. */
  | { kind: "write"; identity: ProducerIdentity; partitions: TopicPartition[] }
  | { kind: "group"; identity: ProducerIdentity; group: string }
  | { kind: "end"; identity: ProducerIdentity; commit: boolean };

/** The answer, with the ghost serial of the transaction it concerns (the open one for add/group). */
export type CoordinatorAnswer = { ok: true; identity: ProducerIdentity; serial: number } | { ok: false; code: string };

export class Crash extends Error {}

interface Stored {
  metadata: TransactionMetadata;
  /** Ghost: decisions made so far; the pending one's serial, the open transaction's is one more. */
  decisions: number;
  alarmAt: number | null;
}

/** What the world lends the coordinator: time, randomness for faults, the parts markers go to, the checks' records. */
export interface CoordinatorWorld {
  now: number;
  crash(where: string): boolean;
  allocateProducerId(): number;
  writeMarker(target: { partition?: TopicPartition; group?: string }, marker: SimMarker): boolean;
  recordDecision(serial: number, decision: { marker: SimMarker; partitions: TopicPartition[]; groups: string[] }): void;
  recordAccepted(request: CoordinatorRequest, original: ProducerIdentity | null): void;
  recordInit(identity: ProducerIdentity, previousProducerId: number | null): void;
  log(line: string): void;
}

export class SimCoordinator {
  stored: Stored;
  #live: Stored | null = null;
  counts = { restarts: 0, decisions: 0, markerRounds: 0, incompleteRounds: 0, timeouts: 0 };

  readonly world: CoordinatorWorld;
  readonly bug: TxnSimBug | undefined;

  constructor(world: CoordinatorWorld, bug: TxnSimBug | undefined, startEpoch: number, startProducerId: number | null) {
    this.world = world;
    this.bug = bug;
    const metadata = emptyMetadata("tx", 0);
    if (startProducerId !== null) Object.assign(metadata, { producerId: startProducerId, producerEpoch: startEpoch, timeoutMs: 1_000, state: "CompleteAbort" });
    this.stored = { metadata, decisions: 0, alarmAt: null };
  }

  evict(): void {
    this.#live = null;
  }

  get live(): Stored {
    if (this.#live === null) {
      this.counts.restarts++;
      const loaded = structuredClone(this.stored);
      this.#live = loaded;
      this.#persist({ ...loaded, metadata: restarted(loaded.metadata) }, "restart");
    }
    return this.#live!;
  }

  /** Persists `next` (the platform's write, which may crash before it) and sets the alarm from it. */
  #persist(next: Stored, where: string): void {
    if (this.world.crash(`before persist (${where})`)) throw this.#crashed();
    const alarmAt = nextAlarmAt(next.metadata, this.world.now);
    this.stored = structuredClone({ ...next, alarmAt });
    this.#live = structuredClone(this.stored);
    const pending = next.metadata.pending;
    if (pending) this.world.recordDecision(next.decisions, { marker: { ...pending.marker, serial: next.decisions }, partitions: next.metadata.partitions, groups: next.metadata.groups });
  }

  #crashed(): Crash {
    this.#live = null;
    return new Crash("crashed");
  }

  /** Calls an operation, with a new producer id from the controller when it asks for one. */
  #withProducerId<T extends InitOutcome>(operation: (fresh?: number) => T): Exclude<T, { kind: "needs-producer-id" }> {
    const first = operation();
    if (first.kind !== "needs-producer-id") return first as Exclude<T, { kind: "needs-producer-id" }>;
    const second = operation(this.world.allocateProducerId());
    if (second.kind === "needs-producer-id") throw new Error("a producer id was given and still asked for");
    return second as Exclude<T, { kind: "needs-producer-id" }>;
  }

  /** The next stored value after an outcome; a new decision takes the next ghost serial. */
  #after(current: Stored, metadata: TransactionMetadata): Stored {
    const decided = metadata.pending !== null && current.metadata.pending === null;
    if (decided) this.counts.decisions++;
    return { ...current, metadata: this.#bugged(current.metadata, metadata), decisions: current.decisions + (decided ? 1 : 0) };
  }

  #bugged(before: TransactionMetadata, after: TransactionMetadata): TransactionMetadata {
    if (this.bug !== "no-epoch-bump" || after.pending === null || before.pending !== null) return after;
    // The ended epoch for the markers and for the next transaction: Kafka's protocol before KIP-890.
    return { ...after, producerId: before.producerId, producerEpoch: before.producerEpoch, pending: { ...after.pending, marker: { ...after.pending.marker, producerEpoch: before.producerEpoch } } };
  }

  /** `handle`'s answer; undefined when the object crashed during the turn (no answer goes back). */
  answerUnlessCrashed(request: CoordinatorRequest): CoordinatorAnswer | undefined {
    try {
      return this.handle(request);
    } catch (error) {
      if (error instanceof Crash) return undefined;
      throw error;
    }
  }

  handle(request: CoordinatorRequest): CoordinatorAnswer {
    try {
      return this.#handle(request);
    } catch (error) {
      if (error instanceof TributaryError) return { ok: false, code: error.code };
      throw error;
    }
  }

  #handle(request: CoordinatorRequest): CoordinatorAnswer {
    const current = this.live;
    if (request.kind === "init") return this.#init(request.timeoutMs);
    const original = request.identity;
    const stale = original.producerId === current.metadata.producerId && original.producerEpoch < current.metadata.producerEpoch;
    // implicit-add-old-epoch: the router's implicit add taking a write of an ended transaction into the open one.
    const wrongly = this.bug === "no-fencing" || (this.bug === "implicit-add-old-epoch" && request.kind === "write");
    const identity = wrongly && stale ? identityOf(current.metadata) : original;
    const now = this.world.now;
    let outcome: Extract<Outcome, { kind: "done" }>;
    if (request.kind === "add" || request.kind === "write") outcome = this.#withProducerId(() => addPartitions(current.metadata, identity, request.partitions, now));
    else if (request.kind === "group") outcome = this.#withProducerId(() => addGroup(current.metadata, identity, request.group, now));
    else outcome = this.#withProducerId((fresh) => end(current.metadata, identity, request.commit ? "commit" : "abort", now, fresh));
    this.world.recordAccepted(request, original);
    const next = this.#after(current, outcome.metadata);
    if (request.kind === "end" && this.bug === "markers-before-decision" && outcome.changed) {
      this.#live = next;
      this.#markerRound();
      this.#persist(this.#live, "decision after markers");
    } else if (outcome.changed) {
      this.#persist(next, request.kind);
      if (next.metadata.pending) this.#markerRound();
    }
    const serial = request.kind === "end" ? this.live.decisions : this.live.decisions + 1;
    return { ok: true, identity: identityOf(this.live.metadata), serial: request.kind === "end" && !outcome.changed ? this.#endedSerial() : serial };
  }

  /** A retried end's serial: the last decision's. */
  #endedSerial(): number {
    return this.live.decisions;
  }

  #init(timeoutMs: number): CoordinatorAnswer {
    const now = this.world.now;
    let outcome = this.#withProducerId((fresh) => init(this.live.metadata, timeoutMs, now, fresh));
    if (outcome.kind === "markers-first") {
      this.#persist(this.#after(this.live, outcome.metadata), "init's abort");
      if (!this.#markerRound()) return { ok: false, code: "CONCURRENT_TRANSACTIONS" };
      outcome = this.#withProducerId((fresh) => init(this.live.metadata, timeoutMs, now, fresh));
      if (outcome.kind !== "done") throw new Error("init after the abort's markers still found a transaction");
    }
    this.#persist(this.#after(this.live, outcome.metadata), "init");
    this.world.recordInit(outcome.identity, outcome.metadata.previousProducerId);
    return { ok: true, identity: outcome.identity, serial: this.live.decisions + 1 };
  }

  /** One round of marker writes for the pending decision; answers whether it completed. */
  #markerRound(): boolean {
    const current = this.live;
    const pending = current.metadata.pending;
    if (pending === null) return true;
    this.counts.markerRounds++;
    const marker: SimMarker = { ...pending.marker, serial: current.decisions };
    const partitions = pending.partitions.filter((partition) => this.world.writeMarker({ partition }, marker));
    if (this.world.crash("mid marker round")) throw this.#crashed();
    const groups = pending.groups.filter((group) => this.world.writeMarker({ group }, marker));
    const written = this.bug === "complete-early" ? { partitions: pending.partitions, groups: pending.groups } : { partitions, groups };
    const next = markersWritten(current.metadata, written, this.world.now);
    if (next.pending) this.counts.incompleteRounds++;
    this.world.log(`markers ${marker.result}@${marker.producerEpoch} #${marker.serial}: ${written.partitions.map(partitionKey).join(",")} ${written.groups.join(",")}${next.pending ? " (incomplete)" : ""}`);
    if (next.pending === null) {
      // As the object: the completion is answered from memory, written by the next persist or the alarm (a crash first loses it: the markers again).
      this.#live = { ...current, metadata: next };
      return true;
    }
    this.#persist({ ...current, metadata: next }, "markers written");
    return false;
  }

  /** The object's alarm: an open transaction's timeout, then the pending markers. */
  alarm(): void {
    const current = this.live;
    if (this.bug !== "no-timeout") {
      const timedOut = this.#withProducerId((fresh) => expire(current.metadata, this.world.now, fresh) ?? { kind: "done", metadata: current.metadata, identity: identityOf(current.metadata), changed: false });
      if (timedOut.changed) {
        this.counts.timeouts++;
        this.#persist(this.#after(current, timedOut.metadata), "timeout");
      }
    }
    if (this.live.metadata.pending) this.#markerRound();
    else this.#persist(this.live, "alarm");
  }
}
