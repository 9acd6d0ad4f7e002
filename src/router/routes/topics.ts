import { Hono } from "hono";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax } from "../../limits.ts";
import { controllerStub } from "../../contracts/stubs.ts";
import { alterConfigsSchema, createPartitionsSchema, createTopicSchema } from "../../protocol/schemas.ts";
import { forgetTopic, rememberTopic, topicMetadata } from "../../data-plane/metadata-cache.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";
import { announceConfigs, topicView } from "../topic-view.ts";
import { authorize, authorizeTopicCreation, may, principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";

/** `validateOnly=true` (Kafka's validateOnly): every check of the change, nothing written. */
function validateOnlyOf(url: string): boolean {
  const { validateOnly } = routeQuery(url, ["validateOnly"]);
  if (validateOnly !== undefined && validateOnly !== "true" && validateOnly !== "false") throw new TributaryError("INVALID_REQUEST", "validateOnly is true or false");
  return validateOnly === "true";
}

/** Topics (API.md): create, list, describe, alter configs, add partitions, delete. */
export const topicRoutes = new Hono<RouterEnv>()
  .post("/", async (c) => {
    const validateOnly = validateOnlyOf(c.req.url);
    const body = await readJsonBody(c.req.raw, createTopicSchema, { maxBytes: adminRequestBytesMax });
    authorizeTopicCreation(c, body.name);
    const topic = unwrap(await controllerStub(c.env).createTopic({ ...body, validateOnly }));
    // Validated only: the topic as it would be made (its topicId is not kept), 200 rather than 201.
    if (validateOnly) return c.json(await topicView(c.env, topic, { fresh: true }), 200);
    rememberTopic(topic);
    return c.json(await topicView(c.env, topic, { fresh: true }), 201);
  })
  .get("/", async (c) => {
    const principal = principalOf(c);
    routeQuery(c.req.url, []);
    const topics = unwrap(await controllerStub(c.env).listTopics()).filter((topic) => may(principal, "topic", topic.name, "describe"));
    return c.json({ topics });
  })
  .get("/:topic", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "describe");
    routeQuery(c.req.url, []);
    const topic = await topicMetadata(c.env, c.req.param("topic"), { refresh: true });
    return c.json(await topicView(c.env, topic));
  })
  .patch("/:topic/configs", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "alter");
    const validateOnly = validateOnlyOf(c.req.url);
    const body = await readJsonBody(c.req.raw, alterConfigsSchema, { maxBytes: adminRequestBytesMax });
    const topic = unwrap(await controllerStub(c.env).alterTopicConfigs(c.req.param("topic"), body.configs, { validateOnly }));
    if (validateOnly) return c.json(await topicView(c.env, topic)); // the topic as it would be
    rememberTopic(topic);
    await announceConfigs(c.env, topic);
    return c.json(await topicView(c.env, topic));
  })
  .post("/:topic/partitions", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "alter");
    routeQuery(c.req.url, []);
    const body = await readJsonBody(c.req.raw, createPartitionsSchema, { maxBytes: adminRequestBytesMax });
    const topic = unwrap(await controllerStub(c.env).createPartitions(c.req.param("topic"), body.count));
    rememberTopic(topic);
    return c.json(await topicView(c.env, topic));
  })
  .delete("/:topic", async (c) => {
    const name = c.req.param("topic");
    authorize(c, "topic", name, "delete");
    routeQuery(c.req.url, []);
    forgetTopic(name);
    unwrap(await controllerStub(c.env).deleteTopic(name));
    return c.body(null, 204);
  });
