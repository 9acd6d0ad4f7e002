/**
 * A small router for the quota tests: it sets the principal itself (as the auth middleware
 * does for a scoped token), then mounts the real quota middleware and the real routes, over
 * the real bindings (QUOTAS, partitions, groups) inside workerd. Each call waits for the
 * work the request left to waitUntil, so the token's flush has been answered before the
 * next call: the tests see the meter's answer, not a race with it.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import type { Principal, Quotas } from "../../../src/auth/principal.ts";
import type { RouterEnv } from "../../../src/router/context.ts";
import { asTributaryError } from "../../../src/errors.ts";
import { errorResponse } from "../../../src/router/http-errors.ts";
import { quotaMiddleware } from "../../../src/router/quotas.ts";
import { binaryRecordRoutes } from "../../../src/router/routes/binary-records.ts";
import { groupRoutes } from "../../../src/router/routes/groups.ts";
import { recordRoutes } from "../../../src/router/routes/records.ts";
import { topicRoutes } from "../../../src/router/routes/topics.ts";
import { baseUrl, readResponse, type ApiResponse } from "../support/http.ts";
import { allOn } from "../support/secured.ts";

export function appFor(principal: Principal): Hono<RouterEnv> {
  const app = new Hono<RouterEnv>();
  app.use("/v1/*", async (c, next) => {
    c.set("principal", principal);
    await next();
  });
  app.use("/v1/*", quotaMiddleware());
  app.route("/v1/topics", topicRoutes);
  app.route("/v1/topics", binaryRecordRoutes);
  app.route("/v1/topics", recordRoutes);
  app.route("/v1/groups", groupRoutes);
  app.onError((error, c) => errorResponse(c, asTributaryError(error)));
  return app;
}

/** A scoped token with these quotas and a fresh id (meters are per token id; tests in a file share them). */
export function tokenWith(quotas: Quotas): Principal {
  // Allowed everything, so that only quotas can refuse its requests.
  const rules = (["topic", "group", "cluster"] as const).map((resource) => allOn(resource, "*"));
  return { kind: "token", tokenId: `token-${crypto.randomUUID()}`, rules, expiresAt: null, quotas };
}

/** Calls the app and waits for what the request left to waitUntil (the flush to the token's meter). */
export async function call(
  app: Hono<RouterEnv>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = body instanceof Uint8Array ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const ctx = createExecutionContext();
  const response = await readResponse(await app.request(`${baseUrl}${path}`, init, env, ctx));
  await waitOnExecutionContext(ctx);
  return response;
}

/** Calls until the answer is 429 (a bounded number of times); returns the statuses seen and the 429. */
export async function callUntilThrottled(send: () => Promise<ApiResponse>, attemptsMax = 10) {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < attemptsMax; attempt++) {
    const response = await send();
    statuses.push(response.status);
    if (response.status === 429) return { statuses, throttled: response };
  }
  throw new Error(`no 429 in ${attemptsMax} calls: ${statuses.join(", ")}`);
}

/** Waits the Retry-After of a 429 (seconds). */
export function waitRetryAfter(response: ApiResponse): Promise<void> {
  const seconds = Number(response.headers.get("retry-after"));
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}
