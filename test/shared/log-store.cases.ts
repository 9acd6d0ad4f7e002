import { expect } from "vitest";
import type { LogStore, StoredBatch } from "../../src/log/log-store.ts";
import type { ProducerEntry } from "../../src/log/producer-state.ts";
import { encodeRecordBatch } from "../../src/protocol/record-batch.ts";

/**
 * One conformance suite that every LogStore implementation runs (STYLE.md, as hono's
 * common.case.test.ts): the in-memory store in Node (test/unit/log) and the SQLite store
 * inside workerd (test/workers/objects). Each case gets a fresh, empty store.
 */

const utf8 = new TextEncoder();

/** A real stored batch of `count` records from `baseOffset`, timestamps `timestamp`, +1, +2… */
export function storedBatch(baseOffset: number, count: number, timestamp: number, leaderEpoch = 0): StoredBatch {
  const records = Array.from({ length: count }, (_, index) => ({
    key: utf8.encode(`key-${baseOffset + index}`),
    value: utf8.encode(`value-${baseOffset + index}`),
    headers: [],
    timestamp: timestamp + index,
  }));
  const bytes = encodeRecordBatch(records, { baseOffset, partitionLeaderEpoch: leaderEpoch });
  return { baseOffset, lastOffset: baseOffset + count - 1, leaderEpoch, maxTimestamp: timestamp + count - 1, recordCount: count, bytes };
}

/** An idempotent producer's state with runs of [firstSequence, lastSequence, baseOffset, lastOffset]. */
function producerEntry(producerId: number, lastActivityMs: number, ...runs: [number, number, number, number][]): ProducerEntry {
  return {
    producerId,
    producerEpoch: 1,
    firstSequence: runs[0]![0],
    runs: runs.map(([firstSequence, lastSequence, baseOffset, lastOffset]) => ({ firstSequence, lastSequence, baseOffset, lastOffset })),
    lastActivityMs,
  };
}

function offsetsOf(batches: Iterable<StoredBatch>): number[][] {
  return [...batches].map((batch) => [batch.baseOffset, batch.lastOffset]);
}

