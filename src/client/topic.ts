/**
 * One topic as a resource (s2's `basin().stream()` shape): `tributary.topic("orders")`
 * produces without lingering — one binary request per partition, in parallel — and fetches
 * one partition's stored batches, decoded on the client.
 */
import { TributaryError } from "../errors.ts";
import { fetchMaxRecordsMax, streamCatchUpFetchBytes } from "../limits.ts";
import { parseAbortedTransactions, type AbortedTransaction } from "../protocol/aborted-transactions.ts";
import { fetchHeaders, recordBatchContentType } from "../protocol/content-types.ts";
import { partitionForKey } from "../protocol/partitioner.ts";
import type { RecordInput } from "../protocol/record-batch.ts";
import { batchBytesMax, partitionRetryRule, requestBytesMax, splitIntoBatches, writePartition } from "./partition-write.ts";
import { decodeFetchedBatches, isolationOf, partitionOf, recordBytes, toRecordInput, type ConsumedMessage, type Message } from "./records.ts";
import { withRetries } from "./retry.ts";
import { path } from "./transport.ts";
import { Secret } from "./secret.ts";
import { StickyPartitioner } from "./sticky-partitioner.ts";
import { partitionBatchStream, partitionStream, topicStream, type PartitionStreamOptions, type StreamContext, type StreamTopicCalls, type TopicStreamOptions } from "./stream.ts";
import type { Acks, FetchResult, ReadToken, RecordMetadata, Topic, WriteToken } from "./types.ts";

export interface FetchOptions {
  /** 1–10000, default 500 (whole batches are counted). */
  maxRecords?: number;
  /** 1 B – 8 MiB, default 1 MiB; the first batch always comes. */
  maxBytes?: number;
  /** Long-poll up to this long (0–30000) when nothing is available yet. Default 0. */
  waitMs?: number;
  signal?: AbortSignal;
  /**
   * Keep retrying retriable failures (the server restarting, unreachable) until `signal`
   * aborts, instead of giving up after `retry.retries`: for a reader that follows a partition.
   * The delay stays capped at `retry.maxBackoffMs`; each retry is logged.
   */
  retryForever?: boolean;
  /**
   * Read past open transactions and include aborted ones' records (Kafka's
   * `isolation.level=read_uncommitted`). Default false: `read_committed`, records below the last
   * stable offset only, aborted transactions' records skipped (docs/transactions.md).
   */
  readUncommitted?: boolean;
}

export interface WriteTokenOptions {
  /** How long the token lives, in ms; the server's default is 10 minutes, its maximum an hour. */
  ttlMs?: number;
}

export type ReadTokenOptions = WriteTokenOptions;

export interface ProduceOptions {
  acks?: Acks;
  signal?: AbortSignal;
}

/** Consecutive slices of one partition's records, each a request of at most requestBytesMax. */
function requestSlices(records: RecordInput[]): RecordInput[][] {
  const slices: RecordInput[][] = [];
  let slice: RecordInput[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = (record.key?.length ?? 0) + (record.value?.length ?? 0) + 64;
    if (slice.length > 0 && bytes + size > requestBytesMax) {
      slices.push(slice);
      slice = [];
      bytes = 0;
    }
    slice.push(record);
    bytes += size;
  }
  if (slice.length > 0) slices.push(slice);
  return slices;
}

function headerNumber(headers: Headers, name: string): number {
  const value = Number(headers.get(name));
  if (headers.get(name) === null || !Number.isSafeInteger(value)) {
    throw new TributaryError("UNKNOWN_SERVER_ERROR", `binary fetch answer without a valid ${name} header`);
  }
  return value;
}

/** A read_committed fetch's aborted transactions (absent header: none). */
function abortedOf(headers: Headers): AbortedTransaction[] | undefined {
  const text = headers.get(fetchHeaders.abortedTransactions);
  if (text === null) return undefined;
  const aborted = parseAbortedTransactions(text);
  if (aborted === undefined) throw new TributaryError("UNKNOWN_SERVER_ERROR", `binary fetch answer with an unreadable ${fetchHeaders.abortedTransactions} header`);
  return aborted;
}

export class TopicHandle {
  readonly #context: StreamContext;
  readonly name: string;

  constructor(context: StreamContext, name: string) {
    if (typeof name !== "string" || name === "") throw new TypeError("a topic name is a non-empty string");
    this.#context = context;
    this.name = name;
  }

