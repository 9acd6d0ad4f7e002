/**
 * The manifest a leader publishes for the router's R2 reads (src/log/sealed-manifest.ts):
 * built from the leader's own manifest, parsed back strictly, and the plan of which segment
 * serves a fetch — with the same range the partition object's own sealed read takes.
 */
import { describe, expect, it } from "vitest";
import type { StoredBatch } from "../../../src/log/log-store.ts";
import {
  checkIndexFits,
  parsePublishedManifest,
  planSealedRead,
  publishedManifest,
  sealedManifestKey,
  SealedManifestError,
  type PublishedManifest,
} from "../../../src/log/sealed-manifest.ts";
import { decodeSegmentIndex } from "../../../src/log/segment-format.ts";
import { byteRangeFor, findSegment } from "../../../src/log/segment-manifest.ts";
import { batchAt, record, sealedSegment } from "./fixtures/tier-batches.ts";

function batchOf(baseOffset: number, count: number): StoredBatch {
  return batchAt(baseOffset, Array.from({ length: count }, (_, i) => record(`k${baseOffset + i}`, `v${baseOffset + i}`, 1_000 + i)));
}

/** Three segments: [0, 9], [10, 29] and, after a range compaction emptied ([30, 39]), [40, 49]. */
function threeSegments() {
  return [
    sealedSegment([batchOf(0, 5), batchOf(5, 5)]),
    sealedSegment([batchOf(10, 10), batchOf(20, 10)]),
    sealedSegment([batchOf(42, 8)], { baseOffset: 40, lastOffset: 49, generation: 1 }),
  ];
}

describe("the published manifest", () => {
  it("lists each segment without its index, with the bytes of its index and footer, and parses back", () => {
    const segments = threeSegments();
    const published = publishedManifest(segments.map((segment) => segment.entry), 0, 55);
    expect(sealedManifestKey("topic-id", 3)).toBe("topic-id/3/manifest.json");
    expect(published.segments[1]).toEqual({ baseOffset: 10, lastOffset: 29, objectKey: "topic-id/0/10-0.seg", bytes: segments[1]!.bytes.length, indexBytes: 2 * 36 + 22 });
    expect(parsePublishedManifest(JSON.stringify(published))).toEqual(published);
    // The tail indexBytes long is exactly the object's index, which decodes to the leader's.
    for (const [at, segment] of segments.entries()) {
      const listed = published.segments[at]!;
      const index = decodeSegmentIndex(segment.bytes.subarray(listed.bytes - listed.indexBytes), listed.bytes);
      expect(index).toEqual(segment.entry.index);
      expect(() => checkIndexFits(listed, index)).not.toThrow();
    }
    expect(() => checkIndexFits(published.segments[0]!, segments[1]!.entry.index)).toThrow(SealedManifestError);
  });

  it("refuses anything malformed: not JSON, another format, bounds, overlaps, segments at or past the high watermark or below the start", () => {
    const good = publishedManifest(threeSegments().map((segment) => segment.entry), 0, 55);
    const variants: unknown[] = [
      { ...good, format: 2 },
      { ...good, logStartOffset: 60 },
      { ...good, highWatermark: -1 },
      { ...good, segments: "none" },
      { ...good, segments: [good.segments[1], good.segments[0]] },
      { ...good, highWatermark: 49 },
      { ...good, logStartOffset: 10 },
      { ...good, segments: [{ ...good.segments[0], indexBytes: 3 }] },
      { ...good, segments: [{ ...good.segments[0], objectKey: 7 }] },
      { ...good, segments: [null] },
    ];
    expect(() => parsePublishedManifest("{")).toThrow(SealedManifestError);
    expect(() => parsePublishedManifest("null")).toThrow(SealedManifestError);
    for (const variant of variants) expect(() => parsePublishedManifest(JSON.stringify(variant)), JSON.stringify(variant).slice(0, 80)).toThrow(SealedManifestError);
  });

  it("takes a log start inside the first segment (DeleteRecords moves it to any offset), and plans no read below it", () => {
    const published = { ...publishedManifest(threeSegments().map((segment) => segment.entry), 0, 55), logStartOffset: 5 };
    expect(parsePublishedManifest(JSON.stringify(published))).toEqual(published);
    expect(planSealedRead(published, 4)).toBeUndefined();
    expect(planSealedRead(published, 5)?.baseOffset).toBe(0);
  });
});

describe("planning a sealed read", () => {
  const segments = threeSegments();
  const entries = segments.map((segment) => segment.entry);
  const published: PublishedManifest = publishedManifest(entries, 0, 55);

  it("takes the segment holding the offset, or the first after a compaction gap, as the partition object's sealed read does", () => {
    for (const offset of [0, 9, 10, 25, 29, 30, 35, 40, 49]) {
      const planned = planSealedRead(published, offset);
      const objects = findSegment(entries, offset);
      expect(planned?.objectKey, String(offset)).toBe(objects?.objectKey);
      // The same index gives the same byte range: the same bytes served.
      expect(byteRangeFor({ index: objects!.index }, offset, 1_000, 7)).toEqual(byteRangeFor(objects!, offset, 1_000, 7));
    }
  });

  it("leaves offsets below the log start and past the last sealed offset to the partition object", () => {
    expect(planSealedRead(published, 50)).toBeUndefined();
    expect(planSealedRead(published, 54)).toBeUndefined();
    const retained = publishedManifest(entries.slice(1), 10, 55);
    expect(planSealedRead(retained, 9)).toBeUndefined();
    expect(planSealedRead(retained, 10)?.baseOffset).toBe(10);
    const empty = publishedManifest([], 12, 12);
    expect(planSealedRead(empty, 12)).toBeUndefined();
  });
});
