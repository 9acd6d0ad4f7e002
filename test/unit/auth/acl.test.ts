import { describe, expect, it } from "vitest";
import { allows, allowsAny, type Rule } from "../../../src/auth/acl.ts";

const rule = (overrides: Partial<Rule>): Rule => ({ resource: "topic", name: "orders", patternType: "literal", operations: ["read"], ...overrides });

describe("allows (Kafka's ACLs, allow rules only)", () => {
  it("matches a literal name exactly, and nothing else", () => {
    const rules = [rule({})];
    expect(allows(rules, "topic", "orders", "read")).toBe(true);
    expect(allows(rules, "topic", "orders2", "read")).toBe(false);
    expect(allows(rules, "topic", "order", "read")).toBe(false);
    expect(allows(rules, "topic", "ORDERS", "read")).toBe(false);
  });

  it("matches a prefix with a prefixed rule", () => {
    const rules = [rule({ name: "app-", patternType: "prefixed" })];
    expect(allows(rules, "topic", "app-", "read")).toBe(true);
    expect(allows(rules, "topic", "app-orders", "read")).toBe(true);
    expect(allows(rules, "topic", "app", "read")).toBe(false);
    expect(allows(rules, "topic", "other-app-orders", "read")).toBe(false);
  });

  it("treats a literal * as every name, as Kafka does, but a prefixed * as the character", () => {
    expect(allows([rule({ name: "*" })], "topic", "anything", "read")).toBe(true);
    expect(allows([rule({ name: "*", patternType: "prefixed" })], "topic", "anything", "read")).toBe(false);
    expect(allows([rule({ name: "*", patternType: "prefixed" })], "topic", "*x", "read")).toBe(true);
  });

  it("keeps resource types apart", () => {
    const rules = [rule({ resource: "group" })];
    expect(allows(rules, "group", "orders", "read")).toBe(true);
    expect(allows(rules, "topic", "orders", "read")).toBe(false);
    expect(allows(rules, "cluster", "orders", "read")).toBe(false);
  });

  it("allows only the listed operations, with describe implied by read, write, alter and delete", () => {
    for (const granted of ["read", "write", "alter", "delete"] as const) {
      expect(allows([rule({ operations: [granted] })], "topic", "orders", "describe")).toBe(true);
    }
    expect(allows([rule({ operations: ["create"] })], "topic", "orders", "describe")).toBe(false);
    expect(allows([rule({ operations: ["describe"] })], "topic", "orders", "read")).toBe(false);
    expect(allows([rule({ operations: ["read"] })], "topic", "orders", "write")).toBe(false);
    expect(allows([rule({ operations: ["write"] })], "topic", "orders", "read")).toBe(false);
  });

  it("allows nothing without rules, and unions several rules", () => {
    expect(allows([], "topic", "orders", "describe")).toBe(false);
    const rules = [rule({ operations: ["read"] }), rule({ name: "ord", patternType: "prefixed", operations: ["write"] })];
    expect(allows(rules, "topic", "orders", "read")).toBe(true);
    expect(allows(rules, "topic", "orders", "write")).toBe(true);
    expect(allows(rules, "topic", "ordinal", "read")).toBe(false);
  });
});

describe("allowsAny", () => {
  it("says whether any resource of the type allows the operation", () => {
    expect(allowsAny([rule({ operations: ["write"] })], "topic", "write")).toBe(true);
    expect(allowsAny([rule({ operations: ["read"] })], "topic", "write")).toBe(false);
    expect(allowsAny([rule({ resource: "group", operations: ["write"] })], "topic", "write")).toBe(false);
  });
});
