import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { planProduce } from "../../../src/router/produce-plan.ts";
import type { TopicMetadata } from "../../../src/topics/topic-metadata.ts";

const topic: TopicMetadata = {
  name: "t",
  topicId: "00000000-0000-4000-8000-000000000000",
  replicationFactor: 1,
  configs: {},
  partitions: [{ partition: 0, leader: "wnam", replicas: ["wnam"], isr: ["wnam"], leaderEpoch: 0, partitionEpoch: 0 }],
} as TopicMetadata;

const utf8 = new TextEncoder();

describe("planProduce's UTF-8 payloads", () => {
  it("encodes every key and value as TextEncoder does, ASCII requests or not (lone surrogates, pairs across records)", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), fc.constantFrom("\uD800", "\uDC00", "é"));
    const record = fc.record({ key: fc.option(text, { nil: null }), value: fc.option(text, { nil: null }) });
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), (records) => {
        const writes = planProduce(records.map((r) => ({ ...r, partition: 0 })), "utf8", topic, Date.now());
        const decoded = writes.flatMap((write) => write.batches.flatMap((batch) => decodeRecordBatch(batch).records));
        expect(decoded.map((r) => [r.key, r.value])).toEqual(
          records.map((r) => [r.key === null ? null : utf8.encode(r.key), r.value === null ? null : utf8.encode(r.value)]),
        );
      }),
    );
  });
});

describe("planProduce's keyless records (API.md: sticky per request)", () => {
  const threePartitions = {
    ...topic,
    partitions: [0, 1, 2].map((partition) => ({ ...topic.partitions[0]!, partition })),
  } as TopicMetadata;

  it("puts every keyless record of one request on one partition, and spreads requests over all of them", () => {
    const records = Array.from({ length: 20_000 }, (_, i) => ({ value: `line ${i}` }));
    const seen = new Set<number>();
    for (let request = 0; request < 60; request++) {
      const writes = planProduce(records, "utf8", threePartitions, Date.now());
      expect(writes).toHaveLength(1); // 20,000 records (≈200 KiB) on one partition: the contract, not a 16 KiB switch
      expect(writes[0]!.recordIndexes).toHaveLength(20_000);
      seen.add(writes[0]!.partition);
    }
    expect(seen).toEqual(new Set([0, 1, 2])); // 60 draws missing a partition: (2/3)^60 ≈ 3e-11
  });

  it("keeps keyed and placed records where their key and partition say, beside the keyless ones", () => {
    const writes = planProduce([{ value: "a" }, { key: "user-1", value: "b" }, { value: "c", partition: 1 }, { value: "d" }], "utf8", threePartitions, Date.now());
    const byRecord = new Map(writes.flatMap((write) => write.recordIndexes.map((index) => [index, write.partition] as const)));
    expect(byRecord.get(1)).toBe(2); // 'user-1' on partition 2 of 3, as Kafka's partitioner
    expect(byRecord.get(2)).toBe(1);
    expect(byRecord.get(0)).toBe(byRecord.get(3));
  });
});
