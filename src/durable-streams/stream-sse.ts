import type { Context } from "hono";
import { concatBytes } from "../protocol/bytes.ts";
import type { Isolation } from "../protocol/schemas.ts";
import type { RouterEnv } from "../router/context.ts";
import { eventStreamResponse, type StreamSource } from "../router/streams/sse-stream.ts";
import { takeStreamSlot } from "../router/streams/stream-slots.ts";
import { jsonReadBody } from "./json-messages.ts";
import { base64Of, controlEvent, dataEvent } from "./sse-events.ts";
import { streamCursor } from "./stream-cursor.ts";
import { isJsonMode, isTextual } from "./stream-headers.ts";
import { formatStreamOffset } from "./stream-offsets.ts";
import { securityHeaders, streamHeaders } from "./stream-responses.ts";
import { readStream, type StreamRead } from "./stream-tail.ts";
import type { StreamInfo } from "./stream-topic.ts";

const utf8 = new TextDecoder();

/** The `data` event of a read's values: text as it is, JSON as one array, anything else base64. */
function dataOf(stream: StreamInfo, values: readonly Uint8Array[]): string {
  if (isJsonMode(stream.contentType)) return dataEvent(jsonReadBody(values));
  const bytes = concatBytes(values);
  return dataEvent(isTextual(stream.contentType) ? utf8.decode(bytes) : base64Of(bytes));
}

/**
 * `live=sse` (the protocol's section 5.7) on the router's SSE machinery
 * (src/router/streams/sse-stream.ts: pull-driven long polls, keep-alives, a bounded
 * duration, a slot per token). Each read that brings data is a `data` event and a `control`
 * event; reaching the tail announces `upToDate` once; a closed stream's last control event
 * says `streamClosed` and the stream ends. The first read happens before the answer, so a
 * bad offset is still a plain 400.
 */
export async function streamEvents(c: Context<RouterEnv>, stream: StreamInfo, from: number, clientCursor: string | undefined, isolation: Isolation): Promise<Response> {
  let pending: StreamRead | undefined = await readStream(c.env, stream.topic, from, 0, isolation);
  let offset = from;
  let announcedTail = false;
  const source: StreamSource = {
    async next(waitMs) {
      const read = pending ?? (await readStream(c.env, stream.topic, offset, announcedTail ? waitMs : 0, isolation));
      pending = undefined;
      const hasData = read.values.length > 0;
      offset = read.nextOffset;
      if (!hasData && !read.closed && (announcedTail || !read.upToDate)) return { frames: "" };
      announcedTail = read.upToDate;
      const control = {
        streamNextOffset: formatStreamOffset(read.nextOffset),
        // A closed stream's last event has no cursor: there is nothing more to collapse on.
        ...(read.closed ? {} : { streamCursor: streamCursor(Date.now(), clientCursor) }),
        ...(read.upToDate ? { upToDate: true as const } : {}),
        ...(read.closed ? { streamClosed: true as const } : {}),
      };
      return { frames: (hasData ? dataOf(stream, read.values) : "") + controlEvent(control), end: read.closed };
    },
  };
  const response = eventStreamResponse(source, { release: takeStreamSlot(c.get("credential")), signal: c.req.raw.signal });
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "text/event-stream");
  for (const [name, value] of Object.entries(securityHeaders)) headers.set(name, value);
  if (!isTextual(stream.contentType)) headers.set(streamHeaders.sseDataEncoding, "base64");
  return new Response(response.body, { status: 200, headers });
}
