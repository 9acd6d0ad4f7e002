import type { MiddlewareHandler } from "hono";
import type { RouterEnv } from "./context.ts";
import { TributaryError } from "../errors.ts";

const utf8 = new TextEncoder();

/** Compares two secrets in time that depends only on their lengths, not on where they differ. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = utf8.encode(given);
  const b = utf8.encode(expected);
  let difference = a.length ^ b.length;
  for (let index = 0; index < b.length; index++) difference |= (a[index % Math.max(a.length, 1)] ?? 0) ^ b[index]!;
  return difference === 0;
}

let warnedOpen = false;

/**
 * The admin-token check (API.md, Conventions). With the `TRIBUTARY_ADMIN_TOKEN` secret set,
 * every /v1 request but health and CORS preflight needs `Authorization: Bearer <token>`;
 * without it (local development) requests are allowed and a warning is logged once.
 */
export function adminTokenAuth(): MiddlewareHandler<RouterEnv> {
  return async function adminTokenAuth(c, next) {
    if (c.req.method === "OPTIONS" || c.req.path === "/v1/health") return next();
    const expected = c.env.TRIBUTARY_ADMIN_TOKEN;
    if (!expected) {
      if (!warnedOpen) {
        warnedOpen = true;
        console.warn("TRIBUTARY_ADMIN_TOKEN is not set: every request is allowed (local development only)");
      }
      return next();
    }
    const header = c.req.header("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
    if (token === "" || !secretsEqual(token, expected)) {
      throw new TributaryError("UNAUTHENTICATED", "a valid bearer token is required");
    }
    return next();
  };
}
