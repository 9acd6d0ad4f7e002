import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { planOffsetDeletion, type OffsetDeletionGroup } from "../../../src/group/offset-deletion.ts";

const topics = new Map([
  ["orders", 3],
  ["payments", 2],
]);
const partitionsOf = (topic: string) => topics.get(topic);
const empty: OffsetDeletionGroup = { exists: true, empty: true, classicProtocolType: null, subscribedTopics: [] };
const active: OffsetDeletionGroup = { exists: true, empty: false, classicProtocolType: null, subscribedTopics: ["orders"] };

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return error.code;
    throw error;
  }
  return undefined;
}

describe("Kafka's OffsetDelete rule", () => {
  it("deletes every named partition of an empty group, answering each without an error, in request order", () => {
    const plan = planOffsetDeletion(empty, "g", [{ topic: "payments", partition: 1 }, { topic: "orders", partition: 0 }], partitionsOf);
    expect(plan.deletes).toEqual([{ topic: "payments", partition: 1 }, { topic: "orders", partition: 0 }]);
    expect(plan.partitions).toEqual([
      { topic: "payments", partition: 1, error: null },
      { topic: "orders", partition: 0, error: null },
    ]);
  });

  it("refuses each partition of a topic the members subscribe to with GROUP_SUBSCRIBED_TO_TOPIC, and deletes the others", () => {
    const plan = planOffsetDeletion(active, "g", [{ topic: "orders", partition: 0 }, { topic: "payments", partition: 0 }, { topic: "orders", partition: 2 }], partitionsOf);
    expect(plan.deletes).toEqual([{ topic: "payments", partition: 0 }]);
    expect(plan.partitions.map(({ partition, error }) => [partition, error?.code ?? null])).toEqual([
      [0, "GROUP_SUBSCRIBED_TO_TOPIC"],
      [0, null],
      [2, "GROUP_SUBSCRIBED_TO_TOPIC"],
    ]);
  });

  it("takes an empty group as subscribed to nothing (its last subscriptions do not hold its offsets)", () => {
    const plan = planOffsetDeletion({ ...empty, subscribedTopics: ["orders"] }, "g", [{ topic: "orders", partition: 1 }], partitionsOf);
    expect(plan.deletes).toEqual([{ topic: "orders", partition: 1 }]);
  });

  it("answers UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist or a partition it lacks, before the subscription", () => {
    const plan = planOffsetDeletion(active, "g", [{ topic: "gone", partition: 0 }, { topic: "orders", partition: 3 }], partitionsOf);
    expect(plan.deletes).toEqual([]);
    expect(plan.partitions.map(({ error }) => error?.code)).toEqual(["UNKNOWN_TOPIC_OR_PARTITION", "UNKNOWN_TOPIC_OR_PARTITION"]);
  });

  it("is GROUP_ID_NOT_FOUND for a group that does not exist", () => {
    expect(codeOf(() => planOffsetDeletion({ ...empty, exists: false }, "g", [{ topic: "orders", partition: 0 }], partitionsOf))).toBe("GROUP_ID_NOT_FOUND");
  });

  it("is NON_EMPTY_GROUP for a classic group with members that are not Kafka consumers (Kafka cannot tell what they read)", () => {
    const connect = { ...active, classicProtocolType: "connect", subscribedTopics: [] };
    expect(codeOf(() => planOffsetDeletion(connect, "g", [{ topic: "payments", partition: 0 }], partitionsOf))).toBe("NON_EMPTY_GROUP");
    // Without members it is an empty group as any other.
    expect(planOffsetDeletion({ ...connect, empty: true }, "g", [{ topic: "payments", partition: 0 }], partitionsOf).deletes).toHaveLength(1);
    // Classic Kafka consumers are judged by their subscriptions.
    const consumers = { ...active, classicProtocolType: "consumer" };
    expect(planOffsetDeletion(consumers, "g", [{ topic: "payments", partition: 0 }], partitionsOf).deletes).toHaveLength(1);
  });
});
