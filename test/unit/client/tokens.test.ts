import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isTributaryError, Secret, Tributary, type Rule } from "../../../src/client/index.ts";
import { fakeClient, produceRequests } from "./support/client.ts";

const adminToken = "admin-secret-token";
const bodyOf = (request: { body: Uint8Array }) => JSON.parse(new TextDecoder().decode(request.body));
const ordersWriter: Rule[] = [{ resource: "topic", name: "orders", patternType: "literal", operations: ["write"] }];

function securedClient() {
  const { server, client } = fakeClient({ token: adminToken });
  server.token = adminToken;
  server.createTopic("orders", 2);
  server.createTopic("payments", 1);
  const as = (token: string | Secret) => new Tributary({ url: "http://tributary.test", token, fetch: server.fetch, retry: { initialBackoffMs: 1, maxBackoffMs: 5 } });
  return { server, admin: client, as };
}

describe("admin().tokens", () => {
  it("creates (the request as API.md's body), lists without secrets and revokes", async () => {
    const { server, admin } = securedClient();
    const request = {
      name: "billing",
      rules: [...ordersWriter, { resource: "group" as const, name: "app-", patternType: "prefixed" as const, operations: ["read" as const] }],
      expiresAt: Date.now() + 3_600_000,
      quotas: { produceBytesPerSecond: 1_000_000 },
    };
    const created = await admin.admin().tokens.create(request);
    expect(bodyOf(server.requestsTo(/^\/v1\/tokens$/, "POST")[0]!)).toEqual(request);
    expect(created).toMatchObject({ name: "billing", rules: request.rules, expiresAt: request.expiresAt, quotas: request.quotas });
    expect(created.token).toBeInstanceOf(Secret);
    expect(created.token.reveal()).toMatch(/^trb_/);

    const listed = await admin.admin().tokens.list();
    expect(listed).toEqual([{ id: created.id, name: "billing", rules: request.rules, expiresAt: request.expiresAt, quotas: request.quotas }]);

    await admin.admin().tokens.revoke(created.id);
    expect(server.requests.at(-1)).toMatchObject({ method: "DELETE", path: `/v1/tokens/${created.id}` });
    expect(await admin.admin().tokens.list()).toEqual([]);
    const missing = await admin.admin().tokens.revoke(created.id).catch((e: unknown) => e);
    expect(isTributaryError(missing, "NOT_FOUND")).toBe(true);
  });

  it("never prints a created token's secret: String, JSON.stringify, util.inspect, an error's data", async () => {
    const { admin } = securedClient();
    const created = await admin.admin().tokens.create({ name: "logged", rules: ordersWriter });
    const secret = created.token.reveal();
    for (const shown of [String(created.token), JSON.stringify(created), inspect(created, { depth: 10, showHidden: true }), `${created.token}`]) {
      expect(shown).not.toContain(secret);
    }
    expect(JSON.parse(JSON.stringify(created)).token).toBe("<redacted>");
  });

  it("a client built on the created Secret uses it as its bearer token, and a refused scoped token is a typed, unretried 403", async () => {
    const { server, as, admin } = securedClient();
    const created = await admin.admin().tokens.create({ rules: ordersWriter });
    const scoped = as(created.token);
    expect(String(scoped)).not.toContain(created.token.reveal());
    await scoped.topic("orders").produce([{ key: "k", value: "v" }]);
    expect(produceRequests(server).at(-1)!.headers.get("authorization")).toBe(`Bearer ${created.token.reveal()}`);

    const before = server.requests.length;
    const refused = await scoped.topic("payments").produce([{ value: "v", partition: 0 }]).catch((e: unknown) => e);
    if (!isTributaryError(refused, "TOPIC_AUTHORIZATION_FAILED")) throw new Error(`expected a 403, got ${String(refused)}`);
    expect(refused.data).toMatchObject({ resource: "topic", operation: "write" });
    expect({ status: refused.status, retriable: refused.retriable }).toEqual({ status: 403, retriable: false });
    expect(server.requests.length - before).toBe(1);

    const managing = await scoped.admin().tokens.list().catch((e: unknown) => e);
    expect(isTributaryError(managing, "CLUSTER_AUTHORIZATION_FAILED")).toBe(true);
  });

  it("a consumer whose token may not read the group fails with GROUP_AUTHORIZATION_FAILED at once", async () => {
    const { server, as, admin } = securedClient();
    const created = await admin.admin().tokens.create({ rules: [{ resource: "topic", name: "orders", patternType: "literal", operations: ["read"] }] });
    const consumer = as(created.token).consumer({ groupId: "billing" });
    await consumer.subscribe({ topics: ["orders"] });
    const error = await consumer.run({ eachMessage: async () => {} }).catch((e: unknown) => e);
    expect(isTributaryError(error, "GROUP_AUTHORIZATION_FAILED")).toBe(true);
    expect(server.requestsTo(/^\/v1\/groups\/billing\/members$/, "POST")).toHaveLength(1);
  });

  it("a revoked token is UNAUTHENTICATED, not retried", async () => {
    const { server, as, admin } = securedClient();
    const created = await admin.admin().tokens.create({ rules: ordersWriter });
    await admin.admin().tokens.revoke(created.id);
    const before = server.requests.length;
    const error = await as(created.token).topic("orders").produce([{ value: "v", partition: 0 }]).catch((e: unknown) => e);
    expect(isTributaryError(error, "UNAUTHENTICATED")).toBe(true);
    expect(server.requests.length - before).toBe(1);
  });
});

