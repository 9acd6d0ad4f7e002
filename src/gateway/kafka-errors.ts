/**
 * Kafka's error codes (Kafka's `Errors`), and the one mapping from Tributary's errors to them.
 * A retriable Tributary error maps to a code Kafka's clients retry; UNAUTHENTICATED (a token
 * the deployment refused) is SASL_AUTHENTICATION_FAILED; a token's quota (429) is answered as
 * throttle time with a retriable REQUEST_TIMED_OUT, nothing having been done.
 */
import { TributaryError, type ErrorCode } from "../errors.ts";

export const kafkaErrors = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  MESSAGE_TOO_LARGE: 10,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  INVALID_REQUIRED_ACKS: 21,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  INVALID_TIMESTAMP: 32,
  UNSUPPORTED_SASL_MECHANISM: 33,
  ILLEGAL_SASL_STATE: 34,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REPLICA_ASSIGNMENT: 39,
  INVALID_CONFIG: 40,
  INVALID_REQUEST: 42,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  SECURITY_DISABLED: 54,
  SASL_AUTHENTICATION_FAILED: 58,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  MEMBER_ID_REQUIRED: 79,
  INVALID_RECORD: 87,
  THROTTLING_QUOTA_EXCEEDED: 89,
  RESOURCE_NOT_FOUND: 91,
  UNKNOWN_TOPIC_ID: 100,
  FENCED_MEMBER_EPOCH: 110,
  INVALID_RECORD_STATE: 121,
} as const;

export type KafkaErrorName = keyof typeof kafkaErrors;

const fromTributary: Record<ErrorCode, KafkaErrorName> = {
  INVALID_REQUEST: "INVALID_REQUEST",
  INVALID_RECORD_STATE: "INVALID_RECORD_STATE",
  // A Produce to a closed Durable Stream's topic: the batch is refused for good (retrying can
  // never succeed), so a non-retriable code Kafka's clients already expect from a Produce and
  // report per batch with its message (KIP-467), not a retriable or a topic-wide one.
  STREAM_CLOSED: "INVALID_RECORD",
  // No Kafka request reaches a subscription route or a Durable Streams append condition.
  SUBSCRIPTION_ALREADY_EXISTS: "INVALID_REQUEST",
  STREAM_SEQUENCE_CONFLICT: "INVALID_REQUEST",
  INVALID_TOPIC_EXCEPTION: "INVALID_TOPIC_EXCEPTION",
  INVALID_PARTITIONS: "INVALID_PARTITIONS",
  INVALID_REPLICATION_FACTOR: "INVALID_REPLICATION_FACTOR",
  INVALID_CONFIG: "INVALID_CONFIG",
  INVALID_RECORD: "INVALID_RECORD",
  INVALID_TIMESTAMP: "INVALID_TIMESTAMP",
  SECURITY_DISABLED: "SECURITY_DISABLED",
  UNAUTHENTICATED: "SASL_AUTHENTICATION_FAILED",
  TOPIC_AUTHORIZATION_FAILED: "TOPIC_AUTHORIZATION_FAILED",
  GROUP_AUTHORIZATION_FAILED: "GROUP_AUTHORIZATION_FAILED",
  CLUSTER_AUTHORIZATION_FAILED: "CLUSTER_AUTHORIZATION_FAILED",
  UNKNOWN_TOPIC_OR_PARTITION: "UNKNOWN_TOPIC_OR_PARTITION",
  UNKNOWN_MEMBER_ID: "UNKNOWN_MEMBER_ID",
  GROUP_ID_NOT_FOUND: "GROUP_ID_NOT_FOUND",
  NOT_FOUND: "RESOURCE_NOT_FOUND",
  METHOD_NOT_ALLOWED: "INVALID_REQUEST",
  TOPIC_ALREADY_EXISTS: "TOPIC_ALREADY_EXISTS",
  FENCED_MEMBER_EPOCH: "FENCED_MEMBER_EPOCH",
  NON_EMPTY_GROUP: "NON_EMPTY_GROUP",
  OUT_OF_ORDER_SEQUENCE_NUMBER: "OUT_OF_ORDER_SEQUENCE_NUMBER",
  DUPLICATE_SEQUENCE_NUMBER: "DUPLICATE_SEQUENCE_NUMBER",
  INVALID_PRODUCER_EPOCH: "INVALID_PRODUCER_EPOCH",
  MESSAGE_TOO_LARGE: "MESSAGE_TOO_LARGE",
  RECORD_LIST_TOO_LARGE: "RECORD_LIST_TOO_LARGE",
  OFFSET_OUT_OF_RANGE: "OFFSET_OUT_OF_RANGE",
  // Nothing was done: the client waits the throttle time and retries (see throttleTimeMs).
  THROTTLING_QUOTA_EXCEEDED: "REQUEST_TIMED_OUT",
  NOT_ENOUGH_REPLICAS: "NOT_ENOUGH_REPLICAS",
  NOT_LEADER_OR_FOLLOWER: "NOT_LEADER_OR_FOLLOWER",
  LEADER_NOT_AVAILABLE: "LEADER_NOT_AVAILABLE",
  REQUEST_TIMED_OUT: "REQUEST_TIMED_OUT",
  BROKER_BUSY: "REQUEST_TIMED_OUT",
  NETWORK_EXCEPTION: "NETWORK_EXCEPTION",
  UNKNOWN_SERVER_ERROR: "UNKNOWN_SERVER_ERROR",
};

/** The Kafka error code for anything a Tributary call threw (a non-API failure is UNKNOWN_SERVER_ERROR). */
export function kafkaErrorCode(error: unknown): number {
  if (error instanceof TributaryError) return kafkaErrors[fromTributary[error.code] ?? "UNKNOWN_SERVER_ERROR"];
  return kafkaErrors.UNKNOWN_SERVER_ERROR;
}

/** The throttle time a quota refusal asks for (0 for any other error). */
export function throttleTimeMs(error: unknown): number {
  if (!(error instanceof TributaryError) || error.code !== "THROTTLING_QUOTA_EXCEEDED") return 0;
  const wait = (error.data as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof wait === "number" && Number.isFinite(wait) ? Math.ceil(wait) : 1_000;
}

/** The message to put in a response's errorMessage field. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
