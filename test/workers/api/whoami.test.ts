/**
 * `GET /v1/whoami` (docs/api.md, Tokens and authorization): what a page needs to say which
 * token is in use and whether one is needed — the kind (admin, scoped with its id, write or
 * read with its topic), never any of the token's secret; without a token, `open` on a
 * deployment that needs none and `none` on one that does (a token it is given is checked). Health stays API.md's `{"status": "ok"}`.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { adminToken, createToken, securedCall } from "../support/secured.ts";

/** A token's secret: everything after its id (`trb_<id>_<secret>`), or the whole of any other token. */
const secretOf = (token: string) => (token.startsWith("trb_") ? token.slice(21) : token);

describe("whether a token is needed", () => {
  it("health answers API.md's body either way; whoami without a token answers open, or none where a token is needed", async () => {
    expect((await api("GET", "/v1/health")).body).toEqual({ status: "ok" });
    expect((await securedCall("GET", "/v1/health")).body).toEqual({ status: "ok" });
    expect((await api("GET", "/v1/whoami")).body).toEqual({ kind: "open" });
    expect((await securedCall("GET", "/v1/whoami")).body).toEqual({ kind: "none" });
    expectError(await securedCall("GET", "/v1/whoami", { token: "not-a-token" }), 401, "UNAUTHENTICATED");
  });
});

describe("GET /v1/whoami", () => {
  it("answers open on a deployment without an admin token", async () => {
    const response = await api("GET", "/v1/whoami");
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { kind: "open" } });
  });

  it("answers admin for the admin token, without echoing it", async () => {
    const response = await securedCall("GET", "/v1/whoami", { token: adminToken });
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { kind: "admin" } });
    expect(response.text).not.toContain(adminToken);
  });

  it("answers a scoped token's id, rules and expiry, never its secret", async () => {
    const rules = [{ resource: "topic", name: "shop-", patternType: "prefixed", operations: ["read"] }];
    const expiresAt = Date.now() + 3_600_000;
    const created = await createToken({ name: "whoami-scoped", rules, expiresAt, quotas: { requestsPerSecond: 50 } });
    const response = await securedCall("GET", "/v1/whoami", { token: created.token });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ kind: "scoped", tokenId: created.id, rules, expiresAt, quotas: { requestsPerSecond: 50 } });
    expect(response.text).not.toContain(secretOf(created.token));
    expect(response.text).not.toContain(secretOf(created.token).slice(0, 8));
  });

  it("answers a write or read token's kind, topic and the token it was minted from, never the token", async () => {
    const topic = uniqueTopic("whoami");
    await createTopic(topic);
    const parent = await createToken({ name: "whoami-parent", rules: [{ resource: "topic", name: topic, patternType: "literal", operations: ["read", "write"] }] });
    for (const [kind, route, operations] of [["write", "write-tokens", ["write"]], ["read", "read-tokens", ["read", "describe"]]] as const) {
      for (const [minter, mintedFrom] of [[adminToken, "admin"], [parent.token, parent.id]] as const) {
        const minted = await securedCall("POST", `/v1/topics/${topic}/${route}`, { token: minter });
        expect(minted.status, minted.text).toBe(201);
        const response = await securedCall("GET", "/v1/whoami", { token: minted.body.token });
        expect(response.status, response.text).toBe(200);
        expect(response.body).toEqual({
          kind,
          mintedFrom,
          topic,
          rules: [{ resource: "topic", name: topic, patternType: "literal", operations }],
          expiresAt: minted.body.expiresAt,
          quotas: {},
        });
        expect(response.text).not.toContain(minted.body.token.split(".")[1]); // the signature
      }
    }
  });

  it("refuses a request without a valid token, and takes no query parameters", async () => {
    expect((await securedCall("GET", "/v1/whoami")).body).toEqual({ kind: "none" });
    expectError(await securedCall("GET", "/v1/whoami", { token: "not-a-token" }), 401, "UNAUTHENTICATED");
    expectError(await securedCall("GET", "/v1/whoami", { token: "wrong" }), 401, "UNAUTHENTICATED");
    expectError(await securedCall("GET", "/v1/whoami?x=1", { token: adminToken }), 400, "INVALID_REQUEST");
  });
});
