/**
 * Catch-up reads served by the router from R2 (ARCHITECTURE.md decisions 11 and 15): a fetch
 * whose offset is in a sealed segment is answered from the segment object, through the
 * partition's published manifest (src/log/sealed-manifest.ts), without a request to the
 * partition object. Per isolate: the manifests (bounded, src/limits.ts) and the decoded
 * segment indexes; in front of R2, Cloudflare's Cache API holds immutable segment ranges,
 * keyed by object key and range. A range of batches goes into the cache when an isolate reads
 * it from R2 the second time (a one-pass catch-up, the usual one, writes nothing there;
 * readers after the second find it cached): a put costs about as much as the read itself. A
 * segment's index, which every isolate reads once, is cached at its first read.
 *
 * Freshness: a fetch inside the sealed range revalidates the manifest (a conditional R2 read
 * that carries no body when nothing changed; the segment read the cached copy plans runs
 * beside it and is kept only when the copy is confirmed), so it serves the log as of that read —
 * never below the log start then, never a segment retention or compaction had already
 * swapped out (the leader publishes before it deletes). A segment gone by the time its bytes
 * are read (a swap in between) is retried once with a fresh manifest, then the fetch goes to
 * the partition object. A fetch past the sealed range goes to the object without asking R2
 * while the copy is younger than sealedManifestTtlMs. The answer's highWatermark is the one
 * the manifest was published with: possibly below today's (docs/api.md), but always above the
 * answer's end — a fetch that would reach it goes to the partition object, so no reader is
 * told it has caught up by a stale high watermark.
 */
import { waitUntil } from "cloudflare:workers";
import {
  sealedIndexRunsCachedMax,
  sealedManifestSegmentsCachedMax,
  sealedManifestsCachedMax,
  sealedManifestTtlMs,
  sealedRangesReadOnceMax,
  sealedReadAttemptsMax,
} from "../limits.ts";
import type { ReadResult } from "../log/partition-log.ts";
import { decodeSegmentIndex, type SegmentIndexEntry } from "../log/segment-format.ts";
import { byteRangeFor } from "../log/segment-manifest.ts";
import {
  checkIndexFits,
  parsePublishedManifest,
  planSealedRead,
  sealedManifestKey,
  type PublishedManifest,
  type PublishedSegment,
} from "../log/sealed-manifest.ts";
import { splitBatches } from "../protocol/record-batch.ts";
import { WeightedLru } from "./weighted-lru.ts";
import { meteredBucket } from "../contracts/billing-meter.ts";

/** Where sealed bytes come from: the segments' bucket and, where there is one, the Cache API. */
export interface SealedStorage {
  bucket: Pick<R2Bucket, "get">;
  cache: Cache | undefined;
  /** Runs a cache write after the answer (the invocation's waitUntil); without it the read awaits the write. */
  defer?: (promise: Promise<unknown>) => void;
}

export interface SealedReadOptions {
  offset: number;
  maxRecords: number;
  maxBytes: number;
}

interface CachedManifest {
  /** Undefined when the partition published none (or an unreadable one). */
  manifest: PublishedManifest | undefined;
  etag: string | undefined;
  checkedAtMs: number;
}

/** What this isolate did, for tests and debugging. */
export const sealedReadStats = { served: 0, fellBack: 0, manifestChecks: 0, manifestBodies: 0, rangeReads: 0, cacheHits: 0, cachePuts: 0, segmentsGone: 0 };

const manifests = new WeightedLru<CachedManifest>(sealedManifestsCachedMax, sealedManifestSegmentsCachedMax);
const indexes = new WeightedLru<SegmentIndexEntry[]>(Number.MAX_SAFE_INTEGER, sealedIndexRunsCachedMax);
/** Cache keys of the ranges this isolate has read from R2 once and not put into the cache. */
const rangesReadOnce = new WeightedLru<true>(sealedRangesReadOnceMax, sealedRangesReadOnceMax);
/** Cache API keys: a URL per object range; the host is never fetched. */
const cacheOrigin = "https://sealed-segments.tributary.invalid/";
const immutableHeaders = { "Content-Type": "application/octet-stream", "Cache-Control": "public, max-age=31536000, immutable" };

/** The bucket of env, the default cache (absent outside workerd), cache writes after the answer. */
export function sealedStorage(env: Env): SealedStorage {
  return { bucket: meteredBucket(env, env.SEGMENTS), cache: typeof caches === "undefined" ? undefined : caches.default, defer: waitUntil };
}

/**
 * Whole stored batches from `offset` read from one sealed segment — the same range the
 * partition object's own sealed read takes, so the same bytes — or undefined when the
 * partition object must answer: the offset is below the log start or past the sealed
 * segments, nothing is published, or R2 failed or kept answering with gone segments.
 */
