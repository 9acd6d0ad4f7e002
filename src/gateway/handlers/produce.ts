/**
 * Produce: each partition's RecordBatch bytes go as they are to Tributary's binary produce
 * (`POST /v1/topics/{t}/partitions/{p}/records`, application/vnd.tributary.record-batch),
 * partitions in parallel. An idempotent producer's id, epoch and sequences are in the batch
 * headers and pass through. acks 0, 1 and -1 map to acks=0, 1 and all; with acks=0 nothing is
 * answered (the write still happens before the next request of the connection is handled).
 *
 * The connection hands over a run of consecutive Produce requests at once: those read while
 * the one before them was handled (a producer with several requests in flight). Requests with
 * the same acks are written together, each partition's batches of all of them in one write, in
 * request order (produce-writes.ts); each request is answered with its own offsets.
 *
 * A transactional producer's batches go with its `transactionalId` (the router checks the
 * partition was added to its open transaction), rewritten to the producer identity the server
 * knows when the client reuses an epoch an end bumped (../transactions/, docs/gateway.md).
 */
import { recordBatchContentType } from "../../protocol/content-types.ts";
import { path } from "../../client/transport.ts";
import { noAnswer } from "../no-answer.ts";
import type { GatewayRequestContext, GatewayRunHandler } from "../handler-types.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { outlineOf, writeParts, type PartitionPart, type PartitionPost, type PartOutcome } from "./produce-writes.ts";
import { isInternalTopic } from "../internal-topics.ts";
import { isStaleMetadata } from "./stale.ts";
import { rewriteBatchIdentity } from "../transactions/batch-identity.ts";
import { mappingFor } from "../transactions/producer-mapping.ts";
import { readBatchHeader } from "../../protocol/record-batch.ts";
import { TributaryError } from "../../errors.ts";

interface ProduceRequest {
  transactionalId: string | null;
  acks: number;
  timeoutMs: number;
  /** v13 names topics by `topicId` (resolved to `name` before anything is written; "" for an id no topic has). */
  topicData: { name: string; topicId?: Uint8Array; partitionData: { index: number; records: Uint8Array | null }[] }[];
}

interface PartitionResponse {
  index: number;
  errorCode: number;
  baseOffset: bigint;
  logAppendTimeMs: bigint;
  logStartOffset: bigint;
  recordErrors: RecordError[];
  errorMessage: string | null;
}

/** Produce v8+'s per-record error: the index of a record that made the partition's batch refused. */
interface RecordError {
  batchIndex: number;
  batchIndexErrorMessage: string | null;
}

interface ProduceResponse {
  responses: { name: string; topicId?: Uint8Array; partitionResponses: PartitionResponse[] }[];
  throttleTimeMs: number;
}

interface BinaryProduceAnswer {
  baseOffset?: number;
  timestamp?: number;
}

const acksParameter: Record<number, string> = { [-1]: "all", 0: "0", 1: "1" };

const failed = (index: number, errorCode: number, message: string | null): PartitionResponse => ({
  index,
  errorCode,
  baseOffset: -1n,
  logAppendTimeMs: -1n,
  logStartOffset: -1n,
  recordErrors: [],
  errorMessage: message,
});

/** One partition's records of one request, and where its answer goes. */
interface Slot {
  part: PartitionPart;
  answer: (response: PartitionResponse) => void;
  throttle: (ms: number) => void;
}

export const produce: GatewayRunHandler<ProduceRequest, ProduceResponse | typeof noAnswer> = {
  async run(requests, context) {
    if (context.apiVersion >= 13) requests = await Promise.all(requests.map((request) => namedById(request, context)));
    const answers: (ProduceResponse | typeof noAnswer)[] = [];
    for (let start = 0; start < requests.length; ) {
      let end = start + 1;
      while (end < requests.length && requests[end]!.acks === requests[start]!.acks && requests[end]!.transactionalId === requests[start]!.transactionalId) end += 1;
      answers.push(...(await produceTogether(requests.slice(start, end), context)));
      start = end;
    }
    return answers;
  },
};

/** Requests with the same acks and transactional id: every partition's batches written in request order, partitions in parallel. */
async function produceTogether(requests: readonly ProduceRequest[], context: GatewayRequestContext): Promise<(ProduceResponse | typeof noAnswer)[]> {
  const acks = acksParameter[requests[0]!.acks];
  const byPartition = new Map<string, { topic: string; partition: number; slots: Slot[] }>();
  const answers = requests.map((request) => {
    const answer: ProduceResponse = { responses: [], throttleTimeMs: 0 };
    for (const topic of request.topicData) {
      const partitionResponses: PartitionResponse[] = [];
      answer.responses.push({ name: topic.name, topicId: topic.topicId, partitionResponses });
      for (const { index, records } of topic.partitionData) {
        const at = partitionResponses.push(failed(index, kafkaErrors.NONE, null)) - 1;
        const refusal = refused(request, acks, topic, index, records);
        if (refusal !== undefined) {
          partitionResponses[at] = refusal;
          continue;
        }
        const key = `${topic.name}\u0000${index}`;
        if (request.transactionalId !== null) toServerIdentity(request.transactionalId, records!, key, context);
        let writes = byPartition.get(key);
        if (writes === undefined) byPartition.set(key, (writes = { topic: topic.name, partition: index, slots: [] }));
        writes.slots.push({
          part: { records: records!, outline: outlineOf(records!) },
          answer: (response) => (partitionResponses[at] = response),
          throttle: (ms) => (answer.throttleTimeMs = Math.max(answer.throttleTimeMs, ms)),
        });
      }
    }
    return answer;
  });
  await Promise.all(
    [...byPartition.values()].map(async ({ topic, partition, slots }) => {
      const outcomes = await writeParts(
        slots.map((slot) => slot.part),
        postTo(context, topic, partition, acks!, requests[0]!.transactionalId),
      );
      outcomes.forEach((outcome, index) => answerSlot(slots[index]!, partition, outcome, context));
    }),
  );
  return requests.map((request, index) => (request.acks === 0 ? noAnswer : answers[index]!));
}

