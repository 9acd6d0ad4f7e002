/** The classic-member bridge's pure decisions: protocol choice, join plans, settings, states, error codes. */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../../src/errors.ts";
import { assignorFor, chooseProtocol, classicGroupState, joinPlan, sessionTimeoutAccepted } from "../../../../src/gateway/groups/classic-bridge.ts";
import { encodeSubscription } from "../../../../src/protocol/consumer-protocol.ts";
import { kafkaCodeOf, kafkaCodes } from "../../../../src/gateway/groups/kafka-codes.ts";

const subscribing = (...topics: string[]) => encodeSubscription({ topics });

describe("chooseProtocol", () => {
  it("takes the member's first protocol whose metadata is a subscription with topics", () => {
    const chosen = chooseProtocol([
      { name: "broken", metadata: new Uint8Array([0, 0, 0]) },
      { name: "empty", metadata: subscribing() },
      { name: "range", metadata: subscribing("orders") },
      { name: "roundrobin", metadata: subscribing("audit") },
    ]);
    expect(chosen).toMatchObject({ name: "range", cooperative: false, subscription: { topics: ["orders"] } });
    expect(chooseProtocol([{ name: "broken", metadata: new Uint8Array([1]) }])).toBeNull();
    expect(chooseProtocol([])).toBeNull();
  });

  it("knows cooperative-sticky as cooperative, with the partitions the member owns", () => {
    const metadata = encodeSubscription({ topics: ["orders"], ownedPartitions: [{ topic: "orders", partitions: [3, 1] }] }, 1);
    expect(chooseProtocol([{ name: "cooperative-sticky", metadata }])).toMatchObject({
      cooperative: true,
      subscription: { ownedPartitions: [{ topic: "orders", partitions: [3, 1] }] },
    });
    expect(chooseProtocol([{ name: "RoundRobinAssigner", metadata }])?.cooperative).toBe(false);
  });
});

describe("joinPlan", () => {
  it("joins a member without id, asking v4+ clients to come back with it (MEMBER_ID_REQUIRED)", () => {
    for (const version of [0, 1, 2, 3]) expect(joinPlan("", version, false)).toBe("join");
    for (const version of [4, 5, 9]) expect(joinPlan("", version, true)).toBe("join-then-require-id");
  });

  it("rejoins an eager member from nothing and a cooperative one with what it owns", () => {
    expect(joinPlan("m1", 5, false)).toBe("rejoin-eager");
    expect(joinPlan("m1", 0, true)).toBe("rejoin-cooperative");
  });
});

describe("settings and states", () => {
  it("maps Kafka's range to the coordinator's range and leaves other assignors to the group", () => {
    expect(assignorFor("range")).toBe("range");
    for (const name of ["roundrobin", "cooperative-sticky", "RoundRobinAssigner"]) expect(assignorFor(name)).toBeUndefined();
  });

  it("accepts the coordinator's session timeouts only (kafkajs 30 s, librdkafka 45 s)", () => {
    for (const ms of [6_000, 30_000, 45_000, 1_800_000]) expect(sessionTimeoutAccepted(ms)).toBe(true);
    for (const ms of [5_999, 1_800_001, -1, 1.5]) expect(sessionTimeoutAccepted(ms)).toBe(false);
  });

  it("names a reconciling group PreparingRebalance for DescribeGroups", () => {
    expect(classicGroupState("Reconciling")).toBe("PreparingRebalance");
    expect(classicGroupState("Stable")).toBe("Stable");
    expect(classicGroupState("Empty")).toBe("Empty");
  });
});

describe("kafkaCodeOf", () => {
  it("maps fencing to ILLEGAL_GENERATION, retriable failures to COORDINATOR_NOT_AVAILABLE, and rethrows bugs", () => {
    const code = (error: TributaryError) => kafkaCodeOf(error);
    expect(code(new TributaryError("FENCED_MEMBER_EPOCH", "x"))).toBe(kafkaCodes.ILLEGAL_GENERATION);
    expect(code(new TributaryError("UNKNOWN_MEMBER_ID", "x"))).toBe(kafkaCodes.UNKNOWN_MEMBER_ID);
    expect(code(new TributaryError("GROUP_AUTHORIZATION_FAILED", "x"))).toBe(kafkaCodes.GROUP_AUTHORIZATION_FAILED);
    expect(code(new TributaryError("NON_EMPTY_GROUP", "x"))).toBe(kafkaCodes.NON_EMPTY_GROUP);
    expect(code(new TributaryError("GROUP_ID_NOT_FOUND", "x"))).toBe(kafkaCodes.GROUP_ID_NOT_FOUND);
    expect(code(new TributaryError("INVALID_REQUEST", "x", { membersMax: 1000 }))).toBe(kafkaCodes.GROUP_MAX_SIZE_REACHED);
    for (const retriable of ["NETWORK_EXCEPTION", "REQUEST_TIMED_OUT", "BROKER_BUSY", "THROTTLING_QUOTA_EXCEEDED"] as const) {
      expect(code(new TributaryError(retriable, "x"))).toBe(kafkaCodes.COORDINATOR_NOT_AVAILABLE);
    }
    expect(code(new TributaryError("UNKNOWN_SERVER_ERROR", "x"))).toBe(kafkaCodes.UNKNOWN_SERVER_ERROR);
    expect(() => kafkaCodeOf(new TypeError("bug"))).toThrow(TypeError);
  });
});
