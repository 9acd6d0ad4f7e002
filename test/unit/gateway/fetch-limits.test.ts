/**
 * A Fetch's byte bounds (src/gateway/handlers/fetch-limits.ts), Kafka's KIP-74 rules over
 * answers read in parallel: partitions in request order, each within its own bound and what
 * is left of the request's, whole batches, the first batch of the first partition with data
 * whole even when larger; the stored bytes walked batch by batch across the pieces a read
 * delivered, cut without copying.
 */
import { describe, expect, it } from "vitest";
import { baseOffsetAt, batchEnds, firstBytes, keptBytes } from "../../../src/gateway/handlers/fetch-limits.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";

/** `count` batches of one record with a `valueBytes` value, at offsets from `baseOffset`. */
function batches(count: number, valueBytes: number, baseOffset = 0): Uint8Array[] {
  return Array.from({ length: count }, (_, i) =>
    encodeRecordBatch([{ key: null, value: new Uint8Array(valueBytes), headers: [], timestamp: 1 }], { baseOffset: baseOffset + i }),
  );
}

/** The batches as one byte string cut into pieces of `pieceBytes` (as a socket delivers them). */
function inPieces(parts: Uint8Array[], pieceBytes: number): { records: Uint8Array[]; bytes: number } {
  const whole = Buffer.concat(parts);
  const records: Uint8Array[] = [];
  for (let at = 0; at < whole.length; at += pieceBytes) records.push(new Uint8Array(whole.subarray(at, at + pieceBytes)));
  return { records, bytes: whole.length };
}

const size = (parts: Uint8Array[]) => parts.reduce((sum, part) => sum + part.byteLength, 0);

describe("a Fetch's byte bounds", () => {
  const one = batches(1, 40)[0]!.byteLength;

  it("walks whole batches across the pieces a read delivered, and reads a batch's base offset there", () => {
    const read = inPieces(batches(5, 40, 100), 7);
    expect(batchEnds(read.records, read.bytes)).toEqual([1, 2, 3, 4, 5].map((n) => n * one));
    expect(baseOffsetAt(read.records, 2 * one)).toBe(102);
    // A batch cut short at the end of a read is not counted.
    expect(batchEnds(read.records, read.bytes - 1)).toEqual([1, 2, 3, 4].map((n) => n * one));
  });

  it("cuts pieces to their first bytes as views of them", () => {
    const read = inPieces(batches(3, 40), 16);
    const kept = firstBytes(read.records, one);
    expect(size(kept)).toBe(one);
    expect(kept.at(-1)!.buffer).toBe(read.records[kept.length - 1]!.buffer);
    expect(Buffer.concat(kept)).toEqual(Buffer.concat(read.records).subarray(0, one));
  });

  it("fills the request's bound in request order with whole batches; what does not fit waits", () => {
    const reads = [0, 1, 2].map(() => ({ ...inPieces(batches(3, 40), 64), partitionMaxBytes: 1 << 20 }));
    expect(keptBytes(reads, 3 * one + one / 2)).toEqual([3 * one, 0, 0]);
    expect(keptBytes(reads, 5 * one)).toEqual([3 * one, 2 * one, 0]);
    expect(keptBytes(reads, 100 * one)).toEqual([3 * one, 3 * one, 3 * one]);
  });

  it("keeps each partition within its own bound", () => {
    const reads = [0, 1].map(() => ({ ...inPieces(batches(3, 40), 64), partitionMaxBytes: 2 * one }));
    expect(keptBytes(reads, 100 * one)).toEqual([2 * one, 2 * one]);
  });

  it("gives the first partition with data its first batch whole when it is larger than the bounds, and no later partition", () => {
    const big = batches(2, 4_000);
    const reads = [
      { records: [], bytes: 0, partitionMaxBytes: 1_000 },
      { ...inPieces(big, 512), partitionMaxBytes: 1_000 },
      { ...inPieces(batches(1, 4_000), 512), partitionMaxBytes: 1_000 },
    ];
    expect(keptBytes(reads, 1_000)).toEqual([0, big[0]!.byteLength, 0]);
  });

  it("keeps or leaves out whole a read whose bytes do not walk as whole batches", () => {
    const odd = { records: [new Uint8Array(30)], bytes: 30, partitionMaxBytes: 1_000 };
    expect(keptBytes([odd, odd, odd], 70)).toEqual([30, 30, 0]);
  });
});
