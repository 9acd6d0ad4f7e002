/**
 * The idempotent producer's client half (API.md, Produce; issue 6): a producer id and epoch
 * from `POST /v1/producers`, and per partition the sequence of the next record, carried in
 * each batch header (producerId, producerEpoch, baseSequence) as Kafka's producers do. With
 * one request in flight per partition, a retry resends the same sequences and the partition
 * answers it with the original offsets instead of writing twice.
 *
 * The server half (the partition's producer state, src/log/producer-state.ts) answers such a
 * retry with its original offsets; the producer's `idempotent` option is on by default with
 * acks "all".
 */
import type { ClientLog } from "./logger.ts";
import { withRetries, type RetryPolicy } from "./retry.ts";
import { incrementSequence } from "../protocol/sequences.ts";
import { path, type Transport } from "./transport.ts";

export interface ProducerSession {
  producerId: number;
  producerEpoch: number;
  /** Next sequence per "topic/partition". */
  readonly sequences: Map<string, number>;
}

/**
 * A new producer id and epoch. `topic` is the topic the first write goes to: a token that may
 * write no topic is then refused with that topic's TOPIC_AUTHORIZATION_FAILED, as its produce
 * would be, rather than the cluster's (docs/api.md, Idempotent producers).
 */
export async function openProducerSession(transport: Transport, policy: RetryPolicy, log: ClientLog, topic: string): Promise<ProducerSession> {
  const answer = await withRetries(() => transport.json<{ producerId: number; producerEpoch: number }>({ method: "POST", path: path("producers"), json: { topic } }), {
    policy,
    log,
  });
  return { producerId: answer.producerId, producerEpoch: answer.producerEpoch, sequences: new Map() };
}

/** Reserves `count` sequences in the partition; returns the first. */
export function takeSequences(session: ProducerSession, topic: string, partition: number, count: number): number {
  const key = `${topic}/${partition}`;
  const first = session.sequences.get(key) ?? 0;
  session.sequences.set(key, incrementSequence(first, count));
  return first;
}
