/**
 * The idempotent producer's partition half, pure (src/log/producer-state.ts): every rule of
 * API.md's Produce section, sequence wrap-around, the window of remembered runs, epochs, and
 * the same rules through PartitionLog (leader, follower, truncation, bounds).
 */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { producerIdleMsMax, producerRunsRemembered, producersPerPartitionMax } from "../../../src/limits.ts";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { incrementSequence, sequenceDistance, sequenceModulus } from "../../../src/protocol/sequences.ts";
import {
  checkProducerAppend,
  producerAppendOf,
  recordProducerBatch,
  truncateProducerEntry,
  type ProducerAppend,
  type ProducerEntry,
} from "../../../src/log/producer-state.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";

const utf8 = new TextEncoder();
const lastSequence = sequenceModulus - 1;

function append(firstSequence: number, recordCount: number, producerEpoch = 0, producerId = 7): ProducerAppend {
  return { producerId, producerEpoch, firstSequence, recordCount };
}

/** The state after batches of `counts` records from sequence `from`, at offsets from `baseOffset`, each batch right after the other. */
function entryAfter(counts: number[], options: { from?: number; baseOffset?: number; gap?: number; epoch?: number } = {}): ProducerEntry {
  let entry: ProducerEntry | undefined;
  let sequence = options.from ?? 0;
  let offset = options.baseOffset ?? 0;
  for (const recordCount of counts) {
    entry = recordProducerBatch(entry, { producerId: 7, producerEpoch: options.epoch ?? 0, baseSequence: sequence, recordCount, baseOffset: offset }, 1_000);
    sequence = incrementSequence(sequence, recordCount);
    offset += recordCount + (options.gap ?? 0);
  }
  return entry!;
}

function refusal(run: () => unknown): TributaryError {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return error;
    throw error;
  }
  throw new Error("expected a TributaryError");
}

describe("sequence arithmetic", () => {
  it("wraps to 0 after 2^31 − 1, and measures distance forward through the wrap", () => {
    expect(incrementSequence(lastSequence, 1)).toBe(0);
    expect(incrementSequence(lastSequence - 1, 5)).toBe(3);
    expect(sequenceDistance(lastSequence, 0)).toBe(1);
    expect(sequenceDistance(lastSequence - 2, 3)).toBe(6);
    expect(sequenceDistance(5, 5)).toBe(0);
    expect(sequenceDistance(6, 5)).toBe(lastSequence);
  });
});

describe("producerAppendOf", () => {
  const header = (producerId: number, producerEpoch: number, baseSequence: number, recordCount: number) => ({ producerId, producerEpoch, baseSequence, recordCount });

  it("is undefined for batches without a producer id", () => {
    expect(producerAppendOf([header(-1, -1, -1, 3), header(-1, -1, -1, 2)])).toBeUndefined();
  });

  it("describes one producer's batches with consecutive sequences, through the wrap", () => {
    expect(producerAppendOf([header(4, 1, lastSequence - 1, 3), header(4, 1, 1, 2)])).toEqual({ producerId: 4, producerEpoch: 1, firstSequence: lastSequence - 1, recordCount: 5 });
  });

  it("refuses mixed producers, epochs, a missing epoch or sequence, and a gap between batches", () => {
    for (const headers of [
      [header(4, 0, 0, 1), header(-1, -1, -1, 1)],
      [header(4, 0, 0, 1), header(5, 0, 1, 1)],
      [header(4, 0, 0, 1), header(4, 1, 1, 1)],
      [header(4, -1, 0, 1)],
      [header(4, 0, -1, 1)],
      [header(4, 0, 0, 2), header(4, 0, 3, 1)],
      [header(-2, 0, 0, 1)],
    ]) {
      expect(refusal(() => producerAppendOf(headers)).code, JSON.stringify(headers)).toBe("INVALID_REQUEST");
    }
  });
});

