/**
 * Streaming reads (docs/api.md, "Streaming reads"; docs/client.md, "Streams"):
 * `topic(t).partition(p).stream({ from })` and `topic(t).stream({ from })` are async iterators
 * of records that live across disconnects, delivering every record once, in order.
 *
 * One loop (`resuming`) serves every kind: open a connection, hand out its frames' records,
 * and when it ends open the next one where the last frame left off — SSE with `Last-Event-ID`
 * (the last event id seen), a WebSocket with `offset` (the next offset). A clean end (an SSE
 * stream's time limit, a WebSocket's 1000/1001/4429) reconnects at once; a failure (the
 * connection broke, 4503, a retriable HTTP error) reconnects with the client's one backoff
 * policy and its retry lines (retry.ts); an error retrying cannot fix (4404, 4416, 4400, 401,
 * 403…) is thrown to the consumer as its TributaryError. A frame's records are all handed out
 * before the next frame is read, so a reconnect always starts at a frame's end.
 */
import { TributaryError } from "../errors.ts";
import { isTributaryError } from "./errors.ts";
import type { ClientLog } from "./logger.ts";
import { partitionRetryRule, type WriteContext } from "./partition-write.ts";
import { isolationOf, type ConsumedMessage, type Isolation } from "./records.ts";
import { waitBeforeRetry } from "./retry.ts";
import type { Secret } from "./secret.ts";
import { catchUpConnection, needsCatchUp } from "./stream-catch-up.ts";
import { openSse, recordsOfFrame, type StreamConnection, type StreamEncoding, type StreamFrame } from "./stream-sse.ts";
import { globalWebSocket, openWebSocket, type WebSocketConstructor } from "./stream-websocket.ts";
import { labelled, path, type ApiRequest } from "./transport.ts";
import type { FetchResult } from "./types.ts";

export type { StreamEncoding } from "./stream-sse.ts";
export type { WebSocketConstructor, WebSocketLike } from "./stream-websocket.ts";

export interface PartitionStreamOptions {
  /** Where to start: `earliest`, `latest` (the default: only records committed from now on) or an offset. */
  from?: "earliest" | "latest" | number;
  /** SSE only: how keys and values travel (`base64`, the default, is exact for any bytes; `utf8` is smaller for text). */
  encoding?: StreamEncoding;
  /** `auto` (the default): a WebSocket where the runtime has one and calls go straight to a URL, else SSE. */
  transport?: "auto" | "sse" | "websocket";
  /** Ends the stream: the iterator throws the signal's reason. */
  signal?: AbortSignal;
  /** Open and aborted transactions' records too, up to the high watermark (as `fetch`'s). Default false: `read_committed`. */
  readUncommitted?: boolean;
}

export interface TopicStreamOptions {
  /** `earliest` or `latest` (the default) for every partition. */
  from?: "earliest" | "latest";
  encoding?: StreamEncoding;
  signal?: AbortSignal;
  /** As a partition stream's. */
  readUncommitted?: boolean;
}

/** What a stream needs of the client: its calls, and the WebSocket to use (from the config, else the runtime's). */
export interface StreamContext extends WriteContext {
  webSocket?: WebSocketConstructor;
  /** Calls go through a fetch of the user's (a proxy, a test double), which a WebSocket would bypass. */
  customFetch: boolean;
  requestTimeoutMs: number;
}

/** What a partition stream asks of its topic handle. */
export interface StreamTopicCalls {
  /** `latest`: the high watermark, or with `readUncommitted` false the last stable offset (where a read_committed reader stands). */
  latestOffset(partition: number, signal?: AbortSignal, readUncommitted?: boolean): Promise<number>;
  readToken(): Promise<{ token: Secret; expiresAt: number }>;
  /** A binary fetch with the catch-up bounds (stream-catch-up.ts), at the stream's isolation. */
  catchUpFetch(partition: number, offset: number, signal: AbortSignal, readUncommitted: boolean): Promise<FetchResult>;
}

