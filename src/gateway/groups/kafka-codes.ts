/**
 * Kafka's error codes the group APIs answer, and how Tributary's errors map onto them. A
 * retriable failure to reach the coordinator (network, timeout, busy, throttled) becomes
 * COORDINATOR_NOT_AVAILABLE, which every client answers by finding the coordinator again and
 * retrying, as after a Kafka coordinator moved.
 */
import type { ErrorCode } from "../../errors.ts";
import { isRetriable, TributaryError } from "../../errors.ts";

export const kafkaCodes = {
  NONE: 0,
  UNKNOWN_SERVER_ERROR: -1,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  COORDINATOR_NOT_AVAILABLE: 15,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  INVALID_REQUEST: 42,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  MEMBER_ID_REQUIRED: 79,
  GROUP_MAX_SIZE_REACHED: 81,
} as const;

const byTributaryCode: Partial<Record<ErrorCode, number>> = {
  UNKNOWN_MEMBER_ID: kafkaCodes.UNKNOWN_MEMBER_ID,
  // A classic member knows its epoch as the generation.
  FENCED_MEMBER_EPOCH: kafkaCodes.ILLEGAL_GENERATION,
  NON_EMPTY_GROUP: kafkaCodes.NON_EMPTY_GROUP,
  GROUP_ID_NOT_FOUND: kafkaCodes.GROUP_ID_NOT_FOUND,
  GROUP_AUTHORIZATION_FAILED: kafkaCodes.GROUP_AUTHORIZATION_FAILED,
  // A token refused outright: the group is what the client asked for.
  UNAUTHENTICATED: kafkaCodes.GROUP_AUTHORIZATION_FAILED,
  TOPIC_AUTHORIZATION_FAILED: kafkaCodes.TOPIC_AUTHORIZATION_FAILED,
  UNKNOWN_TOPIC_OR_PARTITION: kafkaCodes.UNKNOWN_TOPIC_OR_PARTITION,
  INVALID_REQUEST: kafkaCodes.INVALID_REQUEST,
};

/** The Kafka code for an error a coordinator call threw; anything that is no TributaryError is rethrown (a bug closes the connection). */
export function kafkaCodeOf(error: unknown): number {
  if (!(error instanceof TributaryError)) throw error;
  if (error.code === "INVALID_REQUEST" && error.data.membersMax !== undefined) return kafkaCodes.GROUP_MAX_SIZE_REACHED;
  const mapped = byTributaryCode[error.code];
  if (mapped !== undefined) return mapped;
  return isRetriable(error) ? kafkaCodes.COORDINATOR_NOT_AVAILABLE : kafkaCodes.UNKNOWN_SERVER_ERROR;
}

/** Runs a coordinator call: its value, or the Kafka code of what it threw. */
export async function orKafkaCode<T>(call: () => Promise<T>): Promise<{ value: T; errorCode: 0 } | { value: undefined; errorCode: number }> {
  try {
    return { value: await call(), errorCode: 0 };
  } catch (error) {
    return { value: undefined, errorCode: kafkaCodeOf(error) };
  }
}
