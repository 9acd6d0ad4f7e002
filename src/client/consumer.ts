/**
 * A kafkajs-shaped consumer over the group poll API (API.md, Consumer groups):
 *
 *   run ──► join ──► poll(positions processed so far) ──► records ──► eachMessage / eachBatch
 *              ▲                                                              │
 *              └──────────── positions after what the handler finished ◄──────┘
 *
 * Positions travel with the member: a poll sends back the positions after the records the
 * handler has finished, and with autoCommit (the default) the coordinator commits them. So a
 * record is committed only after it was processed: at least once. Heartbeats run on their own
 * timer while a handler works (group-member.ts); partitions still being processed are reported
 * as owned, so the coordinator hands them to no one else until the handler is done. A handler
 * error stops the batch at the failing record, which is delivered again after a backoff;
 * after `retry.retries` failures in a row the consumer crashes (commits what was processed,
 * leaves, and `done()` rejects).
 */
import { isRetriable } from "../errors.ts";
import { EventHub, type ConsumerEvents } from "./consumer-events.ts";
import { GroupMember, type PollAnswer } from "./group-member.ts";
import { consumedFromPolled, type ConsumedMessage } from "./records.ts";
import { backoffMs, sleep, type RetryPolicy } from "./retry.ts";
import type { Assignment, Position, TopicPartition } from "./types.ts";

export interface ConsumerOptions {
  groupId: string;
  /** 6000–1800000, default 45000: silent this long, the member is removed. */
  sessionTimeoutMs?: number;
  assignor?: "uniform" | "range";
  /** Kafka's client.id, shown with the member by `admin().groups.describe` (at most 255 characters). Default "tributary-client". */
  clientId?: string;
  /** Records per poll (1–10000; the server's default 500). */
  maxRecords?: number;
  /** Bytes per poll (the server's default 1 MiB). */
  maxBytes?: number;
  /** How long a poll waits for records (kafkajs's maxWaitTimeInMs). Default 5000; the server caps it at half the session timeout. */
  maxWaitTimeInMs?: number;
}

export interface EachMessagePayload {
  topic: string;
  partition: number;
  message: ConsumedMessage;
  heartbeat(): Promise<void>;
  /** Pauses this partition; returns a function that resumes it. */
  pause(): () => void;
}

export interface Batch {
  topic: string;
  partition: number;
  messages: ConsumedMessage[];
  firstOffset(): number | null;
  lastOffset(): number;
}

export interface EachBatchPayload {
  batch: Batch;
  /** Marks records up to and including `offset` as processed. */
  resolveOffset(offset: number): void;
  heartbeat(): Promise<void>;
  isRunning(): boolean;
  /** True once the partition was revoked while the batch is processed: its progress cannot be committed. */
  isStale(): boolean;
  pause(): () => void;
}

export interface RunConfig {
  eachMessage?: (payload: EachMessagePayload) => Promise<void> | void;
  eachBatch?: (payload: EachBatchPayload) => Promise<void> | void;
  /** Commit positions with each poll (default true); false: only `commitOffsets` commits. */
  autoCommit?: boolean;
  /** eachBatch: a batch whose handler returns counts as processed whole (default true). */
  eachBatchAutoResolve?: boolean;
}

export interface SubscribeRequest {
  topics?: (string | RegExp)[];
  topic?: string | RegExp;
  /** Where to start where the group has committed nothing: the earliest record (else only new ones). */
  fromBeginning?: boolean;
}

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

function assigned(assignment: Assignment, topic: string, partition: number): boolean {
  return assignment.some((entry) => entry.topic === topic && entry.partitions.includes(partition));
}

