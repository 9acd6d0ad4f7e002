/**
 * Topic metadata as the client caches it: a topic's description, trusted for at most 5 s
 * (API.md: metadata changes take effect everywhere within 5 seconds), refreshed early when an
 * answer says it is stale (UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER). Concurrent
 * lookups of one topic share one request.
 */
import { path, type Transport } from "./transport.ts";
import type { ClientLog } from "./logger.ts";
import { withRetries, type RetryPolicy } from "./retry.ts";
import type { Topic } from "./types.ts";

/** API.md's propagation bound: a cache older than this could miss a change the server made. */
export const metadataMaxAgeMsMax = 5_000;
/** Topics one client keeps: a producer writes to a handful; the bound keeps a misuse from growing without end. */
export const metadataEntriesMax = 1_000;

interface Entry {
  topic: Topic;
  fetchedAtMs: number;
}

export class MetadataCache {
  readonly #transport: Transport;
  readonly #policy: RetryPolicy;
  readonly #maxAgeMs: number;
  readonly #log: ClientLog;
  /** Insertion-ordered: the first entry is the oldest, evicted first. */
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Map<string, Promise<Topic>>();

  constructor(transport: Transport, policy: RetryPolicy, log: ClientLog, maxAgeMs: number = metadataMaxAgeMsMax) {
    if (!(maxAgeMs >= 0 && maxAgeMs <= metadataMaxAgeMsMax)) {
      throw new RangeError(`metadataMaxAgeMs must be from 0 to ${metadataMaxAgeMsMax}, got ${maxAgeMs}`);
    }
    this.#transport = transport;
    this.#policy = policy;
    this.#maxAgeMs = maxAgeMs;
    this.#log = log;
  }

  /** The topic's description, from the cache when fresh enough; `refresh` asks the server. */
  async topic(name: string, options: { refresh?: boolean } = {}): Promise<Topic> {
    const entry = this.#entries.get(name);
    if (!options.refresh && entry && Date.now() - entry.fetchedAtMs <= this.#maxAgeMs) return entry.topic;
    let pending = this.#pending.get(name);
    if (!pending) {
      pending = this.#load(name).finally(() => this.#pending.delete(name));
      this.#pending.set(name, pending);
    }
    return pending;
  }

  async partitionCount(name: string, options: { refresh?: boolean } = {}): Promise<number> {
    return (await this.topic(name, options)).partitions.length;
  }

  /** The partition count when the cache holds a fresh description, without waiting; else undefined. */
  cachedPartitionCount(name: string): number | undefined {
    const entry = this.#entries.get(name);
    return entry && Date.now() - entry.fetchedAtMs <= this.#maxAgeMs ? entry.topic.partitions.length : undefined;
  }

  /** Forgets the topic: the next lookup asks the server. */
  invalidate(name: string): void {
    this.#entries.delete(name);
  }

  /** Keeps a description the caller got anyway (create, alter, describe). */
  remember(topic: Topic): void {
    this.#entries.delete(topic.name);
    this.#entries.set(topic.name, { topic, fetchedAtMs: Date.now() });
    if (this.#entries.size > metadataEntriesMax) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  async #load(name: string): Promise<Topic> {
    const topic = await withRetries(() => this.#transport.json<Topic>({ method: "GET", path: path("topics", name) }), {
      policy: this.#policy,
      log: this.#log,
    });
    this.remember(topic);
    return topic;
  }
}
