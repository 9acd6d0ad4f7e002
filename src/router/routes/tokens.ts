import { Hono } from "hono";
import { adminTokenFingerprint, isTokenId } from "../../auth/token-format.ts";
import { createTokenSchema } from "../../auth/token-schemas.ts";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax } from "../../limits.ts";
import { controllerStub } from "../../contracts/stubs.ts";
import { adminTokenFor, authorizeAdmin } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";

/**
 * Scoped tokens (API.md, Tokens): only the admin token creates, lists and revokes them. A
 * token's secret is in the creation answer only; listings never show one. A token is bound to
 * the admin token it was created under, so none can be created while there is none.
 */
export const tokenRoutes = new Hono<RouterEnv>()
  .post("/", async (c) => {
    authorizeAdmin(c, "create tokens");
    routeQuery(c.req.url, []);
    const adminToken = adminTokenFor(c, "create tokens");
    const body = await readJsonBody(c.req.raw, createTokenSchema, { maxBytes: adminRequestBytesMax });
    return c.json(unwrap(await controllerStub(c.env).createToken(body, await adminTokenFingerprint(adminToken))), 201);
  })
  .get("/", async (c) => {
    authorizeAdmin(c, "list tokens");
    routeQuery(c.req.url, []);
    return c.json({ tokens: unwrap(await controllerStub(c.env).listTokens()) });
  })
  .delete("/:id", async (c) => {
    authorizeAdmin(c, "revoke tokens");
    routeQuery(c.req.url, []);
    const id = c.req.param("id");
    if (!isTokenId(id)) throw new TributaryError("NOT_FOUND", `no token ${id}`);
    unwrap(await controllerStub(c.env).revokeToken(id));
    return c.body(null, 204);
  });