  /**
   * Writes the messages now; resolves with each one's partition, offset and timestamp, in
   * order. Each partition's records are written atomically (up to 8 MiB per request, more in
   * order over several). If a partition fails after others were written, the error carries
   * `data.offsets`: one entry per message, null where it was not acknowledged (as API.md's
   * JSON produce).
   */
  async produce(messages: Message[], options: ProduceOptions = {}): Promise<RecordMetadata[]> {
    if (!Array.isArray(messages) || messages.length === 0) throw new TypeError("produce: messages must be a non-empty array");
    const nowMs = Date.now();
    const inputs = messages.map((message, index) => ({
      record: toRecordInput(message, nowMs, `messages[${index}]`),
      partition: partitionOf(message, `messages[${index}]`),
    }));
    const count = inputs.some((input) => input.partition === undefined) ? await this.#context.metadata.partitionCount(this.name) : 0;
    // Keyless records: about 16 KiB to one partition, then another, as the producer's.
    const keyless = new StickyPartitioner();
    const byPartition = new Map<number, number[]>();
    inputs.forEach(({ record, partition }, index) => {
      const chosen = partition ?? (record.key !== null ? partitionForKey(record.key, count) : keyless.next(count, recordBytes(record)));
      const indexes = byPartition.get(chosen);
      if (indexes) indexes.push(index);
      else byPartition.set(chosen, [index]);
    });
    const results: (RecordMetadata | null)[] = inputs.map(() => null);
    const outcomes = await Promise.allSettled(
      [...byPartition].map(async ([partition, indexes]) => {
        let done = 0;
        for (const slice of requestSlices(indexes.map((index) => inputs[index]!.record))) {
          const batches = splitIntoBatches(slice, batchBytesMax);
          const written = await writePartition(this.#context, { topic: this.name, partition, batches, acks: options.acks ?? "all", signal: options.signal });
          written.forEach((metadata, at) => (results[indexes[done + at]!] = metadata));
          done += written.length;
        }
      }),
    );
    const failed = outcomes.find((outcome) => outcome.status === "rejected");
    if (failed) {
      const error = failed.reason;
      if (!(error instanceof TributaryError)) throw error;
      throw new TributaryError(error.code, error.message, { ...error.data, offsets: results });
    }
    return results as RecordMetadata[];
  }

  /** Records of one partition from `offset` (binary fetch, decoded here), with where to continue. */
  async fetch(partition: number, offset: number, options: FetchOptions = {}): Promise<FetchResult> {
    const request = {
      method: "GET" as const,
      path: path("topics", this.name, "partitions", partition, "records"),
      query: { offset, maxRecords: options.maxRecords, maxBytes: options.maxBytes, waitMs: options.waitMs, isolation: isolationOf(options.readUncommitted) },
      accept: recordBatchContentType,
      waitMs: options.waitMs,
      signal: options.signal,
    };
    return withRetries(
      () =>
        this.#context.transport.call(request, async (response) => {
          const body = new Uint8Array(await response.arrayBuffer());
          const highWatermark = headerNumber(response.headers, fetchHeaders.highWatermark);
          // A server from before transactions sends no last stable offset: nothing is open there.
          const lastStableOffset = response.headers.has(fetchHeaders.lastStableOffset) ? headerNumber(response.headers, fetchHeaders.lastStableOffset) : highWatermark;
          const committed = options.readUncommitted !== true;
          return {
            records: decodeFetchedBatches(body, offset, committed ? lastStableOffset : highWatermark, committed ? abortedOf(response.headers) : undefined),
            nextOffset: headerNumber(response.headers, fetchHeaders.nextOffset),
            highWatermark,
            lastStableOffset,
            logStartOffset: headerNumber(response.headers, fetchHeaders.logStartOffset),
          };
        }),
      {
        policy: this.#context.policy,
        log: this.#context.log,
        signal: options.signal,
        shouldRetry: partitionRetryRule(this.#context, this.name, partition),
        forever: options.retryForever === true,
      },
    );
  }

  /** The topic's description (partitions with leaders and offsets, every config). */
  async describe(): Promise<Topic> {
    return this.#context.metadata.topic(this.name, { refresh: true });
  }

