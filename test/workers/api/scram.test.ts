/**
 * SCRAM exchanges a Kafka gateway relays (docs/api.md, SCRAM): POST /v1/scram/first and
 * /v1/scram/final, driven here by SCRAM's client side (src/auth/scram.ts) as a gateway relays a
 * Kafka client's messages. The controller keeps salted keys per token, never the token; a proof
 * that holds answers server-final and a session token with the scoped token's rules; anything
 * else is 401 SASL_AUTHENTICATION_FAILED saying why.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { clientFinalMessage, clientFirstMessage, scramMechanisms, type ScramMechanism } from "../../../src/auth/scram.ts";
import { scramIterations, scramSessionTtlMsDefault } from "../../../src/limits.ts";
import { controllerStub } from "../../../src/contracts/stubs.ts";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { adminToken, allOn, createToken, securedCall, securedEnv, type CreatedToken } from "../support/secured.ts";

/** The gateway's own token: any valid token relays an exchange. */
const relay = { token: adminToken };

async function first(mechanism: ScramMechanism, username: string, nonce = `nonce${Math.random().toString(36).slice(2)}`) {
  const message = clientFirstMessage(username, nonce);
  const response = await securedCall("POST", "/v1/scram/first", { ...relay, body: { mechanism, clientFirst: message.message } });
  return { response, bare: message.bare };
}

/** A whole exchange as a Kafka client and a gateway run it; the final answer. */
async function authenticate(mechanism: ScramMechanism, username: string, password: string, extra: Record<string, unknown> = {}) {
  const { response, bare } = await first(mechanism, username);
  expect(response.status, response.text).toBe(200);
  const final = await clientFinalMessage(scramMechanisms[mechanism], password, bare, response.body.serverFirst);
  if (!final.ok) throw new Error(final.error);
  const answer = await securedCall("POST", "/v1/scram/final", { ...relay, body: { exchange: response.body.exchange, clientFinal: final.value.message, ...extra } });
  return { answer, expectedServerFinal: final.value.serverFinal };
}

function produceWith(topic: string, token: string) {
  return securedCall("POST", `/v1/topics/${topic}/records`, { token, body: { records: [{ value: "v" }] } });
}

async function untilStatus(call: () => Promise<{ status: number }>, status: number): Promise<number> {
  let seen = (await call()).status;
  for (let attempt = 0; attempt < 100 && seen !== status; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = (await call()).status;
  }
  return seen;
}

describe("SCRAM credentials kept with each scoped token", () => {
  it("are salt, iterations, StoredKey and ServerKey per mechanism: never the token or its secret", async () => {
    const created = await createToken({ rules: [] });
    const rows = await runInDurableObject(controllerStub(env), (_instance, state) => state.storage.sql.exec("SELECT * FROM tokens WHERE id = ?", created.id).toArray());
    const scram = JSON.parse(rows[0]!.scram as string) as Record<string, Record<string, unknown>>;
    expect(Object.keys(scram).sort()).toEqual(["SCRAM-SHA-256", "SCRAM-SHA-512"]);
    for (const [mechanism, keyBytes] of [["SCRAM-SHA-256", 32], ["SCRAM-SHA-512", 64]] as const) {
      expect(scram[mechanism]).toEqual({ salt: expect.any(String), iterations: scramIterations, storedKey: expect.any(String), serverKey: expect.any(String) });
      expect(atob(scram[mechanism]!.storedKey as string)).toHaveLength(keyBytes);
    }
    expect(scram["SCRAM-SHA-256"]!.salt).not.toBe(scram["SCRAM-SHA-512"]!.salt);
    expect(JSON.stringify(rows)).not.toContain(created.token.slice(21));
  });
});

