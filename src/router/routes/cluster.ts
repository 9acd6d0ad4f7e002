import { Hono } from "hono";
import { unwrap } from "../../errors.ts";
import { controllerStub } from "../../objects/stubs.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";

/**
 * `GET /v1/cluster` (docs/api.md): the deployment's cluster id, made once by the controller and
 * the same through every URL and every router — what Kafka gateways answer in Metadata. Any
 * valid token may read it, as any Kafka client reads the cluster id: it is a random name that
 * says nothing about the data.
 */
export const clusterRoutes = new Hono<RouterEnv>().get("/", async (c) => {
  routeQuery(c.req.url, []);
  return c.json(unwrap(await controllerStub(c.env).clusterId()));
});
