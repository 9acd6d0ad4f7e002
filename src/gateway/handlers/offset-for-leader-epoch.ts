/**
 * OffsetForLeaderEpoch (KIP-320: the Java consumer's check, after a leader change or a seek to
 * a committed offset with its epoch, that the log it read was not truncated under it).
 *
 * The gateway is every partition's one leader at epoch 0 (Metadata), and a consumer reads only
 * committed records (below the high watermark), which Tributary's leader changes never take
 * back (KIP-101 truncation cuts only above it). So no position a consumer holds can lie past
 * the end of the epoch it read under: the end answered is the high watermark, at the epoch
 * asked, which every valid position is at or below. A client whose metadata epoch is ahead of
 * the gateway's is answered UNKNOWN_LEADER_EPOCH, as Kafka answers it.
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { isInternalTopic } from "../internal-topics.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { isStaleMetadata } from "./stale.ts";

interface OffsetForLeaderEpochRequest {
  topics: { topic: string; partitions: { partition: number; currentLeaderEpoch: number; leaderEpoch: number }[] }[];
}

/** The epoch Metadata gives every partition's leader. */
const gatewayLeaderEpoch = 0;
/** The client's metadata epoch when it has none to check. */
const noEpoch = -1;

export async function offsetForLeaderEpoch(request: OffsetForLeaderEpochRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const topics = await Promise.all(
    request.topics.map(async ({ topic, partitions }) => ({
      topic,
      partitions: await Promise.all(
        partitions.map(async ({ partition, currentLeaderEpoch, leaderEpoch }) => {
          const failed = (errorCode: number) => ({ errorCode, partition, leaderEpoch: -1, endOffset: -1n });
          if (currentLeaderEpoch > gatewayLeaderEpoch) return failed(kafkaErrors.UNKNOWN_LEADER_EPOCH);
          if (currentLeaderEpoch < gatewayLeaderEpoch && currentLeaderEpoch !== noEpoch) return failed(kafkaErrors.FENCED_LEADER_EPOCH);
          if (isInternalTopic(topic)) return { errorCode: kafkaErrors.NONE, partition, leaderEpoch, endOffset: 0n };
          try {
            const answer = await context.transport.json<{ offset: number }>({
              method: "GET",
              path: path("topics", topic, "partitions", partition, "offsets"),
              query: { at: "latest" },
            });
            return { errorCode: kafkaErrors.NONE, partition, leaderEpoch, endOffset: BigInt(answer.offset) };
          } catch (error) {
            if (isStaleMetadata(error)) context.session.invalidate();
            throttle = Math.max(throttle, throttleTimeMs(error));
            return failed(kafkaErrorCode(error));
          }
        }),
      ),
    })),
  );
  return { throttleTimeMs: throttle, topics };
}
