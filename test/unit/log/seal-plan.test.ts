import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planSeal, unsealedBytesBound, type UnsealedBatch } from "../../../src/log/seal-plan.ts";
import { unsealedBytesMax, unsealedSegmentsMax } from "../../../src/limits.ts";

/** Contiguous batches of the given sizes, one record each, appended at `appendedAtMs`. */
function batchesOf(sizes: number[], options: { appendedAtMs?: number; maxTimestamp?: number } = {}): UnsealedBatch[] {
  return sizes.map((bytes, offset) => ({
    baseOffset: offset,
    lastOffset: offset,
    bytes,
    maxTimestamp: options.maxTimestamp ?? 0,
    ...(options.appendedAtMs === undefined ? {} : { appendedAtMs: options.appendedAtMs }),
  }));
}

const base = { segmentBytes: 1_000, segmentMs: 60_000, nowMs: 100_000 };

describe("planSeal", () => {
  it("waits while the committed batches are below segment.bytes and young", () => {
    const batches = batchesOf([300, 300, 300], { appendedAtMs: 90_000 });
    expect(planSeal({ ...base, batches, highWatermark: 3 })).toEqual({ seal: false, nextCheckAtMs: 150_000 });
  });

  it("seals whole batches up to segment.bytes once they reach it", () => {
    const batches = batchesOf([300, 300, 300, 300, 300], { appendedAtMs: 90_000 });
    expect(planSeal({ ...base, batches, highWatermark: 5 })).toEqual({
      seal: true,
      count: 3,
      baseOffset: 0,
      lastOffset: 2,
      bytes: 900,
      reason: "segment.bytes",
    });
    const exact = batchesOf([500, 500, 1]);
    expect(planSeal({ ...base, batches: exact, highWatermark: 3 })).toMatchObject({ seal: true, count: 2, bytes: 1_000 });
  });

  it("seals one batch alone when it is larger than segment.bytes", () => {
    expect(planSeal({ ...base, batches: batchesOf([5_000, 10]), highWatermark: 2 })).toMatchObject({ seal: true, count: 1, bytes: 5_000 });
    expect(planSeal({ ...base, batches: batchesOf([10, 5_000]), highWatermark: 2 })).toMatchObject({ seal: true, count: 1, bytes: 10 });
  });

  it("seals only batches entirely below the high watermark", () => {
    const batches: UnsealedBatch[] = [
      { baseOffset: 0, lastOffset: 4, bytes: 600, maxTimestamp: 0 },
      { baseOffset: 5, lastOffset: 9, bytes: 600, maxTimestamp: 0 },
    ];
    // The second batch straddles the high watermark: not committed, however full the segment.
    expect(planSeal({ ...base, batches, highWatermark: 7, nowMs: 0 })).toEqual({ seal: false, nextCheckAtMs: 60_000 });
    expect(planSeal({ ...base, batches, highWatermark: 10, nowMs: 0 })).toMatchObject({ seal: true, count: 1, reason: "segment.bytes" });
    expect(planSeal({ ...base, batches, highWatermark: 0 })).toEqual({ seal: false, nextCheckAtMs: undefined });
    expect(planSeal({ ...base, batches: [], highWatermark: 10 })).toEqual({ seal: false, nextCheckAtMs: undefined });
  });

  it("seals everything committed once the oldest batch is segment.ms old, counting from its append time", () => {
    const batches = batchesOf([100, 100, 100], { appendedAtMs: 40_000, maxTimestamp: 99_999 });
    expect(planSeal({ ...base, batches, highWatermark: 2 })).toEqual({
      seal: true,
      count: 2,
      baseOffset: 0,
      lastOffset: 1,
      bytes: 200,
      reason: "segment.ms",
    });
    expect(planSeal({ ...base, batches, highWatermark: 2, nowMs: 99_999 })).toEqual({ seal: false, nextCheckAtMs: 100_000 });
  });

  it("counts age from the batch's max timestamp when the store keeps no append time", () => {
    const batches = batchesOf([100], { maxTimestamp: 30_000 });
    expect(planSeal({ ...base, batches, highWatermark: 1 })).toMatchObject({ seal: true, reason: "segment.ms" });
    expect(planSeal({ ...base, batches, highWatermark: 1, nowMs: 80_000 })).toEqual({ seal: false, nextCheckAtMs: 90_000 });
  });

  it("reads no further than one segment and the batch after it", () => {
    let read = 0;
    function* lazily(): Generator<UnsealedBatch> {
      for (let offset = 0; ; offset++) {
        read++;
        yield { baseOffset: offset, lastOffset: offset, bytes: 100, maxTimestamp: 0 };
      }
    }
    expect(planSeal({ ...base, batches: lazily(), highWatermark: Number.MAX_SAFE_INTEGER })).toMatchObject({ count: 10 });
    expect(read).toBe(10);
  });

  it("refuses batches out of order and nonsense configs", () => {
    const batches = [...batchesOf([10, 10]), { baseOffset: 1, lastOffset: 1, bytes: 10, maxTimestamp: 0 }];
    expect(() => planSeal({ ...base, batches, highWatermark: 3 })).toThrow(RangeError);
    expect(() => planSeal({ ...base, batches: [], highWatermark: 0, segmentBytes: 0 })).toThrow(RangeError);
    expect(() => planSeal({ ...base, batches: [], highWatermark: 0, segmentMs: 0 })).toThrow(RangeError);
  });

  it("never seals past the high watermark, nor past segment.bytes but for one batch", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3_000 }), { maxLength: 30 }),
        fc.nat({ max: 35 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        (sizes, highWatermark, segmentBytes, nowMs) => {
          const batches = batchesOf(sizes, { appendedAtMs: 50_000 });
          const plan = planSeal({ batches, highWatermark, segmentBytes, segmentMs: 60_000, nowMs });
          const committed = sizes.slice(0, highWatermark);
          const committedBytes = committed.reduce((sum, size) => sum + size, 0);
          if (!plan.seal) {
            expect(committedBytes < segmentBytes || committed.length === 0).toBe(true);
            return;
          }
          expect(plan.lastOffset).toBeLessThan(highWatermark);
          expect(plan.bytes).toBe(sizes.slice(0, plan.count).reduce((sum, size) => sum + size, 0));
          if (plan.count > 1) expect(plan.bytes).toBeLessThanOrEqual(segmentBytes);
          const next = sizes[plan.count];
          // Whole batches while they fit: the next committed one would not have.
          if (next !== undefined && plan.count < committed.length && plan.bytes < segmentBytes) {
            expect(plan.bytes + next).toBeGreaterThan(segmentBytes);
          }
          if (plan.reason === "segment.ms") expect(nowMs).toBeGreaterThanOrEqual(110_000);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("unsealedBytesBound", () => {
  it("is a few segments, never past unsealedBytesMax", () => {
    expect(unsealedBytesBound(1 << 20)).toBe(unsealedSegmentsMax << 20);
    expect(unsealedBytesBound(Number.MAX_SAFE_INTEGER)).toBe(unsealedBytesMax);
  });
});
