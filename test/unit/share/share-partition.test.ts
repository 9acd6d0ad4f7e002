/** The share-partition state machine (src/share/share-partition.ts): pure, time passed in. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { shareDeadLetterClaimMs, shareInFlightRecordsMax } from "../../../src/limits.ts";
import { SharePartition, type SharePartitionConfig } from "../../../src/share/share-partition.ts";

const config: SharePartitionConfig = { lockDurationMs: 1_000, deliveryCountLimit: 3, deadLetter: false };
const withDeadLetters: SharePartitionConfig = { ...config, deadLetter: true };

function acquire(partition: SharePartition, lease: string, maxRecords: number, nowMs: number, highWatermark = 100, chosen = config) {
  return partition.acquire({ lease, maxRecords, nowMs, highWatermark }, chosen).map(({ offset }) => offset);
}

function refusal(body: () => void): TributaryError {
  try {
    body();
  } catch (error) {
    if (error instanceof TributaryError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

/** Its persisted form, through JSON as the object stores it. */
const restarted = (partition: SharePartition) => SharePartition.fromPersisted(JSON.parse(JSON.stringify(partition.toPersisted())));

describe("SharePartition", () => {
  it("acquires new records from its end, below the high watermark, each for one lease", () => {
    const partition = SharePartition.startingAt(10, 15);
    expect(acquire(partition, "a", 3, 0, 15)).toEqual([10, 11, 12]);
    expect(acquire(partition, "b", 5, 0, 15)).toEqual([13, 14]);
    expect(acquire(partition, "c", 5, 0, 15)).toEqual([]);
    expect(partition.recordAt(10)).toMatchObject({ state: "acquired", lease: "a", deliveryCount: 1, untilMs: 1_000 });
    expect(partition.summary()).toEqual({ startOffset: 10, endOffset: 15, highWatermark: 15, available: 0, acquired: 5, done: 0, archived: 0 });
  });

  it("moves its start past accepted records and redelivers released ones first, counted", () => {
    const partition = SharePartition.startingAt(0, 10);
    acquire(partition, "a", 4, 0);
    partition.acknowledge([{ lease: "a", offsets: [0, 1], type: "accept" }, { lease: "a", offsets: [3], type: "release" }], 10, config);
    expect(partition.startOffset).toBe(2);
    expect(partition.acquire({ lease: "b", maxRecords: 2, nowMs: 20, highWatermark: 10 }, config)).toEqual([
      { offset: 3, deliveryCount: 2 },
      { offset: 4, deliveryCount: 1 },
    ]);
  });

  it("releases expired locks, and archives a record whose delivery count reached the limit", () => {
    const partition = SharePartition.startingAt(0, 1);
    for (let delivery = 1; delivery <= config.deliveryCountLimit; delivery++) {
      expect(acquire(partition, `l${delivery}`, 1, delivery * 10_000, 1)).toEqual([0]);
    }
    expect(acquire(partition, "late", 1, 100_000, 1)).toEqual([]);
    expect(partition.summary()).toMatchObject({ startOffset: 1, archived: 1, acquired: 0 });
  });

  it("never frees a lock early: a lock holds until its expiry, also across a restart", () => {
    const partition = SharePartition.startingAt(0, 1);
    acquire(partition, "a", 1, 0, 1);
    const again = restarted(partition);
    expect(acquire(again, "b", 1, 999, 1)).toEqual([]);
    expect(again.hasAcquired(999)).toBe(true);
    expect(acquire(again, "b", 1, 1_000, 1)).toEqual([0]);
  });

  it("refuses, changing nothing, an acknowledgement by an unknown or expired lease, for records not held, or named twice", () => {
    const partition = SharePartition.startingAt(0, 10);
    acquire(partition, "a", 2, 0);
    acquire(partition, "b", 1, 0);
    const before = JSON.stringify(partition.toPersisted());
    const cases = [
      () => partition.acknowledge([{ lease: "nope", offsets: [0], type: "accept" }], 10, config),
      () => partition.acknowledge([{ lease: "a", offsets: [0, 2], type: "accept" }], 10, config), // 2 is b's
      () => partition.acknowledge([{ lease: "a", offsets: [0, 5], type: "accept" }], 10, config), // 5 never acquired
      () => partition.acknowledge([{ lease: "a", offsets: [0], type: "accept" }, { lease: "a", offsets: [0], type: "reject" }], 10, config),
      () => partition.acknowledge([{ lease: "a", offsets: [0], type: "accept" }], 1_000, config), // expired at 1,000
      () => partition.acknowledge([{ lease: "a", offsets: [99_999], type: "accept" }], 10, config),
    ];
    for (const attempt of cases) {
      expect(refusal(attempt).code).toBe("INVALID_RECORD_STATE");
      expect(JSON.stringify(partition.toPersisted())).toBe(before);
    }
  });

  it("archives a rejected record at once, through dead-lettering when a dead-letter topic is set", () => {
    const plain = SharePartition.startingAt(0, 2);
    acquire(plain, "a", 2, 0, 2);
    plain.acknowledge([{ lease: "a", offsets: [0], type: "reject" }], 1, config);
    expect(plain.summary()).toMatchObject({ startOffset: 1, archived: 1 });

    const partition = SharePartition.startingAt(0, 2);
    acquire(partition, "a", 2, 0, 2, withDeadLetters);
    partition.acknowledge([{ lease: "a", offsets: [0], type: "reject" }, { lease: "a", offsets: [1], type: "accept" }], 1, withDeadLetters);
    expect(partition.startOffset).toBe(0); // not archived before its dead-letter write
    expect(partition.claimDeadLetters(2, 10, withDeadLetters)).toEqual([{ offset: 0, deliveryCount: 1, reason: "rejected" }]);
    expect(partition.claimDeadLetters(3, 10, withDeadLetters)).toEqual([]); // claimed
    expect(partition.claimDeadLetters(2 + shareDeadLetterClaimMs, 10, withDeadLetters)).toHaveLength(1); // the claim lapsed: handed out again
    partition.completeDeadLetters([0]);
    expect(partition.summary()).toMatchObject({ startOffset: 2, archived: 1 });
    partition.completeDeadLetters([0]); // a repeated confirmation changes nothing
    expect(partition.summary()).toMatchObject({ startOffset: 2, archived: 1 });
  });

  it("dead-letters a record past the delivery limit with its reason and count", () => {
    const partition = SharePartition.startingAt(0, 1);
    for (let delivery = 1; delivery <= 3; delivery++) {
      acquire(partition, `l${delivery}`, 1, delivery * 10_000, 1, withDeadLetters);
      partition.acknowledge([{ lease: `l${delivery}`, offsets: [0], type: "release" }], delivery * 10_000 + 1, withDeadLetters);
    }
    expect(partition.claimDeadLetters(50_000, 10, withDeadLetters)).toEqual([{ offset: 0, deliveryCount: 3, reason: "delivery-limit" }]);
  });

  it("never spans more than its in-flight window", () => {
    const partition = SharePartition.startingAt(0, 0);
    const taken = acquire(partition, "a", shareInFlightRecordsMax + 10, 0, shareInFlightRecordsMax * 2);
    expect(taken).toHaveLength(shareInFlightRecordsMax);
    expect(acquire(partition, "b", 10, 1, shareInFlightRecordsMax * 2)).toEqual([]);
    partition.acknowledge([{ lease: "a", offsets: [0, 1], type: "accept" }], 2, config);
    expect(acquire(partition, "b", 10, 3, shareInFlightRecordsMax * 2)).toEqual([shareInFlightRecordsMax, shareInFlightRecordsMax + 1]);
  });

  it("gives back undelivered records uncounted, and skips records the log no longer has", () => {
    const partition = SharePartition.startingAt(0, 4);
    acquire(partition, "a", 4, 0, 4);
    partition.unacquire("a", [2, 3]);
    partition.skipMissing("a", [0]);
    partition.unacquire("other", [1]); // not its records: nothing
    expect(partition.recordAt(2)).toMatchObject({ state: "available", deliveryCount: 0 });
    expect(partition.summary()).toMatchObject({ startOffset: 1, acquired: 1, available: 2, archived: 0 });
  });

  it("jumps past offsets below the log start", () => {
    const partition = SharePartition.startingAt(0, 10);
    expect(partition.acquire({ lease: "a", maxRecords: 2, nowMs: 0, highWatermark: 10, logStartOffset: 7 }, config).map(({ offset }) => offset)).toEqual([7, 8]);
  });

  it("resets to an offset with nothing in flight", () => {
    const partition = SharePartition.startingAt(0, 10);
    acquire(partition, "a", 3, 0, 10);
    partition.acknowledge([{ lease: "a", offsets: [0, 1, 2], type: "release" }], 1, config);
    partition.resetTo(8, 10);
    expect(partition.summary()).toEqual({ startOffset: 8, endOffset: 8, highWatermark: 10, available: 2, acquired: 0, done: 0, archived: 0 });
  });

  it("describes 8 of 20 records accepted as start 8, end 8, high watermark 20 and 12 available", () => {
    const partition = SharePartition.startingAt(0, 20);
    const offsets = acquire(partition, "a", 8, 0, 20);
    partition.acknowledge([{ lease: "a", offsets, type: "accept" }], 1, config);
    expect(partition.summary()).toEqual({ startOffset: 8, endOffset: 8, highWatermark: 20, available: 12, acquired: 0, done: 0, archived: 0 });
  });

  it("counts every record from its start to the high watermark once: available + acquired + done (docs/cli.md, share-groups describe)", () => {
    type Step =
      | { kind: "acquire"; lease: number; max: number; grow: number; logStart: number }
      | { kind: "acknowledge"; lease: number; type: "accept" | "release" | "reject"; pick: number }
      | { kind: "time"; ms: number }
      | { kind: "unacquire" | "skip"; lease: number; pick: number }
      | { kind: "dead-letters"; confirm: boolean }
      | { kind: "reset"; at: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant("acquire" as const), lease: fc.nat(2), max: fc.integer({ min: 1, max: 6 }), grow: fc.nat(5), logStart: fc.nat(3) }),
      fc.record({ kind: fc.constant("acknowledge" as const), lease: fc.nat(2), type: fc.constantFrom("accept" as const, "release" as const, "reject" as const), pick: fc.nat(7) }),
      fc.record({ kind: fc.constant("time" as const), ms: fc.integer({ min: 1, max: 1_500 }) }),
      fc.record({ kind: fc.constantFrom("unacquire" as const, "skip" as const), lease: fc.nat(2), pick: fc.nat(7) }),
      fc.record({ kind: fc.constant("dead-letters" as const), confirm: fc.boolean() }),
      fc.record({ kind: fc.constant("reset" as const), at: fc.nat(30) }),
    );
    fc.assert(
      fc.property(fc.boolean(), fc.nat(10), fc.array(step, { maxLength: 60 }), (deadLetter, start, steps) => {
        const chosen = { ...config, deadLetter, inFlightRecordsMax: 8 };
        const partition = SharePartition.startingAt(start, start);
        const held = new Map<number, number[]>(); // lease → offsets it acquired
        let nowMs = 0;
        let highWatermark = start;
        for (const next of steps) {
          const lease = "lease" in next ? next.lease : 0;
          const mine = held.get(lease) ?? [];
          const picked = "pick" in next ? mine.filter((_, index) => (next.pick >> index) % 2 === 1) : [];
          if (next.kind === "acquire") {
            highWatermark += next.grow;
            const logStartOffset = Math.min(highWatermark, partition.startOffset + next.logStart);
            const offsets = partition.acquire({ lease: String(lease), maxRecords: next.max, nowMs, highWatermark, logStartOffset }, chosen).map(({ offset }) => offset);
            held.set(lease, [...mine, ...offsets]);
          } else if (next.kind === "acknowledge") {
            try {
              partition.acknowledge([{ lease: String(lease), offsets: picked, type: next.type }], nowMs, chosen);
            } catch (error) {
              if (!(error instanceof TributaryError)) throw error; // an expired or taken lock: refused, nothing changed
            }
          } else if (next.kind === "time") nowMs += next.ms;
          else if (next.kind === "unacquire") partition.unacquire(String(lease), picked);
          else if (next.kind === "skip") partition.skipMissing(String(lease), picked);
          else if (next.kind === "dead-letters") {
            const claimed = partition.claimDeadLetters(nowMs, 4, chosen);
            if (next.confirm) partition.completeDeadLetters(claimed.map(({ offset }) => offset));
          } else if (next.kind === "reset" && !partition.hasAcquired(nowMs)) partition.resetTo(Math.min(next.at, highWatermark), highWatermark);
          const view = partition.summary();
          expect(view.highWatermark - view.startOffset).toBe(view.available + view.acquired + view.done);
          expect(view.startOffset <= view.endOffset && view.endOffset <= view.highWatermark).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("stores its window as runs of equal records, not one entry per record", () => {
    const partition = SharePartition.startingAt(0, 1_000);
    acquire(partition, "a", 1_000, 0, 1_000);
    expect(partition.toPersisted().ranges).toHaveLength(1);
    partition.acknowledge([{ lease: "a", offsets: [500], type: "release" }], 1, config);
    expect(partition.toPersisted().ranges).toHaveLength(3);
    expect(restarted(partition).toPersisted()).toEqual(partition.toPersisted());
  });
});
