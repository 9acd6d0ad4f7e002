/**
 * Browser read tokens and `?access_token=` (docs/api.md, "Read tokens for browsers"):
 * short-lived, for reading and describing one topic; the query token only on streaming reads.
 */
import { describe, expect, it } from "vitest";
import { readTokenTtlMsDefault, readTokenTtlMsMax } from "../../../src/limits.ts";
import { api, createTopic, expectError, produce, readResponse, uniqueTopic } from "../support/http.ts";
import { adminToken, createToken, securedCall, securedEnv } from "../support/secured.ts";
import { openStream, readRecords, SseReader } from "../streams/support.ts";

async function mint(topic: string, token: string, body?: unknown) {
  const response = await securedCall("POST", `/v1/topics/${topic}/read-tokens`, { token, body });
  expect(response.status, response.text).toBe(201);
  return response.body as { token: string; topic: string; expiresAt: number };
}

const fetchWith = (topic: string, token: string) => securedCall("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, { token });
const readOnly = (topic: string) => [{ resource: "topic", name: topic, patternType: "literal", operations: ["read"] }];

/** A stream opened the way a browser's EventSource opens it: no headers of its own, the token in the query. */
function streamWithQueryToken(path: string, token: string): Promise<Response> {
  const separator = path.includes("?") ? "&" : "?";
  return openStream(`${path}${separator}access_token=${encodeURIComponent(token)}`, { secured: true });
}

describe("POST /v1/topics/{topic}/read-tokens", () => {
  it("mints a token that may read and describe its topic, and nothing else", async () => {
    const topic = uniqueTopic("reader");
    const other = uniqueTopic("reader-other");
    await createTopic(topic);
    await createTopic(other);
    await produce(topic, [{ value: "a" }]);
    const before = Date.now();
    const minted = await mint(topic, adminToken);
    expect(minted.topic).toBe(topic);
    expect(minted.token).toMatch(/^trr_/);
    expect(minted.expiresAt).toBeGreaterThanOrEqual(before + readTokenTtlMsDefault);
    expect((await fetchWith(topic, minted.token)).body.records.map((record: { value: string }) => record.value)).toEqual(["a"]);
    expect((await securedCall("GET", `/v1/topics/${topic}`, { token: minted.token })).status).toBe(200);
    expect((await securedCall("GET", `/v1/topics/${topic}/partitions/0/offsets?at=latest`, { token: minted.token })).status).toBe(200);
    expectError(await fetchWith(other, minted.token), 403, "TOPIC_AUTHORIZATION_FAILED");
    const written = await securedCall("POST", `/v1/topics/${topic}/records`, { token: minted.token, body: { records: [{ value: "x" }] } });
    expectError(written, 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("POST", `/v1/topics/${topic}/write-tokens`, { token: minted.token }), 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("GET", "/v1/tokens", { token: minted.token }), 403, "CLUSTER_AUTHORIZATION_FAILED");
    expectError(await securedCall("DELETE", `/v1/topics/${topic}`, { token: minted.token }), 403, "TOPIC_AUTHORIZATION_FAILED");
    // Neither kind of minted token passes for the other: a read token's signature under the write prefix is refused.
    expectError(await fetchWith(topic, minted.token.replace(/^trr_/, "trw_")), 401, "UNAUTHENTICATED");
  });

  it("lets a token that may read the topic mint one, living no longer than itself, and voids it when that is revoked", async () => {
    const topic = uniqueTopic("reader-parent");
    await createTopic(topic);
    const parentExpiry = Date.now() + 60_000;
    const parent = await createToken({ rules: readOnly(topic), expiresAt: parentExpiry });
    const minted = await mint(topic, parent.token, { ttlMs: readTokenTtlMsMax });
    expect(minted.expiresAt).toBe(parentExpiry);
    expect((await fetchWith(topic, minted.token)).status).toBe(200);
    expect((await securedCall("DELETE", `/v1/tokens/${parent.id}`, { token: adminToken })).status).toBe(204);
    let status = 200;
    for (let attempt = 0; attempt < 100 && status !== 401; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await fetchWith(topic, minted.token)).status;
    }
    expect(status).toBe(401);
  });

  it("refuses to mint for a token that may not read the topic, and for an unknown topic answers 404", async () => {
    const topic = uniqueTopic("reader-refused");
    await createTopic(topic);
    const writer = await createToken({ rules: [{ resource: "topic", name: topic, patternType: "literal", operations: ["write"] }] });
    expectError(await securedCall("POST", `/v1/topics/${topic}/read-tokens`, { token: writer.token }), 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("POST", `/v1/topics/${uniqueTopic("absent")}/read-tokens`, { token: adminToken }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("refuses to mint while no admin token is set (400 SECURITY_DISABLED)", async () => {
    const topic = uniqueTopic("reader-open");
    await createTopic(topic);
    const refused = expectError(await api("POST", `/v1/topics/${topic}/read-tokens`, {}), 400, "SECURITY_DISABLED");
    expect(refused.message).toContain("read tokens");
  });

  it.each([
    ["a lifetime over the bound", { ttlMs: readTokenTtlMsMax + 1 }],
    ["a zero lifetime", { ttlMs: 0 }],
    ["an unknown field", { topic: "other" }],
  ])("refuses %s with 400 INVALID_REQUEST", async (_what, body) => {
    const topic = uniqueTopic("reader-bad");
    await createTopic(topic);
    expectError(await securedCall("POST", `/v1/topics/${topic}/read-tokens`, { token: adminToken, body }), 400, "INVALID_REQUEST");
  });

  it("is refused once expired, and after the admin token is rotated", async () => {
    const topic = uniqueTopic("reader-expiry");
    await createTopic(topic);
    const shortLived = await mint(topic, adminToken, { ttlMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expectError(await fetchWith(topic, shortLived.token), 401, "UNAUTHENTICATED");
    const minted = await mint(topic, adminToken);
    const rotated = { ...securedEnv, TRIBUTARY_ADMIN_TOKEN: "a-new-admin-token" };
    expectError(await securedCall("GET", `/v1/topics/${topic}`, { token: minted.token, env: rotated }), 401, "UNAUTHENTICATED");
  });
});

describe("?access_token=", () => {
  it("authenticates a partition's and a topic's SSE stream", async () => {
    const topic = uniqueTopic("query-token");
    await createTopic(topic, { partitions: 2 });
    await produce(topic, [{ value: "p0", partition: 0 }, { value: "p1", partition: 1 }]);
    const { token } = await mint(topic, adminToken);
    const partition = await streamWithQueryToken(`/v1/topics/${topic}/partitions/1/records?offset=earliest`, token);
    expect(partition.status).toBe(200);
    const fromPartition = new SseReader(partition);
    expect((await readRecords(fromPartition, 1)).records.map((record) => record.value)).toEqual(["p1"]);
    await fromPartition.close();
    const whole = await streamWithQueryToken(`/v1/topics/${topic}/records?offset=earliest`, token);
    expect(whole.status).toBe(200);
    const fromTopic = new SseReader(whole);
    expect((await readRecords(fromTopic, 2)).records.map((record) => record.value).sort()).toEqual(["p0", "p1"]);
    await fromTopic.close();
  });

  it("answers a stream 401 for an unknown or expired query token, 403 for one of another topic", async () => {
    const topic = uniqueTopic("query-token-bad");
    const other = uniqueTopic("query-token-other");
    await createTopic(topic);
    await createTopic(other);
    const path = `/v1/topics/${topic}/partitions/0/records`;
    expectError(await readResponse(await streamWithQueryToken(path, "garbage")), 401, "UNAUTHENTICATED");
    const expired = await mint(topic, adminToken, { ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expectError(await readResponse(await streamWithQueryToken(path, expired.token)), 401, "UNAUTHENTICATED");
    const elsewhere = await mint(other, adminToken);
    const refused = await readResponse(await streamWithQueryToken(path, elsewhere.token));
    expectError(refused, 403, "TOPIC_AUTHORIZATION_FAILED");
    expect(refused.text).not.toContain(elsewhere.token);
  });

  it("lets a page on another origin resume a stream: CORS preflight allows Last-Event-ID", async () => {
    const preflight = await securedCall("OPTIONS", "/v1/topics/t/records", {
      headers: { origin: "https://shop.example", "access-control-request-method": "GET", "access-control-request-headers": "last-event-id" },
    });
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("last-event-id");
  });

  it("is refused (400 INVALID_REQUEST naming it) on every request that is not a streaming read, before anything is done", async () => {
    const topic = uniqueTopic("query-token-elsewhere");
    await createTopic(topic);
    const { token } = await mint(topic, adminToken);
    const query = `access_token=${encodeURIComponent(token)}`;
    const requests: [string, string, Record<string, string>?][] = [
      ["GET", `/v1/topics/${topic}/partitions/0/records?offset=0&${query}`],
      ["GET", `/v1/topics/${topic}/partitions/0/records?offset=0&${query}`, { accept: "application/json" }],
      ["GET", `/v1/topics/${topic}?${query}`],
      ["GET", `/v1/topics/${topic}/records?${query}`],
      ["POST", `/v1/topics/${topic}/records?${query}`, { accept: "text/event-stream" }],
      ["GET", `/v1/topics?${query}`],
    ];
    for (const [method, path, headers] of requests) {
      for (const call of [securedCall(method, path, { headers }), api(method, path, method === "POST" ? { records: [{ value: "x" }] } : undefined, headers)]) {
        const response = await call;
        const error = expectError(response, 400, "INVALID_REQUEST");
        expect({ method, path: path.split("?")[0], parameter: error.parameter }).toEqual({ method, path: path.split("?")[0], parameter: "access_token" });
        expect(response.text).not.toContain(token);
      }
    }
    expect((await securedCall("GET", `/v1/topics/${topic}`, { token: adminToken })).body.partitions[0].highWatermark).toBe(0);
  });
});
