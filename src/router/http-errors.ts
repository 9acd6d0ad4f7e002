import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { TributaryError } from "../errors.ts";

/**
 * Seconds a client should wait before retrying a retriable error: the error's own
 * `retryAfterMs` rounded up to whole seconds (a throttled token's wait, 429), else 1 s (503s).
 */
export function retryAfterSeconds(error: TributaryError): number {
  const retryAfterMs = error.data.retryAfterMs;
  if (typeof retryAfterMs !== "number" || !Number.isFinite(retryAfterMs) || retryAfterMs <= 0) return 1;
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

/** API.md's error body: `{"error": {"code", "message", ...data}}`; never a stack trace. */
export function errorResponse(c: Context, error: TributaryError, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { ...extraHeaders };
  if (error.retriable) headers["Retry-After"] = String(retryAfterSeconds(error));
  const body = { error: { ...error.data, code: error.code, message: error.message } };
  return c.json(body, error.status as ContentfulStatusCode, headers);
}
