import { METHOD_NAME_ALL } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import { TributaryError } from "../errors.ts";

/** The order methods are listed in an `Allow` header. */
const methodOrder = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** A route as hono's `app.routes` lists it. */
export interface ListedRoute {
  method: string;
  path: string;
}

/**
 * The methods the app serves each path with, read from hono's own route table (`app.routes`,
 * so it cannot drift from the routes) and matched by hono's own router: a served path
 * requested with another method is `405 METHOD_NOT_ALLOWED` with an `Allow` header (RFC 9110)
 * rather than 404. Middleware (method ALL) serves no path by itself. GET implies HEAD (hono
 * answers HEAD with the GET route, without the body), and every path `preflight` picks (by
 * default those under `/v1` and `/ds`) answers OPTIONS (CORS preflight). Built once the app's routes are all added.
 */
export function allowedMethodsOf(routes: readonly ListedRoute[], preflight = (path: string) => path.startsWith("/v1/") || path.startsWith("/ds/")): (path: string) => string[] {
  const router = new TrieRouter<string>();
  for (const route of routes) if (route.method !== METHOD_NAME_ALL) router.add(METHOD_NAME_ALL, route.path, route.method);
  return (path) => {
    const served = new Set(router.match("GET", path)[0].map(([method]) => method));
    if (served.size === 0) return [];
    if (served.has("GET")) served.add("HEAD");
    if (preflight(path)) served.add("OPTIONS"); // the paths that answer CORS preflight
    return methodOrder.filter((method) => served.has(method));
  };
}

/** The answer to a served path requested with a method it is not served with. */
export function methodNotAllowed(method: string, path: string, allow: readonly string[]): TributaryError {
  return new TributaryError("METHOD_NOT_ALLOWED", `${method} is not served on ${path}; it takes ${allow.join(", ")}`, { allow });
}