  /**
   * `earliest` (log start), `latest` (high watermark; with `readUncommitted: false` the last
   * stable offset, where a read_committed reader stands), or the first offset at or after a timestamp.
   */
  async offset(partition: number, at: "earliest" | "latest" | number, options: { readUncommitted?: boolean } = {}): Promise<{ offset: number; timestamp?: number }> {
    return withRetries(
      () =>
        this.#context.transport.json<{ offset: number; timestamp?: number }>({
          method: "GET",
          path: path("topics", this.name, "partitions", partition, "offsets"),
          query: { at, ...(options.readUncommitted === false ? { isolation: "read_committed" } : {}) },
        }),
      { policy: this.#context.policy, log: this.#context.log, shouldRetry: partitionRetryRule(this.#context, this.name, partition) },
    );
  }

  /**
   * Where the partition's leader epoch `leaderEpoch` ended (Kafka's OffsetForLeaderEpoch,
   * KIP-320; docs/api.md): the first offset of the next epoch, or the high watermark for the
   * latest; `{ leaderEpoch: -1, offset: -1 }` for an epoch after the latest. A reader that
   * recorded the epoch of what it read checks with it that the log was not cut under it.
   */
  async epochEnd(partition: number, leaderEpoch: number): Promise<{ leaderEpoch: number; offset: number }> {
    return withRetries(
      () =>
        this.#context.transport.json<{ leaderEpoch: number; offset: number }>({
          method: "GET",
          path: path("topics", this.name, "partitions", partition, "offsets"),
          query: { at: "epoch-end", leaderEpoch: String(leaderEpoch) },
        }),
      { policy: this.#context.policy, log: this.#context.log, shouldRetry: partitionRetryRule(this.#context, this.name, partition) },
    );
  }

  /**
   * A short-lived token that may only produce to this topic, for a web page to hold instead
   * of a long-lived secret (docs/api.md, "Browser write tokens"). The caller needs `write` on the topic;
   * the token lives at most as long as the caller's own token and dies with it.
   */
  async writeToken(options: WriteTokenOptions = {}): Promise<WriteToken> {
    return this.#mintToken("write-tokens", options);
  }

  /**
   * A short-lived token that may only read and describe this topic (docs/api.md, "Read tokens
   * for browsers"): what a page passes as `?access_token=` to an `EventSource` or a WebSocket.
   * The caller needs `read` on the topic; as a write token, it lives at most an hour and never
   * longer than the caller's own token.
   */
  async readToken(options: ReadTokenOptions = {}): Promise<ReadToken> {
    return this.#mintToken("read-tokens", options);
  }

  /** One partition as a resource: `topic("orders").partition(2).stream({ from: "earliest" })`. */
  partition(partition: number): PartitionHandle {
    if (!Number.isSafeInteger(partition) || partition < 0) throw new TypeError("a partition is an integer >= 0");
    return new PartitionHandle(this, this.#context, partition);
  }

  /**
   * Every partition's records as they are committed, merged (SSE on the whole topic), as an
   * async iterator that resumes across disconnects with nothing lost or repeated.
   * `for await (const record of topic.stream({ from: "earliest" })) …` (docs/client.md, "Streams").
   */
  stream(options: TopicStreamOptions = {}): AsyncGenerator<ConsumedMessage, void, undefined> {
    return topicStream(this.#context, this.name, options);
  }

  /** Retried on retriable errors: the server stores nothing, so a lost answer only leaves an unused token. */
  async #mintToken(kind: "write-tokens" | "read-tokens", options: WriteTokenOptions): Promise<WriteToken> {
    const answer = await withRetries(
      () =>
        this.#context.transport.json<{ token: string; topic: string; expiresAt: number }>({
          method: "POST",
          path: path("topics", this.name, kind),
          json: options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs },
        }),
      { policy: this.#context.policy, log: this.#context.log },
    );
    return { token: new Secret(answer.token), topic: answer.topic, expiresAt: answer.expiresAt };
  }
}

/** One partition of a topic: `topic("orders").partition(2)`. */
export class PartitionHandle {
  readonly #topic: TopicHandle;
  readonly #context: StreamContext;
  readonly partition: number;

  constructor(topic: TopicHandle, context: StreamContext, partition: number) {
    this.#topic = topic;
    this.#context = context;
    this.partition = partition;
  }

  get topic(): string {
    return this.#topic.name;
  }

  /**
   * The partition's records as they are committed, as an async iterator that resumes across
   * disconnects (and server restarts) with nothing lost or repeated: over a WebSocket where
   * the runtime has one, else SSE (docs/client.md, "Streams").
   */
  stream(options: PartitionStreamOptions = {}): AsyncGenerator<ConsumedMessage, void, undefined> {
    return partitionStream(this.#context, this.#calls(), this.#topic.name, this.partition, options);
  }

  /**
   * The same stream, the records that arrived together (a frame, a fetch) at a time: no
   * per-record step between them. What the group consumer reads (docs/client.md, "Streams").
   */
  streamBatches(options: PartitionStreamOptions = {}): AsyncGenerator<ConsumedMessage[], void, undefined> {
    return partitionBatchStream(this.#context, this.#calls(), this.#topic.name, this.partition, options);
  }

  #calls(): StreamTopicCalls {
    const topic = this.#topic;
    return {
      latestOffset: async (partition, _signal, readUncommitted) => (await topic.offset(partition, "latest", { readUncommitted })).offset,
      readToken: () => topic.readToken(),
      catchUpFetch: (partition, offset, signal, readUncommitted) =>
        topic.fetch(partition, offset, { maxRecords: fetchMaxRecordsMax, maxBytes: streamCatchUpFetchBytes, signal, readUncommitted }),
    };
  }
}
