import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { recordsInWindow } from "../../../src/log/fetched-records.ts";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { MemoryTransactionStore } from "../../../src/log/transaction-state.ts";
import { encodeControlBatch, type MarkerResult } from "../../../src/protocol/control-batch.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();

function txnBatch(producerId: number, producerEpoch: number, baseSequence: number, values: string[]): Uint8Array {
  const records = values.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: 1 }));
  return encodeRecordBatch(records, { producerId, producerEpoch, baseSequence, transactional: true });
}

function plainBatch(values: string[]): Uint8Array {
  return encodeRecordBatch(values.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: 1 })));
}

function marker(producerId: number, producerEpoch: number, result: MarkerResult): Uint8Array {
  return encodeControlBatch({ producerId, producerEpoch, result, coordinatorEpoch: 0 }, 1);
}

function committed(log: PartitionLog, batches: Uint8Array[]) {
  const result = log.append(batches, 0);
  log.advanceHighWatermark(log.logEndOffset);
  return result;
}

/** What a reader sees from offset 0: read_committed (up to the LSO, aborted skipped) or read_uncommitted. */
function visible(log: PartitionLog, isolation: "read_committed" | "read_uncommitted"): string[] {
  const read = log.read(0, { maxRecords: 1e6, maxBytes: 1 << 30 });
  const committedOnly = isolation === "read_committed";
  const window = {
    fromOffset: 0,
    untilOffset: committedOnly ? read.lastStableOffset! : read.highWatermark,
    maxRecords: 1e6,
    maxBytes: 1 << 30,
    ...(committedOnly ? { abortedTransactions: read.abortedTransactions ?? [] } : {}),
  };
  return recordsInWindow(read.batches, window).records.map((record) => text.decode(record.value!));
}