export const logStoreCases: Record<string, (store: LogStore) => void> = {
  "a new store is empty at offset 0"(store) {
    expect(store.readBounds()).toEqual({ logStartOffset: 0, logEndOffset: 0, highWatermark: 0 });
    expect([...store.batchesFrom(0)]).toEqual([]);
    expect(store.size()).toEqual({ batches: 0, bytes: 0 });
    expect(store.firstBatchWithTimestampAtOrAfter(0)).toBeUndefined();
    expect(store.epochStarts()).toEqual([]);
  },

  "append stores batches and bounds together"(store) {
    const first = storedBatch(0, 3, 1_000);
    const second = storedBatch(3, 2, 2_000);
    store.append([first, second], { logStartOffset: 0, logEndOffset: 5, highWatermark: 5 });
    expect(store.readBounds()).toEqual({ logStartOffset: 0, logEndOffset: 5, highWatermark: 5 });
    expect(store.size()).toEqual({ batches: 2, bytes: first.bytes.byteLength + second.bytes.byteLength });
  },

  "batches come back byte for byte with their header fields"(store) {
    const batch = storedBatch(0, 4, 5_000);
    store.append([batch], { logStartOffset: 0, logEndOffset: 4, highWatermark: 4 });
    const [read] = [...store.batchesFrom(0)];
    expect(read).toBeDefined();
    expect(read!.baseOffset).toBe(0);
    expect(read!.lastOffset).toBe(3);
    expect(read!.maxTimestamp).toBe(5_003);
    expect(read!.recordCount).toBe(4);
    expect([...read!.bytes]).toEqual([...batch.bytes]);
  },

  "batchesFrom starts at the batch holding the offset"(store) {
    store.append([storedBatch(0, 3, 0), storedBatch(3, 3, 0), storedBatch(6, 3, 0)], { logStartOffset: 0, logEndOffset: 9, highWatermark: 9 });
    expect(offsetsOf(store.batchesFrom(0))).toEqual([[0, 2], [3, 5], [6, 8]]);
    expect(offsetsOf(store.batchesFrom(4))).toEqual([[3, 5], [6, 8]]);
    expect(offsetsOf(store.batchesFrom(5))).toEqual([[3, 5], [6, 8]]);
    expect(offsetsOf(store.batchesFrom(6))).toEqual([[6, 8]]);
    expect(offsetsOf(store.batchesFrom(9))).toEqual([]);
  },

  "a scan hands out every batch and size in order however many there are"(store) {
    // More batches than the SQLite store reads in its first pages (4, 8, … up to 256 rows a statement).
    const batches = Array.from({ length: 600 }, (_, index) => storedBatch(index * 2, 2, index));
    store.append(batches, { logStartOffset: 0, logEndOffset: 1_200, highWatermark: 1_200 });
    const all = batches.map((batch) => [batch.baseOffset, batch.lastOffset]);
    expect(offsetsOf(store.batchesFrom(0))).toEqual(all);
    expect(offsetsOf(store.batchesFrom(523))).toEqual(all.slice(261));
    expect([...store.batchSizesFrom(7)].map((size) => [size.baseOffset, size.lastOffset, size.byteLength])).toEqual(
      batches.slice(3).map((batch) => [batch.baseOffset, batch.lastOffset, batch.bytes.byteLength]),
    );
  },

  "appends accumulate in offset order"(store) {
    store.append([storedBatch(0, 2, 0)], { logStartOffset: 0, logEndOffset: 2, highWatermark: 2 });
    store.append([storedBatch(2, 1, 0)], { logStartOffset: 0, logEndOffset: 3, highWatermark: 3 });
    store.append([storedBatch(3, 5, 0)], { logStartOffset: 0, logEndOffset: 8, highWatermark: 8 });
    expect(offsetsOf(store.batchesFrom(0))).toEqual([[0, 1], [2, 2], [3, 7]]);
    expect(store.readBounds()).toEqual({ logStartOffset: 0, logEndOffset: 8, highWatermark: 8 });
  },

  "maxTimestampBelow is the largest max timestamp of the batches starting below an offset"(store) {
    expect(store.maxTimestampBelow(10)).toBeUndefined();
    store.append(
      [storedBatch(0, 2, 5_000), storedBatch(2, 2, 9_000), storedBatch(4, 2, 1_000)],
      { logStartOffset: 0, logEndOffset: 6, highWatermark: 6 },
    );
    expect(store.maxTimestampBelow(2)).toBe(5_001);
    expect(store.maxTimestampBelow(6)).toBe(9_001);
    expect(store.maxTimestampBelow(0)).toBeUndefined();
  },

  "firstBatchWithTimestampAtOrAfter finds the lowest-offset batch whose max timestamp qualifies"(store) {
    // Create times need not be monotonic: the second batch is older than the first.
    store.append(
      [storedBatch(0, 2, 5_000), storedBatch(2, 2, 1_000), storedBatch(4, 2, 9_000)],
      { logStartOffset: 0, logEndOffset: 6, highWatermark: 6 },
    );
    expect(store.firstBatchWithTimestampAtOrAfter(0)?.baseOffset).toBe(0);
    expect(store.firstBatchWithTimestampAtOrAfter(5_001)?.baseOffset).toBe(0);
    expect(store.firstBatchWithTimestampAtOrAfter(5_002)?.baseOffset).toBe(4);
    expect(store.firstBatchWithTimestampAtOrAfter(9_001)?.baseOffset).toBe(4);
    expect(store.firstBatchWithTimestampAtOrAfter(9_002)).toBeUndefined();
  },

  "large offsets below 2^53 survive"(store) {
    const base = 2 ** 52;
    store.append([storedBatch(base, 2, 0)], { logStartOffset: base, logEndOffset: base + 2, highWatermark: base + 2 });
    expect(store.readBounds()).toEqual({ logStartOffset: base, logEndOffset: base + 2, highWatermark: base + 2 });
    expect(offsetsOf(store.batchesFrom(base + 1))).toEqual([[base, base + 1]]);
  },

  "writeBounds moves the high watermark alone"(store) {
    store.append([storedBatch(0, 4, 0)], { logStartOffset: 0, logEndOffset: 4, highWatermark: 0 });
    store.writeBounds({ logStartOffset: 0, logEndOffset: 4, highWatermark: 3 });
    expect(store.readBounds()).toEqual({ logStartOffset: 0, logEndOffset: 4, highWatermark: 3 });
    expect(offsetsOf(store.batchesFrom(0))).toEqual([[0, 3]]);
  },

  "truncateFrom deletes the batches at and after a boundary, with the bounds"(store) {
    store.append([storedBatch(0, 2, 0), storedBatch(2, 3, 0), storedBatch(5, 1, 0)], { logStartOffset: 0, logEndOffset: 6, highWatermark: 6 });
    store.truncateFrom(2, { logStartOffset: 0, logEndOffset: 2, highWatermark: 2 });
    expect(offsetsOf(store.batchesFrom(0))).toEqual([[0, 1]]);
    expect(store.readBounds()).toEqual({ logStartOffset: 0, logEndOffset: 2, highWatermark: 2 });
    expect(store.size().batches).toBe(1);
    store.append([storedBatch(2, 1, 0, 1)], { logStartOffset: 0, logEndOffset: 3, highWatermark: 2 });
    expect(offsetsOf(store.batchesFrom(0))).toEqual([[0, 1], [2, 2]]);
  },

  "epochStarts lists where each leader epoch begins"(store) {
    store.append([storedBatch(0, 2, 0, 0), storedBatch(2, 2, 0, 0), storedBatch(4, 1, 0, 3)], { logStartOffset: 0, logEndOffset: 5, highWatermark: 5 });
    store.append([storedBatch(5, 2, 0, 7)], { logStartOffset: 0, logEndOffset: 7, highWatermark: 7 });
    expect(store.epochStarts()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 4 },
      { epoch: 7, startOffset: 5 },
    ]);
    store.truncateFrom(4, { logStartOffset: 0, logEndOffset: 4, highWatermark: 4 });
    expect(store.epochStarts()).toEqual([{ epoch: 0, startOffset: 0 }]);
  },

  "batches keep the epoch that wrote them"(store) {
    store.append([storedBatch(0, 1, 0, 5)], { logStartOffset: 0, logEndOffset: 1, highWatermark: 1 });
    expect([...store.batchesFrom(0)].map((batch) => batch.leaderEpoch)).toEqual([5]);
  },

  "deleteBefore drops sealed batches and keeps the epochs"(store) {
    store.append([storedBatch(0, 2, 0, 1), storedBatch(2, 2, 0, 2), storedBatch(4, 1, 0, 2)], { logStartOffset: 0, logEndOffset: 5, highWatermark: 5 });
    expect(store.firstBatchOffset()).toBe(0);
    store.deleteBefore(4, { logStartOffset: 0, logEndOffset: 5, highWatermark: 5 });
    expect(offsetsOf(store.batchesFrom(0))).toEqual([[4, 4]]);
    expect(store.firstBatchOffset()).toBe(4);
    expect(store.epochStarts()).toEqual([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 2 }]);
    expect(store.size().batches).toBe(1);
    store.deleteBefore(Number.MAX_SAFE_INTEGER, { logStartOffset: 0, logEndOffset: 5, highWatermark: 5 });
    expect(store.firstBatchOffset()).toBeUndefined();
  },

  "replaceEpochStarts sets the epoch cache, and later appends extend it"(store) {
    store.replaceEpochStarts([{ epoch: 3, startOffset: 0 }, { epoch: 5, startOffset: 10 }]);
    store.append([storedBatch(20, 1, 0, 7)], { logStartOffset: 0, logEndOffset: 21, highWatermark: 20 });
    expect(store.epochStarts()).toEqual([
      { epoch: 3, startOffset: 0 },
      { epoch: 5, startOffset: 10 },
      { epoch: 7, startOffset: 20 },
    ]);
  },

  "producers are written, read back, replaced and deleted"(store) {
    expect(store.readProducer(1)).toBeUndefined();
    const entry = producerEntry(1, 500, [0, 2, 0, 2], [3, 3, 7, 7]);
    store.writeProducers([entry, producerEntry(2 ** 40, 600, [2147483646, 1, 8, 11])]);
    expect(store.readProducer(1)).toEqual(entry);
    expect(store.readProducer(2 ** 40)).toEqual(producerEntry(2 ** 40, 600, [2147483646, 1, 8, 11]));
    store.writeProducers([producerEntry(1, 700, [4, 4, 12, 12])]);
    expect(store.readProducer(1)).toEqual(producerEntry(1, 700, [4, 4, 12, 12]));
    expect(store.producerCount()).toBe(2);
    store.deleteProducer(1);
    expect(store.readProducer(1)).toBeUndefined();
    expect(store.producerCount()).toBe(1);
  },

  "readProducers lists every producer by id"(store) {
    expect(store.readProducers()).toEqual([]);
    const entries = [producerEntry(3, 0, [0, 0, 9, 9]), producerEntry(2 ** 40, 5, [0, 1, 0, 1]), producerEntry(1, 7, [0, 0, 2, 2], [1, 1, 5, 5])];
    store.writeProducers(entries);
    expect(store.readProducers()).toEqual([entries[2], entries[0], entries[1]]);
  },

  "producersEndingAtOrAfter finds the producers a truncation changes"(store) {
    store.writeProducers([producerEntry(1, 0, [0, 1, 0, 1]), producerEntry(2, 0, [0, 0, 2, 2], [1, 1, 5, 5]), producerEntry(3, 0, [0, 0, 9, 9])]);
    expect(store.producersEndingAtOrAfter(5).map((entry) => entry.producerId).sort()).toEqual([2, 3]);
    expect(store.producersEndingAtOrAfter(10)).toEqual([]);
  },

  "forgetProducers drops the idle, then the idlest beyond the bound"(store) {
    store.writeProducers([producerEntry(1, 100, [0, 0, 0, 0]), producerEntry(2, 300, [0, 0, 1, 1]), producerEntry(3, 200, [0, 0, 2, 2]), producerEntry(4, 400, [0, 0, 3, 3])]);
    store.forgetProducers(100, 10);
    expect(store.producerCount()).toBe(3);
    store.forgetProducers(0, 2);
    expect([2, 3, 4].map((id) => store.readProducer(id) !== undefined)).toEqual([true, false, true]);
  },
};