describe("POST /v1/scram/first and /v1/scram/final", () => {
  it.each(Object.keys(scramMechanisms) as ScramMechanism[])("%s: the token's id and the token authenticate; the session token acts with the token's rules", async (mechanism) => {
    const topic = uniqueTopic("scram");
    const other = uniqueTopic("scram-other");
    await createTopic(topic);
    await createTopic(other);
    const created = await createToken({ rules: [allOn("topic", topic)] });
    const before = Date.now();
    const { answer, expectedServerFinal } = await authenticate(mechanism, created.id, created.token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ serverFinal: expectedServerFinal, token: expect.stringMatching(/^trs_/), expiresAt: expect.any(Number), lifetimeMs: expect.any(Number) });
    expect(answer.body.expiresAt).toBeGreaterThanOrEqual(before + scramSessionTtlMsDefault);
    expect(answer.body.lifetimeMs).toBeLessThanOrEqual(scramSessionTtlMsDefault);
    expect(answer.body.lifetimeMs).toBeGreaterThan(scramSessionTtlMsDefault - 60_000);
    const session = answer.body.token as string;
    // It acts as the scoped token: GET /v1/whoami says so, with the session's expiry.
    expect((await securedCall("GET", "/v1/whoami", { token: session })).body).toMatchObject({ kind: "scoped", tokenId: created.id, expiresAt: answer.body.expiresAt });
    expect((await produceWith(topic, session)).status).toBe(200);
    expectError(await produceWith(other, session), 403, "TOPIC_AUTHORIZATION_FAILED");
    expectError(await securedCall("GET", "/v1/tokens", { token: session }), 403, "CLUSTER_AUTHORIZATION_FAILED");
  });

  it("a session lives ttlMs when asked, never longer than its token, and dies when its token is revoked", async () => {
    const topic = uniqueTopic("scram-life");
    await createTopic(topic);
    const tokenExpiry = Date.now() + 120_000;
    const created = await createToken({ rules: [allOn("topic", topic)], expiresAt: tokenExpiry });
    const short = (await authenticate("SCRAM-SHA-256", created.id, created.token, { ttlMs: 5_000 })).answer;
    expect(short.status, short.text).toBe(200);
    expect(short.body.lifetimeMs).toBeLessThanOrEqual(5_000);
    const long = (await authenticate("SCRAM-SHA-256", created.id, created.token)).answer;
    expect(long.body.expiresAt).toBe(tokenExpiry);
    expect((await produceWith(topic, long.body.token)).status).toBe(200);
    expect((await securedCall("DELETE", `/v1/tokens/${created.id}`, relay)).status).toBe(204);
    expect(await untilStatus(() => produceWith(topic, long.body.token), 401)).toBe(401);
    const again = await first("SCRAM-SHA-256", created.id);
    expect(expectError(again.response, 401, "SASL_AUTHENTICATION_FAILED").message).toContain(`no live scoped token has the id ${created.id}`);
  });

  it("a session token is void under another admin token, and a forged or altered one is refused", async () => {
    const created = await createToken({ rules: [allOn("topic", "x")] });
    const session = (await authenticate("SCRAM-SHA-512", created.id, created.token)).answer.body.token as string;
    expect((await securedCall("GET", "/v1/cluster", { token: session })).status).toBe(200);
    const rotated = { ...securedEnv, TRIBUTARY_ADMIN_TOKEN: "another-admin-token" };
    expectError(await securedCall("GET", "/v1/cluster", { token: session, env: rotated }), 401, "UNAUTHENTICATED");
    expectError(await securedCall("GET", "/v1/cluster", { token: `${session.slice(0, -4)}AAAA` }), 401, "UNAUTHENTICATED");
  });

  it("a wrong password fails at once with SASL_AUTHENTICATION_FAILED and a message, and answers no token", async () => {
    const created = await createToken({ rules: [] });
    const { answer } = await authenticate("SCRAM-SHA-256", created.id, `${created.token}x`);
    const refused = expectError(answer, 401, "SASL_AUTHENTICATION_FAILED");
    expect(refused.message).toContain(`the password is not the token whose id is ${created.id}`);
    expect(answer.text).not.toContain("trs_");
  });

  it("the username must be a live scoped token's id: the admin token and other kinds have no SCRAM credentials", async () => {
    for (const username of ["admin", adminToken, "not-an-id"]) {
      const { response } = await first("SCRAM-SHA-256", username);
      expect(expectError(response, 401, "SASL_AUTHENTICATION_FAILED").message).toMatch(/scoped token's id .*use PLAIN or OAUTHBEARER/);
    }
    const unknown = await first("SCRAM-SHA-512", "0123456789abcdef");
    expect(expectError(unknown.response, 401, "SASL_AUTHENTICATION_FAILED").message).toContain("no live scoped token has the id 0123456789abcdef");
  });

  it("a token created before SCRAM credentials were kept is told so", async () => {
    const created = await createToken({ rules: [] });
    // What a row from before the migration holds: no credentials.
    await runInDurableObject(controllerStub(env), (_instance, state) => state.storage.sql.exec("UPDATE tokens SET scram = NULL WHERE id = ?", created.id));
    const { response } = await first("SCRAM-SHA-256", created.id);
    expect(expectError(response, 401, "SASL_AUTHENTICATION_FAILED").message).toContain(`token ${created.id} has no SCRAM credentials: it was created before`);
    // PLAIN's and OAUTHBEARER's way still works: the token itself.
    expect((await securedCall("GET", "/v1/cluster", { token: created.token })).status).toBe(200);
  });

  it("refuses an exchange it did not start, one started under another admin token, and a client-final for another exchange", async () => {
    const created: CreatedToken = await createToken({ rules: [] });
    const { response, bare } = await first("SCRAM-SHA-256", created.id);
    const final = await clientFinalMessage("SHA-256", created.token, bare, response.body.serverFirst);
    if (!final.ok) throw new Error(final.error);
    const send = (exchange: string, clientFinal: string, options = relay as { token: string; env?: Env }) =>
      securedCall("POST", "/v1/scram/final", { ...options, body: { exchange, clientFinal } });
    const exchange = response.body.exchange as string;
    const tampered = `${exchange.slice(0, -4)}AAAA`;
    expect(expectError(await send(tampered, final.value.message), 401, "SASL_AUTHENTICATION_FAILED").message).toContain("not one this deployment started");
    const rotated = { ...securedEnv, TRIBUTARY_ADMIN_TOKEN: "another-admin-token" };
    expect(expectError(await send(exchange, final.value.message, { token: "another-admin-token", env: rotated }), 401, "SASL_AUTHENTICATION_FAILED").message).toContain("not one this deployment started");
    const second = await first("SCRAM-SHA-256", created.id);
    expect(expectError(await send(second.response.body.exchange, final.value.message), 401, "SASL_AUTHENTICATION_FAILED").message).toContain("its nonce is not the one server-first answered");
    // The exchange itself still completes.
    expect((await send(exchange, final.value.message)).status).toBe(200);
  });

  it("refuses malformed messages with 401 SASL_AUTHENTICATION_FAILED (the RFC's grammar) or 400 (the body's shape)", async () => {
    const created = await createToken({ rules: [] });
    const bad = await securedCall("POST", "/v1/scram/first", { ...relay, body: { mechanism: "SCRAM-SHA-256", clientFirst: `p=tls-unique,,n=${created.id},r=x` } });
    expect(expectError(bad, 401, "SASL_AUTHENTICATION_FAILED").message).toContain("channel binding is not offered");
    expectError(await securedCall("POST", "/v1/scram/first", { ...relay, body: { mechanism: "SCRAM-SHA-1", clientFirst: `n,,n=${created.id},r=x` } }), 400, "INVALID_REQUEST");
    expectError(await securedCall("POST", "/v1/scram/final", { ...relay, body: { exchange: "x", clientFinal: "c=biws", ttlMs: 10 } }), 400, "INVALID_REQUEST");
  });

  it("is 400 SECURITY_DISABLED on a deployment without an admin token: SCRAM's users are scoped tokens", async () => {
    const refused = expectError(await api("POST", "/v1/scram/first", { mechanism: "SCRAM-SHA-256", clientFirst: "n,,n=0123456789abcdef,r=x" }), 400, "SECURITY_DISABLED");
    expect(refused.message).toContain("SCRAM");
  });
});
