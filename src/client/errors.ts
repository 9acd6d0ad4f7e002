/**
 * Typed errors rebuilt from API.md's answers: `{"error": {"code", "message", ...data}}` becomes
 * a `TributaryError` (src/errors.ts) with that code, the message, and every other field in
 * `data` — e.g. `error.data.logStartOffset` on OFFSET_OUT_OF_RANGE. `Retry-After` becomes
 * `data.retryAfterMs`. A request whose connection failed (refused, reset, DNS) is a
 * retriable NETWORK_EXCEPTION (client side only, as Kafka's NetworkException); one that got
 * no answer in time is a retriable REQUEST_TIMED_OUT: it may or may not have been applied.
 */
import { TributaryError, isErrorCode, type ErrorCode, type ErrorData } from "../errors.ts";
import type { Operation, Position, ResourceType, TopicPartition } from "./types.ts";

export { TributaryError, isRetriable, type ErrorCode } from "../errors.ts";

/** What a scoped token was refused (absent when only the admin token may do it). */
interface AuthorizationFailure {
  resource?: ResourceType;
  operation?: Operation;
}

/** The data API.md promises with a code; any error may also carry `retryAfterMs`. */
export interface ErrorDataByCode {
  TOPIC_AUTHORIZATION_FAILED: AuthorizationFailure;
  GROUP_AUTHORIZATION_FAILED: AuthorizationFailure;
  CLUSTER_AUTHORIZATION_FAILED: AuthorizationFailure;
  /** How long the token's quota holds it back (also on every retriable error with Retry-After). */
  THROTTLING_QUOTA_EXCEEDED: { retryAfterMs?: number };
  OFFSET_OUT_OF_RANGE: { logStartOffset: number; highWatermark: number };
  UNKNOWN_TOPIC_OR_PARTITION: { topics?: string[] };
  UNKNOWN_MEMBER_ID: { memberId?: string };
  FENCED_MEMBER_EPOCH: { notAssigned?: TopicPartition[] };
  /** JSON produce that wrote some partitions: one entry per record, null where not acknowledged. */
  NOT_ENOUGH_REPLICAS: { offsets?: (Omit<Position, "topic"> & { timestamp: number } | null)[] };
  UNKNOWN_SERVER_ERROR: { status?: number; serverCode?: string };
  REQUEST_TIMED_OUT: { cause?: string };
  /** `reason`: the system's code when there is one (ECONNREFUSED, ECONNRESET, ENOTFOUND…); `server`: the URL's origin. */
  NETWORK_EXCEPTION: { reason?: string; server: string; cause: string };
}

export type ErrorDataFor<Code extends ErrorCode> = (Code extends keyof ErrorDataByCode ? ErrorDataByCode[Code] : {}) &
  ErrorData & { retryAfterMs?: number };

export type TypedTributaryError<Code extends ErrorCode> = TributaryError & { code: Code; data: ErrorDataFor<Code> };

/**
 * Narrows an unknown error to a TributaryError, optionally of one code, with its data typed:
 * `if (isTributaryError(error, "OFFSET_OUT_OF_RANGE")) seek(error.data.logStartOffset)`.
 */
export function isTributaryError<Code extends ErrorCode = ErrorCode>(error: unknown, code?: Code): error is TypedTributaryError<Code> {
  return error instanceof TributaryError && (code === undefined || error.code === code);
}

/** How much of an unexpected (non-API) error body to keep in the message. */
const unexpectedBodyCharsMax = 200;

