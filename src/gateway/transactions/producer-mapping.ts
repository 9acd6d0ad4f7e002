/**
 * The producer identities of transactional producers as this gateway translates them
 * (docs/gateway.md, Transactions). Every transaction end bumps the producer's epoch on the
 * server (KIP-890; docs/transactions.md), but clients that speak EndTxn v0–4 (kafkajs 2.2.4,
 * librdkafka, the Java client without transaction version 2, franz-go) do not learn the new
 * epoch: they start the next transaction with the epoch they hold, and with the sequences they
 * were at. So the gateway keeps, per transactional id, the identity the client holds and the
 * one the coordinator answered last, and translates the client's requests: the producer id and
 * epoch, and in Produce each partition's sequences, which start again at 0 with each epoch on
 * the server (the first sequence the client writes to a partition after the end counts as 0).
 *
 * Which requests are translated is decided by when they were read (read-order.ts): an end
 * takes effect at the read order of the moment the coordinator answered it, before the client
 * hears of it. A request read after that moment gets the new identity; one read before it —
 * however long it then waited in the gateway, on whichever connection — gets the identity of
 * its own transaction, which the end made stale, and the partition or the coordinator refuses
 * it. A write delayed past its transaction's end is therefore never counted into the next one.
 */
import { gatewayTransactionalIdsMax } from "../../limits.ts";
import { sequenceDistance } from "../../protocol/sequences.ts";

export interface ProducerIdentity {
  producerId: number;
  producerEpoch: number;
}

/** One identity in effect from a read order on. */
export interface ProducerMapping {
  /** What the client sends. */
  readonly client: ProducerIdentity;
  /** What the coordinator and the partitions know it as. */
  readonly server: ProducerIdentity;
  /** Requests read after this read order use the mapping. */
  readonly since: number;
  /**
   * Per partition (`topic\0partition`), the client's sequence that is 0 on the server, set by
   * the first batch written there under this mapping; null: the client's sequences are the
   * server's (right after an init, both start at 0).
   */
  readonly sequenceBases: Map<string, number> | null;
  /** The end this mapping follows, while nothing of the next transaction has come: a retried end is answered as the first. */
  ended: { commit: boolean } | undefined;
  /** The mapping before, for requests read before `since`; only one step is kept (see `ended`). */
  previous: ProducerMapping | undefined;
}

const byTransactionalId = new Map<string, ProducerMapping>();

const same = (a: ProducerIdentity, b: ProducerIdentity) => a.producerId === b.producerId && a.producerEpoch === b.producerEpoch;

function remember(transactionalId: string, mapping: ProducerMapping): void {
  byTransactionalId.delete(transactionalId);
  byTransactionalId.set(transactionalId, mapping);
  // Map order is insertion order: the first key is the one used longest ago.
  if (byTransactionalId.size > gatewayTransactionalIdsMax) byTransactionalId.delete(byTransactionalId.keys().next().value!);
}

/** An init (InitProducerId) answered `identity`, at read order `since`: the client and the server agree again. */
export function initialized(transactionalId: string, identity: ProducerIdentity, since: number): void {
  remember(transactionalId, { client: identity, server: identity, since, sequenceBases: null, ended: undefined, previous: undefined });
}

/**
 * An end answered `next` (the server's identity for the next transaction) at read order
 * `since`, for the end request read at `readOrder` with the client's `client` identity, which
 * went by `used` (undefined: untranslated). The client keeps its identity. The new mapping
 * takes over only from the mapping the end went by (or from none, or from a mapping older than
 * the request): an end read before a later end took effect (a retry held up somewhere) changes
 * nothing, so a transaction begun since keeps its sequences.
 */
export function ended(transactionalId: string, client: ProducerIdentity, used: ProducerMapping | undefined, next: ProducerIdentity, commit: boolean, readOrder: number, since: number): void {
  const current = byTransactionalId.get(transactionalId);
  const takesOver = current === undefined || current === used || (used === undefined && readOrder > current.since);
  if (!takesOver) return;
  // A request read before the ended transaction's own mapping goes untranslated: the client's
  // identity is then older than any the server holds since an end, and is refused.
  if (used !== undefined) used.previous = undefined;
  remember(transactionalId, { client, server: next, since, sequenceBases: new Map(), ended: { commit }, previous: used });
}

/**
 * The mapping a request of the client's `identity` read at `readOrder` goes by, or undefined:
 * then it goes as the client sent it (an identity the gateway did not answer, or one the
 * gateway forgot), and the server judges it as it is.
 */
export function mappingFor(transactionalId: string, identity: ProducerIdentity, readOrder: number): ProducerMapping | undefined {
  let mapping = byTransactionalId.get(transactionalId);
  while (mapping !== undefined && readOrder <= mapping.since) mapping = mapping.previous;
  if (mapping === undefined || !same(mapping.client, identity)) return undefined;
  return mapping;
}

/** The server's sequence for the client's `sequence` of a batch to `partitionKey`. */
export function serverSequence(mapping: ProducerMapping, partitionKey: string, sequence: number): number {
  if (mapping.sequenceBases === null) return sequence;
  let base = mapping.sequenceBases.get(partitionKey);
  if (base === undefined) mapping.sequenceBases.set(partitionKey, (base = sequence));
  return sequenceDistance(base, sequence);
}

/** Whether the mapping changes anything: after an init, the client's identity is the server's. */
export function translates(mapping: ProducerMapping): boolean {
  return mapping.sequenceBases !== null || !same(mapping.client, mapping.server);
}

/** For tests: forget every producer. */
export function forgetAllProducers(): void {
  byTransactionalId.clear();
}
