/**
 * The one error table (ARCHITECTURE.md decision 9): Kafka-style names with their HTTP status
 * and whether a client may retry. The router answers with it, Durable Objects return its
 * codes as values over RPC (a thrown error's own properties do not survive RPC), and the
 * client rebuilds typed errors from it.
 */
export const errorTable = {
  INVALID_REQUEST: { status: 400, retriable: false },
  INVALID_TOPIC_EXCEPTION: { status: 400, retriable: false },
  INVALID_PARTITIONS: { status: 400, retriable: false },
  INVALID_REPLICATION_FACTOR: { status: 400, retriable: false },
  INVALID_CONFIG: { status: 400, retriable: false },
  INVALID_RECORD: { status: 400, retriable: false },
  INVALID_TIMESTAMP: { status: 400, retriable: false },
  /** A compressed batch whose records cannot be read: corrupt compressed bytes under a valid CRC, or an unknown codec (issue 27). */
  CORRUPT_MESSAGE: { status: 400, retriable: false },
  /** A committed offset's metadata string longer than Kafka's offset.metadata.max.bytes (limits.ts, offsetMetadataLengthMax). */
  OFFSET_METADATA_TOO_LARGE: { status: 400, retriable: false },
  SECURITY_DISABLED: { status: 400, retriable: false },
  UNAUTHENTICATED: { status: 401, retriable: false },
  /** A SCRAM exchange's credential (not the request's bearer token) was refused: docs/api.md, SCRAM. Kafka's name. */
  SASL_AUTHENTICATION_FAILED: { status: 401, retriable: false },
  TOPIC_AUTHORIZATION_FAILED: { status: 403, retriable: false },
  GROUP_AUTHORIZATION_FAILED: { status: 403, retriable: false },
  CLUSTER_AUTHORIZATION_FAILED: { status: 403, retriable: false },
  UNKNOWN_TOPIC_OR_PARTITION: { status: 404, retriable: false },
  UNKNOWN_MEMBER_ID: { status: 404, retriable: false },
  GROUP_ID_NOT_FOUND: { status: 404, retriable: false },
  NOT_FOUND: { status: 404, retriable: false },
  METHOD_NOT_ALLOWED: { status: 405, retriable: false },
  TOPIC_ALREADY_EXISTS: { status: 409, retriable: false },
  FENCED_MEMBER_EPOCH: { status: 409, retriable: false },
  // Kafka's classic group protocol (docs/api.md, Classic members).
  /** A static member's id was taken over by another process with the same groupInstanceId (KIP-345). */
  FENCED_INSTANCE_ID: { status: 409, retriable: false },
  /** A static member joins with a groupInstanceId whose member has not left (KIP-848: it must leave first, or its session end). */
  UNRELEASED_INSTANCE_ID: { status: 409, retriable: false },
  /** Protocols that the group's members cannot share: another protocol type, no common assignor, or one the server cannot stand in for. */
  INCONSISTENT_GROUP_PROTOCOL: { status: 409, retriable: false },
  /** The classic group is rebalancing: the member rejoins (JoinGroup) before it may go on. */
  REBALANCE_IN_PROGRESS: { status: 409, retriable: false },
  NON_EMPTY_GROUP: { status: 409, retriable: false },
  /** OffsetDelete of a partition whose topic the group's members subscribe to (answered per partition, docs/api.md). */
  GROUP_SUBSCRIBED_TO_TOPIC: { status: 409, retriable: false },
  OUT_OF_ORDER_SEQUENCE_NUMBER: { status: 409, retriable: false },
  DUPLICATE_SEQUENCE_NUMBER: { status: 409, retriable: false },
  INVALID_PRODUCER_EPOCH: { status: 409, retriable: false },
  // Share groups (issue 15): an acknowledgement for records the lease does not hold (unknown or expired lease, or not acquired by it).
  INVALID_RECORD_STATE: { status: 409, retriable: false },
  MESSAGE_TOO_LARGE: { status: 413, retriable: false },
  RECORD_LIST_TOO_LARGE: { status: 413, retriable: false },
  OFFSET_OUT_OF_RANGE: { status: 416, retriable: false },
  THROTTLING_QUOTA_EXCEEDED: { status: 429, retriable: true },
  NOT_ENOUGH_REPLICAS: { status: 503, retriable: true },
  NOT_LEADER_OR_FOLLOWER: { status: 503, retriable: true },
  LEADER_NOT_AVAILABLE: { status: 503, retriable: true },
  REQUEST_TIMED_OUT: { status: 503, retriable: true },
  BROKER_BUSY: { status: 503, retriable: true },
  /**
   * Client side only, never an answer of the server: the client's request got no answer
   * because the connection failed (refused, reset, closed, a DNS failure), as Kafka's
   * NetworkException. Retriable; the status is the one a gateway would give.
   */
  NETWORK_EXCEPTION: { status: 503, retriable: true },
  UNKNOWN_SERVER_ERROR: { status: 500, retriable: false },
  // ---- Transactions (issue 28; docs/transactions.md), Kafka's names ----
  /** A transactional id's `transaction.timeout.ms` outside the deployment's bounds (limits.ts, transactionTimeoutMsMax). */
  INVALID_TRANSACTION_TIMEOUT: { status: 400, retriable: false },
  /** A token without `write` on the transactional id. */
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: { status: 403, retriable: false },
  /** No producer was ever initialized with this transactional id. */
  TRANSACTIONAL_ID_NOT_FOUND: { status: 404, retriable: false },
  /** A newer instance initialized the transactional id (or the transaction timed out and the epoch moved on): this producer is done. */
  PRODUCER_FENCED: { status: 409, retriable: false },
  /** The producer id is not the transactional id's. */
  INVALID_PRODUCER_ID_MAPPING: { status: 409, retriable: false },
  /** The request does not fit the transaction's state (commit of nothing, commit after a timeout's abort, …). */
  INVALID_TXN_STATE: { status: 409, retriable: false },
  /** The previous transaction's markers are still being written: retry shortly. */
  CONCURRENT_TRANSACTIONS: { status: 409, retriable: true },
  /** `requireStable`: a transaction holds uncommitted offsets of the partition; retry after it ends. */
  UNSTABLE_OFFSET_COMMIT: { status: 409, retriable: true },
  // ---- Subscriptions (docs/api.md, Subscriptions) ----
  /** A subscription of that name exists already. */
  SUBSCRIPTION_ALREADY_EXISTS: { status: 409, retriable: false },
  // Durable Streams (docs/durable-streams.md): a partition's refusals of a protocol append.
  /** The stream was closed: nothing more is appended. */
  STREAM_CLOSED: { status: 409, retriable: false },
  /** A `Stream-Seq` not greater (byte-wise) than the last one the stream took. */
  STREAM_SEQUENCE_CONFLICT: { status: 409, retriable: false },
} as const satisfies Record<string, { status: number; retriable: boolean }>;

