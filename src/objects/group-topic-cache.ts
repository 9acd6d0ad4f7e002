import { TributaryError, type Result } from "../errors.ts";
import type { TopicsMeta } from "../group/index.ts";
import { groupTopicsMax, metadataCacheMsMax, subscribedTopicsMax } from "../limits.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

/**
 * The coordinator's view of its topics, asked of the controller and trusted for at most
 * metadataCacheMsMax (as the router's cache, ARCHITECTURE.md decision 10). Only answers are
 * cached, never "unknown": a topic created a moment ago must be joinable at once.
 *
 * Bounded to the topics of the group's subscriptions and of one request, the longest
 * held out first: a topic's metadata holds one placement per partition.
 */
const entriesMax = groupTopicsMax + subscribedTopicsMax;

interface Entry {
  topic: TopicMetadata;
  fetchedAtMs: number;
}

export type DescribeTopic = (name: string) => Promise<Result<TopicMetadata>>;

export class GroupTopicCache {
  readonly #describe: DescribeTopic;
  readonly #entries = new Map<string, Entry>();

  constructor(describe: DescribeTopic) {
    this.#describe = describe;
  }

  /**
   * Metadata of the named topics that exist; a topic the controller does not know is left out.
   * `refresh` asks the controller even when a cached answer is fresh.
   */
  async get(names: Iterable<string>, options: { refresh?: boolean } = {}): Promise<Map<string, TopicMetadata>> {
    const wanted = [...new Set(names)];
    const found = new Map<string, TopicMetadata>();
    await Promise.all(
      wanted.map(async (name) => {
        const topic = await this.#lookup(name, options.refresh ?? false);
        if (topic !== undefined) found.set(name, topic);
      }),
    );
    return found;
  }

  /** The cached metadata of a topic, fresh or not, without asking anyone. */
  peek(name: string): TopicMetadata | undefined {
    return this.#entries.get(name)?.topic;
  }

  forget(name: string): void {
    this.#entries.delete(name);
  }

  async #lookup(name: string, refresh: boolean): Promise<TopicMetadata | undefined> {
    const cached = this.#entries.get(name);
    if (cached && !refresh && Date.now() - cached.fetchedAtMs < metadataCacheMsMax) return cached.topic;
    const answer = await this.#describe(name);
    if (!answer.ok) {
      if (answer.error.code !== "UNKNOWN_TOPIC_OR_PARTITION") throw TributaryError.fromValue(answer.error);
      this.#entries.delete(name);
      return undefined;
    }
    this.#entries.delete(name);
    this.#entries.set(name, { topic: answer.value, fetchedAtMs: Date.now() });
    if (this.#entries.size > entriesMax) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    return answer.value;
  }
}

/** Partition counts by topic name, as the group core takes them. */
export function topicsMetaOf(topics: ReadonlyMap<string, TopicMetadata>): TopicsMeta {
  // fromEntries defines own properties, so a topic named "__proto__" stays a topic.
  return Object.fromEntries([...topics].map(([name, topic]) => [name, { partitions: topic.partitions.length }]));
}
