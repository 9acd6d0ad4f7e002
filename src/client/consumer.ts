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
 *
 * A poll that fails with a retriable error (the server restarting, unreachable, electing a
 * leader) is retried without end, backing off up to `retry.maxBackoffMs` with jitter and
 * logging each retry, as Kafka's consumers ride out a broker that went away; when the server
 * is back and no longer knows the member, it joins anew and continues from the group's
 * committed offsets (group-member.ts). Only `disconnect()` or an error that is not retriable
 * stops it.
 *
 * With `transport: "websocket"` — the default (`"auto"`) where the client has a WebSocket — the
 * records come from the partitions' WebSocket streams instead of polls (stream-polls.ts): the
 * same loop, the same answers, only membership and commits go to the coordinator.
 */
import { EventHub, type ConsumerEvents } from "./consumer-events.ts";
import type { Batch, ConsumerGroupMetadata, ConsumerOptions, RunConfig, SubscribeRequest } from "./consumer-types.ts";
import type { GroupMember, PollRequest } from "./group-member.ts";
import type { ClientLog } from "./logger.ts";
import { consumedFromPolled, isolationOf, type ConsumedMessage } from "./records.ts";
import { backoffMs, sleep, withRetries, type RetryPolicy } from "./retry.ts";
import type { RecordSource, SourceAnswer } from "./stream-polls.ts";
import type { Assignment, CommittedPosition, Position, TopicPartition } from "./types.ts";

export type { Batch, ConsumerGroupMetadata, ConsumerOptions, EachBatchPayload, EachMessagePayload, RunConfig, SubscribeRequest } from "./consumer-types.ts";

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

function assigned(assignment: Assignment, topic: string, partition: number): boolean {
  return assignment.some((entry) => entry.topic === topic && entry.partitions.includes(partition));
}

/** The group poll as a record source (the default transport): each poll heartbeats, commits and reads. */
function pollSource(member: GroupMember): RecordSource {
  return {
    async poll(request: PollRequest, signal: AbortSignal): Promise<SourceAnswer | undefined> {
      const answer = await member.poll(request, signal);
      return answer && { assignment: answer.assignment, positions: answer.positions, records: answer.records.map(consumedFromPolled) };
    },
    lost: () => {},
    close: () => {},
  };
}

/** Builds the stream transport's source once `run` knows where a partition without a committed offset starts. */
export type StreamSourceFactory = (member: GroupMember, autoOffsetReset: "earliest" | "latest") => RecordSource;

export class Consumer {
  readonly #member: GroupMember;
  readonly #policy: RetryPolicy;
  readonly #log: ClientLog;
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
  #finishing: Promise<void> | undefined;
  readonly #streams: StreamSourceFactory | undefined;
  #source: RecordSource;
  /** Next offset per partition, sent with the next poll: past what handlers finished. */
  readonly #positions = new Map<string, Position>();
  readonly #seeks = new Map<string, Position>();
  readonly #pausedTopics = new Set<string>();
  readonly #pausedPartitions = new Map<string, TopicPartition>();
  /** Partitions of the answer being processed: reported as owned until their handler is done. */
  readonly #working = new Map<string, TopicPartition>();

