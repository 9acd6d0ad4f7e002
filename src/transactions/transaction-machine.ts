/**
 * The transaction coordinator's rules (issue 28; Kafka's KIP-98 with KIP-890's epoch bump at
 * every end): pure functions from a transactional id's metadata and a request to the next
 * metadata and the answer. The object (src/objects/transaction-coordinator.ts) persists what
 * they return before it answers or writes any marker; time comes in as `now`.
 *
 * The late-write rule (docs/transactions.md): every end — the producer's, a timeout, a new
 * instance's init, an admin's abort — writes its markers with the ended epoch + 1 and gives the
 * producer that epoch for its next transaction, so a partition leader refuses anything still
 * in flight from the ended one. An epoch that would reach producerEpochMax moves the
 * transactional id to a new producer id instead.
 */
import { TributaryError } from "../errors.ts";
import {
  producerEpochMax,
  transactionGroupsMax,
  transactionMarkerRetryMsMax,
  transactionMarkerRetryMsMin,
  transactionPartitionsMax,
  transactionTimeoutMsMax,
  transactionTimeoutMsMin,
} from "../limits.ts";
import {
  isInitialized,
  partitionKey,
  uniquePartitions,
  type EndReason,
  type ProducerIdentity,
  type TopicPartition,
  type TransactionMetadata,
  type TransactionResult,
} from "./transaction-metadata.ts";

/**
 * What an operation gives back: the next metadata (persist it when `changed`) and the identity
 * to answer; or the request for a producer id never handed out before (the controller's), to
 * call the operation again with. Only a first init and an epoch overflow need one.
 */
export type Outcome =
  | { kind: "done"; metadata: TransactionMetadata; identity: ProducerIdentity; changed: boolean }
  | { kind: "needs-producer-id" };

/** Init found the old instance's transaction open: it is now aborting; write its markers, then init again. */
export type InitOutcome = Outcome | { kind: "markers-first"; metadata: TransactionMetadata };

function done(metadata: TransactionMetadata, changed = true): Outcome {
  return { kind: "done", metadata, identity: identityOf(metadata), changed };
}

export function identityOf(metadata: TransactionMetadata): ProducerIdentity {
  return { producerId: metadata.producerId, producerEpoch: metadata.producerEpoch };
}

export function checkTimeout(timeoutMs: number): void {
  if (!Number.isInteger(timeoutMs) || timeoutMs < transactionTimeoutMsMin || timeoutMs > transactionTimeoutMsMax) {
    throw new TributaryError(
      "INVALID_TRANSACTION_TIMEOUT",
      `transactionTimeoutMs must be an integer from ${transactionTimeoutMsMin} to ${transactionTimeoutMsMax} (the deployment's maximum)`,
      { min: transactionTimeoutMsMin, max: transactionTimeoutMsMax },
    );
  }
}

/** The identity after a bump: epoch + 1, or a new producer id at epoch 0 when that would reach the maximum. */
function bumped(metadata: TransactionMetadata, freshProducerId: number | undefined): ProducerIdentity | null {
  const epoch = metadata.producerEpoch + 1;
  if (isInitialized(metadata) && epoch < producerEpochMax) return { producerId: metadata.producerId, producerEpoch: epoch };
  return freshProducerId === undefined ? null : { producerId: freshProducerId, producerEpoch: 0 };
}

const sameIdentity = (a: ProducerIdentity | null | undefined, b: ProducerIdentity) => a?.producerId === b.producerId && a.producerEpoch === b.producerEpoch;

/**
 * KIP-360's check of the identity an initializing producer says it holds (Kafka's coordinator's):
 * "bump" when it is the current one (or nothing was initialized yet), "current" when it is the
 * one held just before the last bump (a retry, or a re-init after a timeout's abort: answered the
 * current identity as it is), PRODUCER_FENCED for any other (another instance took over since).
 * An open transaction is aborted first whichever it is, as Kafka's coordinator does.
 */
