/**
 * How the group APIs answer Tributary's errors: as the gateway's one mapping
 * (../kafka-errors.ts), except where a group client needs another code. A classic member
 * knows its epoch as the generation (ILLEGAL_GENERATION); a refused token is the group's
 * authorization; and any retriable failure to reach the coordinator (network, timeout, busy,
 * throttled) is COORDINATOR_NOT_AVAILABLE, which every client answers by finding the
 * coordinator again and retrying, as after a Kafka coordinator moved.
 */
import type { ErrorCode } from "../../errors.ts";
import { isRetriable, TributaryError } from "../../errors.ts";
import { kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";

/** Kafka's codes the group handlers answer, with the one the gateway's table lacks. */
export const kafkaCodes = { ...kafkaErrors, GROUP_MAX_SIZE_REACHED: 81 } as const;

const groupOverrides: Partial<Record<ErrorCode, number>> = {
  FENCED_MEMBER_EPOCH: kafkaCodes.ILLEGAL_GENERATION,
  UNAUTHENTICATED: kafkaCodes.GROUP_AUTHORIZATION_FAILED,
};

/** The Kafka code for an error a coordinator call threw; anything that is no TributaryError is rethrown (a bug closes the connection). */
export function kafkaCodeOf(error: unknown): number {
  if (!(error instanceof TributaryError)) throw error;
  if (error.code === "INVALID_REQUEST" && error.data.membersMax !== undefined) return kafkaCodes.GROUP_MAX_SIZE_REACHED;
  const override = groupOverrides[error.code];
  if (override !== undefined) return override;
  return isRetriable(error) ? kafkaCodes.COORDINATOR_NOT_AVAILABLE : kafkaErrorCode(error);
}

/** Runs a coordinator call: its value, or the Kafka code of what it threw. */
export async function orKafkaCode<T>(call: () => Promise<T>): Promise<{ value: T; errorCode: 0 } | { value: undefined; errorCode: number }> {
  try {
    return { value: await call(), errorCode: 0 };
  } catch (error) {
    return { value: undefined, errorCode: kafkaCodeOf(error) };
  }
}