function retryAfterMs(response: Response): number | undefined {
  const header = response.headers.get("retry-after");
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The error of a non-2xx answer. A body in API.md's shape keeps its code and data; anything
 * else (a proxy's HTML page, an empty 502) is classified by status (429 and 502–504 stay
 * retriable) and keeps the status and the start of the body.
 */
export async function errorFromResponse(response: Response): Promise<TributaryError> {
  const text = await response.text().catch(() => "");
  const retryAfter = retryAfterMs(response);
  const extra = retryAfter === undefined ? {} : { retryAfterMs: retryAfter };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: unknown } | undefined)?.error;
  if (error !== null && typeof error === "object" && !Array.isArray(error)) {
    const { code, message, ...data } = error as Record<string, unknown>;
    const text = typeof message === "string" ? message : `HTTP ${response.status}`;
    // The body's retryAfterMs (a quota's exact wait) wins over the header's whole seconds.
    if (isErrorCode(code)) return new TributaryError(code, text, { ...extra, ...data });
    // A code this client does not know (a newer server): keep it, classified by status.
    return new TributaryError(codeForStatus(response.status), `${String(code)}: ${text}`, {
      ...data,
      ...extra,
      serverCode: String(code),
      status: response.status,
    });
  }
  const excerpt = text.slice(0, unexpectedBodyCharsMax).trim();
  return new TributaryError(
    codeForStatus(response.status),
    `HTTP ${response.status} without an API error body${excerpt === "" ? "" : `: ${excerpt}`}`,
    { ...extra, status: response.status },
  );
}

/** The code a status means when the body names none (or one this client does not know). */
const codeByStatus: Partial<Record<number, ErrorCode>> = {
  400: "INVALID_REQUEST",
  401: "UNAUTHENTICATED",
  404: "NOT_FOUND",
  413: "RECORD_LIST_TOO_LARGE",
  416: "OFFSET_OUT_OF_RANGE",
  429: "THROTTLING_QUOTA_EXCEEDED",
  502: "REQUEST_TIMED_OUT",
  503: "REQUEST_TIMED_OUT",
  504: "REQUEST_TIMED_OUT",
};

function codeForStatus(status: number): ErrorCode {
  return codeByStatus[status] ?? "UNKNOWN_SERVER_ERROR";
}

/**
 * What the connection's failure codes mean, for people. Node's fetch (undici) says only
 * "fetch failed" and puts the system's code on its `cause`; Workers and browsers give no code.
 */
const networkReasons: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed by the server",
  UND_ERR_CLOSED: "connection closed",
  ENOTFOUND: "host not found (DNS)",
  EAI_AGAIN: "DNS lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connect timed out",
  UND_ERR_CONNECT_TIMEOUT: "connect timed out",
};

/** The failure's own code (ECONNREFUSED…) when it has one, from the error or its cause. */
function failureCode(cause: unknown): string | undefined {
  for (let error = cause, depth = 0; error !== null && typeof error === "object" && depth < 3; depth++) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    error = (error as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeCause(cause: unknown): string {
  let text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  const inner = (cause as { cause?: { message?: unknown } } | null)?.cause;
  const detail = failureCode(cause) ?? inner?.message;
  if (typeof detail === "string" && detail !== "") text += ` (${detail})`;
  return text;
}

/**
 * A request whose connection failed (refused, reset, closed, DNS): a retriable
 * NETWORK_EXCEPTION naming the server and the reason — `data.reason` is the system's code
 * (`ECONNREFUSED`) when there is one. A refused connection never reached the server; a reset
 * one may have been applied, as with a timeout.
 */
export function networkError(what: string, server: string, cause: unknown): TributaryError {
  const code = failureCode(cause);
  const reason = code === undefined ? undefined : (networkReasons[code] ?? code);
  const text = describeCause(cause);
  const message = reason === undefined ? `${what}: no answer from ${server} (${text})` : `${what}: ${reason} at ${server}`;
  return new TributaryError("NETWORK_EXCEPTION", message, { ...(code === undefined ? {} : { reason: code }), server, cause: text });
}

/** A request that got no answer within the request timeout: retriable, it may or may not have been applied. */
export function noAnswerError(what: string, cause: unknown): TributaryError {
  const reason = describeCause(cause);
  return new TributaryError("REQUEST_TIMED_OUT", `${what}: no answer (${reason})`, { cause: reason });
}
