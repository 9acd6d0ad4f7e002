import { Hono, type Context } from "hono";
import { authentication } from "../router/auth.ts";
import { corsMiddleware } from "../router/cors.ts";
import { quotaMiddleware } from "../router/quotas.ts";
import type { RouterEnv } from "../router/context.ts";
import { StreamError } from "./stream-errors.ts";
import { durableStreamsBasePath } from "./stream-paths.ts";
import { streamTopicName } from "./stream-names.ts";
import { readStreamRoute, streamMetadataRoute } from "./stream-reads.ts";
import { errorResponseOf, streamHeaders } from "./stream-responses.ts";
import { appendToStream, createStream, deleteStream } from "./stream-writes.ts";

/**
 * The Durable Streams protocol (docs/durable-streams.md) under a base path of the Worker
 * (`/ds` by default, src/app.ts): every path below it is a stream, the topic
 * streamTopicName names. Authentication and per-token quotas as /v1 (Bearer tokens); each handler authorizes its
 * operation on the stream's topic (src/router/authorize.ts): GET and HEAD read, POST write,
 * PUT create, DELETE delete. Errors are the protocol's statuses (stream-responses.ts).
 */
export { durableStreamsBasePath };

/** The stream's topic name from the request's path below the base path (percent-decoded). */
function topicOf(c: Context<RouterEnv>): string {
  const pathname = new URL(c.req.url).pathname;
  let path: string;
  try {
    path = decodeURIComponent(pathname.slice(durableStreamsBasePath.length + 1));
  } catch {
    throw new StreamError(400, "the stream path is not valid percent-encoded UTF-8");
  }
  return streamTopicName(path);
}

const protocolHeaders = Object.values(streamHeaders);

type Handler = (c: Context<RouterEnv>, topic: string) => Promise<Response>;

function streamRoute(handler: Handler) {
  return async (c: Context<RouterEnv>) => {
    try {
      return await handler(c, topicOf(c));
    } catch (error) {
      return errorResponseOf(error);
    }
  };
}

export const durableStreamsRoutes = new Hono<RouterEnv>()
  .use(
    "*",
    corsMiddleware({
      allowHeaders: ["Authorization", "Content-Type", "If-None-Match", ...protocolHeaders],
      exposeHeaders: ["ETag", "Location", "Retry-After", ...protocolHeaders],
      allowMethods: ["GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS"],
      maxAgeSeconds: 600,
    }),
  )
  .use("*", async (c, next) => {
    try {
      await authentication()(c, async () => void (await quotaMiddleware()(c, next)));
    } catch (error) {
      return errorResponseOf(error);
    }
  })
  .put("/*", streamRoute(createStream))
  .post("/*", streamRoute(appendToStream))
  .get("/*", streamRoute((c, topic) => (c.req.method === "HEAD" ? streamMetadataRoute(c, topic) : readStreamRoute(c, topic))))
  .delete("/*", streamRoute(deleteStream));