export type ErrorCode = keyof typeof errorTable;

/** Extra fields an error carries to the caller, e.g. `{logStartOffset, highWatermark}`. */
export type ErrorData = Record<string, unknown>;

/** An error as a plain value: what crosses RPC and what the HTTP body holds. */
export interface ErrorValue {
  code: ErrorCode;
  message: string;
  data?: ErrorData;
}

export class TributaryError extends Error {
  override readonly name = "TributaryError";
  readonly code: ErrorCode;
  readonly data: ErrorData;

  constructor(code: ErrorCode, message: string, data: ErrorData = {}) {
    super(message);
    this.code = code;
    this.data = data;
  }

  get status(): number {
    return errorTable[this.code].status;
  }

  get retriable(): boolean {
    return errorTable[this.code].retriable;
  }

  toValue(): ErrorValue {
    return { code: this.code, message: this.message, data: this.data };
  }

  static fromValue(value: ErrorValue): TributaryError {
    return new TributaryError(value.code, value.message, value.data ?? {});
  }
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(errorTable, code);
}

export function isRetriable(error: unknown): boolean {
  return error instanceof TributaryError && error.retriable;
}

/**
 * The result of an RPC call to a Durable Object. Objects return errors as values so that
 * the code and its data survive the RPC boundary; `unwrap` turns them back into errors.
 */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorValue };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Runs `body`, turning a thrown TributaryError into an error value. Other errors propagate. */
export async function toResult<T>(body: () => T | Promise<T>): Promise<Result<T>> {
  try {
    return ok(await body());
  } catch (error) {
    if (error instanceof TributaryError) return { ok: false, error: error.toValue() };
    throw error;
  }
}

export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw TributaryError.fromValue(result.error);
}

// ---- Any failure as a TributaryError: for the router's error answers and the data plane's calls to objects ----

/**
 * Any failure as a TributaryError. A failed call to a Durable Object that the platform marks
 * retryable or overloaded (the object was reset, moved or busy) is a retriable 503; anything
 * else unexpected is a 500 whose details go to the log, not to the caller.
 */
export function asTributaryError(error: unknown): TributaryError {
  if (error instanceof TributaryError) return error;
  const flags = error as { retryable?: boolean; overloaded?: boolean } | null;
  if (flags?.overloaded) return new TributaryError("BROKER_BUSY", "the partition is overloaded; retry shortly");
  if (flags?.retryable) return new TributaryError("REQUEST_TIMED_OUT", "the partition did not answer; retry shortly");
  console.error("unexpected error", error);
  return new TributaryError("UNKNOWN_SERVER_ERROR", "an unexpected error occurred");
}
