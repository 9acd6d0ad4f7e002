import { describe, expect, it } from "vitest";
import { describeIdentity, identityIsAdmin, identityMay, identityMayCreateTopics, tokenPlaceholder, type Identity } from "../src/identity.ts";

const scoped: Identity = {
  kind: "scoped",
  tokenId: "0123456789abcdef",
  rules: [
    { resource: "topic", name: "shop-", patternType: "prefixed", operations: ["read"] },
    { resource: "group", name: "billing", patternType: "literal", operations: ["read", "delete"] },
  ],
  expiresAt: null,
};

describe("console identity", () => {
  it("names the token in use by its kind, a scoped token by its id, never by its characters", () => {
    expect(describeIdentity({ kind: "admin" })).toBe("Admin token");
    expect(describeIdentity(scoped)).toBe("Scoped token 0123456789abcdef");
    expect(describeIdentity({ kind: "write", topic: "orders", mintedFrom: "admin" })).toBe("Write token for orders");
    expect(describeIdentity({ kind: "read", topic: "orders", mintedFrom: "0123456789abcdef" })).toBe("Read token for orders");
    expect(describeIdentity({ kind: "open" })).toBe("Open mode: no token needed");
    expect(describeIdentity({ kind: "refused" })).toBe("Token refused by the server");
  });

  it("asks for a token as the server's health says it needs one", () => {
    expect(tokenPlaceholder(true)).toBe("this server needs a token");
    expect(tokenPlaceholder(false)).toBe("none needed: open mode");
    expect(tokenPlaceholder(undefined)).not.toContain("open");
  });

  it("offers what the token's rules allow, everything to the admin, nothing before the server has said", () => {
    expect(identityMay(scoped, "topic", "shop-orders", "read")).toBe(true);
    expect(identityMay(scoped, "topic", "shop-orders", "describe")).toBe(true);
    expect(identityMay(scoped, "topic", "shop-orders", "delete")).toBe(false);
    expect(identityMay(scoped, "topic", "hr-salaries", "read")).toBe(false);
    expect(identityMay(scoped, "group", "billing", "delete")).toBe(true);
    expect(identityMay(scoped, "cluster", "tributary", "describe")).toBe(false);
    for (const kind of ["admin", "open", "unknown"] as const) expect(identityMay({ kind }, "topic", "any", "delete")).toBe(true);
    for (const kind of ["loading", "no-token", "refused"] as const) expect(identityMay({ kind }, "topic", "any", "read")).toBe(false);
    expect(identityMay({ kind: "write", topic: "t", rules: [{ resource: "topic", name: "t", patternType: "literal", operations: ["write"] }] }, "topic", "t", "delete")).toBe(false);
  });

  it("offers creating topics to a token with create on the cluster or on some topic names, the tokens page to the admin", () => {
    expect(identityMayCreateTopics(scoped)).toBe(false);
    expect(identityMayCreateTopics({ ...scoped, rules: [{ resource: "topic", name: "ci-", patternType: "prefixed", operations: ["create"] }] } as Identity)).toBe(true);
    expect(identityMayCreateTopics({ ...scoped, rules: [{ resource: "cluster", name: "tributary", patternType: "literal", operations: ["create"] }] } as Identity)).toBe(true);
    expect(identityMayCreateTopics({ kind: "admin" })).toBe(true);
    expect(identityIsAdmin({ kind: "open" })).toBe(true);
    expect(identityIsAdmin(scoped)).toBe(false);
  });
});
