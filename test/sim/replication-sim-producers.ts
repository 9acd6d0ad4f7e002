/**
 * Idempotent producers in the replication simulation (issue 34): each keeps up to 5 requests in
 * flight (Kafka's bound with idempotence), numbered by its sequences, and the network delivers
 * them to the partition in any order, sometimes twice; a request not acknowledged (refused,
 * lost with its leader, timed out, out of order) is sent again with the same sequences, as
 * Kafka's producer retries. Answers as a Kafka client reads them:
 *
 * - appended, or a retry answered with its original offsets: acknowledged once the high
 *   watermark covers it, as any acks-"all" write (replication-sim-clients.ts);
 * - DUPLICATE_SEQUENCE_NUMBER: counted as written (Kafka's clients do), with no offsets: its
 *   records must be in the log once at the end (SimClients.readBack);
 * - OUT_OF_ORDER_SEQUENCE_NUMBER: sent again later; after a few in a row the producer gives
 *   up on its requests in flight and bumps its epoch, starting again from sequence 0 (KIP-360);
 * - INVALID_PRODUCER_EPOCH: failed (an older epoch's request, fenced).
 *
 * The property: no acknowledged record is missing from the log, none is written twice.
 */

import { TributaryError } from "../../src/errors.ts";
import { encodeRecordBatch } from "../../src/protocol/record-batch.ts";
import { incrementSequence } from "../../src/protocol/sequences.ts";
import type { SeededRandom } from "./group-sim-random.ts";
import type { SimClients } from "./replication-sim-clients.ts";
import type { SimReplica } from "./replication-sim-replica.ts";

/** Kafka's max.in.flight.requests.per.connection with idempotence. */
const inFlightMax = 5;
/** OUT_OF_ORDER_SEQUENCE_NUMBER answers in a row before a producer gives up and bumps its epoch. */
const outOfOrderMax = 6;
const producerCount = 2;

interface SimProducer {
  id: number;
  epoch: number;
  nextSequence: number;
  inFlight: IdempotentRequest[];
}

interface IdempotentRequest {
  producer: SimProducer;
  epoch: number;
  sequence: number;
  /** One or two batches of values, consecutive sequences. */
  batches: string[][];
  outOfOrder: number;
  /** Acknowledged, or given up: nothing more is sent, a late answer changes nothing. */
  done: boolean;
}

/** What the producers need of the world. */
export interface ProducerWorld {
  readonly random: SeededRandom;
  readonly clients: SimClients;
  readonly nowMs: number;
  say(line: string): void;
  /** The replica a client's request is appended at, or undefined (said why) when it cannot be: unreachable, not the leader, too few in sync. */
  appendTarget(request: string): SimReplica | undefined;
  /** After an append: the leader pushes to its followers. */
  appended(replica: SimReplica): void;
}

export interface ProducerCounts {
  idempotentAcked: number;
  /** Retries answered with their original offsets, and DUPLICATE_SEQUENCE_NUMBER answers. */
  idempotentDuplicates: number;
  /** OUT_OF_ORDER_SEQUENCE_NUMBER for a request a later one overtook (its sequences before the first the partition holds). */
  overtaken: number;
  epochBumps: number;
}

const utf8 = new TextEncoder();

function describe(request: IdempotentRequest): string {
  return `idempotent p${request.producer.id} e${request.epoch} seq ${request.sequence} [${request.batches.map((batch) => batch.join(",")).join(" | ")}]`;
}

export class SimIdempotentProducers {
  readonly counts: ProducerCounts = { idempotentAcked: 0, idempotentDuplicates: 0, overtaken: 0, epochBumps: 0 };
  readonly #producers: SimProducer[] = Array.from({ length: producerCount }, (_, index) => ({ id: 1_000 + index, epoch: 0, nextSequence: 0, inFlight: [] }));
  /** Requests on their way to the partition: any of them arrives next. */
  readonly #sent: IdempotentRequest[] = [];

  /** Requests on their way. */
  get sending(): number {
    return this.#sent.length;
  }

