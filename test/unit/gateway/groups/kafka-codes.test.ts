/** The group handlers' Kafka codes for Tributary's errors, and the session timeouts they take. */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../../src/errors.ts";
import { kafkaCodeOf, kafkaCodes } from "../../../../src/gateway/groups/kafka-codes.ts";
import { sessionTimeoutAccepted } from "../../../../src/gateway/groups/membership.ts";

describe("kafkaCodeOf", () => {
  it("maps fencing to ILLEGAL_GENERATION, the classic protocol's refusals to Kafka's, retriable failures to COORDINATOR_NOT_AVAILABLE, and rethrows bugs", () => {
    const code = (error: TributaryError) => kafkaCodeOf(error);
    expect(code(new TributaryError("FENCED_MEMBER_EPOCH", "x"))).toBe(kafkaCodes.ILLEGAL_GENERATION);
    expect(code(new TributaryError("FENCED_INSTANCE_ID", "x"))).toBe(82);
    expect(code(new TributaryError("REBALANCE_IN_PROGRESS", "x"))).toBe(kafkaCodes.REBALANCE_IN_PROGRESS);
    expect(code(new TributaryError("INCONSISTENT_GROUP_PROTOCOL", "x"))).toBe(kafkaCodes.INCONSISTENT_GROUP_PROTOCOL);
    expect(code(new TributaryError("OFFSET_METADATA_TOO_LARGE", "x"))).toBe(12);
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

describe("sessionTimeoutAccepted", () => {
  it("accepts the coordinator's session timeouts only (kafkajs 30 s, librdkafka 45 s)", () => {
    for (const ms of [6_000, 30_000, 45_000, 1_800_000]) expect(sessionTimeoutAccepted(ms)).toBe(true);
    for (const ms of [5_999, 1_800_001, -1, 1.5]) expect(sessionTimeoutAccepted(ms)).toBe(false);
  });
});
