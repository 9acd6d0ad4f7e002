/**
 * ListOffsets: timestamp −2 is the earliest offset, −1 the latest (the high watermark), −3 the
 * first record with the largest timestamp (v7+, KIP-734), −4 the first offset the partition
 * holds itself, past its tiered segments in R2 (v8+, KIP-405), −5 the last offset sealed to R2
 * (v9+, KIP-1005), −6 the first not sealed yet (v11+, KIP-1023), any other the first offset whose
 * timestamp is at or after it (`GET …/offsets?at=`); none found answers offset −1, as Kafka does.
 * A special timestamp the request's version does not have is UNSUPPORTED_VERSION for its
 * partition, as Kafka's broker answers it.
 * With isolation level read_committed (v2+), the latest is the last stable offset (the first
 * offset of the oldest open transaction, else the high watermark: the partition's description),
 * as Kafka's broker answers: a read_committed consumer starting at the end starts where it can read.
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { isInternalTopic } from "../internal-topics.ts";
import { leaderEpochCheck } from "./leader-epoch-check.ts";
import { isStaleMetadata } from "./stale.ts";

interface ListOffsetsRequest {
  /** 0 read_uncommitted, 1 read_committed (v2+). */
  isolationLevel?: number;
  /** currentLeaderEpoch: v4+ (−1 before: no check, leader-epoch-check.ts). */
  topics: { name: string; partitions: { partitionIndex: number; timestamp: bigint; currentLeaderEpoch?: number }[] }[];
}

/** Kafka's special timestamps, as `GET …/offsets?at=` names them, with the first version that has each (Kafka's broker refuses one below it: UNSUPPORTED_VERSION). */
const timestampSpecs = new Map<bigint, { at: string; since: number }>([
  [-1n, { at: "latest", since: 0 }],
  [-2n, { at: "earliest", since: 0 }],
  [-3n, { at: "max-timestamp", since: 7 }],
  [-4n, { at: "earliest-local", since: 8 }],
  [-5n, { at: "latest-tiered", since: 9 }],
  [-6n, { at: "earliest-pending-upload", since: 11 }],
]);

export async function listOffsets(request: ListOffsetsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  // One description per topic for the read_committed latest offsets (it holds every partition's).
  const descriptions = new Map<string, Promise<{ partitions: { partition: number; lastStableOffset: number }[] }>>();
  const describe = (topic: string) => {
    let described = descriptions.get(topic);
    if (described === undefined) descriptions.set(topic, (described = context.transport.json({ method: "GET", path: path("topics", topic) })));
    return described;
  };
  // The partition's leader epoch, as Metadata reports it (the session's, at most 5 s old).
  const epochOf = async (topic: string, partition: number) => (await context.session.leaderEpochs(topic))?.[partition] ?? 0;
  const topics = await Promise.all(
    request.topics.map(async ({ name, partitions }) => ({
      name,
      partitions: await Promise.all(
        partitions.map(async ({ partitionIndex, timestamp, currentLeaderEpoch = -1 }) => {
          const spec = timestampSpecs.get(timestamp);
          const at = spec?.at ?? (timestamp >= 0n ? String(timestamp) : undefined);
          if (at === undefined) return { partitionIndex, errorCode: kafkaErrors.INVALID_REQUEST, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
          if (spec !== undefined && context.apiVersion < spec.since) return { partitionIndex, errorCode: kafkaErrors.UNSUPPORTED_VERSION, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
          if (isInternalTopic(name)) return { partitionIndex, errorCode: kafkaErrors.NONE, timestamp: -1n, offset: 0n, leaderEpoch: 0 };
          try {
            const checked = await leaderEpochCheck(context, name, partitionIndex, currentLeaderEpoch);
            if (checked !== kafkaErrors.NONE) return { partitionIndex, errorCode: checked, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
            if (at === "latest" && request.isolationLevel === 1) {
              const described = await describe(name);
              const lastStableOffset = described.partitions.find((entry) => entry.partition === partitionIndex)?.lastStableOffset;
              if (lastStableOffset === undefined) return { partitionIndex, errorCode: kafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
              return { partitionIndex, errorCode: kafkaErrors.NONE, timestamp: -1n, offset: BigInt(lastStableOffset), leaderEpoch: await epochOf(name, partitionIndex) };
            }
            const answer = await context.transport.json<{ offset: number; timestamp?: number }>({
              method: "GET",
              path: path("topics", name, "partitions", partitionIndex, "offsets"),
              query: { at },
            });
            const byTime = spec === undefined || at === "max-timestamp";
            if (byTime && answer.timestamp === undefined) return { partitionIndex, errorCode: kafkaErrors.NONE, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
            // No tiered offset to give (latest-tiered, earliest-pending-upload): −1, with epoch −1, as Kafka's broker answers.
            if (answer.offset < 0) return { partitionIndex, errorCode: kafkaErrors.NONE, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
            return { partitionIndex, errorCode: kafkaErrors.NONE, timestamp: BigInt(answer.timestamp ?? -1), offset: BigInt(answer.offset), leaderEpoch: await epochOf(name, partitionIndex) };
          } catch (error) {
            if (isStaleMetadata(error)) context.session.invalidate();
            throttle = Math.max(throttle, throttleTimeMs(error));
            return { partitionIndex, errorCode: kafkaErrorCode(error), timestamp: -1n, offset: -1n, leaderEpoch: -1 };
          }
        }),
      ),
    })),
  );
  return { throttleTimeMs: throttle, topics };
}
