import type { Context } from "hono";
import { TributaryError } from "../../errors.ts";
import { streamReadsMax, streamTopicPollsMax, streamTopicVisitMs } from "../../limits.ts";
import type { Encoding, Isolation } from "../../protocol/schemas.ts";
import type { TopicMetadata } from "../../topics/topic-metadata.ts";
import { clientRegion } from "../client-region.ts";
import type { RouterEnv } from "../context.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { payloadBytesOf, type PartitionRecords } from "../../data-plane/partition-reads.ts";
import { recordsJson } from "../../data-plane/schema-decoding.ts";
import { decodeParam, encodingParam, isolationParam, routeQueries, routeQuery } from "../query.ts";
import { streamQuota } from "../quotas.ts";
import { principalOf } from "../authorize.ts";
import { currentTopic, readStreamed, startOffset, type StreamView } from "./partition-sse.ts";
import { recordsFrame } from "./sse-format.ts";
import { eventStreamResponse } from "./sse-stream.ts";
import { takeStreamSlot } from "./stream-slots.ts";
import { acceptsEventStream } from "./streaming-read.ts";
import { decodeTopicPositions, encodeTopicPositions } from "./topic-position-id.ts";
import { mapBounded } from "../map-bounded.ts";

interface Poll {
  settled: boolean;
  outcome?: { read: PartitionRecords } | { error: unknown };
  promise: Promise<void>;
}

/**
 * Reads every partition of a topic for one stream, at most streamTopicPollsMax long polls at
 * once (docs/api.md and src/limits.ts say what that costs). A poll stays in flight across
 * steps until it answers, so a partition with records is never held up by idle ones, and
 * nothing it read is lost; each partition has at most one poll, so positions only move
 * forward, by what was sent. Partitions the topic gains are read from offset 0.
 */
class TopicStreamReader {
  readonly #polls = new Map<number, Poll>();
  #cursor = 0;
  /** Reads started, the start's offset lookups included: past streamReadsMax the stream ends. */
  reads = 0;

  private readonly env: Env;
  private topic: TopicMetadata;
  private readonly region: string | undefined;
  private readonly positions: number[];
  private readonly encoding: Encoding;
  private readonly isolation: Isolation;
  private readonly decode: boolean;

  constructor(env: Env, topic: TopicMetadata, region: string | undefined, positions: number[], view: StreamView) {
    this.env = env;
    this.topic = topic;
    this.region = region;
    this.positions = positions;
    this.encoding = view.encoding;
    this.isolation = view.isolation;
    this.decode = view.decode;
  }

  async next(waitMs: number): Promise<{ frames: string; fetchedBytes: number; end?: boolean }> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      this.topic = await currentTopic(this.env, this.topic);
      while (this.positions.length < this.topic.partitions.length) this.positions.push(0);
      const count = this.positions.length;
      const pollWaitMs = Math.max(0, Math.min(deadline - Date.now(), Math.floor((streamTopicVisitMs * streamTopicPollsMax) / count), streamTopicVisitMs));
      for (let visited = 0; this.#polls.size < Math.min(streamTopicPollsMax, count) && visited < count && this.reads < streamReadsMax; visited++) {
        const partition = this.#cursor;
        this.#cursor = (this.#cursor + 1) % count;
        if (!this.#polls.has(partition)) this.#start(partition, pollWaitMs);
      }
      // Out of reads with none in flight: the end (the client resumes from the last id).
      if (this.#polls.size === 0) return { frames: "", fetchedBytes: 0, end: true };
      await Promise.race([...this.#polls.values()].map((poll) => poll.promise));
      const collected = await this.#collect();
      if (collected.frames !== "" || Date.now() >= deadline) return collected;
    }
  }

  #start(partition: number, waitMs: number): void {
    const streamed = { env: this.env, topic: this.topic, partition, region: this.region, isolation: this.isolation };
    const poll: Poll = { settled: false, promise: Promise.resolve() };
    this.reads++;
    poll.promise = readStreamed(streamed, this.positions[partition]!, waitMs).then(
      (read) => void Object.assign(poll, { settled: true, outcome: { read } }),
      (error: unknown) => void Object.assign(poll, { settled: true, outcome: { error } }),
    );
    this.#polls.set(partition, poll);
  }

  /** The answered polls as one `records` event ("" when none moved a position); a failed poll ends the stream. */
  async #collect(): Promise<{ frames: string; fetchedBytes: number }> {
    const records = [];
    let moved = false;
    let fetchedBytes = 0;
    for (const [partition, poll] of this.#polls) {
      if (!poll.settled) continue;
      this.#polls.delete(partition);
      const outcome = poll.outcome!;
      if ("error" in outcome) throw outcome.error;
      const { read } = outcome;
      fetchedBytes += payloadBytesOf(read.records);
      for (const record of await recordsJson(this.env, read.records, this.encoding, this.decode)) records.push({ partition, ...record });
      if (read.nextOffset !== this.positions[partition]) moved = true;
      this.positions[partition] = read.nextOffset;
    }
    if (!moved && records.length === 0) return { frames: "", fetchedBytes };
    const positions = Object.fromEntries(this.positions.map((offset, partition) => [String(partition), offset]));
    return { frames: recordsFrame(encodeTopicPositions(this.topic.topicId, this.positions), { records, positions }), fetchedBytes };
  }
}

/**
 * `GET /v1/topics/{topic}/records` (docs/api.md, "SSE on a whole topic"): only with `Accept:
 * text/event-stream`. Refused before the stream, as JSON: parameters, an unknown topic, a
 * `Last-Event-ID` this topic's stream did not send. The header wins over `offset`
 * (`earliest` or `latest`, the default).
 */
export async function topicEventStream(c: Context<RouterEnv>, name: string): Promise<Response> {
  const query = routeQuery(c.req.url, routeQueries.sseRead);
  if (!acceptsEventStream(c.req.header("accept"))) {
    throw new TributaryError("INVALID_REQUEST", "GET on a topic's records serves only Server-Sent Events (Accept: text/event-stream); fetch reads one partition: GET /v1/topics/{topic}/partitions/{partition}/records");
  }
  const view = { encoding: encodingParam(query.encoding), isolation: isolationParam(query.isolation), decode: decodeParam(query.decode) };
  if (query.offset !== undefined && query.offset !== "earliest" && query.offset !== "latest") {
    throw new TributaryError("INVALID_REQUEST", "offset of a topic stream must be earliest or latest (Last-Event-ID resumes at exact offsets)");
  }
  const release = takeStreamSlot(c.get("credential")); // past the bound: refused before any read
  try {
    return await startTopicStream(c, name, query.offset, view, release);
  } catch (error) {
    release();
    throw error;
  }
}

async function startTopicStream(c: Context<RouterEnv>, name: string, offset: string | undefined, view: StreamView, release: () => void): Promise<Response> {
  const topic = await topicMetadata(c.env, name);
  const lastEventId = c.req.header("last-event-id");
  const partitions = topic.partitions.map((placement) => placement.partition);
  const positions =
    lastEventId !== undefined
      ? decodeTopicPositions(lastEventId, topic.topicId, partitions.length)
      : await mapBounded(partitions, streamTopicPollsMax, (partition) => startOffset(c.env, topic, partition, offset));
  const reader = new TopicStreamReader(c.env, topic, clientRegion(c.req.raw), positions, view);
  reader.reads = lastEventId === undefined ? partitions.length : 0;
  return eventStreamResponse(reader, { release, signal: c.req.raw.signal, quota: streamQuota(c.env, c.executionCtx, principalOf(c)) });
}
