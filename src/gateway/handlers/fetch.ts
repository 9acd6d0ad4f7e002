/**
 * Fetch: each partition through Tributary's binary fetch, the stored RecordBatch v2 bytes
 * passed through untouched (whole batches: the client skips records before its offset, as with
 * Kafka). MaxWaitMs and MinBytes make a long poll across the requested partitions: a first
 * round answers at once what is there; when that is fewer than MinBytes, the partitions that had
 * nothing are asked again with `waitMs`, and the answer goes as soon as MinBytes have come or
 * the wait is over (the other polls are then abandoned). Last stable offset = high watermark
 * (no transactions). No fetch sessions: sessionId 0 tells the client to send full requests.
 */
import { fetchMaxBytesMax, fetchMaxRecordsMax, fetchWaitMsMax } from "../../limits.ts";
import { fetchHeaders, recordBatchContentType } from "../../protocol/content-types.ts";
import { path } from "../../client/transport.ts";
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { isStaleMetadata } from "./stale.ts";

interface FetchRequest {
  maxWaitMs: number;
  minBytes: number;
  maxBytes?: number;
  topics: { topic: string; partitions: { partition: number; fetchOffset: bigint; partitionMaxBytes: number }[] }[];
}

interface PartitionAnswer {
  partitionIndex: number;
  errorCode: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  abortedTransactions: [];
  preferredReadReplica: number;
  records: Uint8Array;
  throttleTimeMs: number;
}

interface Wanted {
  topic: string;
  partition: number;
  offset: number;
  maxBytes: number;
}

const empty = new Uint8Array(0);

export async function fetch(request: FetchRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  // Partitions are read in parallel, so the request's MaxBytes bounds each of them (Kafka's KIP-74 lets an answer exceed it).
  const requestMaxBytes = request.maxBytes ?? fetchMaxBytesMax;
  const wanted: Wanted[] = request.topics.flatMap(({ topic, partitions }) =>
    partitions.map((p) => ({ topic, partition: p.partition, offset: Number(p.fetchOffset), maxBytes: Math.min(Math.max(Math.min(p.partitionMaxBytes, requestMaxBytes), 1), fetchMaxBytesMax) })),
  );
  const answers = await Promise.all(wanted.map((one) => fetchPartition(one, 0, context)));
  const minBytes = Math.max(request.minBytes, 1);
  const waitMs = Math.min(Math.max(request.maxWaitMs, 0), fetchWaitMsMax);
  let total = answers.reduce((sum, answer) => sum + answer.records.length, 0);
  const idle = answers.flatMap((answer, i) => (answer.errorCode === kafkaErrors.NONE && answer.records.length === 0 ? [i] : []));
  if (total < minBytes && waitMs > 0 && idle.length > 0) {
    const abandon = new AbortController();
    await new Promise<void>((resolve) => {
      let left = idle.length;
      for (const i of idle) {
        fetchPartition(wanted[i]!, waitMs, context, abandon.signal).then((answer) => {
          if (!abandon.signal.aborted && (answer.records.length > 0 || answer.errorCode !== kafkaErrors.NONE)) {
            answers[i] = answer;
            total += answer.records.length;
          }
          left -= 1;
          if (total >= minBytes || left === 0) resolve();
        });
      }
    });
    abandon.abort();
  }
  const throttle = Math.max(0, ...answers.map((answer) => answer.throttleTimeMs));
  const responses = request.topics.map(({ topic }) => ({ topic, partitions: [] as Omit<PartitionAnswer, "throttleTimeMs">[] }));
  wanted.forEach((one, i) => {
    const { throttleTimeMs: _, ...answer } = answers[i]!;
    responses.find((entry) => entry.topic === one.topic)!.partitions.push(answer);
  });
  return { throttleTimeMs: throttle, errorCode: kafkaErrors.NONE, sessionId: 0, responses: responses.filter((entry, i) => responses.findIndex((other) => other.topic === entry.topic) === i) };
}

/** One partition's answer; never throws (an abandoned poll answers an empty result that is not used). */
async function fetchPartition(one: Wanted, waitMs: number, context: GatewayRequestContext, signal?: AbortSignal): Promise<PartitionAnswer> {
  const answer = (errorCode: number, records: Uint8Array, highWatermark: number, logStartOffset: number, throttleTimeMs = 0): PartitionAnswer => ({
    partitionIndex: one.partition,
    errorCode,
    highWatermark: BigInt(highWatermark),
    lastStableOffset: BigInt(highWatermark),
    logStartOffset: BigInt(logStartOffset),
    abortedTransactions: [],
    preferredReadReplica: -1,
    records,
    throttleTimeMs,
  });
  try {
    return await context.transport.call(
      {
        method: "GET",
        path: path("topics", one.topic, "partitions", one.partition, "records"),
        query: { offset: one.offset, maxRecords: fetchMaxRecordsMax, maxBytes: one.maxBytes, waitMs },
        accept: recordBatchContentType,
        waitMs,
        signal,
      },
      async (response) => {
        const body = new Uint8Array(await response.arrayBuffer());
        const number = (name: string) => Number(response.headers.get(name) ?? -1);
        return answer(kafkaErrors.NONE, body, number(fetchHeaders.highWatermark), number(fetchHeaders.logStartOffset));
      },
    );
  } catch (error) {
    if (signal?.aborted) return answer(kafkaErrors.NONE, empty, -1, -1);
    if (isStaleMetadata(error)) context.session.invalidate();
    const data = error instanceof TributaryError ? (error.data as { highWatermark?: number; logStartOffset?: number }) : {};
    return answer(kafkaErrorCode(error), empty, data.highWatermark ?? -1, data.logStartOffset ?? -1, throttleTimeMs(error));
  }
}
