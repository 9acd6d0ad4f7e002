import { Hono } from "hono";
import { unwrap } from "../../errors.ts";
import { controllerStub } from "../../contracts/stubs.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";
import { parseRegions } from "../../topics/placement.ts";
import { defaultTopicConfigs, topicDefaults } from "../../topics/topic-defaults.ts";

/**
 * `GET /v1/cluster` (docs/api.md): the deployment's cluster id, made once by the controller and
 * the same through every URL and every router — what Kafka gateways answer in Metadata — and
 * what a new topic takes when its creation does not say (topic-defaults.ts). Any valid token may read it, as any Kafka client reads the cluster id: it is a random name that
 * says nothing about the data.
 */
export const clusterRoutes = new Hono<RouterEnv>().get("/", async (c) => {
  routeQuery(c.req.url, []);
  const { clusterId } = unwrap(await controllerStub(c.env).clusterId());
  const defaults = { ...topicDefaults(c.env, parseRegions(c.env.REGIONS).length), configs: defaultTopicConfigs() };
  return c.json({ clusterId, defaults });
});
