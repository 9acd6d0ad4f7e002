import { createRequire } from "node:module";
import fc from "fast-check";
import { Partitioners } from "kafkajs";
import type { PartitionMetadata } from "kafkajs";
import { describe, expect, it, test } from "vitest";
import { partitionsPerTopicMax } from "../../../src/limits.ts";
import { murmur2, partitionForKey, stickyPartition } from "../../../src/protocol/partitioner.ts";

const utf8 = new TextEncoder();
const bytesOf = (text: string): Uint8Array => utf8.encode(text);

// ---- Reference data -------------------------------------------------------------------
// Every key below is ASCII, so its UTF-8 bytes equal Java's `String.getBytes()`.

/**
 * Kafka's own vectors: apache/kafka
 * clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java, `testMurmur2`
 * (read at commit 1eb7644349cb07139d6a3c1ad1986979647cac99). Tail lengths 0, 2 and 3.
 */
const kafkaUtilsTestVectors = [
  { key: "21", hash: -973932308 },
  { key: "foobar", hash: -790332482 },
  { key: "a-little-bit-long-string", hash: -985981536 },
  { key: "a-little-bit-longer-string", hash: -1486304829 },
  { key: "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", hash: -58897971 },
  { key: "abc", hash: 479470107 },
];

/**
 * Values other clients record as the Java client's output, filling the gaps above: the empty
 * key and 1-byte tails ("4", "kafka", "1", "12345").
 * - confluentinc/librdkafka src/rdmurmur2.c, `unittest_murmur2` → `java_murmur2_results`
 *   (written there as unsigned hex; here as the signed int Java returns).
 * - akka/akka akka-cluster-sharding-typed/src/test/scala/akka/cluster/sharding/typed/internal/
 *   Murmur2Spec.scala ("expected correct hash values from the kafka murmur2 impl").
 * Not used: kafkajs's old src/producer/partitioners/default/murmur2.spec.js table ("1" →
 * 1311020360, …) — those are its legacy, non-Java hash, which kafkajs 2 renamed LegacyPartitioner.
 */
const javaClientVectors = [
  { key: "", hash: 275646681 }, // 0x106e08d9
  { key: "kafka", hash: -798503068 }, // 0xd067cf64
  { key: "giberish123456789", hash: -1890243828 }, // 0x8f552b0c
  { key: "1234", hash: -1614185708 }, // 0x9fc97b14
  { key: "234", hash: -406844982 }, // 0xe7c009ca
  { key: "34", hash: -2026295078 }, // 0x873930da
  { key: "4", hash: 1514888353 }, // 0x5a4b5ca1
  { key: "PreAmbleWillBeRemoved,ThePrePartThatIs", hash: 2017611548 }, // 0x78424f1c
  { key: "reAmbleWillBeRemoved,ThePrePartThatIs", hash: 1247982455 }, // 0x4a62b377
  { key: "eAmbleWillBeRemoved,ThePrePartThatIs", hash: -521871202 }, // 0xe0e4e09e
  { key: "AmbleWillBeRemoved,ThePrePartThatIs", hash: 1656271935 }, // 0x62b8b43f
  { key: "1", hash: -1993445489 },
  { key: "12", hash: 126087238 },
  { key: "123", hash: -267702483 },
  { key: "12345", hash: -1188365604 },
];

/**
 * Key → partition over 1000 partitions, "compare with output from Kafka's
 * org.apache.kafka.clients.producer.Partitioner": dpkp/kafka-python
 * test/producer/test_partitioner.py, `test_murmur2_java_compatibility`.
 */
const kafkaPythonJavaPartitions = [
  { keyBytes: [], partitionCount: 1000, partition: 681 },
  { keyBytes: [0x61], partitionCount: 1000, partition: 524 },
  { keyBytes: [0x61, 0x62], partitionCount: 1000, partition: 434 },
  { keyBytes: [0x61, 0x62, 0x63], partitionCount: 1000, partition: 107 },
  { keyBytes: [...bytesOf("123456789")], partitionCount: 1000, partition: 566 },
  { keyBytes: [0x00, 0x20], partitionCount: 1000, partition: 742 },
];

