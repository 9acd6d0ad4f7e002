/**
 * Calls to the app with the admin token configured. Bindings are fixed per test run (and the
 * workers project runs without TRIBUTARY_ADMIN_TOKEN), so these call the router's app with
 * an Env that has the secret, inside workerd with the real objects behind it.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { operations, type ResourceType, type Rule } from "../../../src/auth/acl.ts";
import { createApp } from "../../../src/app.ts";
import { readResponse, type ApiResponse } from "./http.ts";

export const adminToken = "admin-s3cret";
export const securedEnv: Env = { ...env, TRIBUTARY_ADMIN_TOKEN: adminToken };
const app = createApp();

export interface SecuredCall {
  /** The bearer token; `authorization` overrides the whole header. */
  token?: string;
  authorization?: string;
  body?: unknown;
  bytes?: Uint8Array;
  headers?: Record<string, string>;
  env?: Env;
}

export async function securedCall(method: string, path: string, options: SecuredCall = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(options.body);
  } else if (options.bytes !== undefined) {
    body = options.bytes;
  }
  const ctx = createExecutionContext();
  const response = await app.request(`http://tributary.test${path}`, { method, headers, body }, options.env ?? securedEnv, ctx);
  const read = await readResponse(response);
  await waitOnExecutionContext(ctx); // work the request left (quota reports) is done before the next call
  return read;
}

/** Every route the app serves, as "METHOD /path/:param" (hono's own table). */
export function appRoutes(): string[] {
  return [...new Set(app.routes.filter((route) => route.method !== "ALL").map((route) => `${route.method} ${route.path}`))].sort();
}

export interface CreatedToken {
  id: string;
  token: string;
  name: string | null;
  rules: unknown[];
  expiresAt: number | null;
}

/** Creates a scoped token with the admin token and asserts 201. */
export async function createToken(body: Record<string, unknown>): Promise<CreatedToken> {
  const response = await securedCall("POST", "/v1/tokens", { token: adminToken, body });
  expect(response.status, response.text).toBe(201);
  return response.body as CreatedToken;
}

/** A rule allowing every operation on one topic, group or the cluster. */
export function allOn(resource: ResourceType, name: string): Rule {
  return { resource, name, patternType: "literal", operations: [...operations] };
}