/** A clean end this soon after opening, with nothing delivered, counts as a failure: no reconnect loop at full speed. */
const cleanEndMsMin = 1_000;
/** A read token minted for WebSockets is used until this long before it expires. */
const readTokenMarginMs = 60_000;

/** An SSE stream's request: `offset` until an event was seen, then (winning over it) `Last-Event-ID`. */
function streamRequest(recordsPath: string, offset: string | number, encoding: StreamEncoding, isolation: Isolation, lastEventId: string | undefined, signal?: AbortSignal): ApiRequest {
  return {
    method: "GET",
    path: recordsPath,
    query: { offset, encoding, isolation },
    accept: "text/event-stream",
    headers: lastEventId === undefined ? undefined : { "last-event-id": lastEventId },
    signal,
  };
}

function checkEncoding(encoding: unknown): StreamEncoding {
  if (encoding === undefined) return "base64";
  if (encoding !== "base64" && encoding !== "utf8") throw new TypeError(`stream: encoding is base64 or utf8, got ${String(encoding)}`);
  return encoding;
}

/** Hands out each connection's records, reconnecting after every end until the consumer stops or an error is final. */
async function* resuming(
  open: () => Promise<StreamConnection>,
  advance: (frame: StreamFrame) => void,
  rules: { shouldRetry: (error: unknown) => boolean | Promise<boolean>; context: StreamContext; signal?: AbortSignal; what: string },
): AsyncGenerator<ConsumedMessage[], void, undefined> {
  const { context, signal } = rules;
  let attempt = 0;
  let waitedMs = 0;
  for (;;) {
    signal?.throwIfAborted();
    let failure: unknown;
    let connection: StreamConnection | undefined;
    try {
      connection = await open();
    } catch (error) {
      failure = error;
    }
    if (connection !== undefined) {
      const openedAt = Date.now();
      let delivered = false;
      try {
        for (let frame = await connection.next(); frame !== undefined; frame = await connection.next()) {
          delivered = true;
          attempt = 0;
          waitedMs = 0;
          if (frame.records.length > 0) yield frame.records;
          // Every record of the frame was taken: only now is the frame done (and credited).
          advance(frame);
          frame.processed?.();
        }
        if (!delivered && Date.now() - openedAt < cleanEndMsMin) {
          failure = new TributaryError("NETWORK_EXCEPTION", `${rules.what}: the server ended the stream at once`, { server: context.transport.server, cause: "ended at once" });
        } else {
          logReconnect(context.log, rules.what);
        }
      } catch (error) {
        failure = error;
      } finally {
        connection.close();
      }
    }
    if (failure === undefined) continue;
    if (signal?.aborted) throw signal.reason;
    labelled(failure, rules.what);
    if (!(await rules.shouldRetry(failure))) throw failure;
    waitedMs += await waitBeforeRetry(failure, attempt++, waitedMs, { policy: context.policy, log: context.log, signal });
  }
}

/**
 * A stream's records one at a time. The frame's end (its position, its credit) is reached
 * when the loop asks for the record after its last one, as with the frames themselves.
 */
async function* eachRecord(frames: AsyncGenerator<ConsumedMessage[], void, undefined>): AsyncGenerator<ConsumedMessage, void, undefined> {
  for await (const records of frames) yield* records;
}

function logReconnect(log: ClientLog, what: string): void {
  log.log("debug", `${what}: the server ended the stream; reconnecting where it stopped`, { request: what });
}

/** The WebSocket streams use: the config's, else the runtime's unless calls go through a binding or a fetch of the user's (which a socket would bypass). */
export function streamWebSocket(context: StreamContext): WebSocketConstructor | undefined {
  return context.transport.viaBinding ? undefined : (context.webSocket ?? (context.customFetch ? undefined : globalWebSocket()));
}

/** `topic(t).partition(p).stream(options)`: checks the options now, streams when iterated. */
export function partitionStream(
  context: StreamContext,
  calls: StreamTopicCalls,
  topic: string,
  partition: number,
  options: PartitionStreamOptions = {},
): AsyncGenerator<ConsumedMessage, void, undefined> {
  return eachRecord(partitionFrames(context, calls, checkedStream(context, topic, partition, options)));
}

