/**
 * Fetch: each partition through Tributary's binary fetch, the stored RecordBatch v2 bytes
 * passed through untouched (whole batches: the client skips records before its offset, as with
 * Kafka). MaxWaitMs and MinBytes make a long poll across the requested partitions: a first
 * round answers at once what is there; when that is fewer than MinBytes, the partitions that had
 * nothing are asked again with `waitMs`, and the answer goes as soon as MinBytes have come or
 * the wait is over (the other polls are then abandoned). The isolation level goes to Tributary's
 * read: read_committed reads stop at the last stable offset, and the answer carries it and the
 * aborted transactions its batches meet (the binary fetch's headers), from which the client
 * skips aborted records, as from Kafka's broker; control batches pass through as stored.
 * No fetch sessions: sessionId 0 tells the client to send full requests. A partition whose
 * currentLeaderEpoch (v9+) is not the partition's is answered FENCED_LEADER_EPOCH or
 * UNKNOWN_LEADER_EPOCH and not read (leader-epoch-check.ts), as by Kafka's broker.
 * From v13 topics are named by id (Metadata's): an id no topic has answers UNKNOWN_TOPIC_ID for
 * its partitions. The answer keeps to the request's MaxBytes and each partition's
 * PartitionMaxBytes as Kafka's broker does (fetch-limits.ts). A partition the answer leaves behind its high watermark is read on at once,
 * while the client decodes the answer (fetch-read-ahead.ts): Kafka's clients send the next Fetch
 * only after handling the last, so this is where the gateway's read overlaps their work. Those
 * reads are larger than a Fetch's bound when the connection's read-ahead bound allows
 * (gatewayReadAheadReadBytes), each answering several Fetches in turn.
 * The reads go over node:http (upstream-read.ts), and the bytes they bring are the answer's
 * records as they came off the socket: nothing is copied between Tributary and the client.
 */
import { binaryFetchMaxRecordsMax, fetchMaxBytesMax, fetchWaitMsMax, gatewayReadAheadBytesMax, gatewayReadAheadDepth, gatewayReadAheadReadBytes } from "../../limits.ts";
import { fetchHeaders } from "../../protocol/content-types.ts";
import { path } from "../../client/transport.ts";
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { baseOffsetAt, firstBytes, keptBytes, piecesAfter, wholeBatchesWithin } from "./fetch-limits.ts";
import { FetchReadAhead, type Split } from "./fetch-read-ahead.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { isInternalTopic } from "../internal-topics.ts";
import { leaderEpochCheck } from "./leader-epoch-check.ts";
import { isStaleMetadata } from "./stale.ts";

interface FetchRequest {
  maxWaitMs: number;
  minBytes: number;
  maxBytes?: number;
  /** 0 read_uncommitted, 1 read_committed. */
  isolationLevel?: number;
  topics: { topic?: string; topicId?: Uint8Array; partitions: { partition: number; fetchOffset: bigint; partitionMaxBytes: number; currentLeaderEpoch?: number }[] }[];
}

interface PartitionAnswer {
  partitionIndex: number;
  errorCode: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  abortedTransactions: AbortedTransaction[];
  preferredReadReplica: number;
  /** The stored RecordBatch bytes as the upstream read delivered them, passed through in pieces (upstream-read.ts). */
  records: Uint8Array[];
  throttleTimeMs: number;
  /** The records' length; not part of Kafka's answer. */
  bytes: number;
  /** Where the next read of the partition starts (Tributary-Next-Offset); not part of Kafka's answer. */
  nextOffset: number;
}

interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
  /** Its ABORT marker's offset, when the read's header names it; not part of Kafka's answer. */
  lastOffset?: number;
}

interface Wanted {
  /** read_committed. */
  committed: boolean;
  /** Undefined: a topic id no topic has. */
  topic: string | undefined;
  /** Its topic's entry in the request. */
  entry: number;
  partition: number;
  offset: number;
  maxBytes: number;
  /** The leader epoch the client knows (−1: no check). */
  currentLeaderEpoch: number;
}

const empty: Uint8Array[] = [];

/** Each connection's read-aheads (made with its credentials' session of the time), dropped when it closes. */
const readAheads = new Map<number, { readAhead: FetchReadAhead<PartitionAnswer>; session: GatewayRequestContext["session"] }>();

function readAheadOf(context: GatewayRequestContext): FetchReadAhead<PartitionAnswer> {
  const held = readAheads.get(context.connectionId);
  if (held?.session === context.session) return held.readAhead;
  // Another token since (SASL): what was read with the old one is not served.
  held?.readAhead.close();
  const readAhead = new FetchReadAhead<PartitionAnswer>(splitAnswer);
  readAheads.set(context.connectionId, { readAhead, session: context.session });
  if (held === undefined) {
    context.onClose(() => {
      readAheads.get(context.connectionId)?.readAhead.close();
      readAheads.delete(context.connectionId);
    });
  }
  return readAhead;
}