/** A v13 request's topics named: each id resolved through the session ("" for an id no topic has: refused per partition). */
async function namedById(request: ProduceRequest, context: GatewayRequestContext): Promise<ProduceRequest> {
  const names = await Promise.all(request.topicData.map(({ topicId }) => (topicId === undefined ? undefined : context.session.topicNamed(topicId))));
  return { ...request, topicData: request.topicData.map((topic, index) => ({ ...topic, name: names[index] ?? "" })) };
}

/** Why a request's partition is not written at all, or undefined when it is. */
function refused(request: ProduceRequest, acks: string | undefined, { name: topic, topicId }: ProduceRequest["topicData"][number], index: number, records: Uint8Array | null): PartitionResponse | undefined {
  if (acks === undefined) return failed(index, kafkaErrors.INVALID_REQUIRED_ACKS, `acks must be -1, 0 or 1, got ${request.acks}`);
  if (topicId !== undefined && topic === "") return failed(index, kafkaErrors.UNKNOWN_TOPIC_ID, "no topic has this id");
  if (records === null || records.length === 0) return failed(index, kafkaErrors.CORRUPT_MESSAGE, "no record batch");
  if (isInternalTopic(topic)) return failed(index, kafkaErrors.INVALID_TOPIC_EXCEPTION, `${topic} is one of Kafka's internal topics: it cannot be written`);
  return undefined;
}

/**
 * A transactional producer's batches as the server knows their producer (the identity the
 * mapping of the request's read order gives the one in their first batch), in place.
 */
function toServerIdentity(transactionalId: string, records: Uint8Array, partitionKey: string, context: GatewayRequestContext): void {
  let first;
  try {
    first = readBatchHeader(records);
  } catch {
    return; // the partition says what is wrong with it
  }
  const mapping = mappingFor(transactionalId, { producerId: first.producerId, producerEpoch: first.producerEpoch }, context.readOrder);
  if (mapping !== undefined) rewriteBatchIdentity(records, mapping, partitionKey);
}

function postTo(context: GatewayRequestContext, topic: string, partition: number, acks: string, transactionalId: string | null): PartitionPost {
  return async (records) => {
    const answer = await context.transport.json<BinaryProduceAnswer | undefined>({
      method: "POST",
      path: path("topics", topic, "partitions", partition, "records"),
      query: transactionalId === null ? { acks } : { acks, transactionalId },
      bytes: records,
      contentType: recordBatchContentType,
    });
    return { baseOffset: answer?.baseOffset ?? -1, timestamp: answer?.timestamp ?? -1 };
  };
}

function answerSlot(slot: Slot, index: number, outcome: PartOutcome, context: GatewayRequestContext): void {
  if (outcome.ok) {
    slot.answer({ index, errorCode: kafkaErrors.NONE, baseOffset: BigInt(outcome.baseOffset), logAppendTimeMs: BigInt(outcome.timestamp), logStartOffset: -1n, recordErrors: [], errorMessage: null });
    return;
  }
  const { error } = outcome;
  if (isStaleMetadata(error)) context.session.invalidate();
  slot.throttle(throttleTimeMs(error));
  // A transactional write of a fenced producer: Produce knows it as INVALID_PRODUCER_EPOCH (Kafka's broker answers so).
  const errorCode = error instanceof TributaryError && error.code === "PRODUCER_FENCED" ? kafkaErrors.INVALID_PRODUCER_EPOCH : kafkaErrorCode(error);
  slot.answer({ ...failed(index, errorCode, errorMessage(error)), recordErrors: recordErrorsOf(error) });
}

/**
 * The record an INVALID_RECORD names (`recordIndex`: schema id validation's refusals,
 * docs/schema-registry.md), as Produce v8+'s record errors carry it; none for any other error.
 * The index counts the records of the partition's batches as this request sent them: a write of
 * several requests' batches that is refused is sent again per request (produce-writes.ts).
 */
export function recordErrorsOf(error: unknown): RecordError[] {
  if (!(error instanceof TributaryError) || error.code !== "INVALID_RECORD") return [];
  const index = error.data.recordIndex;
  return typeof index === "number" && Number.isInteger(index) && index >= 0 ? [{ batchIndex: index, batchIndexErrorMessage: error.message }] : [];
}
