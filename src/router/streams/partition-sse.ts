import type { Context } from "hono";
import { TributaryError } from "../../errors.ts";
import { fetchMaxBytesDefault, fetchMaxRecordsDefault, streamReadsMax } from "../../limits.ts";
import type { Encoding, Isolation } from "../../protocol/schemas.ts";
import type { TopicMetadata } from "../../topics/topic-metadata.ts";
import { clientRegion } from "../client-region.ts";
import type { RouterEnv } from "../context.ts";
import { placementOf } from "../../data-plane/leader-calls.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { listOffset, payloadBytesOf, readPartition, type PartitionRecords } from "../../data-plane/partition-reads.ts";
import { recordsJson } from "../../data-plane/schema-decoding.ts";
import { decodeParam, encodingParam, integerParam, isolationParam, routeQueries, routeQuery } from "../query.ts";
import { streamQuota } from "../quotas.ts";
import { principalOf } from "../authorize.ts";
import { recordsFrame } from "./sse-format.ts";
import { eventStreamResponse } from "./sse-stream.ts";
import { takeStreamSlot } from "./stream-slots.ts";

/** One partition's reads for a stream: the records a fetch with default bounds returns. */
export interface StreamedPartition {
  env: Env;
  topic: TopicMetadata;
  partition: number;
  region: string | undefined;
  isolation: Isolation;
}

/** How a stream shows records: their encoding, which (read_committed, the default, or read_uncommitted), and whether decoded by schema (`decode=schema`). */
export interface StreamView {
  encoding: Encoding;
  isolation: Isolation;
  decode: boolean;
}

/**
 * The topic as the stream knows it, re-read from the router's metadata cache: deleted (or
 * deleted and created again under the same name, a new topic id) is 404
 * UNKNOWN_TOPIC_OR_PARTITION, which ends the stream with an error event.
 */
export async function currentTopic(env: Env, streamed: TopicMetadata): Promise<TopicMetadata> {
  const topic = await topicMetadata(env, streamed.name);
  if (topic.topicId !== streamed.topicId) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${streamed.name} has been deleted`);
  return topic;
}

export function readStreamed(read: StreamedPartition, offset: number, waitMs: number): Promise<PartitionRecords> {
  const options = { offset, maxRecords: fetchMaxRecordsDefault, maxBytes: fetchMaxBytesDefault, waitMs, isolation: read.isolation };
  return readPartition(read.env, read.topic, read.partition, options, read.region);
}

/** Where a stream starts: an offset, `earliest` (the log start) or `latest` (the high watermark, the default). */
export async function startOffset(env: Env, topic: TopicMetadata, partition: number, text: string | undefined): Promise<number> {
  if (text === undefined || text === "latest" || text === "earliest") {
    return (await listOffset(env, topic, partition, text ?? "latest")).offset;
  }
  return integerParam("offset", text, { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
}

async function partitionData(env: Env, read: PartitionRecords, view: StreamView) {
  return {
    records: await recordsJson(env, read.records, view.encoding, view.decode),
    nextOffset: read.nextOffset,
    highWatermark: read.highWatermark,
    logStartOffset: read.logStartOffset,
  };
}

/**
 * `GET /v1/topics/{topic}/partitions/{partition}/records` with `Accept: text/event-stream`
 * (docs/api.md, "SSE on a partition"). Everything that can be refused is refused before the
 * stream, as JSON with its status: the parameters, `Last-Event-ID` (the offset to resume
 * from, winning over `offset`), the partition (404) and the offset (a first read, 416). Then
 * each long poll that brings records is one `records` event whose id is the next offset.
 */
export async function partitionEventStream(c: Context<RouterEnv>, name: string, partition: number): Promise<Response> {
  const query = routeQuery(c.req.url, routeQueries.sseRead);
  const view = { encoding: encodingParam(query.encoding), isolation: isolationParam(query.isolation), decode: decodeParam(query.decode) };
  const lastEventId = c.req.header("last-event-id");
  const resumeAt = lastEventId === undefined ? undefined : integerParam("Last-Event-ID", lastEventId, { min: 0, max: Number.MAX_SAFE_INTEGER });
  const release = takeStreamSlot(c.get("credential")); // past the bound: refused before any read
  try {
    return await startPartitionStream(c, name, partition, { ...view, resumeAt, offset: query.offset }, release);
  } catch (error) {
    release();
    throw error;
  }
}

async function startPartitionStream(
  c: Context<RouterEnv>,
  name: string,
  partition: number,
  start: StreamView & { resumeAt: number | undefined; offset: string | undefined },
  release: () => void,
): Promise<Response> {
  const { isolation, resumeAt } = start;
  let topic = await topicMetadata(c.env, name);
  if (!topic.partitions[partition]) topic = await topicMetadata(c.env, name, { refresh: true }); // grown since cached?
  placementOf(topic, partition);
  const streamed: StreamedPartition = { env: c.env, topic, partition, region: clientRegion(c.req.raw), isolation };
  let offset = resumeAt ?? (await startOffset(c.env, topic, partition, start.offset));
  let pending: PartitionRecords | undefined = await readStreamed(streamed, offset, 0);
  let reads = 2; // the start offset and the first read
  const source = {
    async next(waitMs: number) {
      let read = pending;
      pending = undefined;
      if (read === undefined) {
        streamed.topic = await currentTopic(c.env, streamed.topic);
        read = await readStreamed(streamed, offset, waitMs);
        reads++;
      }
      const end = reads >= streamReadsMax; // the client resumes from the last id
      if (read.nextOffset === offset && read.records.length === 0) return { frames: "", end };
      offset = read.nextOffset;
      return { frames: recordsFrame(String(read.nextOffset), await partitionData(c.env, read, start)), fetchedBytes: payloadBytesOf(read.records), end };
    },
  };
  return eventStreamResponse(source, { release, signal: c.req.raw.signal, quota: streamQuota(c.env, c.executionCtx, principalOf(c)) });
}
