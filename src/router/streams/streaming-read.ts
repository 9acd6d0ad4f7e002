/**
 * Streaming reads (docs/api.md, "Streaming reads"): SSE (`Accept: text/event-stream`) or a
 * WebSocket upgrade, with GET, on a partition's or a whole topic's records. Browsers open
 * both without headers of their own, so these requests alone may carry their token as
 * `?access_token=`; the one place that decides which requests those are.
 */

/** The query parameter a streaming read may carry its bearer token in. */
export const accessTokenParam = "access_token";

const partitionRecordsPath = /^\/v1\/topics\/[^/]+\/partitions\/[^/]+\/records$/;
const topicRecordsPath = /^\/v1\/topics\/[^/]+\/records$/;

/** Whether the Accept header asks for an event stream (media type only, any parameters or q-values). */
export function acceptsEventStream(accept: string | null | undefined): boolean {
  if (!accept) return false;
  return accept.split(",").some((entry) => entry.split(";")[0]!.trim().toLowerCase() === "text/event-stream");
}

export function isWebSocketUpgrade(request: Request): boolean {
  return (request.headers.get("upgrade") ?? "").toLowerCase() === "websocket";
}

/** GET with `Accept: text/event-stream` or `Upgrade: websocket`, on a partition's or a topic's records. */
export function isStreamingRead(request: Request): boolean {
  if (request.method !== "GET") return false;
  const path = new URL(request.url).pathname;
  if (!partitionRecordsPath.test(path) && !topicRecordsPath.test(path)) return false;
  return acceptsEventStream(request.headers.get("accept")) || isWebSocketUpgrade(request);
}
