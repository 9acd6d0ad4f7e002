/**
 * DescribeLogDirs (`kafka-log-dirs --describe`, the Java Admin's describeLogDirs): Tributary
 * has no broker disks, so the gateway answers one log dir, `tributary` — the deployment's
 * storage as a whole: each partition's leader's SQLite and its sealed segments in R2. A
 * partition's size is the bytes of both (`GET /v1/topics/{t}`'s `storage`: sqliteBytes +
 * r2Bytes); its offset lag 0 (no replica of the answer trails another) and never a future log.
 * v4's total and usable bytes are -1: unknown (neither SQLite nor R2 has a size to fill); v5's
 * log dir is never cordoned (KIP-1066: nothing takes it out of placement).
 *
 * Topics null asks for every topic. As Kafka, what the broker does not hold is left out rather
 * than refused: a topic that does not exist, one the token may not describe, a partition the
 * topic lacks.
 */
import type { Topic } from "../../client/index.ts";
import { gatewayLogDirTopicsInFlightMax } from "../../limits.ts";
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";

interface DescribeLogDirsRequest {
  topics: { topic: string; partitions: number[] }[] | null;
}

interface LogDirTopic {
  name: string;
  partitions: { partitionIndex: number; partitionSize: bigint; offsetLag: bigint; isFutureKey: boolean }[];
}

/** The one log dir's name (docs/gateway.md). */
export const tributaryLogDir = "tributary";

export async function describeLogDirs(request: DescribeLogDirsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const admin = context.tributary.admin();
  try {
    const wanted = request.topics ?? (await admin.topics.list()).map(({ name }) => ({ topic: name, partitions: null }));
    const topics: LogDirTopic[] = [];
    for (let start = 0; start < wanted.length; start += gatewayLogDirTopicsInFlightMax) {
      const described = await Promise.all(wanted.slice(start, start + gatewayLogDirTopicsInFlightMax).map(({ topic }) => describedOrNone(() => admin.topics.describe(topic))));
      described.forEach((topic, index) => {
        const answered = topic === undefined ? undefined : logDirTopic(topic, wanted[start + index]!.partitions);
        // As Kafka's, which lists the logs it holds: a topic none of whose partitions was asked is not one.
        if (answered !== undefined && answered.partitions.length > 0) topics.push(answered);
      });
    }
    return { throttleTimeMs: 0, errorCode: kafkaErrors.NONE, results: [{ errorCode: kafkaErrors.NONE, logDir: tributaryLogDir, topics, totalBytes: -1n, usableBytes: -1n, isCordoned: false }] };
  } catch (error) {
    // v0–2 have no top-level error: the dir's own carries it.
    const errorCode = kafkaErrorCode(error);
    return { throttleTimeMs: throttleTimeMs(error), errorCode, results: context.apiVersion >= 3 ? [] : [{ errorCode, logDir: tributaryLogDir, topics: [] }] };
  }
}

/** The topic, or undefined for one the token may not describe or that does not exist (left out, as Kafka). */
async function describedOrNone(describe: () => Promise<Topic>): Promise<Topic | undefined> {
  try {
    return await describe();
  } catch (error) {
    if (error instanceof TributaryError && (error.code === "TOPIC_AUTHORIZATION_FAILED" || error.code === "UNKNOWN_TOPIC_OR_PARTITION")) return undefined;
    throw error;
  }
}

function logDirTopic(topic: Topic, partitions: readonly number[] | null): LogDirTopic {
  const asked = partitions === null ? null : new Set(partitions);
  return {
    name: topic.name,
    partitions: topic.partitions
      .filter(({ partition }) => asked === null || asked.has(partition))
      .map(({ partition, storage }) => ({
        partitionIndex: partition,
        partitionSize: BigInt((storage?.sqliteBytes ?? 0) + (storage?.r2Bytes ?? 0)),
        offsetLag: 0n,
        isFutureKey: false,
      })),
  };
}
