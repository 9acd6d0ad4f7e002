/**
 * The admin token (API.md, Conventions): with TRIBUTARY_ADMIN_TOKEN set, every /v1 request
 * but health and CORS preflight needs `Authorization: Bearer <token>`. Bindings are fixed per
 * test run, so these tests call the app with an Env that has the secret.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bearerTokenLengthMax } from "../../../src/limits.ts";
import { expectError, uniqueTopic } from "../support/http.ts";
import { adminToken as token, securedCall } from "../support/secured.ts";

function call(method: string, path: string, options: { authorization?: string; body?: unknown; headers?: Record<string, string>; env?: Env } = {}) {
  return securedCall(method, path, options);
}

describe("with TRIBUTARY_ADMIN_TOKEN set", () => {
  it.each([
    ["no Authorization header", undefined],
    ["an empty bearer token", "Bearer "],
    ["a wrong token", "Bearer wrong"],
    ["a prefix of the token", `Bearer ${token.slice(0, -1)}`],
    ["the token with extra characters", `Bearer ${token}2`],
    ["the token in another case", `Bearer ${token.toUpperCase()}`],
    ["the token without a scheme", token],
    ["the token as Basic credentials", `Basic ${token}`],
  ])("refuses %s with 401 UNAUTHENTICATED", async (_what, authorization) => {
    const response = await call("GET", "/v1/topics", { authorization });
    const error = expectError(response, 401, "UNAUTHENTICATED");
    expect(Object.keys(error).sort()).toEqual(["code", "message"]);
    expect(response.text).not.toContain(token);
  });

  it("refuses an oversized Authorization header unread", async () => {
    const response = await call("GET", "/v1/topics", { authorization: `Bearer ${"x".repeat(bearerTokenLengthMax + 1)}` });
    expectError(response, 401, "UNAUTHENTICATED");
  });

  it("refuses every kind of route without the token, and writes nothing", async () => {
    const name = uniqueTopic("unauthenticated");
    expectError(await call("POST", "/v1/topics", { body: { name } }), 401, "UNAUTHENTICATED");
    expectError(await call("GET", `/v1/topics/${name}`), 401, "UNAUTHENTICATED");
    expectError(await call("POST", `/v1/topics/${name}/records`, { body: { records: [{ value: "v" }] } }), 401, "UNAUTHENTICATED");
    expectError(await call("GET", `/v1/topics/${name}/partitions/0/records?offset=0`), 401, "UNAUTHENTICATED");
    expectError(await call("DELETE", `/v1/topics/${name}`), 401, "UNAUTHENTICATED");
    expectError(await call("GET", "/v1/no-such-route"), 401, "UNAUTHENTICATED");
    const described = await call("GET", `/v1/topics/${name}`, { authorization: `Bearer ${token}` });
    expectError(described, 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("allows requests with the token", async () => {
    const authorization = `Bearer ${token}`;
    const name = uniqueTopic("authenticated");
    const created = await call("POST", "/v1/topics", { authorization, body: { name } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(name);
    const listed = await call("GET", "/v1/topics", { authorization });
    expect(listed.status).toBe(200);
    expect(listed.body.topics.map((topic: { name: string }) => topic.name)).toContain(name);
    const produced = await call("POST", `/v1/topics/${name}/records`, { authorization, body: { records: [{ value: "v" }] } });
    expect(produced.status).toBe(200);
    expect(produced.body.offsets[0].offset).toBe(0);
    const fetched = await call("GET", `/v1/topics/${name}/partitions/0/records?offset=0`, { authorization });
    expect(fetched.status).toBe(200);
    expect(fetched.body.records.map((record: { value: string }) => record.value)).toEqual(["v"]);
    expect((await call("DELETE", `/v1/topics/${name}`, { authorization })).status).toBe(204);
  });

  it("answers an unknown route with the token with 404 NOT_FOUND", async () => {
    expectError(await call("GET", "/v1/no-such-route", { authorization: `Bearer ${token}` }), 404, "NOT_FOUND");
  });

  it("answers GET /v1/health without a token", async () => {
    const response = await call("GET", "/v1/health");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
    const wrong = await call("GET", "/v1/health", { authorization: "Bearer wrong" });
    expect(wrong.status).toBe(200);
  });

  it("answers a CORS preflight without a token", async () => {
    const response = await call("OPTIONS", "/v1/topics", {
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });
});

describe("without TRIBUTARY_ADMIN_TOKEN (local development)", () => {
  it("allows requests without a token", async () => {
    const openEnv = { ...env, TRIBUTARY_ADMIN_TOKEN: undefined };
    const response = await call("GET", "/v1/topics", { env: openEnv });
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body.topics)).toBe(true);
    const withAnyToken = await call("GET", "/v1/topics", { env: { ...env, TRIBUTARY_ADMIN_TOKEN: "" }, authorization: "Bearer x" });
    expect(withAnyToken.status).toBe(200);
  });
});
