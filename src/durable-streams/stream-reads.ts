import type { Context } from "hono";
import { fetchWaitMsMax, streamLongPollWaitMsDefault } from "../limits.ts";
import { authorize } from "../router/authorize.ts";
import type { RouterEnv } from "../router/context.ts";
import { concatBytes } from "../protocol/bytes.ts";
import type { Isolation } from "../protocol/schemas.ts";
import { jsonReadBody } from "./json-messages.ts";
import { cachedRead, storeRead } from "./read-cache.ts";
import { streamCursor } from "./stream-cursor.ts";
import { StreamError } from "./stream-errors.ts";
import { isJsonMode } from "./stream-headers.ts";
import { formatStreamOffset, parseStreamOffset, type StreamOffset } from "./stream-offsets.ts";
import { cacheableReadHeader, streamHeaders, streamResponse } from "./stream-responses.ts";
import { streamEvents } from "./stream-sse.ts";
import { readStream, streamTail, type StreamRead } from "./stream-tail.ts";
import { liveStream, type StreamInfo } from "./stream-topic.ts";

/** Reading streams (the protocol's sections 5.4–5.7): HEAD, catch-up, long-poll and SSE. */

/** How long a long poll waits: the Worker's DURABLE_STREAMS_LONG_POLL_MS, within fetchWaitMsMax. */
export function longPollWaitMs(env: Env): number {
  const configured = env.DURABLE_STREAMS_LONG_POLL_MS ? Number(env.DURABLE_STREAMS_LONG_POLL_MS) : Number.NaN;
  return Number.isFinite(configured) && configured >= 0 ? Math.min(configured, fetchWaitMsMax) : streamLongPollWaitMsDefault;
}

/** The offset to read from: the log start for -1, the tail (the reader's: docs/transactions.md) for `now`. */
export async function resolveOffset(env: Env, stream: StreamInfo, offset: StreamOffset, isolation: Isolation = "read_committed"): Promise<number> {
  if (offset.kind === "at") return offset.offset;
  if (offset.kind === "start") return 0;
  return (await streamTail(env, stream.topic, isolation)).nextOffset;
}

/**
 * Tributary's `isolation` query parameter (docs/durable-streams.md; docs/transactions.md): a
 * stream's topic may hold transactions written through /v1. read_committed by default.
 */
export function streamIsolation(url: URL): Isolation {
  const text = url.searchParams.get("isolation");
  if (text === null || text === "read_committed") return "read_committed";
  if (text === "read_uncommitted") return text;
  throw new StreamError(400, `isolation is read_committed or read_uncommitted, not ${JSON.stringify(text.slice(0, 64))}`);
}

/** The body of a read: the values as they were appended, or in JSON mode one array of their messages. */
function readAnswerBody(stream: StreamInfo, values: readonly Uint8Array[]): Uint8Array | string {
  return isJsonMode(stream.contentType) ? jsonReadBody(values) : concatBytes(values);
}

function readHeaders(stream: StreamInfo, read: StreamRead): Record<string, string> {
  return {
    "Content-Type": stream.contentType,
    [streamHeaders.nextOffset]: formatStreamOffset(read.nextOffset),
    ...(read.upToDate ? { [streamHeaders.upToDate]: "true" } : {}),
    ...(read.closed ? { [streamHeaders.closed]: "true" } : {}),
  };
}

/** The entity tag of a read: the topic (a recreated stream is another), the range, closure, and read_uncommitted (aborted records in it). */
function entityTag(stream: StreamInfo, from: number, read: StreamRead, isolation: Isolation): string {
  return `"${stream.topic.topicId}:${from}:${read.nextOffset}${read.closed ? ":c" : ""}${isolation === "read_committed" ? "" : ":u"}"`;
}

/**
 * A read's answer. Data are immutable once written, so a read that returns some — or finds the
 * stream closed — may be cached (Cache-Control for CDNs, ETag and 304 for clients); an empty
 * read at an open tail may not, since the next append changes it.
 */
function dataResponse(c: Context<RouterEnv>, stream: StreamInfo, from: number, read: StreamRead, isolation: Isolation, extra: Record<string, string>): Response {
  const etag = entityTag(stream, from, read, isolation);
  c.set("fetchedBytes", read.values.reduce((sum, value) => sum + value.byteLength, 0)); // the token's fetch quota counts it
  const cacheable = read.values.length > 0 || read.closed;
  const headers = { ...readHeaders(stream, read), ETag: etag, "Cache-Control": cacheable ? cacheableReadHeader(c.env) : "no-store", ...extra };
  if (c.req.header("if-none-match") === etag) return streamResponse(null, 304, headers);
  return streamResponse(readAnswerBody(stream, read.values), 200, headers);
}

