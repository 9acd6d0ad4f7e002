import type { Context } from "hono";
import { unwrap } from "../errors.ts";
import { fetchMaxRecordsMax, streamForkBytesMax } from "../limits.ts";
import type { AppendAnswer } from "../contracts/replica-api.ts";
import { encodeRecordBatch, type RecordInput } from "../protocol/record-batch.ts";
import { streamClosedHeader } from "../protocol/stream-records.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type { RouterEnv } from "../router/context.ts";
import { callLeader } from "../data-plane/leader-calls.ts";
import { forgetTopic, rememberTopic } from "../data-plane/metadata-cache.ts";
import { controllerStub } from "../contracts/stubs.ts";
import { readPartition } from "../data-plane/partition-reads.ts";
import { jsonAppendValue } from "./json-messages.ts";
import { StreamError } from "./stream-errors.ts";
import { isJsonMode } from "./stream-headers.ts";
import { streamTopicName } from "./stream-names.ts";
import { offsetOf } from "./stream-offsets.ts";
import { durableStreamsBasePath } from "./stream-paths.ts";
import { streamTail } from "./stream-tail.ts";
import { findStreamTopic, isExpired, notFound, streamInfoOf, type StreamInfo } from "./stream-topic.ts";

/**
 * Forks (`Stream-Forked-From`, `Stream-Fork-Offset`, `Stream-Fork-Sub-Offset`): a new stream
 * that starts with its source's content up to an offset — and, with a sub-offset, the first
 * bytes (or JSON messages) of the append at that offset — then goes its own way. The fork is
 * its own topic: the inherited records are copied into it when it is created (at most
 * streamForkBytesMax), as records without producer state or closure, so its offsets for them
 * are the source's. The source counts its living forks (`ds.fork.refs`): deleting it while
 * any lives only marks it deleted (410), and the last fork's deletion removes it
 * (the controller, in one turn: src/objects/stream-lifecycle.ts).
 */
export interface ForkRequest {
  sourcePath: string;
  offset?: number;
  subOffset: number;
}

const decimalPattern = /^(0|[1-9][0-9]{0,15})$/;

/** The fork headers of a PUT, or undefined for a plain create; inconsistent ones are 400. */
export function parseFork(c: Context<RouterEnv>): ForkRequest | undefined {
  const from = c.req.header("stream-forked-from");
  const offset = c.req.header("stream-fork-offset");
  const sub = c.req.header("stream-fork-sub-offset");
  if (from === undefined) {
    if (offset !== undefined || sub !== undefined) throw new StreamError(400, "Stream-Fork-Offset and Stream-Fork-Sub-Offset come with Stream-Forked-From");
    return undefined;
  }
  if (sub !== undefined && !decimalPattern.test(sub)) throw new StreamError(400, `Stream-Fork-Sub-Offset ${JSON.stringify(sub)} is not a whole number`);
  const subOffset = sub === undefined ? 0 : Number(sub);
  if (subOffset > 0 && offset === undefined) throw new StreamError(400, "a Stream-Fork-Sub-Offset above 0 needs a Stream-Fork-Offset");
  let path = from.trim();
  if (/^https?:\/\//i.test(path)) {
    path = new URL(path).pathname;
    if (path.startsWith(`${durableStreamsBasePath}/`)) path = path.slice(durableStreamsBasePath.length);
  }
  try {
    path = decodeURIComponent(path.replace(/^\/+/, ""));
  } catch {
    throw new StreamError(400, "Stream-Forked-From is not a valid stream path");
  }
  return { sourcePath: path, subOffset, ...(offset === undefined ? {} : { offset: offsetOf(offset, "Stream-Fork-Offset") }) };
}

export interface ForkPlan {
  source: StreamInfo;
  offset: number;
  subOffset: number;
  /** The records the fork starts with: the source's up to `offset`, then the sub-offset's part of the next. */
  records: RecordInput[];
}

/** The first `count` bytes, or JSON messages, of an append's stored value; 400 past its end. */
function prefixOf(contentType: string, value: Uint8Array, count: number): Uint8Array {
  if (!isJsonMode(contentType)) {
    if (count > value.byteLength) throw new StreamError(400, `Stream-Fork-Sub-Offset ${count} is past the append's ${value.byteLength} bytes`);
    return value.slice(0, count);
  }
  const messages = JSON.parse(new TextDecoder().decode(value)) as unknown[];
  if (count > messages.length) throw new StreamError(400, `Stream-Fork-Sub-Offset ${count} is past the append's ${messages.length} messages`);
  return jsonAppendValue(new TextEncoder().encode(JSON.stringify(messages.slice(0, count))))!;
}