const highWatermarkHeader = fetchHeaders.highWatermark.toLowerCase();
const logStartOffsetHeader = fetchHeaders.logStartOffset.toLowerCase();
const nextOffsetHeader = fetchHeaders.nextOffset.toLowerCase();
const lastStableOffsetHeader = fetchHeaders.lastStableOffset.toLowerCase();
const abortedTransactionsHeader = fetchHeaders.abortedTransactions.toLowerCase();

/** A read made ahead serves a Fetch of the same isolation level only. */
const partitionKey = (one: Wanted) => `${one.partition}:${one.committed ? "committed" : "uncommitted"}:${one.topic}`;

/** The aborted transactions a read_committed read's header names (docs/api.md), as Kafka's answer holds them. */
function abortedTransactionsOf(header: string | undefined): AbortedTransaction[] {
  if (header === undefined) return [];
  const entries = JSON.parse(header) as { producerId: number; firstOffset: number; lastOffset?: number }[];
  return entries.map(({ producerId, firstOffset, lastOffset }) => ({ producerId: BigInt(producerId), firstOffset: BigInt(firstOffset), ...(lastOffset === undefined ? {} : { lastOffset }) }));
}

/** Both answers' aborted transactions, each once. */
function mergedAborted(a: AbortedTransaction[], b: AbortedTransaction[]): AbortedTransaction[] {
  const seen = new Set(a.map((entry) => `${entry.producerId}:${entry.firstOffset}`));
  return [...a, ...b.filter((entry) => !seen.has(`${entry.producerId}:${entry.firstOffset}`))];
}

export async function fetch(request: FetchRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  // Partitions are read in parallel, each within its own bound and the request's; the answer is then cut to the request's (fetch-limits.ts).
  const requestMaxBytes = request.maxBytes ?? fetchMaxBytesMax;
  const byId = context.apiVersion >= 13;
  const names = await Promise.all(request.topics.map(({ topic, topicId }) => (byId ? context.session.topicNamed(topicId!) : topic)));
  const wanted: Wanted[] = request.topics.flatMap(({ partitions }, t) =>
    partitions.map((p) => ({ committed: request.isolationLevel === 1, topic: names[t], entry: t, partition: p.partition, currentLeaderEpoch: p.currentLeaderEpoch ?? -1, offset: Number(p.fetchOffset), maxBytes: Math.min(Math.max(Math.min(p.partitionMaxBytes, requestMaxBytes), 1), fetchMaxBytesMax) })),
  );
  const readAhead = readAheadOf(context);
  readAhead.dropOthers(new Set(wanted.map(partitionKey)));
  const answers = await Promise.all(wanted.map(async (one) => (await epochRefusal(one, context)) ?? fromReadAhead(readAhead, one, context) ?? fetchPartition(one, 0, context)));
  const minBytes = Math.max(request.minBytes, 1);
  const waitMs = Math.min(Math.max(request.maxWaitMs, 0), fetchWaitMsMax);
  let total = answers.reduce((sum, answer) => sum + answer.bytes, 0);
  const idle = answers.flatMap((answer, i) => (answer.errorCode === kafkaErrors.NONE && answer.bytes === 0 ? [i] : []));
  if (total < minBytes && waitMs > 0 && idle.length > 0) {
    const abandon = new AbortController();
    await new Promise<void>((resolve) => {
      let left = idle.length;
      for (const i of idle) {
        fetchPartition(wanted[i]!, waitMs, context, abandon.signal).then((answer) => {
          if (!abandon.signal.aborted && (answer.bytes > 0 || answer.errorCode !== kafkaErrors.NONE)) {
            answers[i] = answer;
            total += answer.bytes;
          }
          left -= 1;
          if (total >= minBytes || left === 0) resolve();
        });
      }
    });
    abandon.abort();
  }
  // Reads made ahead that have answered too go in the same answer, as far as its byte bound allows.
  wanted.forEach((one, i) => {
    if (one.topic !== undefined) answers[i] = withAnswered(readAhead, one, answers[i]!);
  });
  // The request's MaxBytes over all partitions, in request order (KIP-74).
  const kept = keptBytes(
    answers.map((answer, i) => ({ records: answer.records, bytes: answer.bytes, partitionMaxBytes: wanted[i]!.maxBytes })),
    requestMaxBytes,
  );
  kept.forEach((bytes, i) => {
    if (bytes < answers[i]!.bytes) answers[i] = cutTo(answers[i]!, bytes, wanted[i]!.offset);
  });
  // Partitions left behind their high watermark are read on while the client handles this answer.
  wanted.forEach((one, i) => {
    const nextOffset = one.topic === undefined ? undefined : readOnFrom(answers[i]!, one.offset);
    if (nextOffset === undefined) return;
    const readBytes = readAheadBytes(one.maxBytes, wanted.length);
    readAhead.start(partitionKey(one), nextOffset, one.maxBytes, (offset, signal) => fetchPartition({ ...one, offset, maxBytes: readBytes }, 0, context, signal), readOnFrom, readBytes);
  });
  const throttle = Math.max(0, ...answers.map((answer) => answer.throttleTimeMs));
  // A topic named twice answers once, with every partition asked for.
  const keys = request.topics.map(({ topic, topicId }) => (byId ? Buffer.from(topicId!).toString("hex") : topic!));
  const responses = request.topics.map(({ topic, topicId }) => ({ topic, topicId, partitions: [] as Omit<PartitionAnswer, "throttleTimeMs" | "nextOffset" | "bytes">[] }));
  wanted.forEach((one, i) => {
    const { throttleTimeMs: _, nextOffset: __, bytes: ___, ...answer } = answers[i]!;
    responses[keys.indexOf(keys[one.entry]!)]!.partitions.push(answer);
  });
  return { throttleTimeMs: throttle, errorCode: kafkaErrors.NONE, sessionId: 0, responses: responses.filter((_, i) => keys.indexOf(keys[i]!) === i) };
}

