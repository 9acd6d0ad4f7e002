/**
 * The fake network of the replication simulation: every message between replicas, the
 * controller and back is an envelope with a delivery time drawn from the seeded PRNG, so
 * messages are delayed, reordered (a later send may arrive first), lost and duplicated.
 * Delivery is always the earliest envelope; the world moves its clock to that time.
 *
 * Replies carry the incarnation of the replica that sent the request: an RPC's answer goes
 * back to the call that is awaiting it, and a replica that crashed and restarted since has no
 * such call any more, so the world drops it.
 */

import type { ReplicateReply, ReplicateRequest, TruncateRequest } from "../../src/replication/messages.ts";
import type { AlterPartitionRequest, PartitionState } from "../../src/replication/partition-state.ts";
import type { SeededRandom } from "./group-sim-random.ts";

export const controllerName = "controller";

/** What the leader knew when it sent a push or a truncation: onReply's arguments. */
export interface SendContext {
  sentAtMs: number;
  leaderEndAtSend: number;
  /** The leader epoch of the request, only for the log: onReply is not told it. */
  epoch: number;
  incarnation: number;
  /** The leader's replication call this message belongs to (one at a time per follower, unless pipelined). */
  chain: number;
}

export type Message =
  | { kind: "replicate"; request: ReplicateRequest; context: SendContext }
  | { kind: "truncate"; request: TruncateRequest; context: SendContext }
  | { kind: "reply"; of: "replicate" | "truncate"; reply: ReplicateReply; context: SendContext }
  | { kind: "alter"; request: AlterPartitionRequest; incarnation: number }
  /** `state`: accepted; else refused with `error`, and the controller's state when the refusal carries it (`known`). */
  | { kind: "alterReply"; state: PartitionState | undefined; known: PartitionState | undefined; error: string | undefined; incarnation: number }
  | { kind: "becomeLeader"; state: PartitionState }
  | { kind: "becomeFollower"; leaderEpoch: number; leader: string };

export interface Envelope {
  id: number;
  from: string;
  to: string;
  deliverAtMs: number;
  message: Message;
}

/** How unreliable a seed's network is. */
export interface NetworkFaults {
  lossRate: number;
  duplicateRate: number;
  /** Usual delays are uniform in [1, delayMaxMs]. */
  delayMaxMs: number;
  /** The chance that a message is held up for much longer (seconds): strong reordering. */
  stragglerRate: number;
}

export const reliable: NetworkFaults = { lossRate: 0, duplicateRate: 0, delayMaxMs: 20, stragglerRate: 0 };

export class SimNetwork {
  faults: NetworkFaults;
  readonly #random: SeededRandom;
  #inFlight: Envelope[] = [];
  #nextId = 1;
  lost = 0;
  duplicated = 0;

  constructor(random: SeededRandom, faults: NetworkFaults) {
    this.#random = random;
    this.faults = faults;
  }

  get size(): number {
    return this.#inFlight.length;
  }

  /** Sends one message; returns what happened to it, for the log. */
  send(from: string, to: string, message: Message, nowMs: number): string {
    if (this.#random.chance(this.faults.lossRate)) {
      this.lost += 1;
      return " (lost)";
    }
    this.#enqueue(from, to, message, nowMs);
    if (this.#random.chance(this.faults.duplicateRate)) {
      this.duplicated += 1;
      this.#enqueue(from, to, message, nowMs);
      return " (duplicated)";
    }
    return "";
  }

  /** The next envelope in delivery order (earliest time, then send order), removed from the network. */
  next(): Envelope | undefined {
    if (this.#inFlight.length === 0) return undefined;
    let best = 0;
    for (let index = 1; index < this.#inFlight.length; index++) {
      const candidate = this.#inFlight[index]!;
      const current = this.#inFlight[best]!;
      if (candidate.deliverAtMs < current.deliverAtMs || (candidate.deliverAtMs === current.deliverAtMs && candidate.id < current.id)) best = index;
    }
    return this.#inFlight.splice(best, 1)[0];
  }

  #enqueue(from: string, to: string, message: Message, nowMs: number): void {
    const straggler = this.#random.chance(this.faults.stragglerRate);
    const delay = straggler ? this.#random.int(500, 5_000) : this.#random.int(1, this.faults.delayMaxMs);
    this.#inFlight.push({ id: this.#nextId++, from, to, deliverAtMs: nowMs + delay, message });
  }
}

/** One line for the step log. */
export function describeMessage(message: Message): string {
  switch (message.kind) {
    case "replicate": {
      const { request } = message;
      return `replicate e${request.leaderEpoch} prev=${request.prevLogEndOffset}/e${request.prevEpoch} batches=${request.batches.length} hw=${request.leaderHighWatermark}`;
    }
    case "truncate":
      return `truncate e${message.request.leaderEpoch} to epoch ${message.request.epochEnd.epoch} end ${message.request.epochEnd.endOffset}`;
    case "reply":
      return `${message.of} reply (sent in e${message.context.epoch} at ${message.context.sentAtMs}) ${describeReply(message.reply)}`;
    case "alter":
      return `alterPartition e${message.request.leaderEpoch} pe${message.request.partitionEpoch} isr=[${message.request.isr.join(",")}]`;
    case "alterReply":
      if (message.state) return `alterPartition ok: ${describeState(message.state)}`;
      return `alterPartition refused: ${message.error}${message.known ? ` (controller has ${describeState(message.known)})` : ""}`;
    case "becomeLeader":
      return `becomeLeader ${describeState(message.state)}`;
    case "becomeFollower":
      return `becomeFollower e${message.leaderEpoch} of ${message.leader}`;
  }
}

export function describeReply(reply: ReplicateReply): string {
  if (reply.kind === "ok") return `ok leo=${reply.logEndOffset}`;
  if (reply.kind === "fenced") return `fenced e${reply.leaderEpoch} leader=${reply.leader ?? "?"}`;
  return `mismatch leo=${reply.logEndOffset} latestEpoch=${reply.latestEpoch}`;
}

export function describeState(state: PartitionState): string {
  return `leader=${state.leader} e${state.leaderEpoch} pe${state.partitionEpoch} isr=[${state.isr.join(",")}]`;
}
