import { describe, expect, it } from "vitest";
import { SeededRandom } from "../../sim/group-sim-random.ts";
import { StickyPartitioner, stickyPartitionBytesDefault } from "../../../src/client/sticky-partitioner.ts";

/** A seeded source in [0, 1): the same spread on every run. */
function seeded(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}

/** Consecutive records on one partition, with their bytes. */
function runsOf(choices: { partition: number; bytes: number }[]): { partition: number; bytes: number; records: number }[] {
  const runs: { partition: number; bytes: number; records: number }[] = [];
  for (const { partition, bytes } of choices) {
    const last = runs.at(-1);
    if (last?.partition === partition) {
      last.bytes += bytes;
      last.records += 1;
    } else runs.push({ partition, bytes, records: 1 });
  }
  return runs;
}

describe("StickyPartitioner", () => {
  it("spreads 100,000 short keyless records over every partition, ≈16 KiB at a time", () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const partitioner = new StickyPartitioner(stickyPartitionBytesDefault, seeded(seed));
      const choices = Array.from({ length: 100_000 }, (_, i) => {
        const bytes = 24 + `line ${i}`.length;
        return { partition: partitioner.next(3, bytes), bytes };
      });
      const runs = runsOf(choices);
      for (const run of runs.slice(0, -1)) {
        // Moves on after the record that reached 16 KiB: at least 16 KiB, less than one record more.
        expect(run.bytes).toBeGreaterThanOrEqual(16_384);
        expect(run.bytes).toBeLessThan(16_384 + 40);
      }
      const perPartition = [0, 1, 2].map((partition) => choices.filter((choice) => choice.partition === partition).length);
      // About 200 chunks, each on one of the two partitions the last one was not on.
      for (const count of perPartition) expect(count).toBeGreaterThan(100_000 * 0.2);
      expect(perPartition.reduce((a, b) => a + b)).toBe(100_000);
    }
  });

  it("never gives consecutive chunks the same partition, and keeps one partition for a single-partition topic", () => {
    const partitioner = new StickyPartitioner(100, seeded(7));
    const runs = runsOf(Array.from({ length: 10_000 }, () => ({ partition: partitioner.next(2, 10), bytes: 10 })));
    expect(runs.slice(0, -1).every((run) => run.records === 10)).toBe(true);
    const single = new StickyPartitioner(100, seeded(7));
    expect(new Set(Array.from({ length: 1_000 }, () => single.next(1, 10)))).toEqual(new Set([0]));
  });

  it("chooses again when the topic has fewer partitions than the one it stuck to", () => {
    const partitioner = new StickyPartitioner(1_000_000, () => 0.99);
    expect(partitioner.next(8, 10)).toBe(7);
    expect(partitioner.next(4, 10)).toBe(3);
  });

  it("refuses a switch size that is not a positive integer", () => {
    expect(() => new StickyPartitioner(0)).toThrow(RangeError);
    expect(() => new StickyPartitioner(1.5)).toThrow(RangeError);
  });
});
