import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { planProduce } from "../../../src/data-plane/produce-plan.ts";
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

/**
 * UTF-8 requests on CreateTime topics take their own path (planText: straight into the
 * batches); base64 requests take the general one. The same text sent as base64 of its UTF-8
 * bytes must give byte-identical batches, the same offsets' bookkeeping and the same errors.
 */
describe("planProduce's text path equals its general path", () => {
  const threePartitions = {
    ...topic,
    partitions: [0, 1, 2].map((partition) => ({ ...topic.partitions[0]!, partition })),
  } as TopicMetadata;
  const toBase64 = (text: string | null | undefined) => (text == null ? text : Buffer.from(utf8.encode(text)).toString("base64"));
  const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("\uD800", "é", "x".repeat(300)));
  const record = fc.record(
    {
      key: fc.option(text, { nil: null }),
      value: fc.option(text, { nil: null }),
      headers: fc.array(fc.tuple(text, text), { maxLength: 3 }),
      partition: fc.integer({ min: 0, max: 2 }),
      timestamp: fc.oneof(fc.constant(1_700_000_000_000), fc.integer({ min: 0, max: 2 ** 42 })),
    },
    { requiredKeys: ["value"] },
  );
  /** Batches as base64 text: deep equality over MiBs of typed arrays is slow. */
  const comparable = (writes: ReturnType<typeof planProduce>) =>
    writes.map((write) => ({ ...write, batches: write.batches.map((batch) => Buffer.from(batch).toString("base64")) }));
  const outcome = (run: () => ReturnType<typeof planProduce>) => {
    try {
      return { answer: comparable(run()) };
    } catch (error) {
      return { error: { code: (error as { code?: string }).code, message: (error as Error).message } };
    }
  };

  it("writes the same batches and answers the same errors, idempotent or not", () => {
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(topic, threePartitions, { ...topic, configs: { "max.message.bytes": "200", "cleanup.policy": "compact" } } as TopicMetadata),
        fc.boolean(),
        (records, target, idempotent) => {
          // Keyless records without a partition go to a random one on a topic of several: place them.
          const placed = records.map((r) => (target === threePartitions && r.key == null && r.partition === undefined ? { ...r, partition: 0 } : r));
          const partitions = [...new Set(placed.map((r) => r.partition ?? 0))];
          const idempotence = idempotent && placed.every((r) => r.partition !== undefined)
            ? { producerId: 7, producerEpoch: 1, sequences: new Map(partitions.map((p) => [p, 0x7fffffff - 1])) }
            : undefined;
          const nowMs = 1_700_000_000_000;
          const asText = outcome(() => planProduce(placed, "utf8", target, nowMs, idempotence));
          const asBase64 = outcome(() =>
            planProduce(placed.map((r) => ({ ...r, key: toBase64(r.key), value: toBase64(r.value) })), "base64", target, nowMs, idempotence),
          );
          expect(asText).toEqual(asBase64);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("cuts large requests into the same batches, with the same sequences", () => {
    const records = Array.from({ length: 3_000 }, (_, i) => ({ key: `k${i}`, value: "v".repeat(i % 7 === 0 ? 5_000 : 300), partition: i % 2 }));
    const twoPartitions = { ...threePartitions, partitions: threePartitions.partitions.slice(0, 2) } as TopicMetadata;
    const idempotence = { producerId: 7, producerEpoch: 1, sequences: new Map([[0, 5], [1, 0x7fffffff - 600]]) };
    const asText = planProduce(records, "utf8", twoPartitions, 1_700_000_000_000, idempotence);
    const asBase64 = planProduce(records.map((r) => ({ ...r, key: toBase64(r.key), value: toBase64(r.value) })), "base64", twoPartitions, 1_700_000_000_000, idempotence);
    expect(asText.every((write) => write.batches.length > 1)).toBe(true);
    expect(comparable(asText)).toEqual(comparable(asBase64));
  });

  it("refuses a record with a timestamp before the epoch as the general path does", () => {
    const records = [{ value: "AAAA" }, { value: "AAAA", timestamp: -1 }]; // text, and valid base64
    expect(outcome(() => planProduce(records, "utf8", topic, Date.now()))).toEqual(outcome(() => planProduce(records, "base64", topic, Date.now())));
    expect(outcome(() => planProduce(records, "utf8", topic, Date.now())).error?.message).toMatch(/^record 1: /);
  });
});
