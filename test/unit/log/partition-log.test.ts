import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { recordsInWindow } from "../../../src/log/fetched-records.ts";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { encodeRecordBatch, readBatchHeader, verifyBatchCrc } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A batch as the router builds it: offsets from 0, timestamps from `timestamp`. */
function batchOf(values: string[], timestamp = 1_000): Uint8Array {
  return encodeRecordBatch(
    values.map((value, index) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: timestamp + index })),
  );
}

/** Appends as a leader alone in its ISR does: the high watermark follows the log end. */
function appendCommitted(log: PartitionLog, batches: Uint8Array[], epoch = 0) {
  const result = log.append(batches, epoch);
  log.advanceHighWatermark(log.logEndOffset);
  return result;
}

function valuesOf(batches: Uint8Array[], fromOffset: number, untilOffset: number): string[] {
  return recordsInWindow(batches, { fromOffset, untilOffset, maxRecords: 10_000, maxBytes: 1 << 30 }).records.map(
    (record) => text.decode(record.value!),
  );
}

function outOfRange(run: () => unknown): TributaryError {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return error;
    throw error;
  }
  throw new Error("expected OFFSET_OUT_OF_RANGE");
}

describe("PartitionLog", () => {
  it("assigns consecutive offsets across appends and batches", () => {
    const log = new PartitionLog(new MemoryLogStore());
    expect(appendCommitted(log, [batchOf(["a", "b"])], 0)).toEqual({ baseOffset: 0, lastOffset: 1 });
    expect(appendCommitted(log, [batchOf(["c"]), batchOf(["d", "e", "f"])], 0)).toEqual({ baseOffset: 2, lastOffset: 5 });
    expect(log.logEndOffset).toBe(6);
    expect(log.highWatermark).toBe(6);
    expect(valuesOf(log.read(0, { maxRecords: 100, maxBytes: 1 << 20 }).batches, 0, 6)).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("rewrites base offset and leader epoch only, keeping the CRC valid", () => {
    const log = new PartitionLog(new MemoryLogStore());
    appendCommitted(log, [batchOf(["x"])], 0);
    const batch = batchOf(["y", "z"]);
    appendCommitted(log, [batch], 7);
    const [stored] = log.read(1, { maxRecords: 10, maxBytes: 1 << 20 }).batches;
    const header = readBatchHeader(stored!);
    expect(header.baseOffset).toBe(1);
    expect(header.partitionLeaderEpoch).toBe(7);
    expect(verifyBatchCrc(stored!)).toBe(true);
    expect(decodeRecordBatch(stored!).records.map((record) => record.offset)).toEqual([1, 2]);
  });

  it("reads from inside a batch; the reader skips the records before the offset", () => {
    const log = new PartitionLog(new MemoryLogStore());
    appendCommitted(log, [batchOf(["a", "b", "c", "d"])], 0);
    const read = log.read(2, { maxRecords: 10, maxBytes: 1 << 20 });
    expect(valuesOf(read.batches, 2, read.highWatermark)).toEqual(["c", "d"]);
  });

  it("stops at maxRecords and maxBytes, but always returns one batch", () => {
    const log = new PartitionLog(new MemoryLogStore());
    for (let index = 0; index < 5; index++) appendCommitted(log, [batchOf([`v${index}`])], 0);
    expect(log.read(0, { maxRecords: 2, maxBytes: 1 << 20 }).batches).toHaveLength(2);
    expect(log.read(0, { maxRecords: 100, maxBytes: 1 }).batches).toHaveLength(1);
    const oneBatchBytes = log.read(0, { maxRecords: 1, maxBytes: 1 << 20 }).batches[0]!.byteLength;
    expect(log.read(0, { maxRecords: 100, maxBytes: oneBatchBytes * 3 }).batches).toHaveLength(3);
  });

  it("answers no batches at the high watermark, and OFFSET_OUT_OF_RANGE outside the log", () => {
    const log = new PartitionLog(new MemoryLogStore());
    appendCommitted(log, [batchOf(["a", "b"])], 0);
    expect(log.read(2, { maxRecords: 10, maxBytes: 100 }).batches).toEqual([]);
    for (const offset of [3, -1]) {
      const error = outOfRange(() => log.read(offset, { maxRecords: 10, maxBytes: 100 }));
      expect(error.code).toBe("OFFSET_OUT_OF_RANGE");
      expect(error.data).toEqual({ logStartOffset: 0, highWatermark: 2 });
    }
  });

  it("finds the first offset at or after a timestamp, or the high watermark", () => {
    const log = new PartitionLog(new MemoryLogStore());
    appendCommitted(log, [batchOf(["a", "b", "c"], 1_000)], 0); // 1000, 1001, 1002
    appendCommitted(log, [batchOf(["d", "e"], 500)], 0); // older create times: 500, 501
    appendCommitted(log, [batchOf(["f"], 5_000)], 0);
    expect(log.offsetForTimestamp(0)).toEqual({ offset: 0, timestamp: 1_000 });
    expect(log.offsetForTimestamp(1_001)).toEqual({ offset: 1, timestamp: 1_001 });
    expect(log.offsetForTimestamp(1_003)).toEqual({ offset: 5, timestamp: 5_000 });
    expect(log.offsetForTimestamp(5_001)).toEqual({ offset: 6 });
  });

  it("recovers its bounds from the store (a restarted object)", () => {
    const store = new MemoryLogStore();
    appendCommitted(new PartitionLog(store), [batchOf(["a", "b", "c"])]);
    const reopened = new PartitionLog(store);
    expect(reopened.logEndOffset).toBe(3);
    expect(reopened.highWatermark).toBe(3);
    expect(reopened.append([batchOf(["d"])], 0)).toEqual({ baseOffset: 3, lastOffset: 3 });
  });

  it("refuses an empty append", () => {
    const log = new PartitionLog(new MemoryLogStore());
    expect(() => appendCommitted(log, [], 0)).toThrow(TributaryError);
    expect(log.logEndOffset).toBe(0);
  });
});

describe("recordsInWindow", () => {
  const batches = [
    encodeRecordBatch(
      ["aa", "bbbb", "cccccc", "dd"].map((value, index) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: index })),
      { baseOffset: 10 },
    ),
  ];

  it("returns records in [from, until) and where to continue", () => {
    const { records, nextOffset } = recordsInWindow(batches, { fromOffset: 11, untilOffset: 13, maxRecords: 10, maxBytes: 100 });
    expect(records.map((record) => record.offset)).toEqual([11, 12]);
    expect(nextOffset).toBe(13);
  });

  it("bounds by maxRecords and by payload bytes, always returning the first record", () => {
    expect(recordsInWindow(batches, { fromOffset: 10, untilOffset: 14, maxRecords: 3, maxBytes: 100 }).records).toHaveLength(3);
    const bytesBound = recordsInWindow(batches, { fromOffset: 10, untilOffset: 14, maxRecords: 10, maxBytes: 6 });
    expect(bytesBound.records.map((record) => record.offset)).toEqual([10, 11]);
    expect(bytesBound.nextOffset).toBe(12);
    const oversized = recordsInWindow(batches, { fromOffset: 12, untilOffset: 14, maxRecords: 10, maxBytes: 1 });
    expect(oversized.records.map((record) => record.offset)).toEqual([12]);
  });
});

