import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { recordsInWindow } from "../../../src/log/fetched-records.ts";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { decodeRecordBatch, encodeRecordBatch, readBatchHeader, verifyBatchCrc } from "../../../src/protocol/record-batch.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A batch as the router builds it: offsets from 0, timestamps from `timestamp`. */
function batchOf(values: string[], timestamp = 1_000): Uint8Array {
  return encodeRecordBatch(
    values.map((value, index) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: timestamp + index })),
  );
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
    expect(log.append([batchOf(["a", "b"])], 0)).toEqual({ baseOffset: 0, lastOffset: 1 });
    expect(log.append([batchOf(["c"]), batchOf(["d", "e", "f"])], 0)).toEqual({ baseOffset: 2, lastOffset: 5 });
    expect(log.logEndOffset).toBe(6);
    expect(log.highWatermark).toBe(6);
    expect(valuesOf(log.read(0, { maxRecords: 100, maxBytes: 1 << 20 }).batches, 0, 6)).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("rewrites base offset and leader epoch only, keeping the CRC valid", () => {
    const log = new PartitionLog(new MemoryLogStore());
    log.append([batchOf(["x"])], 0);
    const batch = batchOf(["y", "z"]);
    log.append([batch], 7);
    const [stored] = log.read(1, { maxRecords: 10, maxBytes: 1 << 20 }).batches;
    const header = readBatchHeader(stored!);
    expect(header.baseOffset).toBe(1);
    expect(header.partitionLeaderEpoch).toBe(7);
    expect(verifyBatchCrc(stored!)).toBe(true);
    expect(decodeRecordBatch(stored!).records.map((record) => record.offset)).toEqual([1, 2]);
  });

  it("reads from inside a batch; the reader skips the records before the offset", () => {
    const log = new PartitionLog(new MemoryLogStore());
    log.append([batchOf(["a", "b", "c", "d"])], 0);
    const read = log.read(2, { maxRecords: 10, maxBytes: 1 << 20 });
    expect(valuesOf(read.batches, 2, read.highWatermark)).toEqual(["c", "d"]);
  });

  it("stops at maxRecords and maxBytes, but always returns one batch", () => {
    const log = new PartitionLog(new MemoryLogStore());
    for (let index = 0; index < 5; index++) log.append([batchOf([`v${index}`])], 0);
    expect(log.read(0, { maxRecords: 2, maxBytes: 1 << 20 }).batches).toHaveLength(2);
    expect(log.read(0, { maxRecords: 100, maxBytes: 1 }).batches).toHaveLength(1);
    const oneBatchBytes = log.read(0, { maxRecords: 1, maxBytes: 1 << 20 }).batches[0]!.byteLength;
    expect(log.read(0, { maxRecords: 100, maxBytes: oneBatchBytes * 3 }).batches).toHaveLength(3);
  });

  it("answers no batches at the high watermark, and OFFSET_OUT_OF_RANGE outside the log", () => {
    const log = new PartitionLog(new MemoryLogStore());
    log.append([batchOf(["a", "b"])], 0);
    expect(log.read(2, { maxRecords: 10, maxBytes: 100 }).batches).toEqual([]);
    for (const offset of [3, -1]) {
      const error = outOfRange(() => log.read(offset, { maxRecords: 10, maxBytes: 100 }));
      expect(error.code).toBe("OFFSET_OUT_OF_RANGE");
      expect(error.data).toEqual({ logStartOffset: 0, highWatermark: 2 });
    }
  });

  it("finds the first offset at or after a timestamp, or the high watermark", () => {
    const log = new PartitionLog(new MemoryLogStore());
    log.append([batchOf(["a", "b", "c"], 1_000)], 0); // 1000, 1001, 1002
    log.append([batchOf(["d", "e"], 500)], 0); // older create times: 500, 501
    log.append([batchOf(["f"], 5_000)], 0);
    expect(log.offsetForTimestamp(0)).toEqual({ offset: 0, timestamp: 1_000 });
    expect(log.offsetForTimestamp(1_001)).toEqual({ offset: 1, timestamp: 1_001 });
    expect(log.offsetForTimestamp(1_003)).toEqual({ offset: 5, timestamp: 5_000 });
    expect(log.offsetForTimestamp(5_001)).toEqual({ offset: 6 });
  });

  it("recovers its bounds from the store (a restarted object)", () => {
    const store = new MemoryLogStore();
    new PartitionLog(store).append([batchOf(["a", "b", "c"])], 0);
    const reopened = new PartitionLog(store);
    expect(reopened.logEndOffset).toBe(3);
    expect(reopened.append([batchOf(["d"])], 0)).toEqual({ baseOffset: 3, lastOffset: 3 });
  });

  it("refuses an empty append", () => {
    const log = new PartitionLog(new MemoryLogStore());
    expect(() => log.append([], 0)).toThrow(TributaryError);
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