  /** A producer with room sends its next request. */
  send(world: ProducerWorld): void {
    const ready = this.#producers.filter((producer) => producer.inFlight.length < inFlightMax);
    if (ready.length === 0) return;
    const producer = world.random.pick(ready);
    const batches = Array.from({ length: world.random.int(1, 2) }, () => Array.from({ length: world.random.int(1, 3) }, () => world.clients.value(`p${producer.id}-`)));
    const request: IdempotentRequest = { producer, epoch: producer.epoch, sequence: producer.nextSequence, batches, outOfOrder: 0, done: false };
    producer.nextSequence = incrementSequence(producer.nextSequence, batches.flat().length);
    producer.inFlight.push(request);
    this.#sent.push(request);
    world.say(`${describe(request)} sent`);
  }

  /** One request on its way arrives (any of them; now and then a copy stays on its way too). */
  deliver(world: ProducerWorld): void {
    if (this.#sent.length === 0) return;
    const index = world.random.int(0, this.#sent.length - 1);
    const request = this.#sent[index]!;
    if (!world.random.chance(0.1)) this.#sent.splice(index, 1);
    if (request.done) return;
    const line = describe(request);
    const replica = world.appendTarget(line);
    if (replica === undefined) return this.#resend(request);
    try {
      const result = replica.node.appendAsLeader(this.#encode(request, world.nowMs), world.nowMs);
      const epoch = result.duplicate ? replica.node.log.epochAt(result.baseOffset) : replica.node.leaderEpoch;
      if (result.duplicate) this.counts.idempotentDuplicates += 1;
      world.say(`${line}: ${result.duplicate ? "a retry of" : "appended at"} ${result.baseOffset}..${result.lastOffset} (e${epoch})`);
      world.clients.wait(replica, result.baseOffset, result.lastOffset, request.batches.flat(), world.nowMs, {
        recordEpoch: epoch,
        answered: (acked) => (acked ? this.#acknowledged(request) : this.#resend(request)),
      });
      world.appended(replica);
    } catch (error) {
      if (!(error instanceof TributaryError)) throw error;
      world.say(`${line}: ${error.code} (${error.message})`);
      this.#refused(request, error, world);
    }
  }

  #encode(request: IdempotentRequest, timestamp: number): Uint8Array[] {
    let sequence = request.sequence;
    return request.batches.map((values) => {
      const batch = encodeRecordBatch(
        values.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp })),
        { producerId: request.producer.id, producerEpoch: request.epoch, baseSequence: sequence },
      );
      sequence = incrementSequence(sequence, values.length);
      return batch;
    });
  }

  #refused(request: IdempotentRequest, error: TributaryError, world: ProducerWorld): void {
    switch (error.code) {
      case "DUPLICATE_SEQUENCE_NUMBER":
        // Kafka's clients count it as written.
        this.counts.idempotentDuplicates += 1;
        world.clients.ackWithoutOffsets(request.batches.flat());
        return this.#acknowledged(request);
      case "OUT_OF_ORDER_SEQUENCE_NUMBER": {
        const { sequence, firstSequence } = error.data as { sequence: number; firstSequence?: number };
        if (firstSequence !== undefined && sequence !== firstSequence && request.sequence === sequence) this.counts.overtaken += 1;
        request.outOfOrder += 1;
        if (request.outOfOrder < outOfOrderMax) return this.#resend(request);
        return this.#bumpEpoch(request.producer, world);
      }
      case "INVALID_PRODUCER_EPOCH":
        request.done = true;
        return;
      default:
        throw error;
    }
  }

  /** Gives up on the producer's requests in flight (failed, not acknowledged) and starts a new epoch at sequence 0. */
  #bumpEpoch(producer: SimProducer, world: ProducerWorld): void {
    for (const request of producer.inFlight) request.done = true;
    producer.inFlight = [];
    producer.epoch += 1;
    producer.nextSequence = 0;
    this.counts.epochBumps += 1;
    world.say(`idempotent p${producer.id} gives up on its requests in flight and bumps its epoch to ${producer.epoch}`);
  }

  #acknowledged(request: IdempotentRequest): void {
    if (request.done) return;
    request.done = true;
    this.counts.idempotentAcked += 1;
    const { producer } = request;
    producer.inFlight = producer.inFlight.filter((candidate) => candidate !== request);
  }

  #resend(request: IdempotentRequest): void {
    if (!request.done && !this.#sent.includes(request)) this.#sent.push(request);
  }
}
