import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Principal } from "../auth/principal.ts";
import { requestDataPoint } from "../metrics/analytics-points.ts";
import type { RequestObservation, RouterCounters } from "../metrics/router-counters.ts";
import type { RouterEnv } from "./context.ts";

/**
 * The router's own counters (GET /v1/metrics; docs/metrics.md): every request's method, route
 * pattern (hono's, never the raw path, so the series stay few), status and latency; the
 * error code of an error answer; the token a 429 refused. Runs first, so it sees every
 * answer, refusals by authentication and quotas included. Kept in this isolate's memory
 * (src/metrics/router-counters.ts). With a `METRICS` Analytics Engine binding, each request is
 * also one data point (src/metrics/analytics-points.ts).
 */
export function metricsMiddleware(counters: RouterCounters): MiddlewareHandler<RouterEnv> {
  return async function metricsMiddleware(c, next) {
    const startedMs = Date.now();
    await next();
    const status = c.res.status;
    // The route that serves this method and path, also when a middleware answered first (401, 429).
    const route = matchedRoutes(c).find((matched) => matched.method !== "ALL")?.path ?? "unmatched";
    const observation: RequestObservation = {
      method: c.req.method,
      route,
      status,
      durationSeconds: (Date.now() - startedMs) / 1000,
      ...(status >= 400 ? { errorCode: await errorCodeOf(c.res) } : {}),
      ...(status === 429 ? { throttledToken: tokenLabel(c.get("principal") as Principal | undefined) } : {}),
    };
    counters.observe(observation);
    c.env.METRICS?.writeDataPoint(requestDataPoint(observation));
  };
}

/** An error answer's code (docs/api.md's error body is small JSON); "UNKNOWN" for any other body. */
async function errorCodeOf(response: Response): Promise<string> {
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return "UNKNOWN";
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    const code = body.error?.code;
    return typeof code === "string" && /^[A-Z_]{1,64}$/.test(code) ? code : "UNKNOWN";
  } catch {
    return "UNKNOWN";
  }
}

/** A throttled request's token: a scoped token's id (minted tokens count under their parent's), else the principal's kind. */
function tokenLabel(principal: Principal | undefined): string {
  if (principal === undefined) return "unauthenticated";
  return principal.kind === "token" ? principal.tokenId : principal.kind;
}
