import type { Isolation } from "../protocol/schemas.ts";

/**
 * Catch-up reads of an immutable range served from the Worker's cache (Cloudflare's Cache
 * API, `caches.default`), so repeating one touches no partition object
 * (docs/durable-streams.md, "Reads and caching"). Only answers that can never change are
 * stored: a read that stopped before the tail (more records follow, so its range is final)
 * or that reached a closed stream's end. The key names the stream's topic id — a recreated
 * stream is another topic —, the offset and the isolation (a read_uncommitted one holds aborted
 * records); the request was authorized before the cache is
 * asked, so every reader allowed to read the stream shares the entry.
 */
export const readCacheSeconds = 60;

/** The cache key of a catch-up read: not a URL anyone can fetch, one per topic id, offset and isolation. */
function cacheKey(topicId: string, from: number, isolation: Isolation): Request {
  return new Request(`https://durable-streams.cache.invalid/${topicId}/${from}${isolation === "read_committed" ? "" : "/uncommitted"}`);
}

/** The Cache API when the runtime has one (workerd has; a test double need not). */
function workerCache(): Cache | undefined {
  return typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
}

export async function cachedRead(topicId: string, from: number, isolation: Isolation): Promise<Response | undefined> {
  return (await workerCache()?.match(cacheKey(topicId, from, isolation))) ?? undefined;
}

/** Stores an immutable read's answer (a copy whose own Cache-Control lets the cache keep it). */
export function storeRead(topicId: string, from: number, isolation: Isolation, response: Response): Promise<void> {
  const cache = workerCache();
  if (!cache) return Promise.resolve();
  const stored = new Response(response.clone().body, response);
  stored.headers.set("Cache-Control", `max-age=${readCacheSeconds}`);
  return cache.put(cacheKey(topicId, from, isolation), stored);
}