  constructor(
    member: GroupMember,
    retry: { policy: RetryPolicy; log: ClientLog },
    options: ConsumerOptions,
    listTopics: () => Promise<string[]>,
    streams?: StreamSourceFactory,
  ) {
    this.#member = member;
    this.#policy = retry.policy;
    this.#log = retry.log;
    this.#options = options;
    this.#listTopics = listTopics;
    this.#streams = streams;
    this.#source = pollSource(member);
    member.onLost = () => {
      this.#positions.clear();
      this.#source.lost();
    };
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
    const autoOffsetReset = this.#fromBeginning ? "earliest" : "latest";
    if (this.#streams) this.#source = this.#streams(this.#member, autoOffsetReset);
    await this.#member.join(topics, autoOffsetReset, this.#abort.signal);
    this.#running = true;
    this.#events.emit("group.join", { memberId: this.#member.memberId!, assignment: this.#member.assignment });
    this.#member.startHeartbeats(
      () => [...this.#working.values()].map(({ topic, partition }) => ({ topic, partitions: [partition] })),
      (error) => this.#crash(error),
      this.#streams ? 2 : 1, // streams heartbeat between batches; the timer only covers a long handler
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

  /** Commits positions now, each with an optional metadata string (with autoCommit false, the only way to commit). */
  /**
   * The member this consumer is in its group now (the Java client's `groupMetadata()`): pass it
   * to a transaction's `sendOffsets`, so the offsets are refused if the member was fenced or its
   * partitions moved meanwhile (KIP-447). `memberId` is undefined before the first join.
   */
  groupMetadata(): ConsumerGroupMetadata {
    return { groupId: this.#options.groupId, memberId: this.#member.memberId, memberEpoch: this.#member.memberEpoch };
  }

  async commitOffsets(positions: CommittedPosition[]): Promise<void> {
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

  /** One poll, retried without end on retriable errors (logged), until the consumer stops. */
  async #poll(): Promise<{ answer: SourceAnswer | undefined; seeks: Position[] }> {
    return withRetries(
      async () => {
        const outgoing = this.#outgoing();
        const answer = await this.#source.poll(
          {
            positions: outgoing.positions,
            autoCommit: this.#autoCommit,
            maxRecords: this.#options.maxRecords,
            maxBytes: this.#options.maxBytes,
            waitMs: this.#options.maxWaitTimeInMs ?? 5_000,
            paused: this.paused(),
            isolation: isolationOf(this.#options.readUncommitted),
          },
          this.#abort.signal,
        );
        return { answer, seeks: outgoing.seeks };
      },
      { policy: this.#policy, log: this.#log, signal: this.#abort.signal, forever: true },
    );
  }

  async #consume(config: RunConfig): Promise<void> {
    let failures = 0;
    while (this.#running) {
      let polled: { answer: SourceAnswer | undefined; seeks: Position[] };
      try {
        polled = await this.#poll();
      } catch (error) {
        if (!this.#running) break;
        throw error;
      }
      const { answer, seeks } = polled;
      if (answer === undefined) continue; // fenced or expired, and back in the group
      for (const seek of seeks) if (this.#seeks.get(keyOf(seek.topic, seek.partition)) === seek) this.#seeks.delete(keyOf(seek.topic, seek.partition));
      for (const [key, { topic, partition }] of this.#positions) if (!assigned(answer.assignment, topic, partition)) this.#positions.delete(key);
      for (const position of answer.positions) this.#positions.set(keyOf(position.topic, position.partition), position);
      this.#events.emit("fetch", { records: answer.records.length, assignment: answer.assignment });
      const failure = await this.#process(answer, config);
      if (failure === undefined) {
        failures = 0;
      } else {
        if (failures >= this.#policy.retries) throw failure.error;
        const delayMs = backoffMs(failures++, this.#policy);
        const reason = failure.error instanceof Error ? failure.error.message : String(failure.error);
        this.#log.log("warn", `a handler failed (${reason}); delivering its record again in ${delayMs} ms (${failures} in a row; the consumer stops after ${this.#policy.retries + 1})`, {
          delayMs,
          failures,
        });
        await sleep(delayMs, this.#abort.signal).catch(() => undefined);
      }
    }
    await this.#finish();
    if (this.#fatal !== undefined) throw this.#fatal;
  }

  /** Commits what was processed (with autoCommit) and leaves; once, however the loop ended. */
  #finish(): Promise<void> {
    this.#finishing ??= this.#finishNow();
    return this.#finishing;
  }

  async #finishNow(): Promise<void> {
    this.#member.stopHeartbeats();
    this.#source.close();
    try {
      if (this.#autoCommit && this.#member.joined) await this.#member.commit(this.#outgoing().positions);
    } finally {
      await this.#member.leave();
    }
  }

  /** Runs the handlers over one answer; sets each partition's position after what was finished. */
  async #process(answer: SourceAnswer, config: RunConfig): Promise<{ error: unknown } | undefined> {
    const batches = new Map<string, ConsumedMessage[]>();
    for (const record of answer.records) {
      const key = keyOf(record.topic, record.partition);
      const messages = batches.get(key) ?? [];
      messages.push(record);
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
