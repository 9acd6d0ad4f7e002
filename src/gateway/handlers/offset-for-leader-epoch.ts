/**
 * OffsetForLeaderEpoch (KIP-320: the Java consumer's check, after a leader change or a seek to
 * a committed offset with its epoch, that the log it read was not truncated under it).
 *
 * Answered from Tributary's own leader epochs: the client's current epoch is checked against the
 * partition's (Metadata reports it; FENCED_LEADER_EPOCH when the client's is older,
 * UNKNOWN_LEADER_EPOCH when newer, after one fresh look, as Kafka answers), and the end of the
 * epoch asked comes from the leader's epoch history (`at=epoch-end`, src/log/epoch-end.ts): the
 * start of the next epoch, or the high watermark for the latest. A consumer reads only below the
 * high watermark, which Tributary's leader changes never take back, so an end below its position
 * means it asked with an epoch the partition never had there, and it handles it as truncation.
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { isInternalTopic } from "../internal-topics.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { epochCode, sessionLeaderEpoch } from "./leader-epoch-check.ts";
import { isStaleMetadata } from "./stale.ts";

interface OffsetForLeaderEpochRequest {
  topics: { topic: string; partitions: { partition: number; currentLeaderEpoch: number; leaderEpoch: number }[] }[];
}

export async function offsetForLeaderEpoch(request: OffsetForLeaderEpochRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const topics = await Promise.all(
    request.topics.map(async ({ topic, partitions }) => ({
      topic,
      partitions: await Promise.all(
        partitions.map(async ({ partition, currentLeaderEpoch, leaderEpoch }) => {
          const failed = (errorCode: number) => ({ errorCode, partition, leaderEpoch: -1, endOffset: -1n });
          if (isInternalTopic(topic)) return { errorCode: kafkaErrors.NONE, partition, leaderEpoch, endOffset: 0n };
          try {
            const current = await sessionLeaderEpoch(context, topic, partition, currentLeaderEpoch);
            if (current === undefined) return failed(kafkaErrors.UNKNOWN_TOPIC_OR_PARTITION);
            const checked = epochCode(currentLeaderEpoch, current);
            if (checked !== kafkaErrors.NONE) return failed(checked);
            if (leaderEpoch < 0) return failed(kafkaErrors.NONE);
            const answer = await context.transport.json<{ leaderEpoch: number; offset: number }>({
              method: "GET",
              path: path("topics", topic, "partitions", partition, "offsets"),
              query: { at: "epoch-end", leaderEpoch: String(leaderEpoch) },
            });
            return { errorCode: kafkaErrors.NONE, partition, leaderEpoch: answer.leaderEpoch, endOffset: BigInt(answer.offset) };
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