function fenced(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return error.code;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("a partition's transactions", () => {
  it("holds the LSO at an open transaction's first offset until its marker", () => {
    const log = new PartitionLog(new MemoryLogStore());
    committed(log, [plainBatch(["a"])]);
    committed(log, [txnBatch(7, 0, 0, ["t1", "t2"])]);
    committed(log, [plainBatch(["b"])]);
    expect(log.highWatermark).toBe(4);
    expect(log.lastStableOffset).toBe(1);
    expect(visible(log, "read_committed")).toEqual(["a"]);
    expect(visible(log, "read_uncommitted")).toEqual(["a", "t1", "t2", "b"]);
    const end = committed(log, [marker(7, 1, "commit")]);
    expect(end).toEqual({ baseOffset: 4, lastOffset: 4 });
    expect(log.lastStableOffset).toBe(5);
    expect(visible(log, "read_committed")).toEqual(["a", "t1", "t2", "b"]);
  });

  it("skips an aborted transaction's records for read_committed readers, never shows markers", () => {
    const log = new PartitionLog(new MemoryLogStore());
    committed(log, [txnBatch(1, 0, 0, ["x1"])]);
    committed(log, [txnBatch(2, 0, 0, ["y1"])]);
    committed(log, [txnBatch(1, 0, 1, ["x2"])]);
    committed(log, [marker(1, 1, "abort")]);
    committed(log, [marker(2, 1, "commit")]);
    expect(log.read(0, { maxRecords: 100, maxBytes: 1 << 20 }).abortedTransactions).toEqual([{ producerId: 1, firstOffset: 0, lastOffset: 3 }]);
    expect(visible(log, "read_committed")).toEqual(["y1"]);
    expect(visible(log, "read_uncommitted")).toEqual(["x1", "y1", "x2"]);
  });

  it("refuses a write with an epoch below the marker's (the late write of an ended transaction)", () => {
    const log = new PartitionLog(new MemoryLogStore());
    committed(log, [txnBatch(5, 3, 0, ["a"])]);
    committed(log, [marker(5, 4, "commit")]);
    expect(fenced(() => log.append([txnBatch(5, 3, 1, ["late"])], 0))).toBe("INVALID_PRODUCER_EPOCH");
    expect(fenced(() => log.append([encodeRecordBatch([{ key: null, value: null, headers: [], timestamp: 1 }], { producerId: 5, producerEpoch: 3, baseSequence: 1 })], 0))).toBe("INVALID_PRODUCER_EPOCH");
    expect(committed(log, [txnBatch(5, 4, 0, ["next"])]).baseOffset).toBe(2); // the next transaction, at the bumped epoch
    expect(fenced(() => log.append([marker(5, 3, "abort")], 0))).toBe("INVALID_PRODUCER_EPOCH");
  });

  it("answers a marker's retry with its offset and writes nothing, even once a new transaction is open", () => {
    const log = new PartitionLog(new MemoryLogStore());
    committed(log, [txnBatch(5, 0, 0, ["a"])]);
    expect(committed(log, [marker(5, 1, "abort")])).toEqual({ baseOffset: 1, lastOffset: 1 });
    expect(committed(log, [marker(5, 1, "abort")])).toEqual({ baseOffset: 1, lastOffset: 1, duplicate: true });
    committed(log, [txnBatch(5, 1, 0, ["b"])]);
    expect(committed(log, [marker(5, 1, "abort")])).toEqual({ baseOffset: 1, lastOffset: 1, duplicate: true });
    expect(log.lastStableOffset).toBe(2); // the new transaction stays open
    expect(fenced(() => log.append([marker(5, 1, "commit")], 0))).toBe("INVALID_PRODUCER_EPOCH");
    expect(log.logEndOffset).toBe(3);
  });

  it("writes a marker for a producer with no open transaction (Kafka marks every partition added)", () => {
    const log = new PartitionLog(new MemoryLogStore());
    expect(committed(log, [marker(9, 0, "commit")])).toEqual({ baseOffset: 0, lastOffset: 0 });
    expect(log.lastStableOffset).toBe(1);
    expect(visible(log, "read_uncommitted")).toEqual([]);
  });

  it("reopens a transaction whose marker a truncation removes, and forgets the aborted entry", () => {
    const log = new PartitionLog(new MemoryLogStore());
    committed(log, [txnBatch(1, 0, 0, ["a"])]);
    log.append([marker(1, 1, "abort")], 0);
    log.truncateFrom(1);
    expect(log.lastStableOffset).toBe(0);
    expect(log.read(0, { maxRecords: 10, maxBytes: 1 << 20 }).abortedTransactions).toBeUndefined();
    expect(log.append([marker(1, 1, "abort")], 0)).toEqual({ baseOffset: 1, lastOffset: 1 }); // written again
  });

  it("keeps its state in its store: a log opened again has the same LSO and aborted index", () => {
    const store = new MemoryLogStore();
    const transactions = new MemoryTransactionStore();
    const log = new PartitionLog(store, transactions);
    committed(log, [txnBatch(1, 0, 0, ["a"])]);
    committed(log, [marker(1, 1, "abort")]);
    committed(log, [txnBatch(2, 0, 0, ["b"])]);
    const reopened = new PartitionLog(store, transactions);
    expect(reopened.lastStableOffset).toBe(2);
    expect(visible(reopened, "read_committed")).toEqual([]);
    expect(fenced(() => reopened.append([txnBatch(1, 0, 1, ["late"])], 0))).toBe("INVALID_PRODUCER_EPOCH");
  });

  it("property: a leader's and a follower's state agree, and read_committed shows exactly the committed transactions", () => {
    type Step = { producer: number; action: "data" | "commit" | "abort" | "plain" };
    const steps = fc.array(fc.record({ producer: fc.integer({ min: 1, max: 3 }), action: fc.constantFrom("data", "data", "commit", "abort", "plain") }), { maxLength: 40 });
    fc.assert(
      fc.property(steps, (plan: Step[]) => {
        const leader = new PartitionLog(new MemoryLogStore());
        const epochs = new Map<number, number>();
        const sequences = new Map<number, number>();
        const pending = new Map<number, string[]>();
        const expected: string[] = [];
        const openFirst = new Map<number, number>();
        plan.forEach(({ producer, action }, index) => {
          const epoch = epochs.get(producer) ?? 0;
          if (action === "plain") {
            committed(leader, [plainBatch([`p${index}`])]);
            expected.push(`p${index}`);
          } else if (action === "data") {
            const sequence = sequences.get(producer) ?? 0;
            const { baseOffset } = committed(leader, [txnBatch(producer, epoch, sequence, [`t${index}`])]);
            if (!openFirst.has(producer)) openFirst.set(producer, baseOffset);
            sequences.set(producer, sequence + 1);
            pending.set(producer, [...(pending.get(producer) ?? []), `t${index}`]);
          } else {
            committed(leader, [marker(producer, epoch + 1, action)]);
            if (action === "commit") expected.push(...(pending.get(producer) ?? []));
            pending.delete(producer);
            openFirst.delete(producer);
            epochs.set(producer, epoch + 1);
            sequences.set(producer, 0);
          }
          expect(leader.lastStableOffset).toBe(Math.min(leader.highWatermark, ...openFirst.values()));
        });
        // Every open transaction ended: read_committed sees the plain records and the committed ones, in log order.
        for (const [producer] of pending) committed(leader, [marker(producer, (epochs.get(producer) ?? 0) + 1, "abort")]);
        const seen = visible(leader, "read_committed");
        expect([...seen].sort()).toEqual([...expected].sort());
        const follower = new PartitionLog(new MemoryLogStore());
        const { batches } = leader.read(0, { maxRecords: 1e6, maxBytes: 1 << 30 });
        if (batches.length > 0) follower.appendReplicated(batches.map((batch) => batch.slice()));
        follower.advanceHighWatermark(leader.highWatermark);
        expect(follower.lastStableOffset).toBe(leader.lastStableOffset);
        expect(follower.read(0, { maxRecords: 1e6, maxBytes: 1 << 30 }).abortedTransactions).toEqual(leader.read(0, { maxRecords: 1e6, maxBytes: 1 << 30 }).abortedTransactions);
        expect(visible(follower, "read_committed")).toEqual(seen);
      }),
      { numRuns: 200 },
    );
  });
});
