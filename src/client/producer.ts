/**
 * A kafkajs-shaped producer: `send({topic, messages})` resolves with each record's offset,
 * `flush()` and `close()`. Records are partitioned on the client with Kafka's default
 * partitioner (keyed: murmur2; keyless: sticky for about `stickyPartitionBytes`, 16 KiB, then
 * another partition — sticky-partitioner.ts) and batched per partition:
 *
 *   send ──► partition queue ──(batchBytes reached, or lingerMs after its first record)──►
 *            one request: batches of ≤ batchBytes, binary, atomic ──► offsets to each send
 *
 * One request per partition is in flight at a time, so records keep their order through
 * retries; different partitions are written in parallel. Queued bytes are bounded by
 * `bufferBytes`: a send waits for room (Kafka's buffer.memory).
 */
import { partitionForKey } from "../protocol/partitioner.ts";
import type { RecordInput } from "../protocol/record-batch.ts";
import { openProducerSession, takeSequences, type ProducerSession } from "./idempotence.ts";
import { batchBytesMax, requestBytesMax, splitIntoBatches, writePartition, type WriteContext } from "./partition-write.ts";
import { partitionOf, recordBytes, toRecordInput, type Message } from "./records.ts";
import { StickyPartitioner, stickyPartitionBytesDefault } from "./sticky-partitioner.ts";
import type { Acks, RecordMetadata } from "./types.ts";

export interface ProducerOptions {
  /** How long a partition's first record waits for others to join its batch. Default 5 (Kafka's linger.ms). */
  lingerMs?: number;
  /** A partition's queue is sent once it holds this many bytes; also the largest batch. Default and maximum 1 MiB. */
  batchBytes?: number;
  /**
   * Keyless messages go to one partition until about this many bytes went to it, then to
   * another (Kafka's sticky partitioner switches per `batch.size`). Default 16384.
   */
  stickyPartitionBytes?: number;
  /** Default "all". */
  acks?: Acks;
  /**
   * Default true with `acks: "all"` (Kafka's enable.idempotence since 3.0): batches carry a
   * producer id and sequences, so a retry is never written twice. It needs `acks: "all"`; with
   * another `acks` and no `idempotent` option it is off, as in Kafka.
   */
  idempotent?: boolean;
  /** Bytes queued or in flight before `send` waits for room. Default 32 MiB (Kafka's buffer.memory). */
  bufferBytes?: number;
}

export interface SendRequest {
  topic: string;
  messages: Message[];
}

interface Pending {
  record: RecordInput;
  bytes: number;
  enqueuedAtMs: number;
  resolve(metadata: RecordMetadata): void;
  reject(error: unknown): void;
}

interface PartitionQueue {
  topic: string;
  partition: number;
  records: Pending[];
  bytes: number;
  /** Records ever enqueued / settled here: flush() waits for a count, not for the queue to stay empty. */
  enqueuedTotal: number;
  settledTotal: number;
  /** Records up to this enqueued count are sent without lingering (a flush asked). */
  urgentUntil: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  inFlight: Promise<void> | undefined;
  settledWaiters: { target: number; resolve(): void }[];
}

