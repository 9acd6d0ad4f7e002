/**
 * The router's R2 reader (src/data-plane/sealed-reads.ts) against a manifest that changes between
 * its manifest read and its segment read, forced by a bucket that runs the change at that very
 * moment: a deleted segment is never served (from R2 or from the Cache API), a compaction
 * swap is followed to the new generation, and retries are bounded before the partition object
 * takes over. Segments and manifests are written straight to workerd's R2, as a leader would.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { publishedManifest, sealedManifestKey } from "../../../src/log/sealed-manifest.ts";
import { encodeSegment } from "../../../src/log/segment-format.ts";
import { segmentManifestEntry, type SegmentManifestEntry } from "../../../src/log/segment-manifest.ts";
import type { StoredBatch } from "../../../src/log/log-store.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { readSealedBatches, sealedReadStats, type SealedStorage } from "../../../src/data-plane/sealed-reads.ts";
import { concat } from "../support/http.ts";

const utf8 = new TextEncoder();

/** Batches of 5 records for [from, to), values naming their offset and `tag` (a generation's content). */
function batches(from: number, to: number, tag: string): StoredBatch[] {
  const out: StoredBatch[] = [];
  for (let base = from; base < to; base += 5) {
    const records = Array.from({ length: Math.min(5, to - base) }, (_, index) => ({
      key: utf8.encode(`k${base + index}`),
      value: utf8.encode(`${tag}:${base + index}:${"r".repeat(500)}`),
      headers: [],
      timestamp: 1_000 + base + index,
    }));
    const bytes = encodeRecordBatch(records, { baseOffset: base });
    out.push({ baseOffset: base, lastOffset: base + records.length - 1, leaderEpoch: -1, maxTimestamp: 1_000 + base + records.length - 1, recordCount: records.length, bytes });
  }
  return out;
}

interface Written {
  entry: SegmentManifestEntry;
  batches: StoredBatch[];
}

/** The bytes of a written segment's batches [from, to) (by position), as a fetch carries them. */
function bytesOf(written: Written, from: number, to: number): Uint8Array {
  return concat(...written.batches.slice(from, to).map((batch) => batch.bytes));
}

async function writeSegment(topicId: string, from: number, to: number, generation: number, tag: string): Promise<Written> {
  const stored = batches(from, to, tag);
  const encoded = encodeSegment(stored, { indexIntervalBytes: 0 });
  const entry = segmentManifestEntry({ topicId, partition: 0, baseOffset: from, lastOffset: to - 1, generation, encoded });
  await env.SEGMENTS.put(entry.objectKey, encoded.bytes);
  return { entry, batches: stored };
}

async function publish(topicId: string, segments: Written[], logStartOffset: number, highWatermark: number): Promise<void> {
  const manifest = publishedManifest(segments.map((segment) => segment.entry), logStartOffset, highWatermark);
  await env.SEGMENTS.put(sealedManifestKey(topicId, 0), JSON.stringify(manifest));
}

/**
 * The real bucket, except that the read of `objectKey`'s batches (its second get: the first
 * is its index) first runs `swap` — the leader's retention or compaction landing between the
 * reader's manifest read and its segment read. Counts every get.
 */
function racingBucket(objectKey: string, swap: () => Promise<void>): { bucket: SealedStorage["bucket"]; gets: string[] } {
  const gets: string[] = [];
  const bucket = {
    get: async (key: string, options?: R2GetOptions) => {
      gets.push(key);
      // The first get of the object is its index (its tail); the second, its batches.
      if (key === objectKey && gets.filter((got) => got === objectKey).length === 2) await swap();
      return env.SEGMENTS.get(key, options);
    },
  } as SealedStorage["bucket"];
  return { bucket, gets };
}

const limits = { maxRecords: 10, maxBytes: 1_000_000 };