/** A cached answer as this request wants it: 304 when its If-None-Match is the answer's ETag. */
function fromCache(c: Context<RouterEnv>, cached: Response): Response {
  const headers = Object.fromEntries(cached.headers);
  headers["cache-control"] = cacheableReadHeader(c.env);
  if (c.req.header("if-none-match") === cached.headers.get("etag")) return streamResponse(null, 304, headers);
  return streamResponse(cached.body, 200, headers);
}

/** A catch-up read: from the Worker's cache when its range is immutable and cached (read-cache.ts), else from the partition. */
async function catchUpRead(c: Context<RouterEnv>, stream: StreamInfo, from: number, isolation: Isolation): Promise<Response> {
  const cached = await cachedRead(stream.topic.topicId, from, isolation);
  if (cached) return fromCache(c, cached);
  const read = await readStream(c.env, stream.topic, from, 0, isolation);
  const response = dataResponse(c, stream, from, read, isolation, {});
  const immutable = response.status === 200 && ((read.values.length > 0 && !read.upToDate) || read.closed);
  if (immutable) c.executionCtx.waitUntil(storeRead(stream.topic.topicId, from, isolation, response).catch(() => undefined));
  return response;
}

/** GET: catch-up by default; `live=long-poll` waits at the tail; `live=sse` streams events. */
export async function readStreamRoute(c: Context<RouterEnv>, name: string): Promise<Response> {
  authorize(c, "topic", name, "read");
  const url = new URL(c.req.url);
  const offsetValues = url.searchParams.getAll("offset");
  const offset = parseStreamOffset(offsetValues);
  const live = url.searchParams.get("live") ?? undefined;
  const isolation = streamIsolation(url);
  if (live !== undefined && live !== "long-poll" && live !== "sse") throw new StreamError(400, `live is long-poll or sse, not ${JSON.stringify(live)}`);
  if (live !== undefined && offsetValues.length === 0) throw new StreamError(400, `live=${live} needs an offset (-1 for the start, now for the tail)`);
  const stream = await liveStream(c.env, name, (promise) => c.executionCtx.waitUntil(promise));
  const cursor = url.searchParams.get("cursor") ?? undefined;
  if (live === "sse") return streamEvents(c, stream, await resolveOffset(c.env, stream, offset, isolation), cursor, isolation);
  if (offset.kind === "now" && live === undefined) {
    const tail = await streamTail(c.env, stream.topic, isolation);
    return streamResponse(isJsonMode(stream.contentType) ? "[]" : null, 200, {
      "Content-Type": stream.contentType,
      [streamHeaders.nextOffset]: formatStreamOffset(tail.nextOffset),
      [streamHeaders.upToDate]: "true",
      ...(tail.closed ? { [streamHeaders.closed]: "true" } : {}),
      "Cache-Control": "no-store",
    });
  }
  const from = await resolveOffset(c.env, stream, offset, isolation);
  if (live !== "long-poll") return catchUpRead(c, stream, from, isolation);
  let read = await readStream(c.env, stream.topic, from, 0, isolation);
  const cursorHeader = { [streamHeaders.cursor]: streamCursor(Date.now(), cursor) };
  if (read.values.length === 0 && !read.closed && read.upToDate) read = await readStream(c.env, stream.topic, read.nextOffset, longPollWaitMs(c.env), isolation);
  if (read.values.length > 0) return dataResponse(c, stream, from, read, isolation, cursorHeader);
  // Nothing came: the tail, up to date (and closed, when it is).
  return streamResponse(null, 204, { ...readHeaders(stream, { ...read, upToDate: true }), "Cache-Control": "no-store", ...cursorHeader });
}

/** HEAD: the stream's content type, tail, lifetime and closure; never cached. */
export async function streamMetadataRoute(c: Context<RouterEnv>, name: string): Promise<Response> {
  authorize(c, "topic", name, "read");
  const stream = await liveStream(c.env, name, (promise) => c.executionCtx.waitUntil(promise), false);
  const tail = await streamTail(c.env, stream.topic, streamIsolation(new URL(c.req.url)));
  return streamResponse(null, 200, {
    "Content-Type": stream.contentType,
    [streamHeaders.nextOffset]: formatStreamOffset(tail.nextOffset),
    ...(tail.closed ? { [streamHeaders.closed]: "true" } : {}),
    ...(stream.ttlSeconds !== undefined ? { [streamHeaders.ttl]: String(stream.ttlSeconds) } : {}),
    ...(stream.expiresAtMs !== undefined ? { [streamHeaders.expiresAt]: new Date(stream.expiresAtMs).toISOString() } : {}),
    "Cache-Control": "no-store",
  });
}