describe("checkProducerAppend", () => {
  it("accepts an unknown producer at any sequence (its state may have expired), as Kafka does", () => {
    expect(checkProducerAppend(undefined, append(0, 3))).toEqual({ kind: "append" });
    expect(checkProducerAppend(undefined, append(12_345, 3))).toEqual({ kind: "append" });
  });

  it("accepts the next sequence", () => {
    expect(checkProducerAppend(entryAfter([3]), append(3, 2))).toEqual({ kind: "append" });
  });

  it("answers a retry of the last request with its original offsets", () => {
    const entry = entryAfter([3, 2], { baseOffset: 10, gap: 5 }); // seq 0-2 at 10-12, seq 3-4 at 18-19
    expect(checkProducerAppend(entry, append(3, 2))).toEqual({ kind: "duplicate", baseOffset: 18, lastOffset: 19 });
    expect(checkProducerAppend(entry, append(0, 3))).toEqual({ kind: "duplicate", baseOffset: 10, lastOffset: 12 });
  });

  it("remembers the last 5 runs: a retry of an older one is DUPLICATE_SEQUENCE_NUMBER with the expected sequence", () => {
    // Seven requests of 2 records, each separated from the next by another producer's records: seven runs.
    const entry = entryAfter([2, 2, 2, 2, 2, 2, 2], { gap: 1 });
    expect(entry.runs).toHaveLength(producerRunsRemembered);
    expect(checkProducerAppend(entry, append(4, 2))).toEqual({ kind: "duplicate", baseOffset: 6, lastOffset: 7 }); // the 5th-last request
    const error = refusal(() => checkProducerAppend(entry, append(2, 2))); // the 6th-last
    expect(error.code).toBe("DUPLICATE_SEQUENCE_NUMBER");
    expect(error.data).toMatchObject({ producerId: 7, producerEpoch: 0, expectedSequence: 14, lastSequence: 13, sequence: 2 });
  });

  it("merges contiguous batches into one run, so a long request of many batches is one remembered request", () => {
    const entry = entryAfter([3, 3, 3, 3, 3, 3, 3, 3]); // no other producer between: offsets follow sequences
    expect(entry.runs).toEqual([{ firstSequence: 0, lastSequence: 23, baseOffset: 0, lastOffset: 23 }]);
    expect(checkProducerAppend(entry, append(0, 24))).toEqual({ kind: "duplicate", baseOffset: 0, lastOffset: 23 });
    expect(checkProducerAppend(entry, append(9, 6))).toEqual({ kind: "duplicate", baseOffset: 9, lastOffset: 14 });
  });

  it("refuses a request only partly written before (mixed) as OUT_OF_ORDER_SEQUENCE_NUMBER: nothing is written twice, and the new part is not counted as written", () => {
    const entry = entryAfter([3]);
    const error = refusal(() => checkProducerAppend(entry, append(1, 4)));
    expect(error.code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(error.message).toContain("run past the last written (2)");
    expect(error.data).toMatchObject({ expectedSequence: 3 });
  });

  it("a first request arriving after a later one: the later is taken first (unknown producer), the first is OUT_OF_ORDER_SEQUENCE_NUMBER, never DUPLICATE_SEQUENCE_NUMBER", () => {
    // Two requests in flight: sequences 0-4 and 5-9. The second reaches the partition first.
    expect(checkProducerAppend(undefined, append(5, 5))).toEqual({ kind: "append" });
    const entry = recordProducerBatch(undefined, { producerId: 7, producerEpoch: 0, baseSequence: 5, recordCount: 5, baseOffset: 0 }, 1_000);
    expect(entry.firstSequence).toBe(5);
    const error = refusal(() => checkProducerAppend(entry, append(0, 5)));
    expect(error.code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(error.message).toContain("comes before 5, the first this partition holds of epoch 0");
    expect(error.data).toMatchObject({ producerId: 7, producerEpoch: 0, expectedSequence: 10, sequence: 0, firstSequence: 5 });
    // The same once the first request's sequences have left the remembered runs.
    const later = entryAfter([5, 2, 2, 2, 2, 2, 2], { from: 5, gap: 1 });
    expect(later.firstSequence).toBe(5);
    expect(refusal(() => checkProducerAppend(later, append(0, 5))).code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(refusal(() => checkProducerAppend(later, append(3, 4))).code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER"); // straddles the first
    expect(refusal(() => checkProducerAppend(later, append(5, 5))).code).toBe("DUPLICATE_SEQUENCE_NUMBER"); // written, not remembered
  });

  it("keeps the epoch's first sequence across appends and truncations, and starts it over with a new epoch", () => {
    const entry = entryAfter([3, 3], { from: 10, gap: 2 });
    expect(entry.firstSequence).toBe(10);
    expect(truncateProducerEntry(entry, 6)!.firstSequence).toBe(10);
    const next = recordProducerBatch(entry, { producerId: 7, producerEpoch: 1, baseSequence: 0, recordCount: 1, baseOffset: 9 }, 2_000);
    expect(next.firstSequence).toBe(0);
  });

  it("counts at most the last half of the sequence space as written once a producer wraps", () => {
    const half = sequenceModulus / 2;
    // Batches each apart from the next (another producer between): 1 record, five of a quarter
    // of half the space, five of 1 record; the five small ones are the runs remembered.
    const quarter = half / 4;
    const counts = [1, quarter, quarter, quarter, quarter, quarter, 1, 1, 1, 1, 1];
    let sequence = 0;
    const entry = counts.reduce<ProducerEntry | undefined>((state, recordCount, index) => {
      const next = recordProducerBatch(state, { producerId: 7, producerEpoch: 0, baseSequence: sequence, recordCount, baseOffset: sequence + index }, 1_000);
      sequence = incrementSequence(sequence, recordCount);
      return next;
    }, undefined)!;
    const last = entry.runs.at(-1)!.lastSequence;
    expect(last).toBe(5 * quarter + 5);
    expect(sequenceDistance(entry.firstSequence, last)).toBe(half - 1);
    expect(refusal(() => checkProducerAppend(entry, append(entry.firstSequence, 1))).code).toBe("DUPLICATE_SEQUENCE_NUMBER");
    expect(refusal(() => checkProducerAppend(entry, append(incrementSequence(entry.firstSequence, lastSequence), 1))).code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
  });

  it("refuses a gap as OUT_OF_ORDER_SEQUENCE_NUMBER with the expected sequence", () => {
    const error = refusal(() => checkProducerAppend(entryAfter([3]), append(5, 1)));
    expect(error.code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(error.status).toBe(409);
    expect(error.data).toMatchObject({ producerId: 7, expectedSequence: 3, sequence: 5 });
  });

  it("refuses an older epoch as INVALID_PRODUCER_EPOCH with the current epoch", () => {
    const error = refusal(() => checkProducerAppend(entryAfter([3], { epoch: 2 }), append(3, 1, 1)));
    expect(error.code).toBe("INVALID_PRODUCER_EPOCH");
    expect(error.data).toMatchObject({ producerId: 7, producerEpoch: 2 });
  });

  it("takes a newer epoch only from sequence 0, and starts the state over", () => {
    const entry = entryAfter([3, 2]);
    const error = refusal(() => checkProducerAppend(entry, append(5, 1, 1)));
    expect(error.code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(error.data).toMatchObject({ producerEpoch: 1, expectedSequence: 0 });
    expect(checkProducerAppend(entry, append(0, 1, 1))).toEqual({ kind: "append" });
    const next = recordProducerBatch(entry, { producerId: 7, producerEpoch: 1, baseSequence: 0, recordCount: 1, baseOffset: 5 }, 2_000);
    expect(next).toEqual({ producerId: 7, producerEpoch: 1, firstSequence: 0, runs: [{ firstSequence: 0, lastSequence: 0, baseOffset: 5, lastOffset: 5 }], lastActivityMs: 2_000 });
    expect(refusal(() => checkProducerAppend(next, append(3, 1, 0))).code).toBe("INVALID_PRODUCER_EPOCH");
  });

  it("continues through the wrap at 2^31 − 1: in sequence, duplicates and gaps", () => {
    const entry = entryAfter([2, 3], { from: lastSequence - 2 }); // seq 2^31−3 … 2^31−2, then 2^31−1, 0, 1
    expect(entry.runs).toEqual([{ firstSequence: lastSequence - 2, lastSequence: 1, baseOffset: 0, lastOffset: 4 }]);
    expect(checkProducerAppend(entry, append(2, 1))).toEqual({ kind: "append" });
    expect(checkProducerAppend(entry, append(lastSequence, 3))).toEqual({ kind: "duplicate", baseOffset: 2, lastOffset: 4 });
    expect(checkProducerAppend(entry, append(lastSequence - 2, 5))).toEqual({ kind: "duplicate", baseOffset: 0, lastOffset: 4 });
    expect(refusal(() => checkProducerAppend(entry, append(4, 1))).code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(refusal(() => checkProducerAppend(entry, append(lastSequence - 10, 2))).code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER"); // before the first taken
    expect(refusal(() => checkProducerAppend(entry, append(1, 2))).code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER"); // last written + a new one
    const wrapped = entryAfter([2, 3, 2, 2, 2, 2, 2], { from: lastSequence - 2, gap: 1 });
    expect(refusal(() => checkProducerAppend(wrapped, append(lastSequence, 1))).code).toBe("DUPLICATE_SEQUENCE_NUMBER"); // written before the wrap, no longer remembered
  });
});

describe("truncateProducerEntry", () => {
  it("cuts runs at the truncation point, and forgets a producer with nothing left", () => {
    const entry = entryAfter([3, 3], { gap: 2 }); // seq 0-2 at 0-2, seq 3-5 at 5-7
    expect(truncateProducerEntry(entry, 6)!.runs).toEqual([
      { firstSequence: 0, lastSequence: 2, baseOffset: 0, lastOffset: 2 },
      { firstSequence: 3, lastSequence: 3, baseOffset: 5, lastOffset: 5 },
    ]);
    expect(truncateProducerEntry(entry, 5)!.runs).toHaveLength(1);
    expect(truncateProducerEntry(entry, 0)).toBeUndefined();
  });

  it("cuts a run that wraps with the right last sequence", () => {
    const entry = entryAfter([4], { from: lastSequence - 1 });
    expect(truncateProducerEntry(entry, 3)!.runs).toEqual([{ firstSequence: lastSequence - 1, lastSequence: 0, baseOffset: 0, lastOffset: 2 }]);
  });
});

/** An idempotent producer's batch, as a client builds it. */
function producerBatch(values: string[], baseSequence: number, options: { producerId?: number; producerEpoch?: number; timestamp?: number } = {}): Uint8Array {
  const timestamp = options.timestamp ?? 1_000;
  return encodeRecordBatch(
    values.map((value, index) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: timestamp + index })),
    { producerId: options.producerId ?? 7, producerEpoch: options.producerEpoch ?? 0, baseSequence },
  );
}

describe("PartitionLog with idempotent producers", () => {
  it("answers a retry with the original offsets and writes nothing", () => {
    const log = new PartitionLog(new MemoryLogStore());
    expect(log.append([producerBatch(["a", "b"], 0)], 0, { nowMs: 5 })).toEqual({ baseOffset: 0, lastOffset: 1 });
    log.append([encodeRecordBatch([{ key: null, value: utf8.encode("other"), headers: [], timestamp: 1 }])], 0);
    expect(log.append([producerBatch(["a", "b"], 0)], 0, { nowMs: 6 })).toEqual({ baseOffset: 0, lastOffset: 1, duplicate: true });
    expect(log.logEndOffset).toBe(3);
    expect(log.append([producerBatch(["c"], 2)], 0, { nowMs: 7 })).toEqual({ baseOffset: 3, lastOffset: 3 });
    expect(log.recordTimestamps(0, 1)).toEqual([1_000, 1_001]);
    expect(log.producer(7)).toMatchObject({ producerEpoch: 0, lastActivityMs: 7 });
  });

  it("a later request taken first: the earlier one is refused OUT_OF_ORDER_SEQUENCE_NUMBER with nothing written, and the log holds only what was acknowledged", () => {
    const log = new PartitionLog(new MemoryLogStore());
    expect(log.append([producerBatch(["c", "d"], 2)], 0, { nowMs: 5 })).toEqual({ baseOffset: 0, lastOffset: 1 });
    const error = refusal(() => log.append([producerBatch(["a", "b"], 0)], 0, { nowMs: 6 }));
    expect(error.code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(log.logEndOffset).toBe(2);
  });

  it("refuses a gap with nothing written, and keeps the producer state across a reopen", () => {
    const store = new MemoryLogStore();
    const log = new PartitionLog(store);
    log.append([producerBatch(["a"], 0), producerBatch(["b", "c"], 1)], 0, { nowMs: 5 });
    expect(() => log.append([producerBatch(["x"], 9)], 0)).toThrow(TributaryError);
    expect(log.logEndOffset).toBe(3);
    const reopened = new PartitionLog(store);
    expect(reopened.append([producerBatch(["a"], 0), producerBatch(["b", "c"], 1)], 0)).toEqual({ baseOffset: 0, lastOffset: 2, duplicate: true });
  });

  it("a follower rebuilds the leader's state from replicated batches, and deduplicates once it leads", () => {
    const leader = new PartitionLog(new MemoryLogStore());
    leader.append([producerBatch(["a", "b"], 0)], 0, { nowMs: 5 });
    leader.append([producerBatch(["c"], 2, { producerId: 8 })], 0, { nowMs: 5 });
    leader.append([producerBatch(["d"], 2)], 0, { nowMs: 5 });
    const follower = new PartitionLog(new MemoryLogStore());
    follower.appendReplicated(leader.read(0, { maxRecords: 100, maxBytes: 1 << 20 }, leader.logEndOffset).batches, 9);
    expect(follower.producer(7)).toEqual({ ...leader.producer(7), lastActivityMs: 9 });
    expect(follower.producer(8)).toEqual({ ...leader.producer(8), lastActivityMs: 9 });
    expect(follower.append([producerBatch(["d"], 2)], 1)).toEqual({ baseOffset: 3, lastOffset: 3, duplicate: true });
    expect(follower.append([producerBatch(["a", "b"], 0)], 1)).toEqual({ baseOffset: 0, lastOffset: 1, duplicate: true });
  });

  it("truncation forgets the truncated records: their retry is written again", () => {
    const log = new PartitionLog(new MemoryLogStore());
    log.append([producerBatch(["a"], 0)], 0, { nowMs: 5 });
    log.advanceHighWatermark(1);
    log.append([producerBatch(["b"], 1)], 0, { nowMs: 5 });
    log.truncateFrom(1);
    expect(log.producer(7)!.runs).toEqual([{ firstSequence: 0, lastSequence: 0, baseOffset: 0, lastOffset: 0 }]);
    expect(log.append([producerBatch(["b"], 1)], 1)).toEqual({ baseOffset: 1, lastOffset: 1 });
    log.truncateFrom(0);
    expect(log.producer(7)).toBeUndefined();
  });

  it("forgets idle producers, and the idlest beyond producersPerPartitionMax", () => {
    const store = new MemoryLogStore();
    const log = new PartitionLog(store);
    log.append([producerBatch(["a"], 0, { producerId: 1 })], 0, { nowMs: 1_000 });
    log.append([producerBatch(["b"], 0, { producerId: 2 })], 0, { nowMs: 2_000 });
    log.append([producerBatch(["c"], 0, { producerId: 3 })], 0, { nowMs: 1_000 + producerIdleMsMax });
    expect([log.producer(1), log.producer(2) !== undefined, log.producer(3) !== undefined]).toEqual([undefined, true, true]);
    const many = Array.from({ length: producersPerPartitionMax - 2 }, (_, index) => ({
      producerId: 100 + index,
      producerEpoch: 0,
      firstSequence: 0,
      runs: [{ firstSequence: 0, lastSequence: 0, baseOffset: 0, lastOffset: 0 }],
      lastActivityMs: 3_000 + producerIdleMsMax,
    }));
    store.writeProducers(many);
    expect(store.producerCount()).toBe(producersPerPartitionMax);
    log.append([producerBatch(["d"], 0, { producerId: 4 })], 0, { nowMs: 1_001 + producerIdleMsMax }); // none idle 7 days
    expect(store.producerCount()).toBe(producersPerPartitionMax);
    expect(log.producer(2)).toBeUndefined(); // the idlest went
    expect(log.producer(3)).toBeDefined();
    expect(log.producer(4)).toBeDefined();
  });
});