function expectedHolder(metadata: TransactionMetadata, expected: ProducerIdentity): "bump" | "current" {
  if (!isInitialized(metadata) || sameIdentity(identityOf(metadata), expected)) return "bump";
  if (metadata.state !== "Ongoing" && sameIdentity(metadata.lastProducer, expected)) return "current";
  if (metadata.state === "Ongoing" && expected.producerId === metadata.producerId) return "bump";
  throw fenced(metadata, expected);
}

/**
 * Kafka's InitProducerId with a transactional id: fences every older instance (its epoch is
 * now lower) and aborts the transaction it left open first (`markers-first`). `expected` is the
 * identity the producer holds (KIP-360, InitProducerId v3+), checked by `expectedHolder`.
 */
export function init(metadata: TransactionMetadata, timeoutMs: number, now: number, freshProducerId?: number, expected?: ProducerIdentity): InitOutcome {
  checkTimeout(timeoutMs);
  if (metadata.state === "PrepareCommit" || metadata.state === "PrepareAbort") throw concurrent(metadata);
  if (expected !== undefined && expectedHolder(metadata, expected) === "current") return done({ ...metadata, timeoutMs, state: "Empty", startedAt: null, updatedAt: now });
  if (metadata.state === "Ongoing") {
    const aborting = decide(metadata, "abort", "init", now, freshProducerId);
    return aborting.kind === "done" ? { kind: "markers-first", metadata: aborting.metadata } : aborting;
  }
  const next = bumped(metadata, freshProducerId);
  if (next === null) return { kind: "needs-producer-id" };
  return done({
    ...metadata,
    ...next,
    previousProducerId: next.producerId === metadata.producerId ? metadata.previousProducerId : (isInitialized(metadata) ? metadata.producerId : null),
    timeoutMs,
    state: "Empty",
    partitions: [],
    groups: [],
    startedAt: null,
    updatedAt: now,
    // A new instance never retries the old one's end.
    lastEnd: null,
    // Only the producer that named the identity it held may retry this init with it.
    lastProducer: expected === undefined ? null : identityOf(metadata),
  });
}

/** The request's producer id and epoch against the transactional id's: fenced, unknown or current. */
export function checkProducer(metadata: TransactionMetadata, identity: ProducerIdentity): void {
  if (!isInitialized(metadata)) {
    throw new TributaryError("INVALID_PRODUCER_ID_MAPPING", `no producer was initialized with transactional id ${JSON.stringify(metadata.transactionalId)}`);
  }
  if (identity.producerId !== metadata.producerId) {
    if (identity.producerId === metadata.previousProducerId) throw fenced(metadata, identity);
    throw new TributaryError("INVALID_PRODUCER_ID_MAPPING", `producer id ${identity.producerId} is not transactional id ${JSON.stringify(metadata.transactionalId)}'s`);
  }
  if (identity.producerEpoch < metadata.producerEpoch) throw fenced(metadata, identity);
  if (identity.producerEpoch > metadata.producerEpoch) {
    throw new TributaryError("INVALID_PRODUCER_EPOCH", `producer epoch ${identity.producerEpoch} is ahead of the coordinator's ${metadata.producerEpoch}`);
  }
}

function fenced(metadata: TransactionMetadata, identity: ProducerIdentity): TributaryError {
  return new TributaryError(
    "PRODUCER_FENCED",
    `producer ${identity.producerId} epoch ${identity.producerEpoch} was fenced: transactional id ${JSON.stringify(metadata.transactionalId)} is at producer ${metadata.producerId} epoch ${metadata.producerEpoch}`,
  );
}

function concurrent(metadata: TransactionMetadata): TributaryError {
  return new TributaryError("CONCURRENT_TRANSACTIONS", `transactional id ${JSON.stringify(metadata.transactionalId)} is still writing its last transaction's markers; retry shortly`);
}

/** The open transaction, started now when none is (Empty or Complete*); refused while markers are being written. */
function openTransaction(metadata: TransactionMetadata, now: number): TransactionMetadata {
  if (metadata.state === "PrepareCommit" || metadata.state === "PrepareAbort") throw concurrent(metadata);
  if (metadata.state === "Ongoing") return metadata;
  return { ...metadata, state: "Ongoing", partitions: [], groups: [], startedAt: now, updatedAt: now };
}

