import { TributaryError } from "../errors.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

/**
 * A Durable Streams stream's lifecycle as the controller keeps it (docs/durable-streams.md,
 * "Forks" and "Mapping"): counting a stream's living forks, removing a stream (DELETE, or its
 * expiry) and the forks' release of their sources, and which streams have expired. Each runs
 * in one synchronous turn of the controller over its topics (`ds.*` configs), so concurrent
 * fork creations and deletions, from any isolate, never lose an update.
 */
export interface StreamTopics {
  readonly topics: ReadonlyMap<string, TopicMetadata>;
  /** Sets configs of a topic (stored, and in the map). */
  alter(name: string, changes: Record<string, string>): TopicMetadata;
  /** Removes a topic's rows at once (its name is free); its data is deleted afterwards. */
  unregister(topic: TopicMetadata): void;
}

/** The controller as the lifecycle uses it: its topics, deleting their data, its alarm. */
export interface StreamHost extends StreamTopics {
  finishDeletions(topics: readonly TopicMetadata[]): Promise<void>;
  /** Arms the controller's alarm for `atMs` unless it is set sooner. */
  setAlarmBefore(atMs: number): Promise<void>;
}

/**
 * The controller's side of streams: each change in one synchronous turn, then the data of
 * removed topics deleted. Expiry costs nothing for a topic without `ds.expires.at.ms`: the
 * alarm is armed only for a stream that expires, and the sweep runs only when it fires.
 */
export class StreamLifecycle {
  readonly #host: StreamHost;

  constructor(host: StreamHost) {
    this.#host = host;
  }

  countFork(source: string, sourceTopicId: string): TopicMetadata {
    return countFork(this.#host, source, sourceTopicId);
  }

  /** Answers the names of every stream the removal changed (removed, marked, or a source's fork count), for routers to forget. */
  async remove(name: string, topicId: string, expiredAtMs?: number): Promise<string[]> {
    const removed = removeStream(this.#host, name, topicId, expiredAtMs);
    const changed = new Set([name]);
    for (const topic of removed) {
      changed.add(topic.name);
      const source = topic.configs["ds.forked.from"];
      if (source !== undefined) changed.add(source);
    }
    await this.#host.finishDeletions(removed);
    return [...changed];
  }

  /** A stream created, or its configs changed: the alarm is armed by its expiry, if it has one. */
  async armExpiry(topic: TopicMetadata): Promise<void> {
    const expiresAtMs = streamExpiryMs(topic);
    if (expiresAtMs !== undefined) await this.#host.setAlarmBefore(expiresAtMs);
  }

  /** Removes every expired stream as DELETE would (forks counted); answers when the next expires. */
  async sweep(): Promise<number | undefined> {
    const nowMs = Date.now();
    const { expired, nextExpiryMs } = expiredStreams(this.#host.topics.values(), nowMs);
    for (const topic of expired) await this.remove(topic.name, topic.topicId, nowMs);
    return nextExpiryMs;
  }
}

function isStream(topic: TopicMetadata): boolean {
  return topic.configs["ds.content.type"] !== undefined;
}

function isSoftDeleted(topic: TopicMetadata): boolean {
  return topic.configs["ds.deleted"] === "1";
}

function forkRefs(topic: TopicMetadata): number {
  return Number(topic.configs["ds.fork.refs"] ?? 0);
}

/** When a stream expires, if it does and is not already marked deleted (no alarm otherwise). */
export function streamExpiryMs(topic: TopicMetadata): number | undefined {
  const expires = topic.configs["ds.expires.at.ms"];
  return expires === undefined || !isStream(topic) || isSoftDeleted(topic) ? undefined : Number(expires);
}

/** Counts a new fork at its source: the stream with that name and topic id, not deleted. */
export function countFork(host: StreamTopics, source: string, sourceTopicId: string): TopicMetadata {
  const topic = host.topics.get(source);
  if (!topic || topic.topicId !== sourceTopicId || !isStream(topic) || isSoftDeleted(topic)) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `the source stream ${source} was deleted while forking`);
  }
  return host.alter(source, { "ds.fork.refs": String(forkRefs(topic) + 1) });
}

/**
 * Removes the stream `name` if it is still the topic `topicId` (and, with `expiredAtMs`, has
 * expired by then): one with living forks is only marked deleted; otherwise its topic goes,
 * and a fork releases its source, which goes too when it was marked and this was its last
 * fork — and so on up a chain of forks. Answers the topics to delete the data of.
 */
export function removeStream(host: StreamTopics, name: string, topicId: string, expiredAtMs?: number): TopicMetadata[] {
  const removed: TopicMetadata[] = [];
  let topic: TopicMetadata | undefined = host.topics.get(name);
  if (!topic || topic.topicId !== topicId || !isStream(topic)) return removed;
  if (expiredAtMs !== undefined && !((streamExpiryMs(topic) ?? Number.POSITIVE_INFINITY) <= expiredAtMs)) return removed;
  while (topic) {
    if (forkRefs(topic) > 0) {
      if (!isSoftDeleted(topic)) host.alter(topic.name, { "ds.deleted": "1" });
      break;
    }
    host.unregister(topic);
    removed.push(topic);
    const sourceName: string | undefined = topic.configs["ds.forked.from"];
    const source: TopicMetadata | undefined = sourceName === undefined ? undefined : host.topics.get(sourceName);
    if (!source || !isStream(source)) break;
    const refs = Math.max(0, forkRefs(source) - 1);
    host.alter(source.name, { "ds.fork.refs": String(refs) });
    topic = isSoftDeleted(source) && refs === 0 ? host.topics.get(source.name) : undefined;
  }
  return removed;
}

/** The streams expired at `nowMs`, and when the next of the others expires. */
export function expiredStreams(topics: Iterable<TopicMetadata>, nowMs: number): { expired: TopicMetadata[]; nextExpiryMs: number | undefined } {
  const expired: TopicMetadata[] = [];
  let nextExpiryMs: number | undefined;
  for (const topic of topics) {
    const at = streamExpiryMs(topic);
    if (at === undefined) continue;
    if (at <= nowMs) expired.push(topic);
    else if (nextExpiryMs === undefined || at < nextExpiryMs) nextExpiryMs = at;
  }
  return { expired, nextExpiryMs };
}