/** Reads what a fork inherits, refusing (nothing written) a missing, deleted or too large source or an offset past it. */
export async function planFork(env: Env, fork: ForkRequest): Promise<ForkPlan> {
  const topic = await findStreamTopic(env, streamTopicName(fork.sourcePath), { refresh: true });
  const source = topic && streamInfoOf(topic);
  if (!source || isExpired(source, Date.now())) throw notFound();
  if (source.softDeleted) throw new StreamError(409, "the source stream was deleted");
  const tail = (await streamTail(env, source.topic)).nextOffset;
  const offset = fork.offset ?? tail;
  if (offset > tail || (fork.subOffset > 0 && offset >= tail)) throw new StreamError(400, `the fork offset is past the source's tail`);
  const records: RecordInput[] = [];
  let bytes = 0;
  for (let next = 0; next < offset + (fork.subOffset > 0 ? 1 : 0); ) {
    const read = await readPartition(env, source.topic, 0, { offset: next, maxRecords: fetchMaxRecordsMax, maxBytes: streamForkBytesMax, waitMs: 0 });
    if (read.records.length === 0) break;
    for (const record of read.records) {
      if (record.offset >= offset + (fork.subOffset > 0 ? 1 : 0)) break;
      let value = record.value;
      if (record.offset === offset) value = value === null ? null : prefixOf(source.contentType, value, fork.subOffset);
      bytes += value?.byteLength ?? 0;
      if (bytes > streamForkBytesMax) throw new StreamError(413, `a fork copies at most ${streamForkBytesMax} bytes of its source`);
      records.push({ key: record.key, value, headers: record.headers.filter((header) => header.key !== streamClosedHeader), timestamp: record.timestamp });
    }
    next = read.nextOffset;
  }
  if (fork.subOffset > 0 && records.length <= offset) throw new StreamError(400, "there is no append at the fork offset to take a sub-offset of");
  return { source, offset, subOffset: fork.subOffset, records };
}

/** Batches of at most about 512 KiB of values each: rows of the fork's partition. */
function batchesOf(records: readonly RecordInput[]): Uint8Array[] {
  const batches: Uint8Array[] = [];
  let group: RecordInput[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = (record.value?.byteLength ?? 0) + 64;
    if (group.length > 0 && bytes + size > 512 * 1024) {
      batches.push(encodeRecordBatch(group));
      group = [];
      bytes = 0;
    }
    group.push(record);
    bytes += size;
  }
  if (group.length > 0) batches.push(encodeRecordBatch(group));
  return batches;
}

/** Writes the inherited records into the new fork's topic and counts the fork at its source; answers the fork's tail. */
export async function materializeFork(env: Env, topic: TopicMetadata, plan: ForkPlan): Promise<number> {
  let nextOffset = 0;
  const batches = batchesOf(plan.records);
  for (let at = 0; at < batches.length; at += 16) {
    const answer: AppendAnswer = await callLeader(env, topic, 0, (stub, call) => stub.append({ ...call, batches: batches.slice(at, at + 16), acks: 1 }), { retryUnreachable: false });
    nextOffset = answer.lastOffset + 1;
  }
  // Counted by the controller in one turn (concurrent forks never lose an update); a source
  // deleted meanwhile refuses it, and the fork's topic goes again.
  const counted = await controllerStub(env).countStreamFork(plan.source.topic.name, plan.source.topic.topicId);
  if (!counted.ok) {
    await controllerStub(env).deleteTopic(topic.name);
    forgetTopic(topic.name);
  }
  rememberTopic(unwrap(counted));
  return nextOffset;
}

/** Whether an existing fork is the one a PUT asks for (the offsets it gives, its source). */
export function sameFork(stream: StreamInfo, fork: ForkRequest): boolean {
  if (!stream.fork || stream.fork.source !== streamTopicName(fork.sourcePath)) return false;
  return (fork.offset === undefined || fork.offset === stream.fork.offset) && fork.subOffset === stream.fork.subOffset;
}
