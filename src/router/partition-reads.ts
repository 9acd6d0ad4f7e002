import { TributaryError, unwrap } from "../errors.ts";
import { recordsInWindow } from "../log/fetched-records.ts";
import type { ReadResult } from "../log/partition-log.ts";
import type { OffsetQuery } from "../objects/partition-replica.ts";
import { replicaStub } from "../objects/stubs.ts";
import { encodeBase64 } from "../protocol/base64.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import type { Encoding } from "../protocol/schemas.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

/** The leader of an existing partition; a partition the topic does not have is 404. */
export function leaderOf(env: Env, topic: TopicMetadata, partition: number) {
  const placement = topic.partitions[partition];
  if (!placement) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic.name} has no partition ${partition}`);
  }
  return replicaStub(env, topic.topicId, partition, placement.leader);
}

export interface ReadOptions {
  offset: number;
  maxRecords: number;
  maxBytes: number;
  waitMs: number;
}

export interface PartitionRecords {
  records: DecodedRecord[];
  nextOffset: number;
  highWatermark: number;
  logStartOffset: number;
}

/** Reads whole stored batches from one partition's leader: the binary fetch serves them as they are. */
export async function readPartitionBatches(env: Env, topic: TopicMetadata, partition: number, options: ReadOptions): Promise<ReadResult> {
  return unwrap(await leaderOf(env, topic, partition).read({ topicId: topic.topicId, partition, ...options }));
}

/** Reads records a consumer may see from one partition's leader (fetch and group poll). */
export async function readPartition(env: Env, topic: TopicMetadata, partition: number, options: ReadOptions): Promise<PartitionRecords> {
  const read = await readPartitionBatches(env, topic, partition, options);
  const window = {
    fromOffset: options.offset,
    untilOffset: read.highWatermark,
    maxRecords: options.maxRecords,
    maxBytes: options.maxBytes,
  };
  const { records, nextOffset } = recordsInWindow(read.batches, window);
  return { records, nextOffset, highWatermark: read.highWatermark, logStartOffset: read.logStartOffset };
}

/** An offset of one partition: earliest, latest (the high watermark), or by timestamp. */
export async function listOffset(env: Env, topic: TopicMetadata, partition: number, at: OffsetQuery) {
  return unwrap(await leaderOf(env, topic, partition).listOffset({ topicId: topic.topicId, partition, at }));
}

const utf8 = new TextDecoder();

/** A record as API.md's JSON: keys and values as UTF-8 text or base64. */
export function recordJson(record: DecodedRecord, encoding: Encoding) {
  const text = (bytes: Uint8Array | null) =>
    bytes === null ? null : encoding === "base64" ? encodeBase64(bytes) : utf8.decode(bytes);
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: text(record.key),
    value: text(record.value),
    // fromEntries defines own properties, so a header named "__proto__" stays a header.
    headers: Object.fromEntries(
      record.headers.map((header) => [header.key, header.value === null ? null : utf8.decode(header.value)]),
    ),
  };
}
