import type { TributaryError } from "../../errors.ts";

/**
 * The Server-Sent Events wire format (WHATWG HTML, "Server-sent events"): events of
 * `event:`, `id:` and one `data:` line (JSON has no raw newline), each ended by a blank
 * line; comment lines start with a colon. Only what docs/api.md's streams send.
 */

const utf8 = new TextEncoder();

export const eventStreamContentType = "text/event-stream; charset=utf-8";

export const keepaliveFrame = ": keepalive\n\n";

export function recordsFrame(id: string, data: unknown): string {
  return `event: records\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** API.md's error body as an `error` event; the stream ends after it. */
export function errorFrame(error: TributaryError): string {
  return `event: error\ndata: ${JSON.stringify({ error: { ...error.data, code: error.code, message: error.message } })}\n\n`;
}

export function frameBytes(frames: string): Uint8Array {
  return utf8.encode(frames);
}