/**
 * The bound of each read made ahead of Fetches bound to `maxBytes` naming `partitions`: up to
 * gatewayReadAheadReadBytes, as the connection's read-ahead bound allows every partition its
 * chain; never less than the Fetch's own bound.
 */
function readAheadBytes(maxBytes: number, partitions: number): number {
  const share = Math.floor(gatewayReadAheadBytesMax / (gatewayReadAheadDepth * partitions));
  // Both are within fetchMaxBytesMax: a partition's maxBytes as the request is read, gatewayReadAheadReadBytes by its value.
  return Math.max(maxBytes, Math.min(gatewayReadAheadReadBytes, share));
}

/**
 * A read's answer cut for a Fetch with `room` bytes left (fetch-read-ahead.ts's Splitter):
 * whole batches, the rest starting at the first batch left out. A failed or empty answer, or
 * bytes that do not walk as batches, go whole to the Fetch that takes the read. Each part names
 * the aborted transactions it meets: those that begin before its end, and those whose ABORT
 * marker is not before its start (as Kafka's broker names them for a Fetch from mid-range).
 */
function splitAnswer(answer: PartitionAnswer, offset: number, room: number, firstAlwaysComes: boolean): Split<PartitionAnswer> | undefined {
  if (answer.errorCode !== kafkaErrors.NONE || answer.bytes === 0) return firstAlwaysComes ? { head: answer } : undefined;
  const { kept, first } = wholeBatchesWithin(answer.records, answer.bytes, room);
  const cut = kept > 0 ? kept : firstAlwaysComes ? first : 0;
  if (cut === 0) return undefined;
  if (cut === answer.bytes) return { head: answer };
  const head = cutTo(answer, cut, offset);
  const end = head.nextOffset;
  return {
    head: { ...head, abortedTransactions: answer.abortedTransactions.filter((entry) => entry.firstOffset < BigInt(end)) },
    rest: {
      offset: end,
      answer: { ...answer, records: piecesAfter(answer.records, cut), bytes: answer.bytes - cut, abortedTransactions: answer.abortedTransactions.filter((entry) => entry.lastOffset === undefined || entry.lastOffset >= end) },
    },
  };
}

/** The answer's first `bytes` (whole batches); it reads on from the first batch left out. */
function cutTo(answer: PartitionAnswer, bytes: number, offset: number): PartitionAnswer {
  const nextOffset = bytes === 0 ? offset : baseOffsetAt(answer.records, bytes);
  return { ...answer, records: firstBytes(answer.records, bytes), bytes, nextOffset };
}

/**
 * Where to read on after an answer of a read from `offset`: undefined when it failed, was empty
 * or reached the last stable offset (the high watermark where no transaction is open; a
 * read_committed read stops there, and an open transaction's records will not stay long).
 */
function readOnFrom({ errorCode, bytes, nextOffset, lastStableOffset }: PartitionAnswer, offset: number): number | undefined {
  return errorCode !== kafkaErrors.NONE || bytes === 0 || nextOffset <= offset || nextOffset >= Number(lastStableOffset) ? undefined : nextOffset;
}

/**
 * `answer` followed by the partition's reads made ahead that start where it ends and have
 * already answered, while their bytes fit the partition's bound (Kafka's clients take every
 * whole batch of an answer; a consumer catching up makes fewer round trips).
 */
