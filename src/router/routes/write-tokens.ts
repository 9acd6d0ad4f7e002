import { Hono } from "hono";
import { signWriteToken } from "../../auth/token-format.ts";
import { createWriteTokenSchema } from "../../auth/token-schemas.ts";
import { adminRequestBytesMax, writeTokenTtlMsDefault } from "../../limits.ts";
import { adminTokenFor, authorize, principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { topicMetadata } from "../metadata-cache.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";

/**
 * Browser write tokens (docs/api.md): `POST /v1/topics/{topic}/write-tokens` mints a
 * short-lived token that may only produce to this topic, for a web page to hold instead of
 * a long-lived secret. Whoever may write the topic may mint one; it lives at most as long as
 * the token it was minted from, dies with it when that is revoked, and shares its quotas.
 * Nothing is stored: the token is signed with a key derived from the admin token, so none is
 * minted while there is none.
 */
export const writeTokenRoutes = new Hono<RouterEnv>().post("/:topic/write-tokens", async (c) => {
  const name = c.req.param("topic");
  authorize(c, "topic", name, "write");
  routeQuery(c.req.url, []);
  const adminToken = adminTokenFor(c, "mint write tokens");
  const body = await readJsonBody(c.req.raw, createWriteTokenSchema, { maxBytes: adminRequestBytesMax, optional: true });
  const topic = await topicMetadata(c.env, name);
  const principal = principalOf(c);
  const ttlExpiry = Date.now() + (body.ttlMs ?? writeTokenTtlMsDefault);
  const expiresAt = principal.kind === "token" && principal.expiresAt !== null ? Math.min(ttlExpiry, principal.expiresAt) : ttlExpiry;
  const parent = principal.kind === "token" ? principal.tokenId : "admin";
  const token = await signWriteToken({ parent, topic: topic.name, expiresAt }, adminToken);
  return c.json({ token, topic: topic.name, expiresAt }, 201);
});
