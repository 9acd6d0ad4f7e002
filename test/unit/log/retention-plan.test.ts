import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planRetention } from "../../../src/log/retention-plan.ts";
import type { SegmentManifestEntry } from "../../../src/log/segment-manifest.ts";

/** Manifest entries of 10 offsets each with the given sizes and max timestamps; retention reads nothing else. */
function manifestOf(segments: { bytes: number; maxTimestamp: number }[]): SegmentManifestEntry[] {
  return segments.map(({ bytes, maxTimestamp }, i) => ({
    baseOffset: i * 10,
    lastOffset: i * 10 + 9,
    generation: 0,
    objectKey: `t/0/${i * 10}-0.seg`,
    bytes,
    maxTimestamp,
    index: [],
  }));
}

const keepAll = { retentionMs: -1, retentionBytes: -1, nowMs: 1_000_000, activeBytes: 0 };

describe("planRetention", () => {
  it("deletes leading segments older than retention.ms and moves the log start past them", () => {
    const manifest = manifestOf([
      { bytes: 100, maxTimestamp: 1_000 },
      { bytes: 100, maxTimestamp: 5_000 },
      { bytes: 100, maxTimestamp: 9_000 },
    ]);
    const plan = planRetention(manifest, { ...keepAll, retentionMs: 4_000, nowMs: 10_000 });
    expect(plan).toEqual({ deleted: manifest.slice(0, 2), logStartOffset: 20, byTime: 2, bySize: 0 });
    // Exactly retention.ms old is kept: Kafka deletes when now − largest timestamp > retention.ms.
    expect(planRetention(manifest, { ...keepAll, retentionMs: 5_000, nowMs: 10_000 }).byTime).toBe(1);
  });

  it("deletes only a prefix: a young segment shields older ones after it", () => {
    const manifest = manifestOf([
      { bytes: 100, maxTimestamp: 9_500 },
      { bytes: 100, maxTimestamp: 1_000 },
    ]);
    expect(planRetention(manifest, { ...keepAll, retentionMs: 4_000, nowMs: 10_000 })).toMatchObject({ deleted: [], logStartOffset: undefined });
  });

  it("deletes the oldest segments while the log stays at or above retention.bytes, SQLite tier included", () => {
    const manifest = manifestOf([
      { bytes: 100, maxTimestamp: 0 },
      { bytes: 200, maxTimestamp: 0 },
      { bytes: 300, maxTimestamp: 0 },
    ]);
    // 600 sealed + 150 active = 750 against 400: deleting 100 then 200 leaves 450 ≥ 400; 300 more would leave 150.
    expect(planRetention(manifest, { ...keepAll, retentionBytes: 400, activeBytes: 150 })).toMatchObject({ bySize: 2, logStartOffset: 20 });
    expect(planRetention(manifest, { ...keepAll, retentionBytes: 450, activeBytes: 150 })).toMatchObject({ bySize: 2 });
    expect(planRetention(manifest, { ...keepAll, retentionBytes: 451, activeBytes: 150 })).toMatchObject({ bySize: 1 });
    expect(planRetention(manifest, { ...keepAll, retentionBytes: 0, activeBytes: 150 })).toMatchObject({ bySize: 3, logStartOffset: 30 });
    expect(planRetention(manifest, { ...keepAll, retentionBytes: 750, activeBytes: 150 })).toMatchObject({ bySize: 0, deleted: [] });
  });

  it("applies both rules: the longer prefix goes", () => {
    const manifest = manifestOf([
      { bytes: 100, maxTimestamp: 1_000 },
      { bytes: 100, maxTimestamp: 2_000 },
      { bytes: 100, maxTimestamp: 9_000 },
    ]);
    const bySize = planRetention(manifest, { retentionMs: 8_500, retentionBytes: 100, nowMs: 10_000, activeBytes: 0 });
    expect(bySize).toMatchObject({ byTime: 1, bySize: 2, logStartOffset: 20 });
    expect(bySize.deleted).toEqual(manifest.slice(0, 2));
    const byTime = planRetention(manifest, { retentionMs: 7_500, retentionBytes: 250, nowMs: 10_000, activeBytes: 0 });
    expect(byTime).toMatchObject({ byTime: 2, bySize: 0, logStartOffset: 20 });
  });

  it("keeps everything with −1 for both, and with no segments", () => {
    const manifest = manifestOf([{ bytes: 1 << 30, maxTimestamp: 0 }]);
    expect(planRetention(manifest, keepAll)).toEqual({ deleted: [], logStartOffset: undefined, byTime: 0, bySize: 0 });
    expect(planRetention([], { ...keepAll, retentionMs: 0, retentionBytes: 0 }).deleted).toEqual([]);
    expect(() => planRetention(manifest, { ...keepAll, retentionMs: -2 })).toThrow(RangeError);
  });

  it("a start asked for (DeleteRecords): every segment ending before it goes, the one holding it stays, the start is exact", () => {
    const manifest = manifestOf([
      { bytes: 100, maxTimestamp: 0 },
      { bytes: 100, maxTimestamp: 0 },
      { bytes: 100, maxTimestamp: 0 },
    ]);
    expect(planRetention(manifest, { ...keepAll, logStartOffset: 15 })).toEqual({ deleted: manifest.slice(0, 1), logStartOffset: 15, byTime: 0, bySize: 0 });
    expect(planRetention(manifest, { ...keepAll, logStartOffset: 20 })).toMatchObject({ deleted: manifest.slice(0, 2), logStartOffset: 20 });
    // Past every segment (the rest is in the SQLite tier): all of them go.
    expect(planRetention(manifest, { ...keepAll, logStartOffset: 42 })).toMatchObject({ deleted: manifest, logStartOffset: 42 });
    // Below the start asked for nothing is deleted, and the start stays as asked.
    expect(planRetention(manifest, { ...keepAll, logStartOffset: 5 })).toMatchObject({ deleted: [], logStartOffset: 5 });
    // The rules may go further than the start asked for: the larger start wins.
    expect(planRetention(manifest, { ...keepAll, retentionBytes: 0, logStartOffset: 15 })).toMatchObject({ deleted: manifest, logStartOffset: 30 });
    expect(() => planRetention(manifest, { ...keepAll, logStartOffset: -1 })).toThrow(RangeError);
  });

  it("by size: never below retention.bytes, and above it by less than the next segment", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1_000 }), { maxLength: 20 }),
        fc.nat({ max: 2_000 }),
        fc.nat({ max: 20_000 }),
        (sizes, activeBytes, retentionBytes) => {
          const manifest = manifestOf(sizes.map((bytes) => ({ bytes, maxTimestamp: 0 })));
          const plan = planRetention(manifest, { ...keepAll, retentionBytes, activeBytes });
          const total = sizes.reduce((sum, size) => sum + size, activeBytes);
          const remaining = total - plan.deleted.reduce((sum, entry) => sum + entry.bytes, 0);
          if (plan.deleted.length > 0) expect(remaining).toBeGreaterThanOrEqual(retentionBytes);
          const next = sizes[plan.deleted.length];
          if (next !== undefined) expect(remaining - next).toBeLessThan(retentionBytes);
        },
      ),
      { numRuns: 300 },
    );
  });
});
