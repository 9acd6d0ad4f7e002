import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, type Result } from "../errors.ts";
import { subscriptionCommitIntervalMs, subscriptionDeliveriesPerRunMax, subscriptionErrorLengthMax, subscriptionReadAheadBytes, subscriptionReadAheadRecords, subscriptionsMax } from "../limits.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import type { CreateSubscription, PatchSubscription, SubscriptionAnswer, SubscriptionDescription } from "../protocol/subscription-schemas.ts";
import { topicMetadata } from "../data-plane/metadata-cache.ts";
import { deliveryBatch } from "../subscriptions/delivery-batch.ts";
import { isDue, settle, startBatch, type PartitionCursor } from "../subscriptions/delivery-plan.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type { WakeRequest } from "./partition-wakeups.ts";
import { applyMigrations } from "./schema.ts";
import { deliver, offsetAt, readRecords, unwatchPartition, watchPartition, writeDeadLetters } from "./subscription-io.ts";
import { configureShareGroup, SharedDelivery, startShareGroup } from "./subscription-shared.ts";
import { deleteShareGroup, describeShareGroup } from "../data-plane/share-group-admin.ts";
import { isolationOf, publicSettings, SubscriptionStore, subscriptionMigrations, type SubscriptionCounters, type SubscriptionSettings } from "./subscription-store.ts";

type SubscriptionCounts = Pick<SubscriptionCounters, "delivered" | "retried" | "deadLettered">;

/** What one partition's step did: delivered a batch, found nothing (now watched), or waits for a retry. */
type Step = "delivered" | "idle" | "waiting";

/**
 * A push subscription (docs/api.md, Subscriptions): one object per subscription, named by it
 * (src/contracts/stubs.ts). Alarms drive deliveries; nothing runs while the topic is idle — a
 * caught-up partition is watched (src/objects/partition-wakeups.ts) and its leader's next
 * commit wakes this object. `ordered` mode keeps one batch in flight per partition, in offset
 * order (src/subscriptions/delivery-plan.ts decides; this object persists and schedules).
 * The same class, under a name no subscription can have, holds the listing.
 */