/**
 * Kafka's own tests (DefaultPartitionerTest, BuiltInPartitionerTest, KafkaProducerTest) only
 * check that a key's partition is stable, never a concrete number. So these are derived by hand
 * from the UtilsTest hashes above as `(hash & 0x7fffffff) % n` — the formula of
 * BuiltInPartitioner.partitionForKey — not computed with the code under test. Four of the six
 * hashes are negative, where Math.abs would give different partitions (e.g. "21" over 7: 3, not 0).
 */
const partitionCounts = [2, 3, 6, 7, 12, 16, 100, 256] as const;
const derivedJavaPartitions: { key: string; partitions: readonly number[] }[] = [
  { key: "21", partitions: [0, 0, 0, 3, 0, 12, 40, 236] },
  { key: "foobar", partitions: [0, 0, 0, 0, 6, 14, 66, 190] },
  { key: "a-little-bit-long-string", partitions: [0, 2, 2, 1, 8, 0, 12, 160] },
  { key: "a-little-bit-longer-string", partitions: [1, 2, 5, 0, 11, 3, 19, 195] },
  { key: "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", partitions: [1, 2, 5, 3, 5, 13, 77, 205] },
  { key: "abc", partitions: [1, 0, 3, 4, 3, 11, 7, 27] },
];

// ---- kafkajs, the independent implementation to cross-check against ------------------

// kafkajs 2's Java-compatible hash is not part of its typed API; its file is plain CommonJS.
const kafkajsMurmur2 = createRequire(import.meta.url)(
  "kafkajs/src/producer/partitioners/default/murmur2.js",
) as (key: Buffer) => number;

function kafkajsPartitionForKey(keyBytes: Uint8Array, partitionCount: number): number {
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: partitionCount }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
  }));
  const partitioner = Partitioners.DefaultPartitioner();
  return partitioner({ topic: "t", partitionMetadata, message: { key: Buffer.from(keyBytes), value: null } });
}

const keyBytesArbitrary = fc.uint8Array({ maxLength: 96 });
const crossCheckRuns = { numRuns: 1_000 };

// ---- murmur2 --------------------------------------------------------------------------

describe("murmur2", () => {
  test.each(kafkaUtilsTestVectors)("matches Kafka UtilsTest.testMurmur2 for $key", ({ key, hash }) => {
    expect(murmur2(bytesOf(key))).toBe(hash);
  });

  test.each(javaClientVectors)("matches the Java client's hash recorded by librdkafka/Akka for '$key'", ({ key, hash }) => {
    expect(murmur2(bytesOf(key))).toBe(hash);
  });

  it("hashes a view into a larger buffer by its own bytes (byteOffset not 0 or unaligned)", () => {
    const whole = bytesOf("xxPreAmbleWillBeRemoved,ThePrePartThatIs");
    for (let offset = 0; offset <= 5; offset++) {
      const view = whole.subarray(offset, whole.length - 1);
      expect(murmur2(view)).toBe(murmur2(view.slice()));
    }
    expect(murmur2(whole.subarray(2))).toBe(2017611548); // librdkafka's "unaligned" vector
  });

  it("returns a signed 32-bit integer", () => {
    fc.assert(
      fc.property(keyBytesArbitrary, (keyBytes) => {
        const hash = murmur2(keyBytes);
        expect(hash).toBe(hash | 0);
      }),
    );
  });
});

// ---- partitionForKey ------------------------------------------------------------------

describe("partitionForKey", () => {
  test.each(kafkaPythonJavaPartitions)(
    "puts key bytes $keyBytes on Java's partition $partition of $partitionCount",
    ({ keyBytes, partitionCount, partition }) => {
      expect(partitionForKey(new Uint8Array(keyBytes), partitionCount)).toBe(partition);
    },
  );

  test.each(derivedJavaPartitions)("puts $key where toPositive(UtilsTest hash) % n does", ({ key, partitions }) => {
    const actual = partitionCounts.map((partitionCount) => partitionForKey(bytesOf(key), partitionCount));
    expect(actual).toEqual(partitions);
  });

  it("is always 0 with one partition", () => {
    fc.assert(fc.property(keyBytesArbitrary, (keyBytes) => partitionForKey(keyBytes, 1) === 0));
  });

  it("is an integer in [0, partitionCount)", () => {
    fc.assert(
      fc.property(keyBytesArbitrary, fc.integer({ min: 1, max: partitionsPerTopicMax }), (keyBytes, partitionCount) => {
        const partition = partitionForKey(keyBytes, partitionCount);
        return Number.isInteger(partition) && partition >= 0 && partition < partitionCount;
      }),
    );
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses partitionCount %s", (partitionCount) => {
    expect(() => partitionForKey(bytesOf("k"), partitionCount)).toThrow(RangeError);
  });
});

