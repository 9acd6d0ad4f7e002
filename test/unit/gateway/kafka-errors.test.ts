/** The one mapping from Tributary's errors to Kafka's codes (src/gateway/kafka-errors.ts). */
import { describe, expect, it } from "vitest";
import { errorTable, TributaryError, type ErrorCode } from "../../../src/errors.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../../../src/gateway/kafka-errors.ts";

describe("Tributary errors as Kafka codes", () => {
  it.each([
    ["UNKNOWN_TOPIC_OR_PARTITION", 3],
    ["NOT_LEADER_OR_FOLLOWER", 6],
    ["LEADER_NOT_AVAILABLE", 5],
    ["OFFSET_OUT_OF_RANGE", 1],
    ["TOPIC_AUTHORIZATION_FAILED", 29],
    ["UNAUTHENTICATED", 58],
    ["TOPIC_ALREADY_EXISTS", 36],
    ["DUPLICATE_SEQUENCE_NUMBER", 46],
    ["INVALID_RECORD", 87],
    ["CORRUPT_MESSAGE", 2], // compressed bytes that cannot be read (issue 27)
    ["STREAM_CLOSED", 87], // a Produce to a closed Durable Stream: refused for good, per batch
    ["THROTTLING_QUOTA_EXCEEDED", 7],
    ["BROKER_BUSY", 7],
  ] as [ErrorCode, number][])("%s → %i", (code, kafka) => {
    expect(kafkaErrorCode(new TributaryError(code, "x"))).toBe(kafka);
  });

  it("every code of the error table has a Kafka code, and a retriable one maps to a code Kafka's clients retry", () => {
    const retriableKafka = new Set<number>([kafkaErrors.LEADER_NOT_AVAILABLE, kafkaErrors.NOT_LEADER_OR_FOLLOWER, kafkaErrors.REQUEST_TIMED_OUT, kafkaErrors.NETWORK_EXCEPTION, kafkaErrors.NOT_ENOUGH_REPLICAS,
      // Retriable in Kafka's own Errors too (issue 28): the previous transaction's markers still being written; a transaction's pending offsets.
      kafkaErrors.CONCURRENT_TRANSACTIONS, kafkaErrors.UNSTABLE_OFFSET_COMMIT]);
    for (const [code, { retriable }] of Object.entries(errorTable) as [ErrorCode, { retriable: boolean }][]) {
      const kafka = kafkaErrorCode(new TributaryError(code, "x"));
      expect(Object.values(kafkaErrors), code).toContain(kafka);
      if (retriable) expect(retriableKafka.has(kafka), code).toBe(true);
    }
  });

  it("anything else is UNKNOWN_SERVER_ERROR; a quota refusal's wait is the throttle time", () => {
    expect(kafkaErrorCode(new Error("boom"))).toBe(-1);
    expect(throttleTimeMs(new TributaryError("THROTTLING_QUOTA_EXCEEDED", "slow down", { retryAfterMs: 1234.2 }))).toBe(1235);
    expect(throttleTimeMs(new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", "x"))).toBe(0);
  });
});