describe("PartitionLog replication", () => {
  it("keeps the high watermark where the caller puts it: forward only, never past the log end", () => {
    const log = new PartitionLog(new MemoryLogStore());
    log.append([batchOf(["a", "b", "c"])], 0);
    expect(log.highWatermark).toBe(0);
    expect(log.read(0, { maxRecords: 10, maxBytes: 1 << 20 }).batches).toEqual([]);
    log.advanceHighWatermark(2);
    log.advanceHighWatermark(1);
    expect(log.highWatermark).toBe(2);
    log.advanceHighWatermark(99);
    expect(log.highWatermark).toBe(3);
    expect(log.read(0, { maxRecords: 10, maxBytes: 1 << 20 }, 3).batches).toHaveLength(1);
  });

  it("appends a leader's batches as they are, refusing a gap or an older epoch", () => {
    const leader = new PartitionLog(new MemoryLogStore());
    appendCommitted(leader, [batchOf(["a", "b"])], 2);
    appendCommitted(leader, [batchOf(["c"])], 4);
    const copies = leader.read(0, { maxRecords: 10, maxBytes: 1 << 20 }).batches.map((batch) => batch.slice());
    const follower = new PartitionLog(new MemoryLogStore());
    follower.appendReplicated(copies);
    expect(follower.logEndOffset).toBe(3);
    expect(follower.epochStarts()).toEqual([{ epoch: 2, startOffset: 0 }, { epoch: 4, startOffset: 2 }]);
    expect(() => follower.appendReplicated([copies[0]!])).toThrow(TributaryError);
    const older = batchOf(["z"]);
    const other = new PartitionLog(new MemoryLogStore());
    appendCommitted(other, [older], 1);
    expect(() => follower.appendReplicated(other.read(0, { maxRecords: 1, maxBytes: 1 << 20 }).batches)).toThrow(TributaryError);
    expect(follower.logEndOffset).toBe(3);
  });

  it("answers where each epoch ends (KIP-101)", () => {
    const log = new PartitionLog(new MemoryLogStore());
    appendCommitted(log, [batchOf(["a", "b"])], 1); // epoch 1: 0..1
    appendCommitted(log, [batchOf(["c", "d", "e"])], 3); // epoch 3: 2..4
    appendCommitted(log, [batchOf(["f"])], 5); // epoch 5: 5
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: -1, endOffset: 0 });
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 1, endOffset: 2 });
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, endOffset: 2 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 5 });
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, endOffset: 6 });
    expect(log.endOffsetForEpoch(9)).toEqual({ epoch: 5, endOffset: 6 });
    expect(log.latestEpoch).toBe(5);
  });

  it("truncates at a batch boundary, with its epochs and high watermark, and survives a restart", () => {
    const store = new MemoryLogStore();
    const log = new PartitionLog(store);
    appendCommitted(log, [batchOf(["a", "b"])], 1);
    log.append([batchOf(["c"]), batchOf(["d"])], 2);
    log.advanceHighWatermark(3);
    log.truncateFrom(3);
    expect(log.logEndOffset).toBe(3);
    expect(log.highWatermark).toBe(3);
    log.truncateFrom(2);
    expect([log.logEndOffset, log.highWatermark, log.latestEpoch]).toEqual([2, 2, 1]);
    expect(() => log.truncateFrom(1)).toThrow(/inside a batch/);
    const reopened = new PartitionLog(store);
    expect([reopened.logEndOffset, reopened.highWatermark, reopened.latestEpoch]).toEqual([2, 2, 1]);
    expect(reopened.append([batchOf(["x"])], 3)).toEqual({ baseOffset: 2, lastOffset: 2 });
  });
});