describe("topic(name).writeToken", () => {
  it("mints a token that may produce to its topic only, with ttlMs in the body", async () => {
    const { server, admin, as } = securedClient();
    const minted = await admin.topic("orders").writeToken({ ttlMs: 60_000 });
    expect(server.requests.at(-1)).toMatchObject({ method: "POST", path: "/v1/topics/orders/write-tokens" });
    expect(bodyOf(server.requests.at(-1)!)).toEqual({ ttlMs: 60_000 });
    expect(minted).toMatchObject({ topic: "orders" });
    expect(minted.expiresAt).toBeGreaterThan(Date.now());
    expect(JSON.stringify(minted)).not.toContain(minted.token.reveal());
    expect(inspect(minted)).not.toContain(minted.token.reveal());

    const page = as(minted.token.reveal());
    expect(await page.topic("orders").produce([{ key: "user-1", value: "click" }])).toHaveLength(1);
    const elsewhere = await page.topic("payments").produce([{ value: "x", partition: 0 }]).catch((e: unknown) => e);
    expect(isTributaryError(elsewhere, "TOPIC_AUTHORIZATION_FAILED")).toBe(true);
  });

  it("sends an empty body without ttlMs, and retries a retriable failure (nothing is stored)", async () => {
    const { server, admin } = securedClient();
    server.failNext((r) => r.path.endsWith("/write-tokens"), { kind: "drop-before" });
    await admin.topic("orders").writeToken();
    const mints = server.requestsTo(/\/write-tokens$/, "POST");
    expect(mints).toHaveLength(2);
    expect(bodyOf(mints[1]!)).toEqual({});
  });
});

describe("429 THROTTLING_QUOTA_EXCEEDED", () => {
  afterEach(() => vi.restoreAllMocks());

  const throttled = (retryAfterSeconds: string) => ({
    kind: "error" as const,
    status: 429,
    body: { error: { code: "THROTTLING_QUOTA_EXCEEDED", message: "produce quota exceeded" } },
    headers: { "retry-after": retryAfterSeconds },
  });

  it("is retried after at least the server's Retry-After, and the write lands once", async () => {
    const { server, client } = fakeClient({ retry: { initialBackoffMs: 1, maxBackoffMs: 1_000, jitter: 0 } });
    server.createTopic("orders", 1);
    server.failNext((r) => r.path.endsWith("/records"), throttled("0.05"));
    const timeout = vi.spyOn(globalThis, "setTimeout");
    await client.topic("orders").produce([{ value: "v", partition: 0 }]);
    expect(produceRequests(server)).toHaveLength(2);
    expect(server.records("orders", 0)).toHaveLength(1);
    expect(timeout.mock.calls.map(([, ms]) => ms)).toContain(50);
  });

  it("fails with the typed error and retryAfterMs once retries run out", async () => {
    const { server, client } = fakeClient({ retry: { retries: 1 } });
    server.createTopic("orders", 1);
    server.failNext((r) => r.path.endsWith("/records"), throttled("1"));
    server.failNext((r) => r.path.endsWith("/records"), throttled("2"));
    const error = await client.topic("orders").produce([{ value: "v", partition: 0 }]).catch((e: unknown) => e);
    if (!isTributaryError(error, "THROTTLING_QUOTA_EXCEEDED")) throw new Error(`expected a 429, got ${String(error)}`);
    expect(error.data.retryAfterMs).toBe(2_000);
    expect(error.retriable).toBe(true);
    expect(produceRequests(server)).toHaveLength(2);
  });
});