export class Consumer {
  readonly #member: GroupMember;
  readonly #policy: RetryPolicy;
  readonly #options: ConsumerOptions;
  readonly #listTopics: () => Promise<string[]>;
  readonly #events = new EventHub();
  #subscriptions: (string | RegExp)[] = [];
  #fromBeginning = false;
  #running = false;
  #autoCommit = true;
  #abort = new AbortController();
  #loop: Promise<void> | undefined;
  #fatal: unknown;
  /** Next offset per partition, sent with the next poll: past what handlers finished. */
  readonly #positions = new Map<string, Position>();
  readonly #seeks = new Map<string, Position>();
  readonly #pausedTopics = new Set<string>();
  readonly #pausedPartitions = new Map<string, TopicPartition>();
  /** Partitions of the answer being processed: reported as owned until their handler is done. */
  readonly #working = new Map<string, TopicPartition>();

  constructor(member: GroupMember, policy: RetryPolicy, options: ConsumerOptions, listTopics: () => Promise<string[]>) {
    this.#member = member;
    this.#policy = policy;
    this.#options = options;
    this.#listTopics = listTopics;
    member.onLost = () => this.#positions.clear();
    member.onAssignment = (assignment) => this.#events.emit("rebalance", { assignment });
  }

  on<Event extends keyof ConsumerEvents>(event: Event, listener: (payload: ConsumerEvents[Event]) => void): () => void {
    return this.#events.on(event, listener);
  }

  async subscribe(request: SubscribeRequest): Promise<void> {
    if (this.#loop) throw new Error("subscribe before run()");
    const topics = request.topics ?? (request.topic === undefined ? [] : [request.topic]);
    if (topics.length === 0) throw new TypeError("subscribe: name at least one topic");
    this.#subscriptions.push(...topics);
    if (request.fromBeginning) this.#fromBeginning = true;
  }

  /** Joins the group and starts consuming; resolves once joined (as kafkajs). `done()` follows the rest. */
  async run(config: RunConfig): Promise<void> {
    if (this.#loop) throw new Error("the consumer is already running");
    if (!config.eachMessage === !config.eachBatch) throw new TypeError("run: give exactly one of eachMessage and eachBatch");
    this.#autoCommit = config.autoCommit ?? true;
    const topics = await this.#resolveTopics();
    await this.#member.join(topics, this.#fromBeginning ? "earliest" : "latest", this.#abort.signal);
    this.#running = true;
    this.#events.emit("group.join", { memberId: this.#member.memberId!, assignment: this.#member.assignment });
    this.#member.startHeartbeats(
      () => [...this.#working.values()].map(({ topic, partition }) => ({ topic, partitions: [partition] })),
      (error) => this.#crash(error),
    );
    this.#loop = this.#consume(config).catch(async (error: unknown) => {
      this.#events.emit("crash", { error });
      await this.#finish().catch(() => undefined);
      throw error;
    });
    this.#loop.catch(() => undefined); // observed through done() and the crash event
  }

  /** Resolves when the consumer stopped (disconnect), rejects with the error that crashed it. */
  done(): Promise<void> {
    return this.#loop ?? Promise.resolve();
  }

  /** Continue the partition from `offset` at the next poll (committed with it, with autoCommit). */
  seek(position: Position): void {
    const { topic, partition, offset } = position;
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError("seek: offset must be an integer >= 0");
    this.#seeks.set(keyOf(topic, partition), { topic, partition, offset });
  }

  pause(topics: { topic: string; partitions?: number[] }[]): void {
    for (const { topic, partitions } of topics) {
      if (partitions === undefined) this.#pausedTopics.add(topic);
      else for (const partition of partitions) this.#pausedPartitions.set(keyOf(topic, partition), { topic, partition });
    }
  }