export class Subscription extends DurableObject<Env> {
  readonly #store: SubscriptionStore;
  #settings: SubscriptionSettings | undefined;
  #topicId = "";
  readonly #cursors = new Map<number, PartitionCursor>();
  /** Partitions caught up and watched: no step until their leader wakes them. In memory: a restart reads each once. */
  readonly #idle = new Set<number>();
  /** Records read beyond the batch in flight, per partition (#readAhead); memory only. */
  readonly #readAheads = new Map<number, { records: DecodedRecord[]; nextOffset: number }>();
  /** Settled since the last commit (#settled, #commit). */
  readonly #dirty = new Set<number>();
  #pending: SubscriptionCounts = { delivered: 0, retried: 0, deadLettered: 0 };
  #pendingError: { message: string; atMs: number } | undefined;
  #committedAtMs = 0;
  /** `shared` mode's deliveries (src/objects/subscription-shared.ts). */
  readonly #shared = new SharedDelivery({
    env: this.env,
    settings: () => this.#settings,
    generation: () => this.#generation,
    settled: (counts, error) => void this.#settledCounts(counts, error),
  });
  /** Bumped by delete: a run in progress starts no delivery after it. */
  #generation = 0;
  #alarmAtMs: number | null = null;
  /** Calls and alarms since this instance started (debug statistics: an idle subscription's count stays flat). */
  #requests = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new SubscriptionStore(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(ctx.storage.sql, subscriptionMigrations);
      this.#load();
      this.#alarmAtMs = await ctx.storage.getAlarm();
    });
  }

  #load(): void {
    const stored = this.#store.read();
    this.#settings = stored?.settings;
    this.#topicId = stored?.topicId ?? "";
    this.#cursors.clear();
    for (const cursor of this.#store.cursors()) this.#cursors.set(cursor.partition, cursor);
  }

  async create(request: CreateSubscription, nowMs: number): Promise<Result<SubscriptionAnswer>> {
    return toResult(async () => {
      this.#requests++;
      if (this.#settings) throw new TributaryError("SUBSCRIPTION_ALREADY_EXISTS", `subscription ${JSON.stringify(request.name)} exists`);
      const topic = await topicMetadata(this.env, request.topic);
      const positions = request.mode === "shared" ? [] : await Promise.all(topic.partitions.map(({ partition }) => offsetAt(this.env, topic, partition, request.from, request.isolation)));
      if (this.#settings) throw new TributaryError("SUBSCRIPTION_ALREADY_EXISTS", `subscription ${JSON.stringify(request.name)} exists`);
      const settings: SubscriptionSettings = { ...request, deadLetterTopic: request.deadLetterTopic ?? null, paused: false, createdAt: nowMs };
      if (settings.mode === "shared") {
        await configureShareGroup(this.env, settings); // the share group of its name
        await startShareGroup(this.env, settings, topic);
      }
      const cursors = settings.mode === "shared" ? [] : positions.map((position, partition) => ({ partition, position, inFlight: null }));
      this.#store.create(settings, topic.topicId, cursors);
      this.#load();
      this.#idle.clear();
      await this.#armAlarm(Date.now());
      return publicSettings(settings);
    });
  }

  async describe(): Promise<Result<SubscriptionDescription>> {
    return toResult(async () => {
      this.#requests++;
      const settings = this.#existing();
      const topic = await topicMetadata(this.env, settings.topic).catch(() => undefined);
      if (settings.mode === "shared") return { ...publicSettings(settings), ...this.#counters(), ...(await this.#sharedPositions(settings, topic)) };
      const partitions = await Promise.all(
        [...this.#cursors.values()].map(async (cursor) => {
          const highWatermark = topic?.topicId === this.#topicId ? await offsetAt(this.env, topic, cursor.partition, "latest").catch(() => null) : null;
          const inFlight = cursor.inFlight && { offsets: cursor.inFlight.offsets, deliveryCount: cursor.inFlight.deliveries, retryAt: cursor.inFlight.retryAtMs };
          return { partition: cursor.partition, position: cursor.position, highWatermark, inFlight };
        }),
      );
      const lag = partitions.reduce((sum, entry) => sum + (entry.highWatermark === null ? 0 : Math.max(0, entry.highWatermark - entry.position)), 0);
      return { ...publicSettings(settings), ...this.#counters(), lag, partitions };
    });
  }

  /** `shared` mode: each share-partition's start (every record below it settled) and the records not yet settled as lag. */
  async #sharedPositions(settings: SubscriptionSettings, topic: TopicMetadata | undefined): Promise<Pick<SubscriptionDescription, "lag" | "partitions">> {
    const group = await describeShareGroup(this.env, settings.name).catch(() => undefined);
    const current = topic?.topicId === this.#topicId ? topic : undefined;
    const shares = (group?.partitions ?? []).filter((entry) => entry.topic === settings.topic);
    const partitions = await Promise.all(
      shares.map(async (entry) => ({
        partition: entry.partition,
        position: entry.startOffset,
        highWatermark: current ? await offsetAt(this.env, current, entry.partition, "latest").catch(() => null) : null,
        inFlight: null,
      })),
    );
    return { lag: shares.reduce((sum, entry) => sum + entry.available + entry.acquired, 0), partitions };
  }

  /** The stored counters with those not yet committed (#settled). */
  #counters(): SubscriptionCounters {
    const stored = this.#store.counters();
    const error = this.#pendingError;
    return {
      delivered: stored.delivered + this.#pending.delivered,
      retried: stored.retried + this.#pending.retried,
      deadLettered: stored.deadLettered + this.#pending.deadLettered,
      lastError: error ? error.message.slice(0, subscriptionErrorLengthMax) : stored.lastError,
      lastErrorAt: error ? error.atMs : stored.lastErrorAt,
    };
  }

  async update(patch: PatchSubscription): Promise<Result<SubscriptionAnswer>> {
    return toResult(async () => {
      this.#requests++;
      const settings: SubscriptionSettings = { ...this.#existing() };
      for (const [field, value] of Object.entries(patch)) if (value !== undefined) Object.assign(settings, { [field]: value });
      if (settings.mode === "shared" && (patch.deliveryLimit !== undefined || patch.deadLetterTopic !== undefined)) await configureShareGroup(this.env, settings);
      this.#store.writeSettings(settings);
      this.#settings = settings;
      this.#commit(); // a pause leaves the positions written
      if (!settings.paused) {
        this.#idle.clear(); // resumed (or re-targeted): each partition reads once, then waits for its leader again
        this.#shared.wake();
        await this.#armAlarm(Date.now());
      }
      return publicSettings(settings);
    });
  }

  /** Deletes everything; no delivery starts once this answers (a delivery under way may finish). */
  async remove(): Promise<Result<void>> {
    return toResult(async () => {
      this.#requests++;
      const settings = this.#existing();
      const cursors = [...this.#cursors.keys()];
      this.#generation++;
      this.#settings = undefined;
      this.#cursors.clear();
      this.#idle.clear();
      this.#readAheads.clear();
      this.#dirty.clear();
      this.#pending = { delivered: 0, retried: 0, deadLettered: 0 };
      this.#pendingError = undefined;
      await this.ctx.storage.deleteAlarm();
      this.#alarmAtMs = null;
      await this.ctx.storage.deleteAll();
      applyMigrations(this.ctx.storage.sql, subscriptionMigrations);
      // Best effort: a leader that keeps the registration learns from its next wake that nobody watches.
      const topic = await topicMetadata(this.env, settings.topic).catch(() => undefined);
      const watched = settings.mode === "shared" ? (topic?.partitions.map(({ partition }) => partition) ?? []) : cursors;
      if (topic) await Promise.allSettled(watched.map((partition) => unwatchPartition(this.env, topic, partition, settings.name)));
      // Its share group goes too, unless a delivery under way still holds records (409): then it stays, unused.
      if (settings.mode === "shared") await deleteShareGroup(this.env, settings.name).catch(() => undefined);
    });
  }

  /** A partition's leader committed records past this subscription's position (src/objects/partition-wakeups.ts). */
  async wake(request: WakeRequest): Promise<Result<{ watching: boolean }>> {
    return toResult(async () => {
      this.#requests++;
      const settings = this.#settings;
      if (!settings || request.topicId !== this.#topicId) return { watching: false };
      if (settings.mode === "shared") {
        this.#shared.wake();
        if (!settings.paused) await this.#armAlarm(Date.now() + settings.maxWaitMs);
        return { watching: true };
      }
      const cursor = this.#cursors.get(request.partition);
      if (!cursor) return { watching: false };
      this.#idle.delete(request.partition);
      if (settings.paused) return { watching: true };
      const full = request.highWatermark - cursor.position >= settings.batchSize;
      await this.#armAlarm(Date.now() + (full ? 0 : settings.maxWaitMs));
      return { watching: true };
    });
  }

  /** Debug statistics (TRIBUTARY_FAULTS=1 deployments' tests and benchmark): calls and alarms this instance served. */
  async debugStats(): Promise<Result<{ requests: number }>> {
    return toResult(async () => ({ requests: this.#requests }));
  }

  override async alarm(): Promise<void> {
    this.#requests++;
    this.#alarmAtMs = null;
    try {
      await this.#run();
    } catch (error) {
      // A run that cannot reach the topic retries later; the platform retries a throwing alarm only a few times.
      const settings = this.#settings;
      if (!settings) return;
      this.#pendingError = { message: error instanceof Error ? error.message : String(error), atMs: Date.now() };
      this.#commit();
      await this.#armAlarm(Date.now() + Math.max(settings.retryDelayMs, 1_000));
    }
  }

  // ---- Ordered delivery ---------------------------------------------------------------------

  async #run(): Promise<void> {
    const generation = this.#generation;
    if (!this.#settings || this.#settings.paused) return;
    const topic = await topicMetadata(this.env, this.#settings.topic);
    if (topic.topicId !== this.#topicId) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic.name} was deleted since the subscription was made`);
    if (this.#settings.mode === "shared") {
      const next = await this.#shared.run(topic, generation);
      if (this.#generation !== generation) return;
      this.#commit();
      if (next !== undefined) await this.#armAlarm(next);
      return;
    }
    for (const { partition } of topic.partitions) if (!this.#cursors.has(partition)) this.#cursors.set(partition, { partition, position: 0, inFlight: null }); // added later: from its start
    let steps = 0;
    while (steps < subscriptionDeliveriesPerRunMax) {
      const settings = this.#settings;
      if (this.#generation !== generation || !settings || settings.paused) return;
      const now = Date.now();
      const ready = [...this.#cursors.values()].filter((cursor) => !this.#idle.has(cursor.partition) && (cursor.inFlight === null || isDue(cursor, now)));
      if (ready.length === 0) break;
      const results = await Promise.all(ready.slice(0, settings.maxInFlight).map((cursor) => this.#step(topic, cursor.partition, generation)));
      steps += results.length;
      if (!results.includes("delivered")) break;
    }
    if (this.#generation !== generation) return;
    this.#commit();
    await this.#armNext();
  }

  /** The next alarm: at once when a run stopped with work left, else the earliest retry; none while every partition is idle. */
  async #armNext(): Promise<void> {
    let next: number | undefined;
    for (const cursor of this.#cursors.values()) {
      if (this.#idle.has(cursor.partition)) continue;
      const at = cursor.inFlight?.retryAtMs ?? Date.now();
      next = next === undefined ? at : Math.min(next, at);
    }
    if (next !== undefined) await this.#armAlarm(next);
  }

  async #step(topic: TopicMetadata, partition: number, generation: number): Promise<Step> {
    const settings = this.#settings!;
    let cursor = this.#cursors.get(partition)!;
    let records;
    if (cursor.inFlight === null) {
      const read = await this.#readAhead(topic, partition, cursor.position);
      if (this.#generation !== generation) return "idle";
      if (read.records.length === 0) {
        if (read.nextOffset > cursor.position) return this.#settled({ ...cursor, position: read.nextOffset }, {}, undefined, "delivered");
        const highWatermark = await watchPartition(this.env, topic, partition, settings.name, cursor.position);
        // At read_committed an open transaction holds it at the LSO, below the high watermark: idle there too, unless the high watermark moved since the read (a marker may have moved the LSO); the marker's commit wakes it.
        const stable = isolationOf(settings) === "read_committed" && read.highWatermark === highWatermark ? read.lastStableOffset : undefined;
        if ((stable ?? highWatermark) <= cursor.position && this.#cursors.get(partition) === cursor) this.#idle.add(partition);
        return "idle";
      }
      records = read.records.slice(0, settings.batchSize);
      const endOffset = read.records[records.length]?.offset ?? read.nextOffset;
      cursor = startBatch(cursor, records.map((record) => record.offset), endOffset);
      // Not written before its first delivery: a restarted object forms the same batch again
      // from the stored position (the same offsets, unless batchSize changed meanwhile).
      this.#cursors.set(partition, cursor);
    } else {
      const batch = cursor.inFlight;
      const first = batch.offsets[0]!;
      const pending = new Set(batch.offsets);
      const read = await readRecords(this.env, topic, partition, isolationOf(settings), first, batch.endOffset - first);
      records = read.records.filter((record) => pending.has(record.offset));
    }
    if (this.#generation !== generation || this.#settings?.paused) return "idle"; // deleted or paused: no delivery starts
    const deliveryCount = cursor.inFlight!.deliveries + 1;
    const outcome = await deliver(this.env, this.#settings!.target, deliveryBatch(settings.name, topic.name, partition, records, deliveryCount));
    const now = Date.now();
    const settlement = settle(cursor, outcome, this.#settings ?? settings, now);
    if (this.#generation !== generation) return "delivered";
    const deadLetterTopic = (this.#settings ?? settings).deadLetterTopic;
    let deadLettered = 0;
    for (const letters of settlement.deadLetters) {
      const dropped = new Set(letters.offsets);
      const source = { topic: topic.name, partition, deliveryCount: settlement.deliveryCount, reason: letters.reason };
      try {
        if (deadLetterTopic) await writeDeadLetters(this.env, this.ctx, deadLetterTopic, records.filter((record) => dropped.has(record.offset)), source);
      } catch (error) {
        // Not written: the records stay in flight (delivered again later), nothing is lost.
        const message = `dead-letter topic ${deadLetterTopic}: ${error instanceof Error ? error.message : String(error)}`;
        if (this.#generation !== generation) return "delivered";
        const retryAtMs = settlement.cursor.inFlight?.retryAtMs ?? now + Math.max(settings.retryDelayMs, 1_000);
        return this.#settled({ ...cursor, inFlight: { ...cursor.inFlight!, retryAtMs } }, {}, { message, atMs: now }, "waiting");
      }
      deadLettered += letters.offsets.length;
    }
    if (this.#generation !== generation) return "delivered";
    const error = outcome.kind === "failed" ? { message: outcome.error, atMs: now } : undefined;
    const counts = { delivered: settlement.accepted, retried: settlement.retried, deadLettered };
    return this.#settled(settlement.cursor, counts, error, settlement.cursor.inFlight ? "waiting" : "delivered");
  }

  /**
   * A partition's new cursor and counts, kept in memory and written at most once per
   * subscriptionCommitIntervalMs (as a Kafka consumer's auto-commit), at the end of each run,
   * and at once when a batch stays in flight or records were dead-lettered: a write per batch
   * would hold each next delivery until it is durable. A restart redelivers at most that
   * interval's accepted batches — at least once, as promised.
   */
  #settled(cursor: PartitionCursor, counts: Partial<SubscriptionCounts>, error: { message: string; atMs: number } | undefined, step: Step): Step {
    this.#cursors.set(cursor.partition, cursor);
    this.#dirty.add(cursor.partition);
    this.#settledCounts(counts, error);
    if (cursor.inFlight !== null || (counts.deadLettered ?? 0) > 0) this.#commit(); // urgent: a retry's count, dead letters written
    return step;
  }

  /** Counts without a cursor (`shared` mode: the share group keeps the positions). */
  #settledCounts(counts: Partial<SubscriptionCounts>, error: { message: string; atMs: number } | undefined): void {
    this.#pending.delivered += counts.delivered ?? 0;
    this.#pending.retried += counts.retried ?? 0;
    this.#pending.deadLettered += counts.deadLettered ?? 0;
    if (error) this.#pendingError = error;
    if (Date.now() - this.#committedAtMs >= subscriptionCommitIntervalMs) this.#commit();
  }

  /** Writes the cursors and counts kept since the last commit (#settled). */
  #commit(): void {
    if (!this.#settings) return; // deleted: nothing is written into the emptied storage
    for (const partition of this.#dirty) this.#store.writeCursor(this.#cursors.get(partition)!);
    const { delivered, retried, deadLettered } = this.#pending;
    if (delivered + retried + deadLettered > 0 || this.#pendingError) this.#store.count(this.#pending, this.#pendingError);
    this.#dirty.clear();
    this.#pending = { delivered: 0, retried: 0, deadLettered: 0 };
    this.#pendingError = undefined;
    this.#committedAtMs = Date.now();
  }

  // ---- The listing (the index object) -------------------------------------------------------

  async list(): Promise<Result<SubscriptionAnswer[]>> {
    return toResult(async () => this.#store.listing());
  }

  async addListing(answer: SubscriptionAnswer, isNew: boolean): Promise<Result<void>> {
    return toResult(async () => {
      if (isNew && this.#store.listed() >= subscriptionsMax) throw new TributaryError("INVALID_REQUEST", `this deployment holds ${subscriptionsMax} subscriptions already`);
      this.#store.list(answer);
    });
  }

  async removeListing(name: string): Promise<Result<void>> {
    return toResult(async () => this.#store.unlist(name));
  }

  /**
   * Records from `position`: what an earlier read brought beyond its batch (kept in memory,
   * src/limits.ts subscriptionReadAheadRecords), else a new read of up to that many records.
   */
  async #readAhead(topic: TopicMetadata, partition: number, position: number): Promise<{ records: DecodedRecord[]; nextOffset: number; highWatermark?: number; lastStableOffset?: number }> {
    const kept = this.#readAheads.get(partition);
    if (kept) {
      const from = kept.records.findIndex((record) => record.offset >= position);
      if (from >= 0) return { records: kept.records.slice(from), nextOffset: kept.nextOffset };
      this.#readAheads.delete(partition);
    }
    const read = await readRecords(this.env, topic, partition, isolationOf(this.#settings!), position, subscriptionReadAheadRecords, subscriptionReadAheadBytes);
    if (read.records.length > 0) this.#readAheads.set(partition, { records: read.records, nextOffset: read.nextOffset });
    return read;
  }

  #existing(): SubscriptionSettings {
    if (!this.#settings) throw new TributaryError("NOT_FOUND", "no such subscription");
    return this.#settings;
  }

  async #armAlarm(atMs: number): Promise<void> {
    if (this.#alarmAtMs !== null && this.#alarmAtMs <= atMs) return;
    this.#alarmAtMs = atMs;
    await this.ctx.storage.setAlarm(atMs);
  }
}
