/**
 * One Server-Sent Events connection of a stream (docs/api.md, "Streaming reads"): a GET with
 * `Accept: text/event-stream` through the client's fetch (so a service binding, a proxy's fetch
 * and the bearer header all work), its body parsed by sse-parser.ts into frames of records.
 * The body is read only as the consumer asks for more: a slow consumer slows the socket
 * (TCP's own flow control), never the client's memory.
 *
 * `event: records` is a frame; `event: error` is the server's last word (a TributaryError);
 * comments are keep-alives. A body silent for `sseIdleMs` is a dead connection.
 */
import { TributaryError, isErrorCode } from "../errors.ts";
import { decodeBase64 } from "../protocol/base64.ts";
import { headersObject, type ConsumedMessage } from "./records.ts";
import { SseParser, type ServerSentEvent } from "./sse-parser.ts";
import type { ApiRequest, Transport } from "./transport.ts";

/**
 * How long a stream may say nothing at all before the client takes it for dead and
 * reconnects: the server sends a keep-alive at least every 15 s (streamKeepaliveIntervalMs),
 * so three missed ones.
 */
export const sseIdleMs = 45_000;

/** The wire encoding of keys and values in an SSE stream's JSON: base64 is exact for any bytes, utf8 smaller for text. */
export type StreamEncoding = "base64" | "utf8";

/** A frame of records, and what to call once the consumer has taken them all. */
export interface StreamFrame {
  records: ConsumedMessage[];
  /** Where the stream resumes after this frame (SSE: the event's id). */
  resumeId: string;
  /** Each partition's next offset after this frame (one entry for a partition stream). */
  positions: Map<number, number>;
  /** Called once the consumer has taken every record of the frame (a WebSocket returns credit). */
  processed?: () => void;
}

export interface StreamConnection {
  /** The next frame; undefined when the server ended the connection cleanly; throws on a failure. */
  next(): Promise<StreamFrame | undefined>;
  close(): void;
}

/** The record fields as an SSE or WebSocket JSON frame carries them (fetch's JSON shape). */
interface WireRecord {
  partition?: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers?: Record<string, string | null>;
}

const utf8 = new TextEncoder();

function malformed(what: string): TributaryError {
  return new TributaryError("UNKNOWN_SERVER_ERROR", `unreadable stream frame: ${what}`);
}

function bytesOf(text: string | null, encoding: StreamEncoding, field: string): Uint8Array | null {
  if (text === null) return null;
  if (typeof text !== "string") throw malformed(`${field} is not a string`);
  if (encoding === "utf8") return utf8.encode(text);
  const bytes = decodeBase64(text);
  if (bytes === undefined) throw malformed(`${field} is not base64`);
  return bytes;
}

/** A JSON frame's records as the client hands them out, each at or past its partition's `positions` entry (nothing repeated). */
export function recordsOfFrame(
  records: unknown,
  topic: string,
  partitionOf: (record: WireRecord) => number,
  from: ReadonlyMap<number, number>,
  encoding: StreamEncoding,
): ConsumedMessage[] {
  if (!Array.isArray(records)) throw malformed("records is not an array");
  const out: ConsumedMessage[] = [];
  for (const record of records as WireRecord[]) {
    const partition = partitionOf(record);
    if (!Number.isSafeInteger(record?.offset) || !Number.isSafeInteger(partition)) throw malformed("a record without offset or partition");
    if (record.offset < (from.get(partition) ?? 0)) continue;
    out.push({
      topic,
      partition,
      offset: record.offset,
      timestamp: record.timestamp,
      key: bytesOf(record.key, encoding, "key"),
      value: bytesOf(record.value, encoding, "value"),
      headers: headersObject(Object.entries(record.headers ?? {})),
    });
  }
  return out;
}

/** The server's `{"error": {...}}` as a TributaryError (its code when this client knows it). */
export function errorOfFrame(error: unknown, what: string): TributaryError {
  const { code, message, ...data } = (error ?? {}) as Record<string, unknown>;
  const text = `${what}: ${typeof message === "string" ? message : "the stream ended with an error"}`;
  return isErrorCode(code) ? new TributaryError(code, text, data) : new TributaryError("UNKNOWN_SERVER_ERROR", text, { ...data, serverCode: String(code) });
}

export interface SseStreamOptions {
  transport: Transport;
  request: ApiRequest;
  /** Turns one `records` event into a frame. */
  frame: (event: ServerSentEvent, data: Record<string, unknown>) => StreamFrame;
  idleMs?: number;
}

/** Opens the stream (throws the server's refusal as a TributaryError) and reads it frame by frame. */
export async function openSse(options: SseStreamOptions): Promise<StreamConnection> {
  const { transport, frame, request } = options;
  const idleMs = options.idleMs ?? sseIdleMs;
  const outer = request.signal;
  const response = await transport.open(request);
  const what = `${request.method} ${request.path}`;
  if (response.body === null) throw new TributaryError("UNKNOWN_SERVER_ERROR", `${what}: an event stream without a body`);
  const reader = response.body.getReader();
  const parser = new SseParser();
  const queued: ServerSentEvent[] = [];
  let idle = false;
  // The body is ended by cancelling its reader: an abort that reaches fetch through a derived
  // signal (AbortSignal.any) does not always end a body already being read under Node.
  const cancel = () => void reader.cancel().catch(() => {});
  outer?.addEventListener("abort", cancel, { once: true });

  const read = async (): Promise<boolean> => {
    const timer = setTimeout(() => {
      idle = true;
      cancel();
    }, idleMs);
    try {
      const { done, value } = await reader.read();
      if (outer?.aborted) throw outer.reason;
      if (idle) throw new TributaryError("REQUEST_TIMED_OUT", `${what}: nothing came for ${idleMs} ms (not even a keep-alive)`);
      if (done) {
        parser.end();
        return false;
      }
      queued.push(...parser.push(value));
      return true;
    } catch (error) {
      if (outer?.aborted) throw outer.reason;
      if (error instanceof TributaryError) throw error;
      throw transport.streamFailure(request, error);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async next() {
      for (;;) {
        const event = queued.shift();
        if (event === undefined) {
          if (!(await read())) return undefined;
          continue;
        }
        if (event.type !== "records" && event.type !== "error") continue;
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(event.data) as Record<string, unknown>;
        } catch {
          throw malformed(`${event.type} data is not JSON`);
        }
        if (event.type === "error") throw errorOfFrame(data?.error, what);
        return frame(event, data);
      }
    },
    close() {
      outer?.removeEventListener("abort", cancel);
      cancel();
    },
  };
}
