import { Hono } from "hono";
import type { z } from "zod";
import type { Principal } from "../../auth/principal.ts";
import type { whoamiResponseSchema } from "../../protocol/response-schemas.ts";
import { principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";

type WhoamiAnswer = z.output<typeof whoamiResponseSchema>;

/** The caller's principal as the API shows it: its kind, id, topic and rules, never a secret. */
export function whoamiAnswer(principal: Principal): WhoamiAnswer {
  if (principal.kind !== "token") return { kind: principal.kind };
  const { rules, expiresAt, quotas } = principal;
  const granted = { rules: rules.map((rule) => ({ ...rule, operations: [...rule.operations] })), expiresAt, quotas };
  if (principal.minted === undefined) return { kind: "scoped", tokenId: principal.tokenId, ...granted };
  return { kind: principal.minted, mintedFrom: principal.tokenId, topic: rules[0]!.name, ...granted };
}

/**
 * `GET /v1/whoami` (docs/api.md, Tokens and authorization): what kind of token the request
 * holds — so a page (the console) can say which one is in use and offer only what it may do —
 * without ever echoing the token. Any valid token may ask; it says nothing the token's holder
 * could not learn by trying. Asked without a token it answers `open` where none is needed and
 * `none` where one is: what a page needs before it asks for one.
 */
export const whoamiRoutes = new Hono<RouterEnv>().get("/", (c) => {
  routeQuery(c.req.url, []);
  // No principal: a deployment that needs a token, asked without one (src/router/auth.ts, identityPath).
  if (c.get("principal") === undefined) return c.json({ kind: "none" } satisfies WhoamiAnswer);
  return c.json(whoamiAnswer(principalOf(c)));
});