  resume(topics: { topic: string; partitions?: number[] }[]): void {
    for (const { topic, partitions } of topics) {
      if (partitions === undefined) {
        this.#pausedTopics.delete(topic);
        for (const [key, entry] of this.#pausedPartitions) if (entry.topic === topic) this.#pausedPartitions.delete(key);
      } else {
        for (const partition of partitions) this.#pausedPartitions.delete(keyOf(topic, partition));
      }
    }
  }

  /** The paused partitions of the current assignment. */
  paused(): Assignment {
    return this.#member.assignment
      .map(({ topic, partitions }) => ({ topic, partitions: partitions.filter((partition) => this.#isPaused(topic, partition)) }))
      .filter((entry) => entry.partitions.length > 0);
  }

  /** Commits positions now (with autoCommit false, the only way to commit). */
  async commitOffsets(positions: Position[]): Promise<void> {
    await this.#member.commit(positions);
  }

  /**
   * Stops after the record being handled, commits the positions of what was processed, and
   * leaves the group (its partitions move at once). Awaiting it inside a handler would wait
   * for that handler: call it there without await.
   */
  async disconnect(): Promise<void> {
    if (!this.#loop) {
      await this.#member.leave();
      return;
    }
    this.#stop();
    await this.#loop.catch(() => undefined);
  }

  #stop(): void {
    this.#running = false;
    this.#abort.abort(new Error("the consumer is disconnecting"));
  }

  #crash(error: unknown): void {
    this.#fatal ??= error;
    this.#stop();
  }

  async #resolveTopics(): Promise<string[]> {
    if (this.#subscriptions.length === 0) throw new Error("subscribe to a topic before run()");
    const names = new Set(this.#subscriptions.filter((topic): topic is string => typeof topic === "string"));
    const patterns = this.#subscriptions.filter((topic): topic is RegExp => topic instanceof RegExp);
    if (patterns.length > 0) {
      for (const name of await this.#listTopics()) if (patterns.some((pattern) => pattern.test(name))) names.add(name);
    }
    if (names.size === 0) throw new Error("no topic matches the subscription");
    return [...names].sort();
  }

  #isPaused(topic: string, partition: number): boolean {
    return this.#pausedTopics.has(topic) || this.#pausedPartitions.has(keyOf(topic, partition));
  }

  /** Positions of the assigned partitions, seeks applied; the seeks sent, to clear once a poll succeeds. */
  #outgoing(): { positions: Position[]; seeks: Position[] } {
    const seeks: Position[] = [];
    const positions = new Map<string, Position>();
    for (const [key, position] of this.#positions) {
      if (assigned(this.#member.assignment, position.topic, position.partition)) positions.set(key, position);
    }
    for (const [key, seek] of this.#seeks) {
      if (!assigned(this.#member.assignment, seek.topic, seek.partition)) continue;
      positions.set(key, seek);
      seeks.push(seek);
    }
    return { positions: [...positions.values()], seeks };
  }

  async #consume(config: RunConfig): Promise<void> {
    let failures = 0;
    while (this.#running) {
      const outgoing = this.#outgoing();
      let answer: PollAnswer | undefined;
      try {
        answer = await this.#member.poll(
          {
            positions: outgoing.positions,
            autoCommit: this.#autoCommit,
            maxRecords: this.#options.maxRecords,
            maxBytes: this.#options.maxBytes,
            waitMs: this.#options.maxWaitTimeInMs ?? 5_000,
            paused: this.paused(),
          },
          this.#abort.signal,
        );
      } catch (error) {
        if (!this.#running) break;
        if (!isRetriable(error) || failures >= this.#policy.retries) throw error;
        await sleep(backoffMs(failures++, this.#policy), this.#abort.signal).catch(() => undefined);
        continue;
      }
      if (answer === undefined) continue; // fenced or expired, and back in the group
      for (const seek of outgoing.seeks) if (this.#seeks.get(keyOf(seek.topic, seek.partition)) === seek) this.#seeks.delete(keyOf(seek.topic, seek.partition));
      for (const position of answer.positions) this.#positions.set(keyOf(position.topic, position.partition), position);
      this.#events.emit("fetch", { records: answer.records.length, assignment: answer.assignment });
      const failure = await this.#process(answer, config);
      if (failure === undefined) {
        failures = 0;
      } else {
        if (failures >= this.#policy.retries) throw failure.error;
        await sleep(backoffMs(failures++, this.#policy), this.#abort.signal).catch(() => undefined);
      }
    }
    await this.#finish();
    if (this.#fatal !== undefined) throw this.#fatal;
  }

  /** Commits what was processed (with autoCommit) and leaves. */
  async #finish(): Promise<void> {
    this.#member.stopHeartbeats();
    try {
      if (this.#autoCommit && this.#member.joined) await this.#member.commit(this.#outgoing().positions);
    } finally {
      await this.#member.leave();
    }
  }

  /** Runs the handlers over one answer; sets each partition's position after what was finished. */
  async #process(answer: PollAnswer, config: RunConfig): Promise<{ error: unknown } | undefined> {
    const batches = new Map<string, ConsumedMessage[]>();
    for (const record of answer.records) {
      const key = keyOf(record.topic, record.partition);
      const messages = batches.get(key) ?? [];
      messages.push(consumedFromPolled(record));
      batches.set(key, messages);
      this.#working.set(key, { topic: record.topic, partition: record.partition });
    }
    let failure: { error: unknown } | undefined;
    try {
      for (const [key, messages] of batches) {
        const { topic, partition } = messages[0]!;
        if (failure !== undefined) {
          // A handler failed earlier in this answer: nothing here was processed.
          this.#positions.set(key, { topic, partition, offset: messages[0]!.offset });
          continue;
        }
        const done = config.eachBatch
          ? await this.#runBatch(topic, partition, messages, config)
          : await this.#runMessages(topic, partition, messages, config);
        this.#working.delete(key);
        if (done.next !== undefined) this.#positions.set(key, { topic, partition, offset: done.next });
        if (done.error !== undefined) failure = { error: done.error };
      }
      return failure;
    } finally {
      this.#working.clear();
    }
  }

  /** Whether delivery of this partition must stop before its next record. */
  #halted(topic: string, partition: number): boolean {
    return !this.#running || this.#isPaused(topic, partition) || this.#seeks.has(keyOf(topic, partition));
  }

  #pauseOne(topic: string, partition: number): () => void {
    this.pause([{ topic, partitions: [partition] }]);
    return () => this.resume([{ topic, partitions: [partition] }]);
  }

  /** `next`: the first record not processed (undefined when all were, keeping the poll's position). */
  async #runMessages(
    topic: string,
    partition: number,
    messages: ConsumedMessage[],
    config: RunConfig,
  ): Promise<{ next?: number; error?: unknown }> {
    for (const message of messages) {
      if (this.#halted(topic, partition)) return { next: message.offset };
      try {
        await config.eachMessage!({
          topic,
          partition,
          message,
          heartbeat: () => this.#member.heartbeat(),
          pause: () => this.#pauseOne(topic, partition),
        });
      } catch (error) {
        return { next: message.offset, error };
      }
    }
    return {};
  }

  async #runBatch(topic: string, partition: number, messages: ConsumedMessage[], config: RunConfig): Promise<{ next?: number; error?: unknown }> {
    if (this.#halted(topic, partition)) return { next: messages[0]!.offset };
    let resolved: number | undefined;
    const generation = this.#member.generation;
    const batch: Batch = {
      topic,
      partition,
      messages,
      firstOffset: () => messages[0]?.offset ?? null,
      lastOffset: () => messages.at(-1)!.offset,
    };
    let error: unknown;
    try {
      await config.eachBatch!({
        batch,
        resolveOffset: (offset) => (resolved = Math.max(resolved ?? -1, offset)),
        heartbeat: () => this.#member.heartbeat(),
        isRunning: () => this.#running,
        isStale: () => this.#member.generation !== generation && !assigned(this.#member.assignment, topic, partition),
        pause: () => this.#pauseOne(topic, partition),
      });
      if (config.eachBatchAutoResolve ?? true) resolved = batch.lastOffset();
    } catch (caught) {
      error = caught;
    }
    if (resolved === batch.lastOffset()) return { error };
    const firstUnresolved = messages.find((message) => resolved === undefined || message.offset > resolved);
    return { next: firstUnresolved?.offset, error };
  }
}
