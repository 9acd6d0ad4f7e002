/**
 * Scoped tokens (API.md, Tokens): the admin creates, lists and revokes them; the secret is
 * shown once and stored only as its SHA-256; rules are Kafka's allow-only ACLs.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { importTagKey, newScopedToken, sha256Hex } from "../../../src/auth/token-format.ts";
import { controllerStub } from "../../../src/contracts/stubs.ts";
import { groupPath, uniqueGroup } from "../groups/support/groups.ts";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { adminToken, allOn, createToken, securedCall, securedEnv } from "../support/secured.ts";

const admin = { token: adminToken };

describe("POST /v1/tokens", () => {
  it("answers the token once with its id, name, rules and expiry; listings never show a secret", async () => {
    const expiresAt = Date.now() + 3_600_000;
    const rules = [allOn("topic", "orders")];
    const created = await createToken({ name: "orders-service", rules, expiresAt, quotas: { produceBytesPerSecond: 1_000_000 } });
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), token: expect.stringMatching(/^trb_/), name: "orders-service", rules, expiresAt, quotas: { produceBytesPerSecond: 1_000_000 } });
    const listed = await securedCall("GET", "/v1/tokens", admin);
    expect(listed.status).toBe(200);
    expect(listed.body.tokens).toContainEqual({ id: created.id, name: "orders-service", rules, expiresAt, quotas: { produceBytesPerSecond: 1_000_000 } });
    expect(listed.text).not.toContain(created.token.slice(21));
    expect(listed.text).not.toContain("trb_");
  });

  it("stores only the secret's SHA-256", async () => {
    const created = await createToken({ rules: [] });
    const secret = created.token.slice(21);
    const rows = await runInDurableObject(controllerStub(env), (_instance, state) => state.storage.sql.exec("SELECT * FROM tokens WHERE id = ?", created.id).toArray());
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]!.secret_sha256).toBe(await sha256Hex(secret));
  });

  it("defaults name and expiry to null", async () => {
    const created = await createToken({ rules: [] });
    expect(created.name).toBeNull();
    expect(created.expiresAt).toBeNull();
  });

  it.each([
    ["no rules field", {}],
    ["an unknown resource type", { rules: [{ ...allOn("topic", "t"), resource: "user" }] }],
    ["an unknown operation", { rules: [{ ...allOn("topic", "t"), operations: ["all"] }] }],
    ["no operations", { rules: [{ ...allOn("topic", "t"), operations: [] }] }],
    ["an unknown pattern type", { rules: [{ ...allOn("topic", "t"), patternType: "match" }] }],
    ["an empty name", { rules: [{ ...allOn("topic", "t"), name: "" }] }],
    ["an unknown field", { rules: [], admin: true }],
    ["an expiry in the past", { rules: [], expiresAt: Date.now() - 1 }],
    ["a fractional expiry", { rules: [], expiresAt: Date.now() + 1000.5 }],
    ["a negative quota", { rules: [], quotas: { produceBytesPerSecond: -1 } }],
    ["an unknown quota", { rules: [], quotas: { bytesPerDay: 1 } }],
    ["too many rules", { rules: Array.from({ length: 101 }, () => allOn("topic", "t")) }],
    ["__proto__ as a field", JSON.parse('{"rules": [], "__proto__": {"admin": true}}')],
  ])("refuses %s with 400 INVALID_REQUEST and creates nothing", async (_what, body) => {
    const before = (await securedCall("GET", "/v1/tokens", admin)).body.tokens.length;
    expectError(await securedCall("POST", "/v1/tokens", { ...admin, body }), 400, "INVALID_REQUEST");
    expect((await securedCall("GET", "/v1/tokens", admin)).body.tokens.length).toBe(before);
  });
});

describe("tokens and the admin token (issue 12: tokens made while open stayed valid once secured)", () => {
  it("refuses to create a token while no admin token is set, with 400 SECURITY_DISABLED saying to set it, and creates nothing", async () => {
    const before = (await api("GET", "/v1/tokens")).body.tokens.length;
    const refused = expectError(await api("POST", "/v1/tokens", { name: "open", rules: [allOn("topic", "orders")] }), 400, "SECURITY_DISABLED");
    expect(refused.message).toContain("set TRIBUTARY_ADMIN_TOKEN");
    expect((await api("GET", "/v1/tokens")).body.tokens.length).toBe(before);
  });

  it("binds a token to the admin token it was created under: refused under another one, accepted again under its own", async () => {
    const topic = uniqueTopic("bound");
    await createTopic(topic);
    const created = await createToken({ rules: [allOn("topic", topic)] });
    const rotated = { ...securedEnv, TRIBUTARY_ADMIN_TOKEN: "a-different-admin-token" };
    expectError(await securedCall("GET", `/v1/topics/${topic}`, { token: created.token, env: rotated }), 401, "UNAUTHENTICATED");
    expectError(await securedCall("POST", `/v1/topics/${topic}/records`, { token: created.token, env: rotated, body: { records: [{ value: "v" }] } }), 401, "UNAUTHENTICATED");
    expect((await securedCall("GET", `/v1/topics/${topic}`, { token: created.token })).status).toBe(200);
    // A write token minted from it is void under another admin token too (its signature, and its parent).
    const minted = await securedCall("POST", `/v1/topics/${topic}/write-tokens`, { token: created.token });
    expect(minted.status, minted.text).toBe(201);
    expectError(await securedCall("POST", `/v1/topics/${topic}/records`, { token: minted.body.token, env: rotated, body: { records: [{ value: "v" }] } }), 401, "UNAUTHENTICATED");
  });

  it("refuses a token stored without an admin token's fingerprint (made by an earlier version, maybe while open)", async () => {
    const topic = uniqueTopic("unbound");
    await createTopic(topic);
    const token = await runInDurableObject(controllerStub(env), async (_instance, state) => {
      const sql = state.storage.sql;
      const tagKey = sql.exec<{ raw: ArrayBuffer }>("SELECT raw FROM token_tag_key WHERE id = 1").one().raw;
      const fresh = await newScopedToken(await importTagKey(new Uint8Array(tagKey)));
      const rules = JSON.stringify([allOn("topic", topic)]);
      sql.exec("INSERT INTO tokens (id, name, secret_sha256, rules, quotas, expires_at, created_at) VALUES (?, 'old', ?, ?, '{}', NULL, ?)", fresh.id, fresh.secretHash, rules, Date.now());
      return fresh.token;
    });
    expectError(await securedCall("GET", `/v1/topics/${topic}`, { token }), 401, "UNAUTHENTICATED");
  });
});

describe("DELETE /v1/tokens/{id}", () => {
  it("revokes: the token is refused within seconds, and is gone from the listing", async () => {
    const topic = uniqueTopic("revoke");
    await createTopic(topic);
    const created = await createToken({ rules: [allOn("topic", topic)] });
    expect((await securedCall("GET", `/v1/topics/${topic}`, { token: created.token })).status).toBe(200);
    expect((await securedCall("DELETE", `/v1/tokens/${created.id}`, admin)).status).toBe(204);
    let status = 200;
    for (let attempt = 0; attempt < 100 && status !== 401; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await securedCall("GET", `/v1/topics/${topic}`, { token: created.token })).status;
    }
    expect(status).toBe(401);
    expect((await securedCall("GET", "/v1/tokens", admin)).body.tokens.map((token: { id: string }) => token.id)).not.toContain(created.id);
  });

  it("answers 404 NOT_FOUND for an unknown or malformed id", async () => {
    expectError(await securedCall("DELETE", `/v1/tokens/${"f".repeat(16)}`, admin), 404, "NOT_FOUND");
    expectError(await securedCall("DELETE", "/v1/tokens/..%2F..", admin), 404, "NOT_FOUND");
  });
});

describe("a token's rules", () => {
  it("let a prefixed rule reach every topic with the prefix and nothing else", async () => {
    const prefix = uniqueTopic("team");
    await createTopic(`${prefix}.a`);
    await createTopic(`${prefix}x`);
    const { token } = await createToken({ rules: [{ resource: "topic", name: `${prefix}.`, patternType: "prefixed", operations: ["read"] }] });
    expect((await securedCall("GET", `/v1/topics/${prefix}.a`, { token })).status).toBe(200);
    expectError(await securedCall("GET", `/v1/topics/${prefix}x`, { token }), 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("POST", `/v1/topics/${prefix}.a/records`, { token, body: { records: [{ value: "v" }] } }), 403, "TOPIC_AUTHORIZATION_FAILED");
  });

  it("refuse an unknown topic the token may not describe with 403, not 404 (existence is not disclosed)", async () => {
    const { token } = await createToken({ rules: [allOn("topic", "somewhere-else")] });
    expectError(await securedCall("GET", `/v1/topics/${uniqueTopic("absent")}`, { token }), 403, "TOPIC_AUTHORIZATION_FAILED");
  });

  it("need read on the group and on every subscribed topic to join (API.md)", async () => {
    const topic = uniqueTopic("member");
    const secret = uniqueTopic("member-secret");
    await createTopic(topic);
    await createTopic(secret);
    const group = uniqueGroup("member");
    const { token } = await createToken({ rules: [allOn("group", group), { resource: "topic", name: topic, patternType: "literal", operations: ["read"] }] });
    expectError(await securedCall("POST", groupPath(group, "/members"), { token, body: { topics: [topic, secret] } }), 403, "TOPIC_AUTHORIZATION_FAILED");
    const joined = await securedCall("POST", groupPath(group, "/members"), { token, body: { topics: [topic] } });
    expect(joined.status, joined.text).toBe(201);
    const { token: topicOnly } = await createToken({ rules: [{ resource: "topic", name: topic, patternType: "literal", operations: ["read"] }] });
    expectError(await securedCall("POST", groupPath(group, "/members"), { token: topicOnly, body: { topics: [topic] } }), 403, "GROUP_AUTHORIZATION_FAILED");
    // Another token may not commit, for the member, offsets of a topic it may not read.
    const { token: groupOnly } = await createToken({ rules: [allOn("group", group)] });
    const commit = { memberId: joined.body.memberId, memberEpoch: joined.body.memberEpoch, offsets: [{ topic, partition: 0, offset: 0 }] };
    expectError(await securedCall("POST", groupPath(group, "/offsets"), { token: groupOnly, body: commit }), 403, "TOPIC_AUTHORIZATION_FAILED");
    // Nor poll the member's partitions.
    const polled = await securedCall("POST", groupPath(group, `/members/${joined.body.memberId}/poll`), { token: groupOnly, body: { memberEpoch: joined.body.memberEpoch } });
    expectError(polled, 403, "TOPIC_AUTHORIZATION_FAILED");
    // Nor subscribe, by a heartbeat's topics, to a topic it may not read.
    const resubscribe = { memberEpoch: 0, topics: [topic, secret] };
    expectError(await securedCall("POST", groupPath(group, `/members/${joined.body.memberId}/heartbeat`), { token, body: resubscribe }), 403, "TOPIC_AUTHORIZATION_FAILED");
  });

  it("let a cluster create rule create any topic", async () => {
    const { token } = await createToken({ rules: [{ resource: "cluster", name: "*", patternType: "literal", operations: ["create"] }] });
    const created = await securedCall("POST", "/v1/topics", { token, body: { name: uniqueTopic("cluster-made") } });
    expect(created.status, created.text).toBe(201);
  });
});
