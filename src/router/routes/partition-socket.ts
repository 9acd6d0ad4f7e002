import { Hono } from "hono";
import { sha256Hex } from "../../auth/token-format.ts";
import { ok, TributaryError, type Result } from "../../errors.ts";
import { recordBatchSubprotocol, subscribeHeader, type SubscribeRequest } from "../../contracts/replica-api.ts";
import { encodingSchema } from "../../protocol/schemas.ts";
import type { SubscriberMode } from "../../log/subscriber-window.ts";
import { authorize, principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { callLeader } from "../../data-plane/leader-calls.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { integerParam, isolationParam, partitionParam, routeQueries, routeQuery } from "../query.ts";

/** `offset` of a stream: earliest, latest (the default) or an offset (one outside the log is the partition's 416). */
function streamOffsetParam(text: string | undefined): SubscribeRequest["offset"] {
  if (text === undefined || text === "latest") return "latest";
  if (text === "earliest") return "earliest";
  return integerParam("offset", text, { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
}

/** Binary frames when the client offers the record-batch subprotocol, else JSON in the requested encoding. */
function subscriberMode(protocols: string | undefined, encoding: string | undefined): SubscriberMode {
  const parsed = encodingSchema.safeParse(encoding ?? "utf8");
  if (!parsed.success) throw new TributaryError("INVALID_REQUEST", "encoding must be utf8 or base64");
  const offered = (protocols ?? "").split(",").map((protocol) => protocol.trim());
  return offered.includes(recordBatchSubprotocol) ? "binary" : parsed.data;
}

/**
 * WebSocket on a partition (docs/api.md): the fetch URL with `Upgrade: websocket`. The router
 * checks the token, the parameters and the topic, then hands the upgrade to the partition's
 * leader object, which holds the socket with the hibernation API
 * (src/objects/partition-subscribers.ts). Refusals before the upgrade are JSON errors as
 * fetch's. Mounted before the other routes of this path; any other GET falls through.
 */
export const partitionSocketRoutes = new Hono<RouterEnv>().get("/:topic/partitions/:partition/records", async (c, next) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") return next();
  authorize(c, "topic", c.req.param("topic"), "read");
  const partition = partitionParam(c.req.param("partition"));
  // access_token: a browser's token (docs/api.md, read tokens), taken by the authentication middleware.
  const query = routeQuery(c.req.url, routeQueries.streamingRead);
  const offset = streamOffsetParam(query.offset);
  const mode = subscriberMode(c.req.header("sec-websocket-protocol"), query.encoding);
  const isolation = isolationParam(query.isolation);
  // Streams per token: keyed as SSE's (a scoped token, or each write or read token), by a hash sent to the object.
  const tokenKey = principalOf(c).kind === "token" ? await sha256Hex(`tributary stream key v1\n${c.get("credential")}`) : undefined;
  const topic = await topicMetadata(c.env, c.req.param("topic"));
  return callLeader(
    c.env,
    topic,
    partition,
    async (stub, call): Promise<Result<Response>> => {
      const subscribe: SubscribeRequest = { ...call, offset, mode, isolation, ...(tokenKey === undefined ? {} : { tokenKey }) };
      const headers = { Upgrade: "websocket", [subscribeHeader]: JSON.stringify(subscribe) };
      const response = await stub.fetch(new Request("https://partition.internal/subscribe", { headers }));
      if (response.status === 101) return ok(response);
      return (await response.json()) as Result<Response>;
    },
    { retryUnreachable: true },
  );
});
