import { fetchMaxBytesMax, subscriptionBatchBytesMax, subscriptionDeliveriesPerRunMax, subscriptionDeliveryTimeoutMs } from "../limits.ts";
import type { DeliveryBatch } from "../protocol/subscription-schemas.ts";
import type { ShareAcknowledgement } from "../protocol/share-schemas.ts";
import { shareAcknowledge } from "../data-plane/share-acknowledge.ts";
import { callShareState } from "../data-plane/share-state-calls.ts";
import { alterShareGroupConfigs, describeShareGroup } from "../data-plane/share-group-admin.ts";
import { shareFetch } from "../data-plane/share-fetch.ts";
import { recordKey } from "../subscriptions/delivery-answer.ts";
import { retryDelayMs } from "../subscriptions/retry-backoff.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { deliver, offsetAt, watchPartition } from "./subscription-io.ts";
import { isolationOf, type SubscriptionSettings } from "./subscription-store.ts";

/**
 * `shared` mode (docs/api.md, Subscriptions): delivery through the share group of the
 * subscription's name (KIP-932; src/data-plane/share-fetch.ts), `maxInFlight` batches at once
 * from any partitions. Each batch is a share fetch's records under one lease; the target's
 * answer becomes acknowledgements — accept, release (delivered again, its delivery counted)
 * or reject — and a failed delivery releases the whole batch and holds further fetches for
 * `retryDelayMs`, doubling with the records' delivery count. The share group counts
 * deliveries, archives a record at `deliveryLimit` and writes it to `deadLetterTopic` with the
 * tributary.dlq headers; a batch whose object restarts mid-delivery comes back when its locks
 * expire (subscriptionSharedLockMs). State here is memory only: the share group holds it all.
 */

/**
 * The share group's lock on a delivered batch: longer than a target's answer may take
 * (subscriptionDeliveryTimeoutMs), so no other lane gets the records while they are out.
 */
export const subscriptionSharedLockMs = 2 * subscriptionDeliveryTimeoutMs;

export interface SharedCounts {
  delivered?: number;
  retried?: number;
  deadLettered?: number;
}

export interface SharedHost {
  env: Env;
  /** The subscription's settings now; undefined once deleted. */
  settings(): SubscriptionSettings | undefined;
  generation(): number;
  settled(counts: SharedCounts, error?: { message: string; atMs: number }): void;
}

type LaneStep = "delivered" | "empty" | "stopped";

/** The share group's configs a subscription's settings make. */
export function shareGroupConfigsOf(settings: Pick<SubscriptionSettings, "deliveryLimit" | "deadLetterTopic" | "from" | "isolation">): Record<string, string | null> {
  return {
    "record.lock.duration.ms": String(subscriptionSharedLockMs),
    "delivery.count.limit": String(settings.deliveryLimit),
    "auto.offset.reset": settings.from,
    "dead.letter.topic": settings.deadLetterTopic, // null: none (the default)
    "share.isolation.level": isolationOf(settings),
  };
}

export async function configureShareGroup(env: Env, settings: SubscriptionSettings): Promise<void> {
  await alterShareGroupConfigs(env, settings.name, shareGroupConfigsOf(settings));
}

/**
 * Starts each share-partition where `from` says, now: a share-partition otherwise starts at its
 * first fetch, and "latest" would then skip what was produced between the subscription's
 * creation and that fetch.
 */
export async function startShareGroup(env: Env, settings: SubscriptionSettings, topic: TopicMetadata): Promise<void> {
  await Promise.all(
    topic.partitions.map(async ({ partition }) => {
      const isolation = isolationOf(settings);
      const [start, end] = await Promise.all([offsetAt(env, topic, partition, settings.from, isolation), offsetAt(env, topic, partition, "latest", isolation)]);
      await callShareState(env, topic, settings.name, partition, (stub, key) => stub.reset(key, start, end));
    }),
  );
}

export class SharedDelivery {
  readonly #host: SharedHost;
  #backoffUntilMs = 0;
  #idle = false;

  constructor(host: SharedHost) {
    this.#host = host;
  }

  /** A partition committed records, or the subscription was resumed: fetch again. */
  wake(): void {
    this.#idle = false;
  }