describe("PartitionLog tiers", () => {
  it("drops sealed batches below the high watermark, keeping bounds, epochs and later reads", () => {
    const log = new PartitionLog(new MemoryLogStore());
    appendCommitted(log, [batchOf(["a", "b"])], 1);
    appendCommitted(log, [batchOf(["c"])], 2);
    log.append([batchOf(["d"])], 2);
    expect([log.localStartOffset, log.localBytes > 0]).toEqual([0, true]);
    expect(() => log.dropBefore(4)).toThrow(/above the high watermark/);
    log.dropBefore(2);
    expect([log.localStartOffset, log.logStartOffset, log.logEndOffset, log.highWatermark]).toEqual([2, 0, 4, 3]);
    expect(log.epochStarts()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 2 }]);
    expect(valuesOf(log.read(2, { maxRecords: 10, maxBytes: 1 << 20 }).batches, 2, 3)).toEqual(["c"]);
    expect(() => log.read(0, { maxRecords: 10, maxBytes: 1 << 20 })).toThrow(/below the held batches/);
    expect(() => log.truncateFrom(0)).toThrow(/below the held batches/);
    log.advanceLogStart(2);
    expect(log.logStartOffset).toBe(2);
  });

  it("restarts a follower at its leader's first held offset with the leader's epochs", () => {
    const store = new MemoryLogStore();
    const log = new PartitionLog(store);
    appendCommitted(log, [batchOf(["old"])], 1);
    log.restartAt(10, 4, [{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 6 }]);
    expect([log.logStartOffset, log.localStartOffset, log.logEndOffset, log.highWatermark, log.latestEpoch]).toEqual([4, 10, 10, 10, 3]);
    const reopened = new PartitionLog(store);
    expect([reopened.localStartOffset, reopened.logEndOffset, reopened.latestEpoch]).toEqual([10, 10, 3]);
  });
});
