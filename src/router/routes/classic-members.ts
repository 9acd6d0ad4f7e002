import { Hono } from "hono";
import { unwrap } from "../../errors.ts";
import { classicRequestBytesMax } from "../../limits.ts";
import { groupStub } from "../../contracts/stubs.ts";
import { decodeBase64 } from "../../protocol/base64.ts";
import { decodeSubscription, MalformedConsumerProtocol } from "../../protocol/consumer-protocol.ts";
import { classicHeartbeatSchema, classicJoinSchema, classicLeaveSchema, classicSyncSchema } from "../../protocol/schemas.ts";
import { authorize, authorizeTopics } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";
import { clientHost, groupParam } from "./groups.ts";

/**
 * Classic members (docs/api.md, Classic members): Kafka's JoinGroup, SyncGroup, Heartbeat and
 * LeaveGroup as the Kafka gateway forwards them. The group's coordinator decides the path:
 * Kafka's classic protocol while only classic members are in the group, the server's
 * assignment once an HTTP member is (src/group/group-membership.ts). Each needs `read` on the
 * group, as every member's request; a consumer's JoinGroup also `read` on the topics its
 * subscriptions name, as an HTTP member's join.
 */
export const classicMemberRoutes = new Hono<RouterEnv>()
  .post("/:group/classic/join", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const { waitMs, ...request } = await readJsonBody(c.req.raw, classicJoinSchema, { maxBytes: classicRequestBytesMax });
    if (request.protocolType === "consumer") authorizeTopics(c, subscribedTopics(request.protocols), "read");
    const host = clientHost(c.req.raw);
    return c.json(unwrap(await groupStub(c.env, group).classicJoin(group, { request: { ...request, host }, waitMs })));
  })
  .post("/:group/classic/sync", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const { waitMs, ...request } = await readJsonBody(c.req.raw, classicSyncSchema, { maxBytes: classicRequestBytesMax });
    return c.json(unwrap(await groupStub(c.env, group).classicSync(group, { request, waitMs })));
  })
  .post("/:group/classic/heartbeat", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const request = await readJsonBody(c.req.raw, classicHeartbeatSchema, { maxBytes: classicRequestBytesMax });
    return c.json(unwrap(await groupStub(c.env, group).classicHeartbeat(group, request)));
  })
  .post("/:group/classic/leave", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const request = await readJsonBody(c.req.raw, classicLeaveSchema, { maxBytes: classicRequestBytesMax });
    return c.json(unwrap(await groupStub(c.env, group).classicLeave(group, request)));
  });

/** The topics of every protocol whose metadata is a consumer Subscription (others name none the router can see). */
function subscribedTopics(protocols: readonly { metadata: string }[]): string[] {
  const topics = new Set<string>();
  for (const { metadata } of protocols) {
    try {
      for (const topic of decodeSubscription(decodeBase64(metadata) ?? new Uint8Array(0)).topics) topics.add(topic);
    } catch (error) {
      if (!(error instanceof MalformedConsumerProtocol)) throw error;
    }
  }
  return [...topics];
}