describe("R2-served reads racing a manifest swap", () => {
  it("never serve a segment retention deleted between the manifest read and the segment read: the partition object answers", async () => {
    const topicId = crypto.randomUUID();
    const old = await writeSegment(topicId, 0, 50, 0, "g0");
    const kept = await writeSegment(topicId, 50, 100, 0, "g0");
    await publish(topicId, [old, kept], 0, 100);
    const { bucket, gets } = racingBucket(old.entry.objectKey, async () => {
      await publish(topicId, [kept], 50, 100); // retention: published first,
      await env.SEGMENTS.delete(old.entry.objectKey); // then deleted
    });
    const read = await readSealedBatches({ bucket, cache: undefined }, topicId, 0, { offset: 0, ...limits });
    expect(read).toBeUndefined();
    // The segment read 404'd, the fresh manifest put offset 0 below the log start: its index, its
    // batches (gone), and at most the stale copy's guess beside the second manifest read (gone too).
    expect(gets.filter((key) => key === old.entry.objectKey).length).toBeLessThanOrEqual(3);
    // Past the new start, the kept segment is served.
    const after = await readSealedBatches({ bucket, cache: undefined }, topicId, 0, { offset: 60, ...limits });
    expect(after?.logStartOffset).toBe(50);
    expect(concat(...after!.batches)).toEqual(bytesOf(kept, 2, 4));
  });

  it("never serve a deleted segment's range from the Cache API once the manifest moved past it", async () => {
    const topicId = crypto.randomUUID();
    const old = await writeSegment(topicId, 0, 50, 0, "g0");
    const kept = await writeSegment(topicId, 50, 100, 0, "g0");
    await publish(topicId, [old, kept], 0, 100);
    const storage: SealedStorage = { bucket: env.SEGMENTS, cache: caches.default };
    for (let read = 0; read < 2; read++) { // the second read from R2 puts the range into the cache
      const fromR2 = await readSealedBatches(storage, topicId, 0, { offset: 0, ...limits });
      expect(concat(...fromR2!.batches)).toEqual(bytesOf(old, 0, 2));
    }
    const hits = sealedReadStats.cacheHits;
    const again = await readSealedBatches(storage, topicId, 0, { offset: 0, ...limits });
    expect(concat(...again!.batches)).toEqual(bytesOf(old, 0, 2));
    expect(sealedReadStats.cacheHits).toBe(hits + 1); // the range came from the Cache API (the index from memory)
    // Retention: the manifest moves, the object goes; the range may still be in the cache.
    await publish(topicId, [kept], 50, 100);
    await env.SEGMENTS.delete(old.entry.objectKey);
    expect(await readSealedBatches(storage, topicId, 0, { offset: 0, ...limits })).toBeUndefined();
  });

  it("put a range of batches into the Cache API on its second read from R2, not its first, and serve it from there after", async () => {
    const topicId = crypto.randomUUID();
    const segment = await writeSegment(topicId, 0, 50, 0, "g0");
    await publish(topicId, [segment], 0, 50);
    const storage: SealedStorage = { bucket: env.SEGMENTS, cache: caches.default };
    const read = async () => concat(...(await readSealedBatches(storage, topicId, 0, { offset: 10, ...limits }))!.batches);
    const counts = () => ({ rangeReads: sealedReadStats.rangeReads, cachePuts: sealedReadStats.cachePuts, cacheHits: sealedReadStats.cacheHits });
    const before = counts();
    // A one-pass reader: the segment's index and the range from R2; only the index is cached (every isolate reads it once).
    expect(await read()).toEqual(bytesOf(segment, 2, 4));
    expect(counts()).toEqual({ ...before, rangeReads: before.rangeReads + 2, cachePuts: before.cachePuts + 1 });
    expect(await read()).toEqual(bytesOf(segment, 2, 4)); // read again: the range from R2 (the index from memory), and now cached
    expect(counts()).toEqual({ ...before, rangeReads: before.rangeReads + 3, cachePuts: before.cachePuts + 2 });
    expect(await read()).toEqual(bytesOf(segment, 2, 4)); // every read after: the Cache API
    expect(await read()).toEqual(bytesOf(segment, 2, 4));
    expect(counts()).toEqual({ rangeReads: before.rangeReads + 3, cachePuts: before.cachePuts + 2, cacheHits: before.cacheHits + 2 });
  });

  it("follow a compaction swap to the new generation when the old one is deleted mid-read", async () => {
    const topicId = crypto.randomUUID();
    const generation0 = await writeSegment(topicId, 0, 100, 0, "g0");
    await publish(topicId, [generation0], 0, 100);
    const generation1 = await writeSegment(topicId, 0, 100, 1, "g1");
    const { bucket } = racingBucket(generation0.entry.objectKey, async () => {
      await publish(topicId, [generation1], 0, 100);
      await env.SEGMENTS.delete(generation0.entry.objectKey);
    });
    const read = await readSealedBatches({ bucket, cache: undefined }, topicId, 0, { offset: 20, ...limits });
    expect(concat(...read!.batches)).toEqual(bytesOf(generation1, 4, 6));
  });

  it("give the fetch to the partition object after one retry when segments keep vanishing", async () => {
    const topicId = crypto.randomUUID();
    const segment = await writeSegment(topicId, 0, 50, 0, "g0");
    await publish(topicId, [segment], 0, 50);
    const gets: string[] = [];
    const bucket = {
      get: async (key: string, options?: R2GetOptions) => {
        gets.push(key);
        return key === segment.entry.objectKey ? null : env.SEGMENTS.get(key, options);
      },
    } as SealedStorage["bucket"];
    expect(await readSealedBatches({ bucket, cache: undefined }, topicId, 0, { offset: 0, ...limits })).toBeUndefined();
    expect(gets.filter((key) => key === segment.entry.objectKey).length).toBe(2);
  });

  it("leave offsets past the sealed segments, and partitions that published nothing, to the partition object", async () => {
    const topicId = crypto.randomUUID();
    const storage: SealedStorage = { bucket: env.SEGMENTS, cache: undefined };
    expect(await readSealedBatches(storage, topicId, 0, { offset: 0, ...limits })).toBeUndefined();
    const segment = await writeSegment(topicId, 0, 50, 0, "g0");
    await publish(topicId, [segment], 0, 70);
    // The copy that said "nothing published" is young: still the object's, without asking R2.
    expect(await readSealedBatches(storage, topicId, 0, { offset: 0, ...limits })).toBeUndefined();
    const other = crypto.randomUUID();
    const sealed = await writeSegment(other, 0, 50, 0, "g0");
    await publish(other, [sealed], 0, 70);
    expect(await readSealedBatches(storage, other, 0, { offset: 50, ...limits })).toBeUndefined();
    const served = await readSealedBatches(storage, other, 0, { offset: 49, ...limits });
    expect(served).toMatchObject({ highWatermark: 70, logStartOffset: 0 });
  });
});
