import { asTributaryError, TributaryError } from "../errors.ts";
import { partitionConfig } from "../contracts/partition-config.ts";
import type { AppendAnswer } from "../contracts/replica-api.ts";
import type { Acks, ProduceRequest } from "../protocol/schemas.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callLeader } from "./leader-calls.ts";
import { isStaleMetadataError, topicMetadata } from "./metadata-cache.ts";
import { idempotenceOf, planProduce, type PartitionWrite } from "./produce-plan.ts";
import { verifyTransactionalWrite } from "./transaction-verification.ts";
import { checkSchemaIds } from "./schema-id-checks.ts";
import type { SchemaIdRef } from "../topics/schema-id-refs.ts";

export interface RecordOffset {
  partition: number;
  offset: number;
  timestamp: number;
}

function appendAll(env: Env, topic: TopicMetadata, writes: readonly PartitionWrite[], acks: Acks): Promise<PromiseSettledResult<AppendAnswer>[]> {
  return Promise.allSettled(
    writes.map((write) =>
      callLeader(env, topic, write.partition, (stub, call) => stub.append({ ...call, batches: write.batches, acks, recordTimestamps: true }), {
        retryUnreachable: false,
      }),
    ),
  );
}

/** An idempotent producer's refusal names the partition that refused (a request may write several). */
const producerErrors = new Set(["OUT_OF_ORDER_SEQUENCE_NUMBER", "DUPLICATE_SEQUENCE_NUMBER", "INVALID_PRODUCER_EPOCH"]);

/**
 * `acks: "all"` needs at least `min.insync.replicas` in-sync replicas on every partition it
 * writes (API.md: the config may exceed the replication factor, and acks "all" then fails).
 * Checked before any write, as Kafka's leader does, so nothing is written.
 */
export function checkInSyncReplicas(topic: TopicMetadata, partitions: readonly number[]): void {
  const required = partitionConfig(topic).minInsyncReplicas;
  for (const partition of partitions) {
    const inSync = topic.partitions[partition]?.isr.length ?? 0;
    if (inSync < required) {
      throw new TributaryError(
        "NOT_ENOUGH_REPLICAS",
        `partition ${partition} has ${inSync} in-sync replicas; min.insync.replicas is ${required}`,
      );
    }
  }
}

/** Validates and batches the request against a topic's metadata (API.md: before anything is written); the schema ids its records name. */
function plan(topic: TopicMetadata, request: ProduceRequest): { writes: PartitionWrite[]; schemaRefs: SchemaIdRef[] } {
  const schemaRefs: SchemaIdRef[] = [];
  const writes = planProduce(request.records, request.encoding, topic, Date.now(), idempotenceOf(request), schemaRefs);
  if (request.acks === "all") checkInSyncReplicas(topic, writes.map((write) => write.partition));
  return { writes, schemaRefs };
}

/**
 * Produces a validated request: one write per partition, all partitions in parallel. When
 * the cached metadata proves stale — planning meets a partition it does not know, or a
 * leader answers as stale (callLeader) — it is refreshed once. `acks: 0` hands the writes to
 * `waitUntil` so the runtime finishes them after the 202.
 */
export async function produce(
  env: Env,
  executionCtx: { waitUntil(promise: Promise<unknown>): void },
  topicName: string,
  request: ProduceRequest,
): Promise<RecordOffset[] | undefined> {
  let topic = await topicMetadata(env, topicName);
  let planned: { writes: PartitionWrite[]; schemaRefs: SchemaIdRef[] };
  try {
    planned = plan(topic, request);
  } catch (error) {
    if (!isStaleMetadataError(error)) throw error;
    topic = await topicMetadata(env, topicName, { refresh: true });
    planned = plan(topic, request);
  }
  const { writes, schemaRefs } = planned;
  if (schemaRefs.length > 0) await checkSchemaIds(env, topicName, schemaRefs); // a topic with schema id validation (docs/schema-registry.md)
  if (request.transactionalId !== undefined) {
    // The transaction must have added every partition written (its coordinator says; TXN-CONTRACT).
    const identity = { producerId: request.producerId!, producerEpoch: request.producerEpoch! };
    await verifyTransactionalWrite(env, request.transactionalId, identity, writes.map((write) => ({ topic: topicName, partition: write.partition })));
  }
  if (request.acks === 0) {
    executionCtx.waitUntil(appendAll(env, topic, writes, request.acks));
    return undefined;
  }
  const results = await appendAll(env, topic, writes, request.acks);
  return collectOffsets(request.records.length, writes, results);
}

/** One offset per request record, in request order; a failure anywhere fails the answer with `offsets` (null where not acknowledged). */
function collectOffsets(
  recordCount: number,
  writes: readonly PartitionWrite[],
  results: readonly PromiseSettledResult<AppendAnswer>[],
): RecordOffset[] {
  const offsets: (RecordOffset | null)[] = new Array<RecordOffset | null>(recordCount).fill(null);
  let failure: TributaryError | undefined;
  results.forEach((result, writeIndex) => {
    const write = writes[writeIndex]!;
    if (result.status === "rejected") {
      const error = asTributaryError(result.reason);
      failure ??= producerErrors.has(error.code) ? new TributaryError(error.code, error.message, { ...error.data, partition: write.partition }) : error;
      return;
    }
    // A duplicate (an idempotent producer's retry) answers the stored records' timestamps, not this request's.
    const timestamps = result.value.timestamps?.length === write.timestamps.length ? result.value.timestamps : write.timestamps;
    write.recordIndexes.forEach((recordIndex, position) => {
      offsets[recordIndex] = {
        partition: write.partition,
        offset: result.value.baseOffset + position,
        timestamp: timestamps[position]!,
      };
    });
  });
  if (!failure) return offsets as RecordOffset[];
  const anyWritten = results.some((result) => result.status === "fulfilled");
  throw anyWritten ? new TributaryError(failure.code, failure.message, { ...failure.data, offsets }) : failure;
}