export async function readSealedBatches(storage: SealedStorage, topicId: string, partition: number, options: SealedReadOptions): Promise<ReadResult | undefined> {
  const key = sealedManifestKey(topicId, partition);
  const cached = manifests.get(key);
  if (cached && Date.now() - cached.checkedAtMs < sealedManifestTtlMs && !(cached.manifest && planSealedRead(cached.manifest, options.offset))) {
    return undefined; // past what is sealed, as of a copy young enough: the object's
  }
  try {
    for (let attempt = 0; attempt < sealedReadAttemptsMax; attempt++) {
      // The read the copy in hand plans starts at once, beside the revalidation: used only if
      // the manifest turns out unchanged (the same etag: current throughout, so was its segment).
      const known = manifests.get(key)?.manifest;
      const guess = known && planSealedRead(known, options.offset);
      const early = guess ? readSegment(storage, guess, known.highWatermark, options).catch(() => undefined) : undefined;
      const manifest = await revalidatedManifest(storage, key);
      const segment = manifest && planSealedRead(manifest, options.offset);
      if (!manifest || !segment) return undefined;
      const batches = early && manifest === known ? await early : await readSegment(storage, segment, manifest.highWatermark, options);
      if (batches === undefined) {
        sealedReadStats.segmentsGone++;
        continue;
      }
      if (batches === "object") return undefined;
      if (batches.length === 0) break;
      sealedReadStats.served++;
      return { batches, logStartOffset: manifest.logStartOffset, highWatermark: manifest.highWatermark };
    }
  } catch (error) {
    console.error(`sealed read of ${key} failed; the partition object serves it`, error);
  }
  sealedReadStats.fellBack++;
  return undefined;
}

/** The partition's manifest as R2 holds it now: the cached copy when its etag still matches, else the new one. */
async function revalidatedManifest(storage: SealedStorage, key: string): Promise<PublishedManifest | undefined> {
  const cached = manifests.get(key);
  const checkedAtMs = Date.now();
  sealedReadStats.manifestChecks++;
  const object = await storage.bucket.get(key, cached?.etag ? { onlyIf: { etagDoesNotMatch: cached.etag } } : {});
  let fresh: CachedManifest;
  if (object === null) {
    fresh = { manifest: undefined, etag: undefined, checkedAtMs };
  } else if (!("body" in object) && cached) {
    fresh = { ...cached, checkedAtMs }; // unchanged: R2 sent no body
  } else {
    sealedReadStats.manifestBodies++;
    const text = "body" in object ? await object.text() : "";
    fresh = { manifest: parseOrUndefined(text, key), etag: object.etag, checkedAtMs };
  }
  manifests.set(key, fresh, fresh.manifest?.segments.length ?? 0);
  return fresh.manifest;
}

function parseOrUndefined(text: string, key: string): PublishedManifest | undefined {
  try {
    return parsePublishedManifest(text);
  } catch (error) {
    console.error(`${key}:`, error);
    return undefined;
  }
}

/**
 * The batches of `segment` from `offset` within the limits; undefined when its object is gone;
 * "object" when they would reach the manifest's high watermark: an answer that ends there
 * would tell the reader it has caught up, so the partition object gives it, with the current
 * high watermark (once per pass over the log).
 */
async function readSegment(storage: SealedStorage, segment: PublishedSegment, highWatermark: number, options: SealedReadOptions): Promise<Uint8Array[] | "object" | undefined> {
  const index = await segmentIndex(storage, segment);
  if (index === undefined) return undefined;
  const range = byteRangeFor({ index }, options.offset, options.maxBytes, options.maxRecords);
  if (range === undefined) return [];
  if (range.nextOffset >= highWatermark) return "object";
  const bytes = await readRange(storage, segment.objectKey, range.position, range.length, "second read");
  if (bytes === undefined) return undefined;
  return [...splitBatches(bytes)].map(({ start, end }) => bytes.subarray(start, end));
}

/** A segment's index, from this isolate's memory or the object's tail. */
async function segmentIndex(storage: SealedStorage, segment: PublishedSegment): Promise<SegmentIndexEntry[] | undefined> {
  const known = indexes.get(segment.objectKey);
  if (known) return known;
  // Every isolate reads a segment's index once (then keeps it decoded): cached at its first read.
  const tail = await readRange(storage, segment.objectKey, segment.bytes - segment.indexBytes, segment.indexBytes, "first read");
  if (tail === undefined) return undefined;
  const index = decodeSegmentIndex(tail, segment.bytes);
  checkIndexFits(segment, index);
  indexes.set(segment.objectKey, index, index.length);
  return index;
}

/**
 * Bytes [position, position + length) of an immutable segment object: the Cache API, else R2,
 * then put into the cache at this isolate's first or second read of the range from R2.
 */
async function readRange(
  storage: SealedStorage,
  objectKey: string,
  position: number,
  length: number,
  cachedAt: "first read" | "second read",
): Promise<Uint8Array | undefined> {
  const cacheKey = `${cacheOrigin}${objectKey}?bytes=${position}-${position + length - 1}`;
  const hit = await storage.cache?.match(cacheKey);
  if (hit) {
    sealedReadStats.cacheHits++;
    return new Uint8Array(await hit.arrayBuffer());
  }
  sealedReadStats.rangeReads++;
  const object = await storage.bucket.get(objectKey, { range: { offset: position, length } });
  if (object === null) return undefined;
  const bytes = new Uint8Array(await object.arrayBuffer());
  if (bytes.length !== length) throw new Error(`${objectKey}: ${bytes.length} bytes at ${position}, expected ${length}`);
  if (storage.cache && (cachedAt === "first read" || readFromR2Before(cacheKey))) {
    sealedReadStats.cachePuts++;
    const written = storage.cache.put(cacheKey, new Response(bytes.slice(), { headers: immutableHeaders })).catch((error: unknown) => console.error(`caching ${cacheKey} failed`, error));
    if (storage.defer) storage.defer(written);
    else await written;
  }
  return bytes;
}

/** Whether this isolate read the range from R2 before (it is then forgotten: the caller caches it); if not, it is remembered. */
function readFromR2Before(cacheKey: string): boolean {
  if (rangesReadOnce.get(cacheKey) === undefined) {
    rangesReadOnce.set(cacheKey, true, 1);
    return false;
  }
  rangesReadOnce.delete(cacheKey);
  return true;
}
