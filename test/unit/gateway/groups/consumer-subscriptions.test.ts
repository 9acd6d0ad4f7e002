/** A KIP-848 member's subscription as the gateway resolves it: names that exist, or a regex over whole topic names. */
import { describe, expect, it } from "vitest";
import { compileTopicRegex, isConsumerMember, rememberedSubscription, resolveSubscription, type RememberedSubscription } from "../../../../src/gateway/groups/consumer-subscriptions.ts";
import type { GatewayRequestContext } from "../../../../src/gateway/handler-types.ts";
import { gatewayConsumerMembersPerConnectionMax } from "../../../../src/limits.ts";

const existing = ["orders", "orders-v2", "audit", "__internal", "payments.eu"];
const byRegex = (source: string): RememberedSubscription => ({ names: null, regex: compileTopicRegex(source), regexSource: source, sentTopics: null });

describe("resolveSubscription", () => {
  it("keeps the names that exist, sorted, once each", () => {
    expect(resolveSubscription({ names: ["orders", "missing", "audit", "orders"], regex: null, regexSource: null, sentTopics: null }, existing)).toEqual(["audit", "orders"]);
  });

  it("matches a regex against the whole name, as Kafka's broker does (RE2/J's matches()), leaving internal topics out", () => {
    expect(resolveSubscription(byRegex("orders"), existing)).toEqual(["orders"]);
    expect(resolveSubscription(byRegex("orders.*"), existing)).toEqual(["orders", "orders-v2"]);
    expect(resolveSubscription(byRegex(".*(?:(?:orders)|(?:audit)).*"), existing)).toEqual(["audit", "orders", "orders-v2"]);
    expect(resolveSubscription(byRegex("payments\\.[a-z]{2}|audit"), existing)).toEqual(["audit", "payments.eu"]);
    expect(resolveSubscription(byRegex(".*"), existing)).not.toContain("__internal");
  });

  it("a regex that does not compile is null (INVALID_REGULAR_EXPRESSION)", () => {
    expect(compileTopicRegex("orders(")).toBeNull();
    expect(compileTopicRegex("[a-")).toBeNull();
  });
});

describe("a connection's remembered members", () => {
  it("keeps at most gatewayConsumerMembersPerConnectionMax, forgetting the oldest, and forgets all when the connection closes", () => {
    const closers: (() => void)[] = [];
    const context = { connectionId: 987_654, onClose: (listener: () => void) => closers.push(listener) } as unknown as GatewayRequestContext;
    for (let i = 0; i <= gatewayConsumerMembersPerConnectionMax; i++) rememberedSubscription(context, "g", `m${i}`);
    expect(isConsumerMember(context, "g", "m0")).toBe(false);
    expect(isConsumerMember(context, "g", "m1")).toBe(true);
    expect(isConsumerMember(context, "g", `m${gatewayConsumerMembersPerConnectionMax}`)).toBe(true);
    expect(closers).toHaveLength(1);
    closers[0]!();
    expect(isConsumerMember(context, "g", "m1")).toBe(false);
  });
});