  /** One alarm's run: batches until the group has nothing available, a failure backs off, or the run's bound. Answers when to run next (none: idle). */
  async run(topic: TopicMetadata, generation: number): Promise<number | undefined> {
    if (this.#idle) return undefined;
    if (Date.now() < this.#backoffUntilMs) return this.#backoffUntilMs;
    let steps = 0;
    while (steps < subscriptionDeliveriesPerRunMax) {
      const settings = this.#host.settings();
      if (!settings || settings.paused || this.#host.generation() !== generation) return undefined;
      const lanes = Array.from({ length: settings.maxInFlight }, () => this.#lane(settings, topic, generation));
      const results = await Promise.all(lanes);
      steps += results.length;
      if (Date.now() < this.#backoffUntilMs) return this.#backoffUntilMs;
      if (results.includes("stopped")) return undefined;
      if (!results.includes("delivered")) return this.#goIdle(settings, topic);
    }
    return Date.now();
  }

  async #lane(settings: SubscriptionSettings, topic: TopicMetadata, generation: number): Promise<LaneStep> {
    const maxBytes = Math.min(subscriptionBatchBytesMax, fetchMaxBytesMax);
    const fetched = await shareFetch(this.#host.env, settings.name, { topics: [topic.name], maxRecords: settings.batchSize, maxBytes, waitMs: 0, encoding: "utf8" });
    if (fetched.records.length === 0) return "empty";
    const current = this.#host.settings();
    const records = fetched.records.map(({ topic: _, ...record }) => record);
    if (!current || current.paused || this.#host.generation() !== generation) {
      await this.#acknowledge(settings.name, topic.name, fetched.lease, records.map((record) => [record, "release"] as const)); // not delivered: given back
      return "stopped";
    }
    const batch: DeliveryBatch = { subscription: settings.name, topic: topic.name, records };
    const outcome = await deliver(this.#host.env, current.target, batch);
    const now = Date.now();
    const typed = records.map((record) => [record, outcome.kind === "failed" ? "release" : (outcome.acks.get(recordKey(record.partition, record.offset)) ?? "accept")] as const);
    await this.#acknowledge(settings.name, topic.name, fetched.lease, typed);
    const released = typed.filter(([, type]) => type === "release");
    const exhausted = released.filter(([record]) => record.deliveryCount >= current.deliveryLimit).length;
    const counts = {
      delivered: typed.filter(([, type]) => type === "accept").length,
      retried: released.length - exhausted,
      deadLettered: typed.filter(([, type]) => type === "reject").length + exhausted,
    };
    if (outcome.kind === "failed") {
      const deliveries = Math.max(...records.map((record) => record.deliveryCount));
      this.#backoffUntilMs = Math.max(this.#backoffUntilMs, now + retryDelayMs(current.retryDelayMs, deliveries));
    }
    this.#host.settled(counts, outcome.kind === "failed" ? { message: outcome.error, atMs: now } : undefined);
    return "delivered";
  }

  async #acknowledge(group: string, topic: string, lease: string, typed: readonly (readonly [{ partition: number; offset: number }, ShareAcknowledgement["type"]])[]): Promise<void> {
    const byPartitionAndType = new Map<string, ShareAcknowledgement>();
    for (const [record, type] of typed) {
      const key = `${record.partition}:${type}`;
      const entry = byPartitionAndType.get(key) ?? { topic, partition: record.partition, offsets: [], type };
      entry.offsets.push(record.offset);
      byPartitionAndType.set(key, entry);
    }
    const results = await shareAcknowledge(this.#host.env, group, lease, [...byPartitionAndType.values()]);
    const refused = results.find((result) => result.error);
    // A lock that expired meanwhile gave the records back already: they come again (at least once).
    if (refused?.error) this.#host.settled({}, { message: `acknowledgement refused: ${refused.error.message}`, atMs: Date.now() });
  }

  /**
   * Nothing available: each partition's leader wakes the subscription on its next commit. A
   * record still acquired (a lane of an instance that restarted) comes back when its lock
   * expires, which no commit announces: then one more run at that time.
   */
  async #goIdle(settings: SubscriptionSettings, topic: TopicMetadata): Promise<number | undefined> {
    const env = this.#host.env;
    const watched = await Promise.all(
      topic.partitions.map(async ({ partition }) => {
        const end = await offsetAt(env, topic, partition, "latest");
        return (await watchPartition(env, topic, partition, settings.name, end)) > end;
      }),
    );
    if (watched.includes(true)) return Date.now(); // committed meanwhile
    const shares = (await describeShareGroup(env, settings.name)).partitions.filter((share) => share.topic === topic.name);
    // Committed between the empty fetch and the watch (a marker moves the last stable offset with the high watermark): readable past a share-partition's end now.
    const isolation = isolationOf(settings);
    const readable = await Promise.all(shares.map(async (share) => (await offsetAt(env, topic, share.partition, "latest", isolation)) > share.endOffset));
    if (readable.includes(true)) return Date.now();
    const held = shares.some((partition) => partition.acquired > 0);
    if (held) return Date.now() + subscriptionSharedLockMs; // not idle: a fetch then
    this.#idle = true;
    return undefined;
  }
}
