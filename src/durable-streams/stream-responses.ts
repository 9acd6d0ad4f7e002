import { asTributaryError, TributaryError } from "../errors.ts";
import { retryAfterSeconds } from "../router/http-errors.ts";
import { StreamError, type StreamErrorStatus } from "./stream-errors.ts";
import { formatStreamOffset } from "./stream-offsets.ts";

/** The protocol's header names, and the headers every answer carries (its section 10.7). */
export const streamHeaders = {
  nextOffset: "Stream-Next-Offset",
  upToDate: "Stream-Up-To-Date",
  closed: "Stream-Closed",
  cursor: "Stream-Cursor",
  seq: "Stream-Seq",
  ttl: "Stream-TTL",
  expiresAt: "Stream-Expires-At",
  sseDataEncoding: "Stream-SSE-Data-Encoding",
  producerId: "Producer-Id",
  producerEpoch: "Producer-Epoch",
  producerSeq: "Producer-Seq",
  producerExpectedSeq: "Producer-Expected-Seq",
  producerReceivedSeq: "Producer-Received-Seq",
} as const;

export const securityHeaders: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

/** Catch-up and long-poll reads of immutable data (the protocol's section 8.1); `private` when tokens guard the data. */
export function cacheableReadHeader(env: Env): string {
  return `${env.TRIBUTARY_ADMIN_TOKEN ? "private" : "public"}, max-age=60, stale-while-revalidate=300`;
}

export function streamResponse(body: BodyInit | null, status: number, headers: Record<string, string>): Response {
  return new Response(body, { status, headers: { ...securityHeaders, ...headers } });
}

/**
 * Tributary's errors in the protocol's statuses: an unknown topic is 404, a closed stream or
 * a Stream-Seq regression 409, an idempotent producer's fenced epoch 403 (with the epoch the
 * stream holds), its sequence gap 409 (expected and received) — or 400 when a newer epoch
 * does not start at 0 —, and anything else by its own status.
 */
export function streamErrorOf(error: unknown): StreamError {
  if (error instanceof StreamError) return error;
  const failure = error instanceof TributaryError ? error : asTributaryError(error);
  const data = failure.data;
  switch (failure.code) {
    case "UNKNOWN_TOPIC_OR_PARTITION":
      return new StreamError(404, "no stream at this path");
    case "STREAM_CLOSED":
      return new StreamError(409, failure.message, { [streamHeaders.closed]: "true", [streamHeaders.nextOffset]: formatStreamOffset(Number(data.nextOffset)) }, failure.code);
    case "STREAM_SEQUENCE_CONFLICT":
      return new StreamError(409, failure.message, {}, failure.code);
    case "INVALID_PRODUCER_EPOCH":
      return new StreamError(403, failure.message, { [streamHeaders.producerEpoch]: String(data.producerEpoch) });
    case "OUT_OF_ORDER_SEQUENCE_NUMBER":
      if (data.lastSequence === undefined) return new StreamError(400, failure.message);
      return new StreamError(409, failure.message, {
        [streamHeaders.producerExpectedSeq]: String(data.expectedSequence),
        [streamHeaders.producerReceivedSeq]: String(data.sequence),
      });
    default: {
      const status = failure.status;
      const known: StreamErrorStatus[] = [400, 401, 403, 404, 409, 410, 413, 429, 500, 503];
      const headers: Record<string, string> = failure.retriable ? { "Retry-After": String(retryAfterSeconds(failure)) } : {};
      return new StreamError(known.includes(status as StreamErrorStatus) ? (status as StreamErrorStatus) : 503, failure.message, headers, failure.code);
    }
  }
}

export function errorResponseOf(error: unknown): Response {
  const failure = streamErrorOf(error);
  const body = JSON.stringify({ error: { code: failure.code, message: failure.message } });
  return streamResponse(body, failure.status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...failure.headers });
}
