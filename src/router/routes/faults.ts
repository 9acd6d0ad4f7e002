import { Hono } from "hono";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax } from "../../limits.ts";
import { checkFaultsEnabled } from "../../contracts/faults.ts";
import { replicaStub } from "../../contracts/stubs.ts";
import { faultRequestSchema } from "../../protocol/schemas.ts";
import { placementOf } from "../../data-plane/leader-calls.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";
import { authorizeAdmin } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { setShareStateFaults } from "../share-faults.ts";

/**
 * Fault injection (API.md): only when the Worker variable TRIBUTARY_FAULTS is "1" — a
 * feature for local resilience drills and tests, never set in a production deploy, where
 * the path does not exist: 404 NOT_FOUND for every method (so not 405), checked first.
 */
export const faultRoutes = new Hono<RouterEnv>()
  .all("/", async (c, next) => {
    checkFaultsEnabled(c.env);
    await next();
  })
  .post("/", async (c) => {
    authorizeAdmin(c, "inject faults");
    routeQuery(c.req.url, []);
    const request = await readJsonBody(c.req.raw, faultRequestSchema, { maxBytes: adminRequestBytesMax });
    const topic = await topicMetadata(c.env, request.topic);
    const placement = placementOf(topic, request.partition);
    if (!placement.replicas.includes(request.replica)) {
      throw new TributaryError("INVALID_REQUEST", `partition ${request.partition} has no replica in ${request.replica}`);
    }
    const stub = replicaStub(c.env, topic.topicId, request.partition, request.replica);
    unwrap(await stub.setFault({ topicId: topic.topicId, partition: request.partition, region: request.replica, fault: request.fault, ms: request.ms ?? 0 }));
    // Issue 15: the region's share-partition state replicas of this partition get the fault too.
    await setShareStateFaults(c.env, topic.topicId, request.partition, request.replica, request.fault, request.ms ?? 0);
    return c.body(null, 204);
  });
