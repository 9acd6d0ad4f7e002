/**
 * The protocol's refusals: a status (docs/durable-streams.md, "Errors") with the headers the
 * protocol sends along (`Stream-Closed`, `Producer-Epoch`, `Producer-Expected-Seq`…). The body
 * is Tributary's error shape, `{"error": {"code", "message"}}`, with `code` one of the names below.
 */
export type StreamErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 429 | 500 | 503;

const codes: Record<StreamErrorStatus, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "PRODUCER_FENCED",
  404: "STREAM_NOT_FOUND",
  409: "CONFLICT",
  410: "OFFSET_GONE",
  413: "PAYLOAD_TOO_LARGE",
  429: "TOO_MANY_REQUESTS",
  500: "UNKNOWN_SERVER_ERROR",
  503: "UNAVAILABLE",
};

export class StreamError extends Error {
  override readonly name = "StreamError";
  readonly status: StreamErrorStatus;
  readonly headers: Record<string, string>;
  readonly code: string;

  constructor(status: StreamErrorStatus, message: string, headers: Record<string, string> = {}, code?: string) {
    super(message);
    this.status = status;
    this.headers = headers;
    this.code = code ?? codes[status];
  }
}