/** `topic(t).partition(p).streamBatches(options)`: the same stream, the records that arrived together at a time. */
export function partitionBatchStream(
  context: StreamContext,
  calls: StreamTopicCalls,
  topic: string,
  partition: number,
  options: PartitionStreamOptions = {},
): AsyncGenerator<ConsumedMessage[], void, undefined> {
  return partitionFrames(context, calls, checkedStream(context, topic, partition, options));
}

interface PartitionStreamSetup {
  topic: string;
  partition: number;
  from: "earliest" | "latest" | number;
  encoding: StreamEncoding;
  webSocket?: WebSocketConstructor;
  signal?: AbortSignal;
  readUncommitted: boolean;
}

/** A partition stream's options, checked (TypeError for a wrong one) with the transport chosen. */
function checkedStream(context: StreamContext, topic: string, partition: number, options: PartitionStreamOptions): PartitionStreamSetup {
  const from = options.from ?? "latest";
  if (from !== "earliest" && from !== "latest" && !(Number.isSafeInteger(from) && from >= 0)) {
    throw new TypeError(`stream: from is "earliest", "latest" or an offset >= 0, got ${String(from)}`);
  }
  const encoding = checkEncoding(options.encoding);
  const choice = options.transport ?? "auto";
  if (choice !== "auto" && choice !== "sse" && choice !== "websocket") throw new TypeError(`stream: transport is auto, sse or websocket, got ${String(choice)}`);
  const available = streamWebSocket(context);
  if (choice === "websocket" && available === undefined) {
    throw new TypeError(
      context.transport.viaBinding
        ? "stream: a service binding has no WebSocket; use transport sse"
        : "stream: this runtime has no WebSocket (Node 20); use transport sse, or give one as the client's webSocket option",
    );
  }
  const webSocket = choice === "sse" ? undefined : available;
  return { topic, partition, from, encoding, webSocket, signal: options.signal, readUncommitted: options.readUncommitted === true };
}

async function* partitionFrames(context: StreamContext, calls: StreamTopicCalls, stream: PartitionStreamSetup): AsyncGenerator<ConsumedMessage[], void, undefined> {
  const { topic, partition, encoding, signal } = stream;
  const recordsPath = path("topics", topic, "partitions", partition, "records");
  const what = `GET ${recordsPath}`;
  const shouldRetry = partitionRetryRule(context, topic, partition);
  // "latest" is fixed to an offset first: a reconnect before the first frame then loses nothing.
  let position: number | "earliest" = stream.from === "latest" ? await calls.latestOffset(partition, signal, stream.readUncommitted) : stream.from;
  let lastEventId: string | undefined;
  const isolation = isolationOf(stream.readUncommitted);
  const sseRequest = () => streamRequest(recordsPath, position, encoding, isolation, lastEventId, signal);
  const sse = () =>
    openSse({
      transport: context.transport,
      request: sseRequest(),
      frame: (event, data) => {
        const from = new Map(typeof position === "number" ? [[partition, position]] : []);
        const records = recordsOfFrame(data.records, topic, () => partition, from, encoding);
        const next = Number.isSafeInteger(data.nextOffset) ? (data.nextOffset as number) : (records.at(-1)?.offset ?? -1) + 1;
        return { records, resumeId: event.lastEventId === "" ? String(next) : event.lastEventId, positions: new Map([[partition, next]]) };
      },
    });
  const tokens = socketTokens(context, calls);
  const socket = async () => {
    const accessToken = await tokens();
    const offset = position;
    try {
      return await openWebSocket({
        WebSocket: stream.webSocket!,
        url: context.transport.webSocketUrl(recordsPath, { offset, encoding: "base64", isolation, access_token: accessToken }),
        topic,
        partition,
        from: typeof offset === "number" ? offset : 0,
        what,
        server: context.transport.server,
        openTimeoutMs: context.requestTimeoutMs,
        signal,
      });
    } catch (error) {
      if (!isTributaryError(error, "NETWORK_EXCEPTION")) throw error;
      // A refused handshake says nothing in a WebSocket (1006); the same URL over HTTP says why.
      const probe = await context.transport.open({ ...sseRequest(), signal: AbortSignal.any([AbortSignal.timeout(context.requestTimeoutMs), ...(signal ? [signal] : [])]) });
      await probe.body?.cancel().catch(() => {});
      throw error;
    }
  };
  // A socket opening far behind first catches up over fetches (stream-catch-up.ts): asked once, at the first opening.
  let catchUp = stream.webSocket !== undefined && typeof stream.from === "number";
  const catchUpOrSocket = async (): Promise<StreamConnection> => {
    if (!catchUp || typeof position !== "number") return socket();
    catchUp = false;
    if (!needsCatchUp(position, await calls.latestOffset(partition, signal, stream.readUncommitted))) return socket();
    return catchUpConnection((offset, fetchSignal) => calls.catchUpFetch(partition, offset, fetchSignal, stream.readUncommitted), { topic, partition, from: position, signal });
  };
  yield* resuming(stream.webSocket === undefined ? sse : catchUpOrSocket, (frame) => {
    position = frame.positions.get(partition)!;
    lastEventId = frame.resumeId;
  }, { shouldRetry, context, signal, what });
}

