import { TributaryError } from "../errors.ts";
import { batchBytesMax, headersPerRecordMax } from "../limits.ts";
import { decodeBase64 } from "../protocol/base64.ts";
import { partitionForKey, stickyPartition } from "../protocol/partitioner.ts";
import { batchHeaderBytes, encodedRecordSize, encodeRecordBatch, type RecordInput } from "../protocol/record-batch.ts";
import type { Encoding, ProduceRecord } from "../protocol/schemas.ts";
import { configNumber, effectiveTopicConfigs } from "../topics/topic-configs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

/** The records of one produce request that go to one partition, as the batches to append. */
export interface PartitionWrite {
  partition: number;
  batches: Uint8Array[];
  /** Index in the request of each record, in batch order (= offset order). */
  recordIndexes: number[];
  /** Each record's timestamp, parallel to recordIndexes. */
  timestamps: number[];
}

const utf8 = new TextEncoder();

interface TopicRules {
  partitionCount: number;
  maxRecordBytes: number;
  compacted: boolean;
  logAppendTime: boolean;
  beforeMaxMs: number;
  afterMaxMs: number;
}

function topicRules(topic: TopicMetadata): TopicRules {
  const configs = effectiveTopicConfigs(topic.configs);
  return {
    partitionCount: topic.partitions.length,
    maxRecordBytes: configNumber(configs, "max.message.bytes"),
    compacted: configs["cleanup.policy"].includes("compact"),
    logAppendTime: configs["message.timestamp.type"] === "LogAppendTime",
    beforeMaxMs: configNumber(configs, "message.timestamp.before.max.ms"),
    afterMaxMs: configNumber(configs, "message.timestamp.after.max.ms"),
  };
}

function payload(text: string | null | undefined, encoding: Encoding, what: string): Uint8Array | null {
  if (text === null || text === undefined) return null;
  if (encoding === "utf8") return utf8.encode(text);
  const bytes = decodeBase64(text);
  if (!bytes) throw new TributaryError("INVALID_RECORD", `${what} is not valid base64`);
  return bytes;
}

/** One request record as batch input, checked against the topic's rules (API.md, Produce). */
function toRecordInput(record: ProduceRecord, index: number, encoding: Encoding, rules: TopicRules, nowMs: number): RecordInput {
  const where = `record ${index}`;
  const key = payload(record.key, encoding, `${where}: key`);
  const value = payload(record.value, encoding, `${where}: value`);
  const headerEntries = record.headers ?? [];
  if (headerEntries.length > headersPerRecordMax) {
    throw new TributaryError("INVALID_RECORD", `${where}: at most ${headersPerRecordMax} headers`);
  }
  let bytes = (key?.byteLength ?? 0) + (value?.byteLength ?? 0);
  const headers = headerEntries.map(([headerKey, headerValue]) => {
    const valueBytes = utf8.encode(headerValue);
    bytes += utf8.encode(headerKey).byteLength + valueBytes.byteLength;
    return { key: headerKey, value: valueBytes };
  });
  if (bytes > rules.maxRecordBytes) {
    throw new TributaryError("MESSAGE_TOO_LARGE", `${where}: ${bytes} bytes exceeds max.message.bytes ${rules.maxRecordBytes}`);
  }
  if (rules.compacted && key === null) {
    throw new TributaryError("INVALID_RECORD", `${where}: a compacted topic needs a key on every record`);
  }
  return { key, value, headers, timestamp: recordTimestamp(record.timestamp, where, rules, nowMs) };
}

function recordTimestamp(timestamp: number | undefined, where: string, rules: TopicRules, nowMs: number): number {
  if (rules.logAppendTime || timestamp === undefined) return nowMs;
  if (timestamp < 0 || !Number.isSafeInteger(timestamp)) {
    throw new TributaryError("INVALID_TIMESTAMP", `${where}: a timestamp is a non-negative integer of milliseconds`);
  }
  if (nowMs - timestamp > rules.beforeMaxMs || timestamp - nowMs > rules.afterMaxMs) {
    throw new TributaryError(
      "INVALID_TIMESTAMP",
      `${where}: timestamp ${timestamp} is outside the topic's message.timestamp.before.max.ms/after.max.ms window`,
    );
  }
  return timestamp;
}

function choosePartition(record: ProduceRecord, key: Uint8Array | null, rules: TopicRules, sticky: () => number): number {
  if (record.partition !== undefined) {
    if (record.partition >= rules.partitionCount) {
      throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `partition ${record.partition} does not exist`);
    }
    return record.partition;
  }
  if (key !== null) return partitionForKey(key, rules.partitionCount);
  return sticky();
}

/** Splits one partition's records into batches of at most batchBytesMax each, in order. */
function encodeBatches(records: readonly RecordInput[], logAppendTime: boolean): Uint8Array[] {
  const batches: Uint8Array[] = [];
  let start = 0;
  let bytes = batchHeaderBytes;
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const size = encodedRecordSize(record, record.timestamp - records[start]!.timestamp, index - start);
    if (index > start && bytes + size > batchBytesMax) {
      batches.push(encodeRecordBatch(records.slice(start, index), { logAppendTime }));
      start = index;
      bytes = batchHeaderBytes + encodedRecordSize(record, 0, 0);
    } else {
      bytes += size;
    }
  }
  batches.push(encodeRecordBatch(records.slice(start), { logAppendTime }));
  return batches;
}

/**
 * Validates a whole produce request and turns it into one write per partition, before
 * anything is written: one bad record fails the request (API.md). Records keep their
 * request order within a partition.
 */
export function planProduce(
  records: readonly ProduceRecord[],
  encoding: Encoding,
  topic: TopicMetadata,
  nowMs: number,
): PartitionWrite[] {
  const rules = topicRules(topic);
  let stickyChoice: number | undefined;
  const sticky = () => (stickyChoice ??= stickyPartition(rules.partitionCount));
  const byPartition = new Map<number, { inputs: RecordInput[]; indexes: number[] }>();
  records.forEach((record, index) => {
    const input = toRecordInput(record, index, encoding, rules, nowMs);
    const partition = choosePartition(record, input.key, rules, sticky);
    let group = byPartition.get(partition);
    if (!group) byPartition.set(partition, (group = { inputs: [], indexes: [] }));
    group.inputs.push(input);
    group.indexes.push(index);
  });
  return [...byPartition].map(([partition, group]) => ({
    partition,
    batches: encodeBatches(group.inputs, rules.logAppendTime),
    recordIndexes: group.indexes,
    timestamps: group.inputs.map((input) => input.timestamp),
  }));
}
