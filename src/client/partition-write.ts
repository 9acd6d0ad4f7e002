/**
 * Writing records to one partition over the binary transport (docs/api.md, "Binary record
 * batches"): the records are cut into Kafka RecordBatch v2 batches under a byte bound, encoded
 * once, and POSTed together (the partition writes them atomically, with consecutive offsets).
 * A retriable failure resends the same bytes, so an idempotent producer's sequence numbers
 * stay those of the first attempt. Shared by the producer and `topic(...).produce`.
 */
import { TributaryError, isRetriable } from "../errors.ts";
import { concatBytes } from "../protocol/bytes.ts";
import { recordBatchContentType } from "../protocol/content-types.ts";
import { encodedRecordSize, encodeRecordBatch, type RecordInput } from "../protocol/record-batch.ts";
import { incrementSequence } from "../protocol/sequences.ts";
import { isTributaryError } from "./errors.ts";
import type { ClientLog } from "./logger.ts";
import type { MetadataCache } from "./metadata.ts";
import { withRetries, type RetryPolicy } from "./retry.ts";
import { path, type Transport } from "./transport.ts";
import type { Acks, RecordMetadata } from "./types.ts";

/**
 * The largest batch the client builds: the server takes 1 MiB + 64 KiB per batch (limits.ts
 * batchBytesMax), which is one record of max.message.bytes (1 MiB) with its framing; a single
 * record larger than this bound still goes alone in its own batch.
 */
export const batchBytesMax = 1024 * 1024;
/** The body of one request: half the server's 16 MiB, so a request never meets that bound. */
export const requestBytesMax = 8 * 1024 * 1024;

export interface WriteContext {
  transport: Transport;
  metadata: MetadataCache;
  policy: RetryPolicy;
  log: ClientLog;
}

/** An idempotent producer's identity for one write: what goes in each batch header. */
export interface BatchIdentity {
  producerId: number;
  producerEpoch: number;
  /** Sequence of the write's first record in this partition. */
  baseSequence: number;
}

interface BinaryProduceAnswer {
  partition?: number;
  baseOffset?: number;
  lastOffset?: number;
  timestamp?: number;
  /** With commitAfterWrites: the transaction committed, and the producer's next identity. */
  committed?: { producerId: number; producerEpoch: number };
}

/** Cuts records into batches of at most `batchBytes` encoded bytes each (a larger record alone). */
export function splitIntoBatches(records: readonly RecordInput[], batchBytes: number): RecordInput[][] {
  const batches: RecordInput[][] = [];
  let batch: RecordInput[] = [];
  let bytes = 0;
  for (const record of records) {
    let size = batch.length === 0 ? 0 : encodedRecordSize(record, record.timestamp - batch[0]!.timestamp, batch.length);
    if (batch.length > 0 && bytes + size > batchBytes) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    if (batch.length === 0) size = encodedRecordSize(record, 0, 0) + 61;
    batch.push(record);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * The retry rule of a partition write: the error table's retriable codes; NOT_LEADER_OR_FOLLOWER
 * also drops the cached metadata; UNKNOWN_TOPIC_OR_PARTITION is retried only when fresh
 * metadata still has the partition (a router whose cache has not caught up with a new topic
 * or partition, API.md's 5 s), and fails when the topic or partition is really gone.
 */
export function partitionRetryRule(context: WriteContext, topic: string, partition: number) {
  return async (error: unknown): Promise<boolean> => {
    if (isTributaryError(error, "NOT_LEADER_OR_FOLLOWER")) context.metadata.invalidate(topic);
    if (isTributaryError(error, "UNKNOWN_TOPIC_OR_PARTITION")) {
      context.metadata.invalidate(topic);
      const count = await context.metadata.partitionCount(topic, { refresh: true }).catch(() => 0);
      return partition < count;
    }
    return isRetriable(error);
  };
}

/** Writes `batches` to the partition atomically; resolves with each record's metadata, in order. */
export async function writePartition(
  context: WriteContext,
  write: { topic: string; partition: number; batches: RecordInput[][]; acks: Acks; identity?: BatchIdentity; signal?: AbortSignal },
): Promise<RecordMetadata[]> {
  const { topic, partition, batches, acks, identity } = write;
  let sequence = identity?.baseSequence ?? -1;
  const encoded = batches.map((records) => {
    const options = identity ? { producerId: identity.producerId, producerEpoch: identity.producerEpoch, baseSequence: sequence } : {};
    if (identity) sequence = incrementSequence(sequence, records.length);
    return encodeRecordBatch(records, options);
  });
  const records = batches.flat();
  const written = await postRecords(context, { topic, partition, body: concatBytes(encoded), records: records.length, acks, signal: write.signal });
  return records.map((record, index) => ({
    topic,
    partition,
    offset: written.baseOffset < 0 ? -1 : written.baseOffset + index,
    timestamp: written.timestamp ?? record.timestamp,
  }));
}

/**
 * POSTs encoded batches holding `records` records to the partition (a transactional
 * producer's name its `transactionalId`, and the topic's other partitions it is writing now,
 * `transactionPartitions`, for the router's check to add with this one; its last writes carry
 * the commit, `commitAfterWrites`), retried by the partition rule with the same bytes and query;
 * answers the first record's offset (−1 with acks 0), for a LogAppendTime topic the timestamp
 * the partition gave them all, and whether the writes committed the transaction.
 */
export async function postRecords(
  context: WriteContext,
  write: { topic: string; partition: number; body: Uint8Array; records: number; acks: Acks; signal?: AbortSignal; transactionalId?: string; transactionPartitions?: number[]; commitAfterWrites?: number },
): Promise<{ baseOffset: number; timestamp: number | undefined; committed?: { producerId: number; producerEpoch: number } }> {
  const { topic, partition, records, acks } = write;
  const answer = await withRetries(
    () =>
      context.transport.json<BinaryProduceAnswer>({
        method: "POST",
        path: path("topics", topic, "partitions", partition, "records"),
        query: { acks, transactionalId: write.transactionalId, transactionPartitions: write.transactionPartitions?.join(","), commitAfterWrites: write.commitAfterWrites },
        bytes: write.body,
        contentType: recordBatchContentType,
        signal: write.signal,
      }),
    { policy: context.policy, log: context.log, signal: write.signal, shouldRetry: partitionRetryRule(context, topic, partition) },
  );
  if (acks === 0) return { baseOffset: -1, timestamp: undefined };
  const { baseOffset, lastOffset } = answer ?? {};
  // The partition gives the batches consecutive offsets; anything else would misreport offsets.
  if (typeof baseOffset !== "number" || lastOffset !== baseOffset + records - 1) {
    throw new TributaryError(
      "UNKNOWN_SERVER_ERROR",
      `produce to ${topic}/${partition}: ${records} records answered with offsets ${String(baseOffset)}..${String(lastOffset)}`,
    );
  }
  return { baseOffset, timestamp: answer.timestamp, ...(answer.committed === undefined ? {} : { committed: answer.committed }) };
}
