import { Hono } from "hono";
import type { z } from "zod";
import type { Operation } from "../auth/acl.ts";
import type { WriteTokenClaims } from "../auth/token-format.ts";
import { adminRequestBytesMax } from "../limits.ts";
import { adminTokenFor, authorize, principalOf } from "./authorize.ts";
import type { RouterEnv } from "./context.ts";
import { topicMetadata } from "../data-plane/metadata-cache.ts";
import { routeQuery } from "./query.ts";
import { readJsonBody } from "./request-body.ts";

export interface MintedTokenKind {
  /** The path segment after the topic: `write-tokens`, `read-tokens`. */
  segment: string;
  /** What the minting token must be allowed on the topic. */
  operation: Operation;
  bodySchema: z.ZodType<{ ttlMs?: number | undefined }>;
  ttlMsDefault: number;
  sign: (claims: WriteTokenClaims, adminToken: string) => Promise<string>;
}

/**
 * `POST /v1/topics/{topic}/<segment>` {"ttlMs"?} → 201 {"token", "topic", "expiresAt"}
 * (docs/api.md, write and read tokens for browsers): a short-lived token for one topic, for a
 * web page to hold instead of a long-lived secret. Whoever may do the operation on the topic
 * mints one; it lives at most as long as the token it was minted from, dies with it when that
 * is revoked (src/router/auth.ts), and shares its quotas. Nothing is stored: it is signed with
 * a key derived from the admin token, so none is minted while there is none.
 */
export function mintedTokenRoute(kind: MintedTokenKind) {
  return new Hono<RouterEnv>().post(`/:topic/${kind.segment}`, async (c) => {
    const name = c.req.param("topic");
    authorize(c, "topic", name, kind.operation);
    routeQuery(c.req.url, []);
    const adminToken = adminTokenFor(c, `mint ${kind.segment.replace("-", " ")}`);
    const body = await readJsonBody(c.req.raw, kind.bodySchema, { maxBytes: adminRequestBytesMax, optional: true });
    const topic = await topicMetadata(c.env, name);
    const principal = principalOf(c);
    const ttlExpiry = Date.now() + (body.ttlMs ?? kind.ttlMsDefault);
    const expiresAt = principal.kind === "token" && principal.expiresAt !== null ? Math.min(ttlExpiry, principal.expiresAt) : ttlExpiry;
    const parent = principal.kind === "token" ? principal.tokenId : "admin";
    const token = await kind.sign({ parent, topic: topic.name, expiresAt }, adminToken);
    return c.json({ token, topic: topic.name, expiresAt }, 201);
  });
}
