import { batchBytesMax } from "../limits.ts";
import type { DeadLetterWork, SharePartitionKey } from "../contracts/share-partition-api.ts";
import { partitionForKey } from "../protocol/partitioner.ts";
import { encodeRecordBatch, type DecodedRecord, type RecordInput } from "../protocol/record-batch.ts";
import type { DeadLetter } from "../share/share-partition.ts";
import { recordPayloadBytes } from "../protocol/record-scan.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { appendBatches } from "./binary-produce.ts";
import { topicMetadata } from "./metadata-cache.ts";
import { readAcquired } from "./share-reads.ts";
import { callShareState } from "./share-state-calls.ts";

/** Header names a dead-lettered record carries besides its own (docs/api.md, Share groups). */
export const deadLetterHeaders = {
  topic: "tributary.dlq.topic",
  partition: "tributary.dlq.partition",
  offset: "tributary.dlq.offset",
  deliveryCount: "tributary.dlq.delivery-count",
  reason: "tributary.dlq.reason",
} as const;

/** Room left in a batch for its header and the varints a record's size estimate leaves out. */
const batchSlackBytes = 4_096;
const utf8 = new TextEncoder();

/**
 * Writes records a share-partition handed out for dead-lettering to the group's dead-letter
 * topic — key, value, headers and timestamp kept, plus the tributary.dlq.* headers — with
 * acks "all", and only then tells the share-partition to archive them. A failure anywhere
 * leaves them un-archived: their claim lapses and a later request writes them again (at least
 * once). Offsets the log no longer has are archived without a write.
 */
export async function writeDeadLetters(
  env: Env,
  source: TopicMetadata,
  key: SharePartitionKey,
  deadLetterTopic: string,
  deadLetters: readonly DeadLetter[],
): Promise<void> {
  const byOffset = new Map(deadLetters.map((letter) => [letter.offset, letter]));
  // Dead letters were delivered (so below the last stable offset, and never aborted at read_committed): read as stored.
  const read = await readAcquired(env, source, key.partition, [...byOffset.keys()], batchBytesMax, "read_uncommitted");
  if (read.records.length > 0) {
    const target = await topicMetadata(env, deadLetterTopic);
    const byPartition = new Map<number, RecordInput[]>();
    for (const record of read.records) {
      const partition = record.key === null ? key.partition % target.partitions.length : partitionForKey(record.key, target.partitions.length);
      byPartition.set(partition, [...(byPartition.get(partition) ?? []), deadLetterRecord(source.name, key.partition, record, byOffset.get(record.offset)!)]);
    }
    await Promise.all([...byPartition].map(([partition, records]) => appendBatches(env, target, partition, inBatches(records), "all")));
  }
  const archived = [...read.records.map((record) => record.offset), ...read.missing];
  if (archived.length > 0) await callShareState(env, source, key.group, key.partition, (stub, current) => stub.completeDeadLetters(current, archived));
}

/** Writes the dead letters a share-partition handed out, if any; a failure is logged and leaves them for a later request. */
export async function writeHandedOutDeadLetters(env: Env, source: TopicMetadata, key: SharePartitionKey, work: DeadLetterWork): Promise<void> {
  if (work.deadLetters.length === 0 || work.deadLetterTopic === null) return;
  try {
    await writeDeadLetters(env, source, key, work.deadLetterTopic, work.deadLetters);
  } catch (error) {
    console.warn(`share group ${key.group}: the dead-letter write of ${key.topic}/${key.partition} failed; a later request retries it: ${String(error)}`);
  }
}

function deadLetterRecord(topic: string, partition: number, record: DecodedRecord, letter: DeadLetter): RecordInput {
  const header = (name: string, value: string) => ({ key: name, value: utf8.encode(value) });
  return {
    key: record.key,
    value: record.value,
    timestamp: record.timestamp,
    headers: [
      ...record.headers,
      header(deadLetterHeaders.topic, topic),
      header(deadLetterHeaders.partition, String(partition)),
      header(deadLetterHeaders.offset, String(record.offset)),
      header(deadLetterHeaders.deliveryCount, String(letter.deliveryCount)),
      header(deadLetterHeaders.reason, letter.reason),
    ],
  };
}

/** Records cut into batches under batchBytesMax (a record is at most a MiB, so each fits one). */
function inBatches(records: readonly RecordInput[]): Uint8Array[] {
  const batches: Uint8Array[] = [];
  let current: RecordInput[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = recordPayloadBytes(record) + 64;
    if (current.length > 0 && bytes + size > batchBytesMax - batchSlackBytes) {
      batches.push(encodeRecordBatch(current));
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) batches.push(encodeRecordBatch(current));
  return batches;
}
