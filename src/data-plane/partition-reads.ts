import { recordsInWindow } from "../log/fetched-records.ts";
import type { ReadResult } from "../log/partition-log.ts";
import type { OffsetQuery } from "../contracts/replica-api.ts";
import { replicaStub } from "../contracts/stubs.ts";
import { readBatchHeader, type DecodedRecord } from "../protocol/record-batch.ts";
import { isControlBatch, isTransactionalBatch } from "../protocol/control-batch.ts";
import type { Isolation } from "../protocol/schemas.ts";
import { recordPayloadBytes } from "../protocol/record-scan.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callLeader, placementOf, routedCall } from "./leader-calls.ts";
import { readSealedBatches, sealedStorage } from "./sealed-reads.ts";

export interface ReadOptions {
  offset: number;
  maxRecords: number;
  maxBytes: number;
  waitMs: number;
  /** read_committed (the default): never past the last stable offset, aborted transactions skipped (docs/transactions.md). */
  isolation?: Isolation;
}

export interface PartitionRecords {
  records: DecodedRecord[];
  nextOffset: number;
  highWatermark: number;
  /** The first offset of the oldest open transaction, else the high watermark. */
  lastStableOffset: number;
  logStartOffset: number;
}

/**
 * Reads whole stored batches of one partition: from R2 when the offset is in a sealed segment
 * (src/data-plane/sealed-reads.ts: no request to any partition object); else from an in-sync
 * follower in the caller's region when there is one (Kafka's KIP-392), up to the high
 * watermark it knows; when it has nothing to give (or does not answer), from the leader,
 * which long-polls. So a reader never sees a spurious 416 from a follower that is behind.
 */
export async function readPartitionBatches(
  env: Env,
  topic: TopicMetadata,
  partition: number,
  options: ReadOptions,
  clientRegion?: string,
): Promise<ReadResult> {
  const placement = placementOf(topic, partition);
  const { isolation, ...limits } = options;
  const sealed = await readSealedBatches(sealedStorage(env), topic.topicId, partition, limits);
  // Sealed segments lie below the last stable offset; their aborted transactions are the leader's index: read through it when one may be there.
  if (sealed && !(isolation !== "read_uncommitted" && holdsTransactionalData(sealed.batches))) return { ...sealed, lastStableOffset: sealed.lastStableOffset ?? sealed.highWatermark };
  if (clientRegion && clientRegion !== placement.leader && placement.isr.includes(clientRegion)) {
    try {
      const call = { ...routedCall(topic, partition, clientRegion), ...options, waitMs: 0 };
      const nearby = await replicaStub(env, topic.topicId, partition, clientRegion).read(call);
      if (nearby.ok && nearby.value.batches.length > 0) return nearby.value;
    } catch {
      // The follower did not answer: the leader serves.
    }
  }
  return callLeader(env, topic, partition, (stub, call) => stub.read({ ...call, ...options }), { retryUnreachable: true });
}

/** Reads records a consumer may see from one partition's leader (fetch and group poll). */
export async function readPartition(
  env: Env,
  topic: TopicMetadata,
  partition: number,
  options: ReadOptions,
  clientRegion?: string,
): Promise<PartitionRecords> {
  const read = await readPartitionBatches(env, topic, partition, options, clientRegion);
  const lastStableOffset = read.lastStableOffset ?? read.highWatermark;
  const committed = options.isolation !== "read_uncommitted";
  const window = {
    fromOffset: options.offset,
    untilOffset: committed ? lastStableOffset : read.highWatermark,
    maxRecords: options.maxRecords,
    maxBytes: options.maxBytes,
    ...(committed ? { abortedTransactions: read.abortedTransactions ?? [] } : {}),
  };
  const { records, nextOffset } = recordsInWindow(read.batches, window);
  return { records, nextOffset, highWatermark: read.highWatermark, lastStableOffset, logStartOffset: read.logStartOffset };
}

/** Whether any batch is a transaction's data (not a marker): read_committed then needs the aborted index. */
function holdsTransactionalData(batches: readonly Uint8Array[]): boolean {
  return batches.some((batch) => {
    const { attributes } = readBatchHeader(batch, 0);
    return isTransactionalBatch(attributes) && !isControlBatch(attributes);
  });
}

/** The key, value and header bytes of records (what maxBytes bounds, and what the fetch quota counts). */
export function payloadBytesOf(records: readonly DecodedRecord[]): number {
  let bytes = 0;
  for (const record of records) bytes += recordPayloadBytes(record);
  return bytes;
}

/** An offset of one partition: earliest, latest (the high watermark; at read_committed the last stable offset), or by timestamp. */
export async function listOffset(env: Env, topic: TopicMetadata, partition: number, at: OffsetQuery, isolation?: Isolation) {
  return callLeader(env, topic, partition, (stub, call) => stub.listOffset({ ...call, at, ...(isolation ? { isolation } : {}) }), { retryUnreachable: true });
}

export { recordJson } from "../protocol/record-json.ts";
