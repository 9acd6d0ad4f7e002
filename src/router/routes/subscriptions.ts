import { Hono, type Context } from "hono";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax } from "../../limits.ts";
import { subscriptionIndexName, subscriptionStub } from "../../contracts/stubs.ts";
import { serviceTarget } from "../../contracts/push-target.ts";
import {
  createSubscriptionSchema,
  patchSubscriptionSchema,
  subscriptionNameSchema,
  type SubscriptionTarget,
} from "../../protocol/subscription-schemas.ts";
import { checkWebhookUrl } from "../../subscriptions/target-origins.ts";
import { clusterResourceName } from "../../auth/acl.ts";
import { authorize, may, principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";

/** A subscription's name from the path, as the create body's. */
function nameParam(value: string): string {
  const parsed = subscriptionNameSchema.safeParse(value);
  if (!parsed.success) throw new TributaryError("INVALID_REQUEST", `a subscription name holds 1 to 249 letters, digits, '.', '_' and '-'`);
  return parsed.data;
}

/** A webhook's origin must be in SUBSCRIPTION_ORIGINS; a service target must be a Worker bound here. Checked before anything is made. */
function checkTarget(env: Env, target: SubscriptionTarget): void {
  if ("url" in target) checkWebhookUrl(target.url, env.SUBSCRIPTION_ORIGINS);
  else if (!serviceTarget(env, target.service)) {
    throw new TributaryError("INVALID_REQUEST", `no Worker is bound as ${JSON.stringify(target.service)} in this deployment's wrangler config ([[services]])`);
  }
}

/**
 * The dead-letter topic must exist (records given up on are written there before the source
 * moves on), and whoever names it must be allowed to write it: the subscription writes there
 * on their behalf.
 */
async function checkDeadLetterTopic(c: Context<RouterEnv>, topic: string | null | undefined): Promise<void> {
  if (!topic) return;
  authorize(c, "topic", topic, "write");
  await topicMetadata(c.env, topic);
}

function indexStub(env: Env) {
  return subscriptionStub(env, subscriptionIndexName);
}

/** The subscription's topic (from the index's copy), for `read` on it: a subscription only pushes what its creator could read. */
async function subscribedTopic(c: Context<RouterEnv>, name: string): Promise<string> {
  const listed = unwrap(await indexStub(c.env).list()).find((entry) => entry.name === name);
  if (!listed) throw new TributaryError("NOT_FOUND", `no subscription ${JSON.stringify(name)}`);
  return listed.topic;
}

/**
 * Push subscriptions (docs/api.md, Subscriptions): create, list, describe, alter (pause,
 * resume, target, batch settings), delete. `create`/`alter`/`delete` on the cluster, and
 * `read` on the topic; listing and describing need `describe` on the cluster.
 */
export const subscriptionRoutes = new Hono<RouterEnv>()
  .post("/", async (c) => {
    routeQuery(c.req.url, []);
    authorize(c, "cluster", clusterResourceName, "create");
    const body = await readJsonBody(c.req.raw, createSubscriptionSchema, { maxBytes: adminRequestBytesMax });
    authorize(c, "topic", body.topic, "read");
    checkTarget(c.env, body.target);
    await topicMetadata(c.env, body.topic);
    await checkDeadLetterTopic(c, body.deadLetterTopic);
    const created = unwrap(await subscriptionStub(c.env, body.name).create(body, Date.now()));
    const listed = await indexStub(c.env).addListing(created, true);
    if (!listed.ok) {
      await subscriptionStub(c.env, body.name).remove();
      unwrap(listed);
    }
    return c.json(created, 201);
  })
  .get("/", async (c) => {
    routeQuery(c.req.url, []);
    authorize(c, "cluster", clusterResourceName, "describe");
    const principal = principalOf(c);
    const subscriptions = unwrap(await indexStub(c.env).list()).filter((entry) => may(principal, "topic", entry.topic, "describe"));
    return c.json({ subscriptions });
  })
  .get("/:name", async (c) => {
    routeQuery(c.req.url, []);
    const name = nameParam(c.req.param("name"));
    authorize(c, "cluster", clusterResourceName, "describe");
    return c.json(unwrap(await subscriptionStub(c.env, name).describe()));
  })
  .patch("/:name", async (c) => {
    routeQuery(c.req.url, []);
    const name = nameParam(c.req.param("name"));
    authorize(c, "cluster", clusterResourceName, "alter");
    const body = await readJsonBody(c.req.raw, patchSubscriptionSchema, { maxBytes: adminRequestBytesMax });
    authorize(c, "topic", await subscribedTopic(c, name), "read");
    if (body.target) checkTarget(c.env, body.target);
    await checkDeadLetterTopic(c, body.deadLetterTopic);
    const updated = unwrap(await subscriptionStub(c.env, name).update(body));
    unwrap(await indexStub(c.env).addListing(updated, false));
    return c.json(updated);
  })
  .delete("/:name", async (c) => {
    routeQuery(c.req.url, []);
    const name = nameParam(c.req.param("name"));
    authorize(c, "cluster", clusterResourceName, "delete");
    unwrap(await subscriptionStub(c.env, name).remove());
    unwrap(await indexStub(c.env).removeListing(name));
    return c.body(null, 204);
  });
