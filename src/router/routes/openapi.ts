import { Hono } from "hono";
import type { RouterEnv } from "../context.ts";
import { openApiDocument } from "../openapi/document.ts";
import { routeQuery } from "../query.ts";

let document: string | undefined;

/**
 * `GET /v1/openapi.json` (docs/api.md, OpenAPI): the OpenAPI 3.1 document of every route,
 * generated from the route table and the router's zod schemas once per isolate. It needs no
 * token (src/router/auth.ts's public paths): it describes the API, the same for every
 * deployment, and holds no data — what docs/api.md, shipped in the package, says already.
 */
export const openApiRoutes = new Hono<RouterEnv>().get("/openapi.json", (c) => {
  routeQuery(c.req.url, []);
  document ??= JSON.stringify(openApiDocument());
  return c.body(document, 200, { "Content-Type": "application/json; charset=utf-8" });
});
