import type { MiddlewareHandler } from "hono";
import type { RouterEnv } from "./context.ts";
import { corsOrigin } from "./cors-origins.ts";

/** What a path's CORS answers allow (the /v1 API and the Durable Streams front each have one). */
export interface CorsPolicy {
  allowHeaders: readonly string[];
  exposeHeaders: readonly string[];
  allowMethods: readonly string[];
  maxAgeSeconds: number;
}

/**
 * CORS for browsers (CORS_ORIGINS: "*" by default, else a list of origins). A preflight
 * (OPTIONS) is answered here with 204; every other answer gets Access-Control-Allow-Origin
 * (when the origin is allowed), Access-Control-Expose-Headers and `Vary: Origin`.
 *
 * The headers are added to the route's own answer once it is made, in place: no Response is
 * built for nothing or copied on the way (hono's cors middleware builds one before the route
 * runs and copies the answer twice after: a measurable cost on every produce request). Only
 * an answer whose headers cannot change (one passed on from a fetch) is copied once.
 */
export function corsMiddleware(policy: CorsPolicy): MiddlewareHandler<RouterEnv> {
  const allowHeaders = policy.allowHeaders.join(",");
  const exposeHeaders = policy.exposeHeaders.join(",");
  const allowMethods = policy.allowMethods.join(",");
  const maxAge = String(policy.maxAgeSeconds);
  return async function cors(c, next) {
    const allowOrigin = corsOrigin(c.req.header("origin") ?? "", c.env.CORS_ORIGINS);
    if (c.req.method === "OPTIONS") {
      const headers = new Headers();
      if (allowOrigin !== null) headers.set("Access-Control-Allow-Origin", allowOrigin);
      headers.set("Access-Control-Expose-Headers", exposeHeaders);
      headers.set("Access-Control-Max-Age", maxAge);
      headers.set("Access-Control-Allow-Methods", allowMethods);
      headers.set("Access-Control-Allow-Headers", allowHeaders);
      headers.set("Vary", "Origin, Access-Control-Request-Headers");
      return new Response(null, { status: 204, statusText: "No Content", headers });
    }
    await next();
    let headers = c.res.headers;
    try {
      headers.append("Vary", "Origin");
    } catch {
      // Immutable headers (an answer passed on from a fetch): copied once, then changed.
      c.res = new Response(c.res.body, c.res);
      headers = c.res.headers;
      headers.append("Vary", "Origin");
    }
    if (allowOrigin !== null) headers.set("Access-Control-Allow-Origin", allowOrigin);
    headers.set("Access-Control-Expose-Headers", exposeHeaders);
  };
}
