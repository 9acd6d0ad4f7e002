/**
 * One WebSocket connection of a partition stream (docs/api.md, "WebSocket on a partition"),
 * with the standard `WebSocket` (browsers, Workers, Node ≥ 22) or one given in the client's
 * config. It asks for the subprotocol `tributary.record-batch`: binary frames of whole Kafka
 * RecordBatch v2 batches, decoded with src/protocol (records below the position skipped); JSON
 * text frames are read too, should the server answer without the subprotocol.
 *
 * Flow control (src/protocol/stream-credit.ts): the server's window starts at 1 MiB of frame
 * bytes; right after opening the client grants it up to its largest (4 MiB) with one
 * `{"credit": n}`, then returns the bytes of frames the consumer has taken (credit follows
 * processing) in one message once they reach half the largest window — one message per ~2 MiB
 * rather than per frame, as each is billed. A slow consumer still holds the server back rather
 * than filling the client's memory: at most the largest window of frames waits here.
 *
 * Close codes: 4404, 4416 and 4400 are the typed error (with the error frame's data); 4429
 * (too slow), 1000 and 1001 end the connection cleanly (the stream reconnects from its next
 * offset); 4503 and anything else (1006: the connection broke) are retriable failures.
 */
import { TributaryError } from "../errors.ts";
import { splitBatches } from "../protocol/record-batch.ts";
import { CreditLedger } from "../protocol/stream-credit.ts";
import { decodeFetchedBatches } from "./records.ts";
import { errorOfFrame, recordsOfFrame, type StreamConnection, type StreamFrame } from "./stream-sse.ts";

/** The subprotocol of binary frames. */
export const recordBatchSubprotocol = "tributary.record-batch";

/** The part of the standard WebSocket a stream uses. */
export interface WebSocketLike {
  binaryType: string;
  readonly protocol: string;
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "message" | "close" | "error", listener: (event: any) => void): void;
}

/** `WebSocket` itself, or anything constructed as it is. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** The runtime's WebSocket, if it has one (Node 20 has none by default). */
export function globalWebSocket(): WebSocketConstructor | undefined {
  const candidate = (globalThis as { WebSocket?: unknown }).WebSocket;
  return typeof candidate === "function" ? (candidate as WebSocketConstructor) : undefined;
}

const openState = 1;
const utf8 = new TextEncoder();

interface Closed {
  code: number;
  reason: string;
}

/** What a close means for the stream: undefined for a clean end, else the error to throw (or retry). */
function closeOutcome(closed: Closed, errorFrame: unknown, what: string, server: string): TributaryError | undefined {
  const { code, reason } = closed;
  if (code === 4429 || code === 1000 || code === 1001) return undefined;
  const said = reason === "" ? "" : ` (${reason})`;
  if (code === 4404 || code === 4416 || code === 4400) {
    if (errorFrame !== undefined) return errorOfFrame(errorFrame, what);
    const byCode = { 4404: "UNKNOWN_TOPIC_OR_PARTITION", 4416: "OFFSET_OUT_OF_RANGE", 4400: "INVALID_REQUEST" } as const;
    return new TributaryError(byCode[code], `${what}: the server closed the stream with ${code}${said}`);
  }
  if (code === 4503) return new TributaryError("LEADER_NOT_AVAILABLE", `${what}: the partition's leader changed or moved (4503${said})`);
  return new TributaryError("NETWORK_EXCEPTION", `${what}: the WebSocket closed with ${code}${said}`, { server, cause: `close ${code}` });
}

/** The offset after the last batch of a binary frame (control batches included), or `from` when it holds none past it. */
function nextOffsetOf(bytes: Uint8Array, from: number): number {
  let next = from;
  for (const { header } of splitBatches(bytes)) next = Math.max(next, header.baseOffset + header.lastOffsetDelta + 1);
  return next;
}

export interface WebSocketStreamOptions {
  WebSocket: WebSocketConstructor;
  url: string;
  topic: string;
  partition: number;
  /** The next offset the consumer needs: records below it are skipped. */
  from: number;
  /** How errors and retry lines name the connection ("GET /v1/topics/…/records") and the server (its origin). */
  what: string;
  server: string;
  openTimeoutMs: number;
  signal?: AbortSignal;
}