// ---- Cross-check with kafkajs ---------------------------------------------------------

describe("agrees with kafkajs's Java-compatible partitioner", () => {
  it("on the reference vectors (so the kafkajs oracle itself is Java's hash)", () => {
    for (const { key, hash } of [...kafkaUtilsTestVectors, ...javaClientVectors]) {
      expect(kafkajsMurmur2(Buffer.from(bytesOf(key)))).toBe(hash);
    }
  });

  it("on random byte arrays", () => {
    fc.assert(
      fc.property(keyBytesArbitrary, (keyBytes) => {
        expect(murmur2(keyBytes)).toBe(kafkajsMurmur2(Buffer.from(keyBytes)));
      }),
      crossCheckRuns,
    );
  });

  // Java reads bytes as signed and masks them with & 0xff; a port that drops the mask (or
  // sign-extends) goes wrong only on bytes >= 0x80, so cover them at every tail length.
  it("on keys made of high bytes (0x80-0xff), for every length 1-12", () => {
    for (const fill of [0x80, 0xa4, 0xff]) {
      for (let length = 1; length <= 12; length++) {
        const keyBytes = new Uint8Array(length).fill(fill);
        expect(murmur2(keyBytes)).toBe(kafkajsMurmur2(Buffer.from(keyBytes)));
      }
    }
  });

  it("on strings with multi-byte UTF-8 (any code point, and composite graphemes)", () => {
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 20 }));
    fc.assert(
      fc.property(text, (key) => {
        // kafkajs encodes a string key as UTF-8 itself, as a Java producer's StringSerializer does.
        expect(murmur2(bytesOf(key))).toBe(kafkajsMurmur2(key as unknown as Buffer));
      }),
      crossCheckRuns,
    );
  });

  it("on the partition chosen for random keys and partition counts", () => {
    fc.assert(
      fc.property(keyBytesArbitrary, fc.integer({ min: 1, max: 1_000 }), (keyBytes, partitionCount) => {
        expect(partitionForKey(keyBytes, partitionCount)).toBe(kafkajsPartitionForKey(keyBytes, partitionCount));
      }),
      { numRuns: 300 },
    );
  });
});

// ---- stickyPartition ------------------------------------------------------------------

describe("stickyPartition", () => {
  const unitInterval = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

  it("stays within [0, partitionCount) for any draw in [0, 1)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), unitInterval, (partitionCount, draw) => {
        const partition = stickyPartition(partitionCount, () => draw);
        return Number.isInteger(partition) && partition >= 0 && partition < partitionCount;
      }),
    );
  });

  it("maps the ends of [0, 1) to the first and last partition", () => {
    const largestDrawBelowOne = 1 - 2 ** -53;
    for (const partitionCount of [1, 2, 3, 7, partitionsPerTopicMax, 2 ** 31 - 1]) {
      expect(stickyPartition(partitionCount, () => 0)).toBe(0);
      expect(stickyPartition(partitionCount, () => largestDrawBelowOne)).toBe(partitionCount - 1);
    }
  });

  it("gives every partition an equal share of the draws", () => {
    const partitionCount = 6;
    const chosen = Array.from({ length: partitionCount }, (_, slot) =>
      stickyPartition(partitionCount, () => (slot + 0.5) / partitionCount),
    );
    expect(chosen).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("spreads successive requests over all partitions with the default random source", () => {
    // 2,000 draws over 4 partitions: missing one has probability about 4 · 0.75^2000 (≈ 1e-249).
    const seen = new Set<number>();
    for (let request = 0; request < 2_000; request++) seen.add(stickyPartition(4));
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });

  it("is 0 with one partition", () => {
    expect(stickyPartition(1)).toBe(0);
  });

  it.each([1, 1.5, -0.1, Number.NaN])("refuses a random source that returns %s", (draw) => {
    expect(() => stickyPartition(4, () => draw)).toThrow(RangeError);
  });

  it.each([0, -3, 2.5, Number.NaN])("refuses partitionCount %s", (partitionCount) => {
    expect(() => stickyPartition(partitionCount, () => 0.5)).toThrow(RangeError);
  });
});
