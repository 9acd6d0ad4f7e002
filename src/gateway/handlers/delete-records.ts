/**
 * DeleteRecords: each partition's log start moves to the offset asked (−1: the high watermark)
 * through `POST …/partitions/{p}/delete-records` (docs/api.md, Delete records), one call per
 * partition, each answered with its own error: an offset past the high watermark (or negative
 * but −1) is OFFSET_OUT_OF_RANGE, a token without `delete` on the topic TOPIC_AUTHORIZATION_FAILED. The
 * low watermark answered is the partition's log start afterwards, −1 with an error.
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { isStaleMetadata } from "./stale.ts";

interface DeleteRecordsRequest {
  topics: { name: string; partitions: { partitionIndex: number; offset: bigint }[] }[];
}

export async function deleteRecords(request: DeleteRecordsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const topics = context.tributary.admin().topics;
  const answered = await Promise.all(
    request.topics.map(async ({ name, partitions }) => ({
      name,
      partitions: await Promise.all(
        partitions.map(async ({ partitionIndex, offset }) => {
          // Negative but −1, or past any offset Tributary holds (2^53): Kafka's broker answers both so.
          if (offset < -1n || offset > BigInt(Number.MAX_SAFE_INTEGER)) return { partitionIndex, lowWatermark: -1n, errorCode: kafkaErrors.OFFSET_OUT_OF_RANGE };
          try {
            const [deleted] = await topics.deleteRecords(name, [{ partition: partitionIndex, offset: Number(offset) }]);
            return { partitionIndex, lowWatermark: BigInt(deleted!.lowWatermark), errorCode: kafkaErrors.NONE };
          } catch (error) {
            if (isStaleMetadata(error)) context.session.invalidate();
            throttle = Math.max(throttle, throttleTimeMs(error));
            return { partitionIndex, lowWatermark: -1n, errorCode: kafkaErrorCode(error) };
          }
        }),
      ),
    })),
  );
  return { throttleTimeMs: throttle, topics: answered };
}
