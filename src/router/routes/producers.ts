import { Hono } from "hono";
import { unwrap } from "../../errors.ts";
import { adminRequestBytesMax } from "../../limits.ts";
import { controllerStub } from "../../contracts/stubs.ts";
import { producerRequestSchema } from "../../protocol/schemas.ts";
import { authorizeIdempotentWrite } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";

/**
 * `POST /v1/producers` (API.md, Produce): an idempotent producer's id and epoch, from the
 * controller (Kafka's InitProducerId, without transactions).
 */
export const producerRoutes = new Hono<RouterEnv>().post("/", async (c) => {
  routeQuery(c.req.url, []);
  const { topic } = await readJsonBody(c.req.raw, producerRequestSchema, { maxBytes: adminRequestBytesMax, optional: true });
  authorizeIdempotentWrite(c, topic);
  const identity = unwrap(await controllerStub(c.env).initProducerId());
  return c.json(identity, 201);
});