/** Kafka's AddPartitionsToTxn. Adding partitions already added changes nothing (a retry writes nothing). */
export function addPartitions(metadata: TransactionMetadata, identity: ProducerIdentity, partitions: readonly TopicPartition[], now: number): Outcome {
  checkProducer(metadata, identity);
  const known = new Set(metadata.state === "Ongoing" ? metadata.partitions.map(partitionKey) : []);
  if (metadata.state === "Ongoing" && partitions.every((partition) => known.has(partitionKey(partition)))) return done(metadata, false);
  const open = openTransaction(metadata, now);
  const all = uniquePartitions([...open.partitions, ...partitions]);
  if (all.length > transactionPartitionsMax) {
    throw new TributaryError("INVALID_REQUEST", `a transaction writes at most ${transactionPartitionsMax} partitions`, { max: transactionPartitionsMax });
  }
  return done({ ...open, partitions: all, updatedAt: now });
}

/** Kafka's AddOffsetsToTxn: the group whose offsets the transaction commits gets its marker at the end. */
export function addGroup(metadata: TransactionMetadata, identity: ProducerIdentity, groupId: string, now: number): Outcome {
  checkProducer(metadata, identity);
  if (metadata.state === "Ongoing" && metadata.groups.includes(groupId)) return done(metadata, false);
  const open = openTransaction(metadata, now);
  if (open.groups.length >= transactionGroupsMax) {
    throw new TributaryError("INVALID_REQUEST", `a transaction commits the offsets of at most ${transactionGroupsMax} groups`, { max: transactionGroupsMax });
  }
  return done({ ...open, groups: [...open.groups, groupId].sort(), updatedAt: now });
}

/**
 * Kafka's EndTxn. The answer is the bumped identity the producer uses next; a retried end
 * (the identity of the last end, with its result) is answered that again, changing nothing.
 */
export function end(metadata: TransactionMetadata, identity: ProducerIdentity, result: TransactionResult, now: number, freshProducerId?: number): Outcome {
  const last = metadata.lastEnd;
  if (last !== null && last.producerId === identity.producerId && last.producerEpoch === identity.producerEpoch) {
    if (last.result !== result) {
      throw new TributaryError("INVALID_TXN_STATE", `the transaction already ended in ${last.result === "commit" ? "a commit" : "an abort"}${metadata.pending?.reason === "timeout" || last.result === "abort" ? " (it may have timed out)" : ""}`);
    }
    return done(metadata, false);
  }
  checkProducer(metadata, identity);
  if (metadata.state === "PrepareCommit" || metadata.state === "PrepareAbort") throw concurrent(metadata);
  // An abort with nothing open is Kafka's under transaction version 2 (KIP-890 part 2): it bumps
  // the epoch and writes no marker, so a write the producer sent and lost may never join a later
  // transaction (franz-go aborts so when none of a transaction's writes was answered).
  if (metadata.state !== "Ongoing" && result === "abort") return decide({ ...metadata, partitions: [], groups: [] }, result, "client", now, freshProducerId);
  if (metadata.state !== "Ongoing") {
    throw new TributaryError("INVALID_TXN_STATE", `no transaction is open for transactional id ${JSON.stringify(metadata.transactionalId)} (state ${metadata.state})`);
  }
  return decide(metadata, result, "client", now, freshProducerId);
}

/**
 * The decision (Prepare*): the markers to write, with the ended epoch + 1, and the producer's
 * next identity. Persisted before any marker is written.
 */
