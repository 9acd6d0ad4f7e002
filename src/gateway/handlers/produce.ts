/**
 * Produce: each partition's RecordBatch bytes go as they are to Tributary's binary produce
 * (`POST /v1/topics/{t}/partitions/{p}/records`, application/vnd.tributary.record-batch),
 * partitions in parallel. An idempotent producer's id, epoch and sequences are in the batch
 * headers and pass through. acks 0, 1 and -1 map to acks=0, 1 and all; with acks=0 nothing is
 * answered (the write still happens before the next answer on the connection).
 */
import { recordBatchContentType } from "../../protocol/content-types.ts";
import { path } from "../../client/transport.ts";
import { noAnswer } from "../no-answer.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { isStaleMetadata } from "./stale.ts";

interface ProduceRequest {
  transactionalId: string | null;
  acks: number;
  timeoutMs: number;
  topicData: { name: string; partitionData: { index: number; records: Uint8Array | null }[] }[];
}

interface BinaryProduceAnswer {
  partition: number;
  baseOffset: number;
  lastOffset: number;
  timestamp?: number;
}

const acksParameter: Record<number, string> = { [-1]: "all", 0: "0", 1: "1" };

export async function produce(request: ProduceRequest, context: GatewayRequestContext): Promise<Record<string, unknown> | typeof noAnswer> {
  const acks = acksParameter[request.acks];
  let throttle = 0;
  const responses = await Promise.all(
    request.topicData.map(async (topic) => ({
      name: topic.name,
      partitionResponses: await Promise.all(
        topic.partitionData.map(async ({ index, records }) => {
          const failed = (errorCode: number, message: string | null) => ({ index, errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: message });
          if (acks === undefined) return failed(kafkaErrors.INVALID_REQUIRED_ACKS, `acks must be -1, 0 or 1, got ${request.acks}`);
          if (request.transactionalId !== null) return failed(kafkaErrors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactions are not supported");
          if (records === null || records.length === 0) return failed(kafkaErrors.CORRUPT_MESSAGE, "no record batch");
          try {
            const answer = await context.transport.json<BinaryProduceAnswer | Record<string, never>>({
              method: "POST",
              path: path("topics", topic.name, "partitions", index, "records"),
              query: { acks },
              bytes: records,
              contentType: recordBatchContentType,
            });
            const written = answer as Partial<BinaryProduceAnswer>;
            return {
              index,
              errorCode: kafkaErrors.NONE,
              baseOffset: BigInt(written.baseOffset ?? -1),
              logAppendTimeMs: BigInt(written.timestamp ?? -1),
              logStartOffset: -1n,
              recordErrors: [],
              errorMessage: null,
            };
          } catch (error) {
            if (isStaleMetadata(error)) context.session.invalidate();
            throttle = Math.max(throttle, throttleTimeMs(error));
            return failed(kafkaErrorCode(error), errorMessage(error));
          }
        }),
      ),
    })),
  );
  if (request.acks === 0) return noAnswer;
  return { responses, throttleTimeMs: throttle };
}