/**
 * The `access_token` of a WebSocket (which cannot send an Authorization header): a short-lived
 * read token minted with the client's own token, so that token never travels in a URL (where
 * Cloudflare's request logs would keep it). None without a token, or on a deployment without
 * an admin token (which checks none).
 */
function socketTokens(context: StreamContext, calls: StreamTopicCalls): () => Promise<string | undefined> {
  let minted: { token: Secret; expiresAt: number } | undefined;
  let open = false;
  return async () => {
    if (!context.transport.hasToken || open) return undefined;
    if (minted === undefined || minted.expiresAt - readTokenMarginMs < Date.now()) {
      try {
        minted = await calls.readToken();
      } catch (error) {
        if (!isTributaryError(error, "SECURITY_DISABLED")) throw error;
        open = true;
        return undefined;
      }
    }
    return minted.token.reveal();
  };
}

/** `topic(t).stream(options)`: every partition merged, over SSE (docs/api.md, "SSE on a whole topic"). */
export function topicStream(context: StreamContext, topic: string, options: TopicStreamOptions = {}): AsyncGenerator<ConsumedMessage, void, undefined> {
  const from = options.from ?? "latest";
  if (from !== "earliest" && from !== "latest") throw new TypeError(`stream: a topic stream starts at "earliest" or "latest", got ${String(from)}`);
  return eachRecord(topicFrames(context, topic, from, checkEncoding(options.encoding), isolationOf(options.readUncommitted), options.signal));
}

async function* topicFrames(
  context: StreamContext,
  topic: string,
  from: "earliest" | "latest",
  encoding: StreamEncoding,
  isolation: Isolation,
  signal: AbortSignal | undefined,
): AsyncGenerator<ConsumedMessage[], void, undefined> {
  const recordsPath = path("topics", topic, "records");
  const what = `GET ${recordsPath}`;
  const positions = new Map<number, number>();
  let lastEventId: string | undefined;
  const open = () =>
    openSse({
      transport: context.transport,
      request: streamRequest(recordsPath, from, encoding, isolation, lastEventId, signal),
      frame: (event, data) => {
        const records = recordsOfFrame(data.records, topic, (record) => record.partition ?? -1, positions, encoding);
        const next = new Map<number, number>();
        for (const [partition, offset] of Object.entries((data.positions ?? {}) as Record<string, number>)) next.set(Number(partition), offset);
        for (const record of records) next.set(record.partition, Math.max(next.get(record.partition) ?? 0, record.offset + 1));
        return { records, resumeId: event.lastEventId, positions: next };
      },
    });
  yield* resuming(open, (frame) => {
    for (const [partition, offset] of frame.positions) positions.set(partition, Math.max(positions.get(partition) ?? 0, offset));
    if (frame.resumeId !== "") lastEventId = frame.resumeId;
  }, { shouldRetry: partitionRetryRule(context, topic, 0), context, signal, what });
}