export function decide(metadata: TransactionMetadata, result: TransactionResult, reason: EndReason, now: number, freshProducerId?: number): Outcome {
  const markerEpoch = metadata.producerEpoch + 1;
  // The current epoch is always below the maximum, so the marker's never passes it.
  const next = markerEpoch < producerEpochMax ? { producerId: metadata.producerId, producerEpoch: markerEpoch } : freshProducerId === undefined ? null : { producerId: freshProducerId, producerEpoch: 0 };
  if (next === null) return { kind: "needs-producer-id" };
  return done({
    ...metadata,
    ...next,
    previousProducerId: next.producerId === metadata.producerId ? metadata.previousProducerId : metadata.producerId,
    state: result === "commit" ? "PrepareCommit" : "PrepareAbort",
    pending: {
      marker: { producerId: metadata.producerId, producerEpoch: markerEpoch, result },
      partitions: metadata.partitions,
      groups: metadata.groups,
      attempts: 0,
      reason,
    },
    lastEnd: { producerId: metadata.producerId, producerEpoch: metadata.producerEpoch, result },
    lastProducer: identityOf(metadata),
    updatedAt: now,
  });
}

/** The coordinator's timeout: an Ongoing transaction older than its timeout is aborted (null: nothing to do yet). */
export function expire(metadata: TransactionMetadata, now: number, freshProducerId?: number): Outcome | null {
  if (metadata.state !== "Ongoing" || metadata.startedAt === null || now < metadata.startedAt + metadata.timeoutMs) return null;
  return decide(metadata, "abort", "timeout", now, freshProducerId);
}

/** An admin's abort (`POST /v1/transactions/{id}/abort`): an open transaction is aborted; one already ending goes on. */
export function adminAbort(metadata: TransactionMetadata, now: number, freshProducerId?: number): Outcome {
  if (metadata.state === "PrepareCommit" || metadata.state === "PrepareAbort") return done(metadata, false);
  if (metadata.state !== "Ongoing") {
    throw new TributaryError("INVALID_TXN_STATE", `no transaction is open for transactional id ${JSON.stringify(metadata.transactionalId)} (state ${metadata.state})`);
  }
  return decide(metadata, "abort", "admin", now, freshProducerId);
}

/**
 * After a round of marker writes: the partitions and groups that now hold the marker leave the
 * pending set; when none is left the transaction is complete. A round that left some behind
 * counts one more attempt (the retry's backoff).
 */
export function markersWritten(
  metadata: TransactionMetadata,
  written: { partitions: readonly TopicPartition[]; groups: readonly string[] },
  now: number,
): TransactionMetadata {
  const pending = metadata.pending;
  if (pending === null) return metadata;
  const writtenPartitions = new Set(written.partitions.map(partitionKey));
  const writtenGroups = new Set(written.groups);
  const partitions = pending.partitions.filter((partition) => !writtenPartitions.has(partitionKey(partition)));
  const groups = pending.groups.filter((group) => !writtenGroups.has(group));
  if (partitions.length === 0 && groups.length === 0) {
    return {
      ...metadata,
      state: pending.marker.result === "commit" ? "CompleteCommit" : "CompleteAbort",
      partitions: [],
      groups: [],
      startedAt: null,
      pending: null,
      updatedAt: now,
    };
  }
  return { ...metadata, pending: { ...pending, partitions, groups, attempts: pending.attempts + 1 }, updatedAt: now };
}

/** The object started again: a new coordinator epoch, which the markers it writes from now on carry. */
export function restarted(metadata: TransactionMetadata): TransactionMetadata {
  return { ...metadata, coordinatorEpoch: metadata.coordinatorEpoch + 1 };
}

/** The delay before the next round of marker writes: doubling from the minimum, capped. */
export function markerRetryDelayMs(attempts: number): number {
  return Math.min(transactionMarkerRetryMsMax, transactionMarkerRetryMsMin * 2 ** Math.min(attempts, 16));
}

/** When the object's alarm must fire: markers to write, or an open transaction's timeout; null when idle (costs nothing). */
export function nextAlarmAt(metadata: TransactionMetadata, now: number): number | null {
  if (metadata.pending !== null) return now + markerRetryDelayMs(metadata.pending.attempts);
  if (metadata.state === "Ongoing" && metadata.startedAt !== null) return metadata.startedAt + metadata.timeoutMs;
  return null;
}
