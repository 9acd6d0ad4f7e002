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