function withAnswered(readAhead: FetchReadAhead<PartitionAnswer>, one: Wanted, answer: PartitionAnswer): PartitionAnswer {
  let merged = answer;
  let offset = one.offset;
  for (let from = readOnFrom(merged, offset); from !== undefined; from = readOnFrom(merged, offset)) {
    const bytes = merged.bytes;
    const more = readAhead.takeAnswered(partitionKey(one), from, one.maxBytes, one.maxBytes - bytes);
    if (more === undefined) break;
    merged = {
      ...more,
      records: [...merged.records, ...more.records],
      bytes: bytes + more.bytes,
      throttleTimeMs: Math.max(merged.throttleTimeMs, more.throttleTimeMs),
      abortedTransactions: mergedAborted(merged.abortedTransactions, more.abortedTransactions),
    };
    offset = from;
  }
  return merged;
}

/** The read made ahead for this Fetch of the partition; a failed or empty one is read again (undefined: none was made). */
function fromReadAhead(readAhead: FetchReadAhead<PartitionAnswer>, one: Wanted, context: GatewayRequestContext): Promise<PartitionAnswer> | undefined {
  return readAhead
    .take(partitionKey(one), one.offset, one.maxBytes)
    ?.then((answer) => (answer.errorCode === kafkaErrors.NONE && answer.bytes > 0 ? answer : fetchPartition(one, 0, context)));
}

/** The answer of a partition whose client's leader epoch is not the partition's; undefined when it is (or is not checked). */
async function epochRefusal(one: Wanted, context: GatewayRequestContext): Promise<PartitionAnswer | undefined> {
  if (one.topic === undefined || isInternalTopic(one.topic)) return undefined;
  const errorCode = await leaderEpochCheck(context, one.topic, one.partition, one.currentLeaderEpoch);
  return errorCode === kafkaErrors.NONE ? undefined : partitionAnswer(one, errorCode, empty, 0, -1, -1);
}

/** A partition's answer (−1 where a failed read knows no offsets). */
function partitionAnswer(one: Wanted, errorCode: number, records: Uint8Array[], bytes: number, highWatermark: number, logStartOffset: number, throttleTimeMs = 0, nextOffset = one.offset, lastStableOffset = highWatermark, abortedTransactions: AbortedTransaction[] = []): PartitionAnswer {
  return {
    partitionIndex: one.partition,
    errorCode,
    highWatermark: BigInt(highWatermark),
    lastStableOffset: BigInt(lastStableOffset),
    logStartOffset: BigInt(logStartOffset),
    abortedTransactions,
    preferredReadReplica: -1,
    records,
    bytes,
    throttleTimeMs,
    nextOffset,
  };
}

/** One partition's answer; never throws (an abandoned poll answers an empty result that is not used). */
async function fetchPartition(one: Wanted, waitMs: number, context: GatewayRequestContext, signal?: AbortSignal): Promise<PartitionAnswer> {
  if (one.topic === undefined) return partitionAnswer(one, kafkaErrors.UNKNOWN_TOPIC_ID, empty, 0, -1, -1);
  if (isInternalTopic(one.topic)) return partitionAnswer(one, kafkaErrors.NONE, empty, 0, 0, 0);
  try {
    const read = await context.session.readRecords({
      path: path("topics", one.topic, "partitions", one.partition, "records"),
      query: { offset: one.offset, maxRecords: binaryFetchMaxRecordsMax, maxBytes: one.maxBytes, waitMs, isolation: one.committed ? "read_committed" : "read_uncommitted" },
      waitMs,
      signal,
    });
    const number = (name: string) => Number(read.header(name) ?? -1);
    const highWatermark = number(highWatermarkHeader);
    const lastStableOffset = Number(read.header(lastStableOffsetHeader) ?? highWatermark);
    const aborted = one.committed ? abortedTransactionsOf(read.header(abortedTransactionsHeader)) : [];
    return partitionAnswer(one, kafkaErrors.NONE, read.chunks, read.bytes, highWatermark, number(logStartOffsetHeader), 0, number(nextOffsetHeader), lastStableOffset, aborted);
  } catch (error) {
    if (signal?.aborted) return partitionAnswer(one, kafkaErrors.NONE, empty, 0, -1, -1);
    if (isStaleMetadata(error)) context.session.invalidate();
    const data = error instanceof TributaryError ? (error.data as { highWatermark?: number; logStartOffset?: number }) : {};
    return partitionAnswer(one, kafkaErrorCode(error), empty, 0, data.highWatermark ?? -1, data.logStartOffset ?? -1, throttleTimeMs(error));
  }
}