/** Opens the socket; rejects with a retriable NETWORK_EXCEPTION when the handshake fails (the caller may ask why over HTTP). */
export async function openWebSocket(options: WebSocketStreamOptions): Promise<StreamConnection> {
  const { what, signal } = options;
  signal?.throwIfAborted();
  const socket = new options.WebSocket(options.url, [recordBatchSubprotocol]);
  socket.binaryType = "arraybuffer";
  const frames: (ArrayBuffer | string)[] = [];
  let closed: Closed | undefined;
  let errorFrame: unknown;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const onAbort = () => socket.close(1000, "the consumer stopped");
  socket.addEventListener("message", (event: { data: unknown }) => {
    if (typeof event.data === "string" || event.data instanceof ArrayBuffer) frames.push(event.data);
    notify();
  });
  const onClosed = (code: number, reason: string) => {
    closed ??= { code, reason };
    signal?.removeEventListener("abort", onAbort);
    notify();
  };
  socket.addEventListener("close", (event: { code: number; reason: string }) => onClosed(event.code, event.reason ?? ""));
  // A failed connection fires error, then close (1006) — but Node's WebSocket (undici) fires no
  // close when the connection breaks during the handshake: the error alone ends the socket.
  socket.addEventListener("error", () => onClosed(1006, "connection failed"));
  signal?.addEventListener("abort", onAbort, { once: true });

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new TributaryError("REQUEST_TIMED_OUT", `${what}: the WebSocket did not open within ${options.openTimeoutMs} ms`));
    }, options.openTimeoutMs);
    socket.addEventListener("open", () => {
      clearTimeout(timer);
      resolve();
    });
    const failed = (code: number) => {
      clearTimeout(timer);
      if (signal?.aborted) return reject(signal.reason);
      reject(new TributaryError("NETWORK_EXCEPTION", `${what}: the WebSocket handshake failed (close ${code})`, { server: options.server, cause: `close ${code}` }));
    };
    socket.addEventListener("close", (event: { code: number }) => failed(event.code));
    socket.addEventListener("error", () => failed(1006));
  });

  let position = options.from;
  const ledger = new CreditLedger();
  const sendCredit = (bytes: number) => {
    if (bytes > 0 && socket.readyState === openState) socket.send(JSON.stringify({ credit: bytes }));
  };
  sendCredit(ledger.opening());
  const credit = (bytes: number) => () => sendCredit(ledger.processed(bytes));
  const frameOf = (data: ArrayBuffer | string): StreamFrame | undefined => {
    if (typeof data !== "string") {
      const bytes = new Uint8Array(data);
      const records = decodeFetchedBatches(bytes, position, Number.MAX_SAFE_INTEGER).map((record) => ({ ...record, topic: options.topic, partition: options.partition }));
      position = nextOffsetOf(bytes, position);
      return { records, resumeId: String(position), positions: new Map([[options.partition, position]]), processed: credit(bytes.byteLength) };
    }
    const message = JSON.parse(data) as Record<string, unknown>;
    if (message.error !== undefined) {
      errorFrame = message.error;
      return undefined;
    }
    const from = new Map([[options.partition, position]]);
    const records = recordsOfFrame(message.records, options.topic, () => options.partition, from, "base64");
    if (Number.isSafeInteger(message.nextOffset)) position = Math.max(position, message.nextOffset as number);
    return { records, resumeId: String(position), positions: new Map([[options.partition, position]]), processed: credit(utf8.encode(data).byteLength) };
  };

  return {
    async next() {
      for (;;) {
        signal?.throwIfAborted();
        const data = frames.shift();
        if (data !== undefined) {
          let frame: StreamFrame | undefined;
          try {
            frame = frameOf(data);
          } catch (error) {
            if (error instanceof TributaryError) throw error;
            throw new TributaryError("UNKNOWN_SERVER_ERROR", `${what}: unreadable frame (${error instanceof Error ? error.message : String(error)})`);
          }
          if (frame !== undefined) return frame;
          continue;
        }
        if (closed !== undefined) {
          const error = closeOutcome(closed, errorFrame, what, options.server);
          if (error !== undefined) throw error;
          return undefined;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    close() {
      signal?.removeEventListener("abort", onAbort);
      if (closed === undefined) socket.close(1000, "the consumer stopped");
    },
  };
}