function checkOption(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`producer option ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

export class Producer {
  readonly #context: WriteContext;
  readonly #lingerMs: number;
  readonly #batchBytes: number;
  readonly #stickyPartitionBytes: number;
  readonly #bufferBytes: number;
  readonly #acks: Acks;
  readonly #idempotent: boolean;
  readonly #queues = new Map<string, PartitionQueue>();
  /** Where keyless records of each topic go; one entry per topic that got some, as Kafka's. */
  readonly #sticky = new Map<string, StickyPartitioner>();
  #session: Promise<ProducerSession> | undefined;
  #bufferedBytes = 0;
  readonly #spaceWaiters: { bytes: number; resolve(): void }[] = [];
  #closed = false;
  /** Sends whose messages are not all queued yet (a metadata lookup, a wait for room). */
  readonly #sending = new Set<Promise<unknown>>();

  constructor(context: WriteContext, options: ProducerOptions = {}) {
    this.#context = context;
    this.#lingerMs = checkOption("lingerMs", options.lingerMs ?? 5, 0, 60_000);
    this.#batchBytes = checkOption("batchBytes", options.batchBytes ?? batchBytesMax, 1, batchBytesMax);
    this.#stickyPartitionBytes = checkOption("stickyPartitionBytes", options.stickyPartitionBytes ?? stickyPartitionBytesDefault, 1, 2 ** 40);
    this.#bufferBytes = checkOption("bufferBytes", options.bufferBytes ?? 32 * 1024 * 1024, this.#batchBytes, 2 ** 40);
    const acks = options.acks ?? "all";
    if (acks !== 0 && acks !== 1 && acks !== "all") throw new RangeError(`producer option acks must be 0, 1 or "all"`);
    this.#acks = acks;
    this.#idempotent = options.idempotent ?? acks === "all";
    if (this.#idempotent && acks !== "all") throw new RangeError(`an idempotent producer needs acks "all" (API.md, Produce)`);
  }

  /** Queues the messages; resolves with where each landed, in order, once all are acknowledged. */
  async send(request: SendRequest): Promise<RecordMetadata[]> {
    if (this.#closed) throw new Error("the producer is closed");
    const enqueued = this.#enqueueAll(request);
    this.#sending.add(enqueued);
    try {
      return Promise.all(await enqueued);
    } finally {
      this.#sending.delete(enqueued);
    }
  }

  /** Checks and partitions the messages and queues them; resolves once all are queued. */
  async #enqueueAll(request: SendRequest): Promise<Promise<RecordMetadata>[]> {
    const { topic, messages } = request ?? {};
    if (typeof topic !== "string" || topic === "") throw new TypeError("send: topic must be a non-empty string");
    if (!Array.isArray(messages) || messages.length === 0) throw new TypeError("send: messages must be a non-empty array");
    const nowMs = Date.now();
    const inputs = messages.map((message, index) => {
      const where = `messages[${index}]`;
      return { record: toRecordInput(message, nowMs, where), partition: partitionOf(message, where) };
    });
    const needsCount = inputs.some((input) => input.partition === undefined);
    const partitionCount = needsCount ? await this.#context.metadata.partitionCount(topic) : 0;
    const results: Promise<RecordMetadata>[] = [];
    for (const { record, partition } of inputs) {
      const bytes = recordBytes(record);
      const chosen = partition ?? (record.key !== null ? partitionForKey(record.key, partitionCount) : this.#keyless(topic).next(partitionCount, bytes));
      // Waiting senders go first (FIFO); one record larger than the buffer still goes alone.
      const full = this.#spaceWaiters.length > 0 || (this.#bufferedBytes > 0 && this.#bufferedBytes + bytes > this.#bufferBytes);
      if (full) await this.#room(bytes);
      else this.#bufferedBytes += bytes;
      results.push(this.#enqueue(topic, chosen, record, bytes));
    }
    return results;
  }

  /** Sends everything queued so far at once; resolves when all of it is settled (acknowledged or failed). */
  async flush(): Promise<void> {
    // Sends called before flush may still be looking up metadata: they count too.
    await Promise.allSettled([...this.#sending]);
    const waits: Promise<void>[] = [];
    for (const queue of this.#queues.values()) {
      if (queue.settledTotal >= queue.enqueuedTotal) continue;
      queue.urgentUntil = Math.max(queue.urgentUntil, queue.enqueuedTotal);
      const target = queue.enqueuedTotal;
      waits.push(new Promise((resolve) => queue.settledWaiters.push({ target, resolve })));
      this.#schedule(queue);
    }
    await Promise.all(waits);
  }

  /** Refuses further sends, then flushes. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #keyless(topic: string): StickyPartitioner {
    let partitioner = this.#sticky.get(topic);
    if (partitioner === undefined) this.#sticky.set(topic, (partitioner = new StickyPartitioner(this.#stickyPartitionBytes)));
    return partitioner;
  }

  #room(bytes: number): Promise<void> {
    return new Promise((resolve) => this.#spaceWaiters.push({ bytes, resolve }));
  }

  /** Gives back a settled write's bytes and lets waiting senders in, reserving their room. */
  #release(bytes: number): void {
    this.#bufferedBytes -= bytes;
    while (this.#spaceWaiters.length > 0) {
      const next = this.#spaceWaiters[0]!;
      if (this.#bufferedBytes > 0 && this.#bufferedBytes + next.bytes > this.#bufferBytes) break;
      this.#spaceWaiters.shift();
      this.#bufferedBytes += next.bytes;
      next.resolve();
    }
  }

  /** Adds a record whose bytes are already counted in #bufferedBytes to its partition's queue. */
  #enqueue(topic: string, partition: number, record: RecordInput, bytes: number): Promise<RecordMetadata> {
    const key = `${topic}\u0000${partition}`;
    let queue = this.#queues.get(key);
    if (!queue) {
      queue = {
        topic,
        partition,
        records: [],
        bytes: 0,
        enqueuedTotal: 0,
        settledTotal: 0,
        urgentUntil: 0,
        timer: undefined,
        inFlight: undefined,
        settledWaiters: [],
      };
      this.#queues.set(key, queue);
    }
    const target = queue;
    const promise = new Promise<RecordMetadata>((resolve, reject) => {
      target.records.push({ record, bytes, enqueuedAtMs: Date.now(), resolve, reject });
    });
    queue.bytes += bytes;
    queue.enqueuedTotal += 1;
    this.#schedule(queue);
    return promise;
  }

  #schedule(queue: PartitionQueue): void {
    if (queue.inFlight || queue.records.length === 0) return;
    const taken = queue.enqueuedTotal - queue.records.length;
    const urgent = queue.urgentUntil > taken || queue.bytes >= this.#batchBytes;
    if (urgent) {
      this.#drain(queue);
      return;
    }
    if (queue.timer === undefined) {
      // lingerMs 0 still waits a macrotask, so the records of one send() share a batch.
      const waitMs = Math.max(0, queue.records[0]!.enqueuedAtMs + this.#lingerMs - Date.now());
      queue.timer = setTimeout(() => this.#drain(queue), waitMs);
    }
  }

  #drain(queue: PartitionQueue): void {
    clearTimeout(queue.timer);
    queue.timer = undefined;
    if (queue.inFlight || queue.records.length === 0) return;
    let bytes = 0;
    let count = 0;
    while (count < queue.records.length && (count === 0 || bytes + queue.records[count]!.bytes <= requestBytesMax)) {
      bytes += queue.records[count]!.bytes;
      count += 1;
    }
    const taken = queue.records.splice(0, count);
    queue.bytes -= bytes;
    queue.inFlight = this.#write(queue, taken).finally(() => {
      queue.inFlight = undefined;
      queue.settledTotal += taken.length;
      this.#release(bytes);
      queue.settledWaiters = queue.settledWaiters.filter((waiter) => {
        if (queue.settledTotal < waiter.target) return true;
        waiter.resolve();
        return false;
      });
      if (queue.records.length > 0) this.#schedule(queue);
      else if (queue.settledWaiters.length === 0) this.#queues.delete(`${queue.topic}\u0000${queue.partition}`);
    });
  }

  /** Never rejects: the outcome goes to each record's own promise. */
  async #write(queue: PartitionQueue, taken: Pending[]): Promise<void> {
    const batches = splitIntoBatches(
      taken.map((pending) => pending.record),
      this.#batchBytes,
    );
    let session: Promise<ProducerSession> | undefined;
    try {
      let identity;
      if (this.#idempotent) {
        session = this.#session ??= openProducerSession(this.#context.transport, this.#context.policy, this.#context.log);
        const current = await session;
        const baseSequence = takeSequences(current, queue.topic, queue.partition, taken.length);
        identity = { producerId: current.producerId, producerEpoch: current.producerEpoch, baseSequence };
      }
      const written = await writePartition(this.#context, { topic: queue.topic, partition: queue.partition, batches, acks: this.#acks, identity });
      taken.forEach((pending, index) => pending.resolve(written[index]!));
    } catch (error) {
      // A failed idempotent write leaves its sequences in doubt: start over with a new producer id.
      if (session !== undefined && this.#session === session) this.#session = undefined;
      for (const pending of taken) pending.reject(error);
    }
  }
}
