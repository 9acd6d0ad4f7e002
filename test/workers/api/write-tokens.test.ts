/**
 * Browser write tokens (docs/api.md): short-lived, for producing to one topic from a web
 * page. Minted by whoever may write the topic; void when expired, when the token they were
 * minted from is revoked, or when the admin token is rotated.
 */
import { describe, expect, it } from "vitest";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { writeTokenTtlMsMax } from "../../../src/limits.ts";
import { api, createTopic, expectError, highWatermarks, uniqueTopic } from "../support/http.ts";
import { adminToken, createToken, securedCall, securedEnv } from "../support/secured.ts";

const utf8 = new TextEncoder();

async function mint(topic: string, token: string, body?: unknown) {
  const response = await securedCall("POST", `/v1/topics/${topic}/write-tokens`, { token, body });
  expect(response.status, response.text).toBe(201);
  return response.body as { token: string; topic: string; expiresAt: number };
}

function produceWith(topic: string, token: string) {
  return securedCall("POST", `/v1/topics/${topic}/records`, { token, body: { records: [{ value: "from a page" }] } });
}

describe("POST /v1/topics/{topic}/write-tokens", () => {
  it("mints a token that may produce to its topic (JSON and binary) and do nothing else", async () => {
    const topic = uniqueTopic("page");
    const other = uniqueTopic("page-other");
    await createTopic(topic);
    await createTopic(other);
    const before = Date.now();
    const minted = await mint(topic, adminToken);
    expect(minted.topic).toBe(topic);
    expect(minted.token).toMatch(/^trw_/);
    expect(minted.expiresAt).toBeGreaterThanOrEqual(before + 10 * 60 * 1000);
    expect((await produceWith(topic, minted.token)).status).toBe(200);
    const batch = encodeRecordBatch([{ key: null, value: utf8.encode("b"), headers: [], timestamp: Date.now() }]);
    const binary = await securedCall("POST", `/v1/topics/${topic}/partitions/0/records`, { token: minted.token, bytes: batch, headers: { "content-type": recordBatchContentType } });
    expect(binary.status, binary.text).toBe(200);
    expect(await highWatermarks(topic)).toEqual([2]);
    expectError(await produceWith(other, minted.token), 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, { token: minted.token }), 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("GET", "/v1/tokens", { token: minted.token }), 403, "CLUSTER_AUTHORIZATION_FAILED");
    expectError(await securedCall("DELETE", `/v1/topics/${topic}`, { token: minted.token }), 403, "TOPIC_AUTHORIZATION_FAILED");
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("lets a scoped token with write on the topic mint one, living no longer than itself, and voids it with it", async () => {
    const topic = uniqueTopic("page-parent");
    await createTopic(topic);
    const parentExpiry = Date.now() + 60_000;
    const parent = await createToken({ rules: [{ resource: "topic", name: topic, patternType: "literal", operations: ["write"] }], expiresAt: parentExpiry });
    const minted = await mint(topic, parent.token, { ttlMs: writeTokenTtlMsMax });
    expect(minted.expiresAt).toBe(parentExpiry);
    expect((await produceWith(topic, minted.token)).status).toBe(200);
    expect((await securedCall("DELETE", `/v1/tokens/${parent.id}`, { token: adminToken })).status).toBe(204);
    let status = 200;
    for (let attempt = 0; attempt < 100 && status !== 401; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await produceWith(topic, minted.token)).status;
    }
    expect(status).toBe(401);
  });

  it("refuses to mint for a token that may not write the topic, and for an unknown topic answers 404", async () => {
    const topic = uniqueTopic("page-refused");
    await createTopic(topic);
    const reader = await createToken({ rules: [{ resource: "topic", name: topic, patternType: "literal", operations: ["read"] }] });
    expectError(await securedCall("POST", `/v1/topics/${topic}/write-tokens`, { token: reader.token }), 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("POST", `/v1/topics/${uniqueTopic("absent")}/write-tokens`, { token: adminToken }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("refuses to mint while no admin token is set (400 SECURITY_DISABLED): it would be signed with no secret", async () => {
    const topic = uniqueTopic("page-open");
    await createTopic(topic);
    const refused = expectError(await api("POST", `/v1/topics/${topic}/write-tokens`, {}), 400, "SECURITY_DISABLED");
    expect(refused.message).toContain("set TRIBUTARY_ADMIN_TOKEN");
  });

  it.each([
    ["a lifetime over the bound", { ttlMs: writeTokenTtlMsMax + 1 }],
    ["a zero lifetime", { ttlMs: 0 }],
    ["an unknown field", { topic: "other" }],
  ])("refuses %s with 400 INVALID_REQUEST", async (_what, body) => {
    const topic = uniqueTopic("page-bad");
    await createTopic(topic);
    expectError(await securedCall("POST", `/v1/topics/${topic}/write-tokens`, { token: adminToken, body }), 400, "INVALID_REQUEST");
  });

  it("is refused once expired, and after the admin token is rotated", async () => {
    const topic = uniqueTopic("page-expiry");
    await createTopic(topic);
    const shortLived = await mint(topic, adminToken, { ttlMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expectError(await produceWith(topic, shortLived.token), 401, "UNAUTHENTICATED");
    const minted = await mint(topic, adminToken);
    const rotated = { ...securedEnv, TRIBUTARY_ADMIN_TOKEN: "a-new-admin-token" };
    const refused = await securedCall("POST", `/v1/topics/${topic}/records`, { token: minted.token, body: { records: [{ value: "v" }] }, env: rotated });
    expectError(refused, 401, "UNAUTHENTICATED");
    expect(await highWatermarks(topic)).toEqual([0]);
  });
});

describe("CORS (CORS_ORIGINS)", () => {
  const preflight = (origin: string, env = securedEnv) =>
    securedCall("OPTIONS", "/v1/topics/t/records", {
      env,
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });

  it("allows only the configured origins when a list is set", async () => {
    const env = { ...securedEnv, CORS_ORIGINS: "https://shop.example, https://admin.example" };
    expect((await preflight("https://shop.example", env)).headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect((await preflight("https://evil.example", env)).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets a page read Retry-After and the binary fetch headers", async () => {
    const topic = uniqueTopic("cors");
    await createTopic(topic);
    const response = await securedCall("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, { token: adminToken, headers: { origin: "https://shop.example" } });
    const exposed = response.headers.get("access-control-expose-headers")?.toLowerCase() ?? "";
    for (const header of ["retry-after", "tributary-high-watermark", "tributary-next-offset"]) expect(exposed).toContain(header);
  });
});
