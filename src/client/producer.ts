/**
 * A kafkajs-shaped producer: `send({topic, messages})` resolves with each record's offset,
 * `flush()` and `close()`. Records are partitioned on the client with Kafka's default
 * partitioner (keyed: murmur2; keyless: sticky for about `stickyPartitionBytes`, 16 KiB, then
 * another partition — sticky-partitioner.ts) and batched per partition:
 *
 *   send ──► each record written into its partition's open batch (record-batch-builder.ts)
 *        ──(batchBytes reached; or lingerMs after its first record, and the partition's
 *           request pace allows: requestsPerSecond, request-pacer.ts)──►
 *            one request: batches of ≤ batchBytes, binary, atomic ──► offsets to each send
 *
 * One request per partition is in flight at a time, so records keep their order through
 * retries; different partitions are written in parallel. Queued bytes are bounded by
 * `bufferBytes`: a send waits for room (Kafka's buffer.memory). A producer with a
 * `transactionalId` sends only inside `transaction()` (transaction.ts): its batches are
 * transactional, and each partition is added to the transaction before its first write.
 */
import { concatBytes } from "../protocol/bytes.ts";
import { partitionForKey } from "../protocol/partitioner.ts";
import type { CompressionCodec } from "../protocol/compression/codecs.ts";
import { compressBatch } from "../protocol/record-batch-compression.ts";
import { fieldLength, RecordBatchBuilder, sealBatch, type BatchProducer, type RecordFields } from "../protocol/record-batch-builder.ts";
import { writeUtf8 } from "../protocol/utf8.ts";
import { openProducerSession, takeSequences, type ProducerSession } from "./idempotence.ts";
import { incrementSequence } from "../protocol/sequences.ts";
import { postRecords, requestBytesMax, type WriteContext } from "./partition-write.ts";
import { resolveProducerOptions, type ProducerOptions } from "./producer-options.ts";
import { checkMessage, CopiedMessages, headerFields, type Message } from "./records.ts";
import { canCarryCommit, newPartitionQueue, takeRuns, type CarriedCommit, type ClosedBatch, type PartitionQueue, type Run, type SendState } from "./producer-queue.ts";
import type { RequestPacer } from "./request-pacer.ts";
import { after, nextTurn } from "./turns.ts";
import { StickyPartitioner } from "./sticky-partitioner.ts";
import { TransactionalSession, type Transaction, type SendBatchRequest } from "./transaction.ts";
import type { Acks, RecordMetadata } from "./types.ts";

export type { ProducerOptions } from "./producer-options.ts";

export interface SendRequest {
  topic: string;
  messages: Message[];
}

/** A batch's first buffer: at least this, else what the send still holds plus the slack; it doubles when that is short. */
const batchCapacityMin = 1024;
/** Room above the records' counted bytes for the batch header and the records' framing. */
const batchCapacitySlack = 16 * 1024;
/** Framing a record adds beyond its payload, for the buffer's accounting (as records.ts's recordBytes). */
const recordOverheadBytes = 24;

export class Producer {
  readonly #context: WriteContext;
  readonly #lingerMs: number;
  /** Undefined when requestsPerSecond is Infinity. */
  readonly #pacer: RequestPacer | undefined;
  readonly #batchBytes: number;
  readonly #stickyPartitionBytes: number;
  readonly #bufferBytes: number;
  readonly #acks: Acks;
  readonly #idempotent: boolean;
  readonly #compression: CompressionCodec;
  readonly #queues = new Map<string, PartitionQueue>();
  /** Where keyless records of each topic go; one entry per topic that got some, as Kafka's. */
  readonly #sticky = new Map<string, StickyPartitioner>();
  #session: Promise<ProducerSession> | undefined;
  #bufferedBytes = 0;
  readonly #spaceWaiters: { bytes: number; resolve(): void }[] = [];
  #closed = false;
  /** Sends whose messages are not all queued yet (a metadata lookup, a wait for room). */
  readonly #sending = new Set<Promise<unknown>>();
  /** A transactional producer's transactions and its producer id (transaction.ts). */
  readonly #transactions: TransactionalSession | undefined;

  constructor(context: WriteContext, options: ProducerOptions = {}) {
    this.#context = context;
    const resolved = resolveProducerOptions(options);
    this.#lingerMs = resolved.lingerMs;
    this.#pacer = resolved.pacer;
    this.#batchBytes = resolved.batchBytes;
    this.#stickyPartitionBytes = resolved.stickyPartitionBytes;
    this.#bufferBytes = resolved.bufferBytes;
    this.#acks = resolved.acks;
    this.#idempotent = resolved.idempotent;
    this.#compression = resolved.compression;
    const { transactional } = resolved;
    if (transactional !== undefined) this.#transactions = new TransactionalSession(context, transactional.transactionalId, transactional.transactionTimeoutMs);
  }

  /** A finished batch with its records compressed, once, before it is sealed (producer fields and CRC are the header's). */
  #compressed(batch: Uint8Array): Uint8Array {
    return this.#compression === "none" ? batch : compressBatch(batch, this.#compression, { preferNative: true });
  }

  /** Queues the messages; resolves with where each landed, in order, once all are acknowledged. */
  async send(request: SendRequest): Promise<RecordMetadata[]> {
    if (this.#transactions !== undefined) throw new Error("a transactional producer sends inside a transaction: `const transaction = await producer.transaction()`, then transaction.send");
    return this.#send(request);
  }

  /** Sends to several topics (kafkajs's sendBatch); resolves with every record's metadata, in order. */
  async sendBatch(request: SendBatchRequest): Promise<RecordMetadata[]> {
    const { topicMessages } = request ?? {};
    if (!Array.isArray(topicMessages) || topicMessages.length === 0) throw new TypeError("sendBatch: topicMessages must be a non-empty array");
    return (await Promise.all(topicMessages.map((entry) => this.send(entry)))).flat();
  }

  /**
   * A transactional producer's next transaction (transaction.ts): the first one initializes
   * the transactional id, fencing any older producer with it. One at a time: another while this
   * one is neither committed nor aborted is an error.
   */
  async transaction(): Promise<Transaction> {
    if (this.#transactions === undefined) throw new Error("transaction() is for a transactional producer: tributary.producer({ transactionalId })");
    if (this.#closed) throw new Error("the producer is closed");
    return this.#transactions.begin({ send: (request) => this.#send(request), flush: () => this.flush(), flushCommitting: () => this.#flushCommitting() });
  }

  async #send(request: SendRequest): Promise<RecordMetadata[]> {
    if (this.#closed) throw new Error("the producer is closed");
    let state: SendState | undefined;
    const done = new Promise<RecordMetadata[]>((resolve, reject) => {
      state = { results: [], remaining: 0, failed: false, resolve, reject };
    });
    // A write may fail while later messages still wait for room: the rejection is the caller's once it awaits.
    done.catch(() => {});
    const enqueued = this.#enqueueAll(request, state!);
    this.#sending.add(enqueued);
    try {
      await enqueued;
    } finally {
      this.#sending.delete(enqueued);
    }
    return done;
  }

  /**
   * Checks every message (nothing is queued if one is refused), then partitions each and
   * writes it straight into its partition's open batch. Strings are encoded there and bytes
   * copied there, during `send`; a message that must wait (for metadata, or for room in the
   * buffer) is copied first, so the caller may reuse its buffers as soon as `send` returns.
   */
  async #enqueueAll(request: SendRequest, state: SendState): Promise<void> {
    const { topic, messages } = request ?? {};
    if (typeof topic !== "string" || topic === "") throw new TypeError("send: topic must be a non-empty string");
    if (!Array.isArray(messages) || messages.length === 0) throw new TypeError("send: messages must be a non-empty array");
    let needsCount = false;
    for (let index = 0; index < messages.length; index++) {
      if (checkMessage(messages[index]!, index) === undefined) needsCount = true;
    }
    const nowMs = Date.now();
    state.results = new Array<RecordMetadata>(messages.length);
    state.remaining = messages.length;
    // The caller's messages are read in place until the send must wait; from then on, copies.
    let copied: CopiedMessages | undefined;
    let partitionCount = needsCount ? this.#context.metadata.cachedPartitionCount(topic) : 0;
    if (partitionCount === undefined) {
      copied = new CopiedMessages(messages, 0);
      partitionCount = await this.#context.metadata.partitionCount(topic);
    }
    const fields: RecordFields = { key: null, keyLength: -1, value: null, valueLength: -1, headers: undefined, timestamp: 0 };
    const total = messages.length;
    let encodedSinceYield = 0;
    for (let index = 0; index < total; index++) {
      let partition: number | undefined;
      let timestamp: number | undefined;
      if (copied === undefined) {
        const message = messages[index]!;
        fields.key = message.key ?? null;
        fields.value = message.value ?? null;
        fields.headers = headerFields(message.headers);
        timestamp = message.timestamp ?? undefined;
        partition = message.partition;
      } else {
        const at = index - copied.from;
        fields.key = copied.keys[at]!;
        fields.value = copied.values[at]!;
        fields.headers = copied.headers[at];
        timestamp = copied.timestamps[at];
        partition = copied.partitions[at];
      }
      const key = fields.key;
      const headers = fields.headers;
      fields.keyLength = fieldLength(key);
      fields.valueLength = fieldLength(fields.value);
      fields.timestamp = timestamp ?? nowMs;
      let bytes = recordOverheadBytes + Math.max(0, fields.keyLength) + Math.max(0, fields.valueLength);
      if (headers !== undefined) for (const header of headers) bytes += header.key.length + Math.max(0, fieldLength(header.value));
      const chosen = partition ?? (key !== null ? keyedPartition(key, fields.keyLength, partitionCount) : this.#keyless(topic).next(partitionCount, bytes));
      // Waiting senders go first (FIFO); one record larger than the buffer still goes alone.
      const full = this.#spaceWaiters.length > 0 || (this.#bufferedBytes > 0 && this.#bufferedBytes + bytes > this.#bufferBytes);
      if (full) {
        if (copied === undefined) {
          copied = new CopiedMessages(messages, index);
          fields.key = copied.keys[0]!;
          fields.value = copied.values[0]!;
          fields.headers = copied.headers[0];
        }
        await this.#room(bytes);
      } else {
        this.#bufferedBytes += bytes;
      }
      const queue = this.#enqueue(topic, chosen, fields, bytes, state, index, (bytes * (total - index)) / Math.max(1, partitionCount));
      // A long send lets the event loop in once a batch's worth is written while a request is
      // out, so that its answer is read (and the next request sent) while the rest is encoded.
      encodedSinceYield += bytes;
      if (encodedSinceYield >= this.#batchBytes && queue.inFlight !== undefined && index + 1 < total) {
        encodedSinceYield = 0;
        copied ??= new CopiedMessages(messages, index + 1);
        await nextTurn();
      }
    }
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

  /**
   * A transaction's commit: settles every send as flush() does; when the partitions with records
   * waiting have them all queued (none in flight) and each fits one request, those requests carry
   * the commit (`commitAfterWrites`), and the answer is the next identity once they committed it.
   */
  async #flushCommitting(): Promise<CarriedCommit["committed"]> {
    await Promise.allSettled([...this.#sending]);
    const queues = [...this.#queues.values()].filter((queue) => queue.settledTotal < queue.enqueuedTotal);
    if (!canCarryCommit(queues, requestBytesMax)) {
      await this.flush();
      return undefined;
    }
    const carried: CarriedCommit = { writes: queues.length, committed: undefined };
    for (const queue of queues) queue.carriedCommit = carried;
    await this.flush();
    return carried.committed;
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

  /** Appends a record whose bytes are already counted in #bufferedBytes to its partition's open batch; answers the queue. */
  #enqueue(topic: string, partition: number, fields: RecordFields, bytes: number, state: SendState, index: number, bytesAhead: number): PartitionQueue {
    const key = `${topic}\u0000${partition}`;
    let queue = this.#queues.get(key);
    if (!queue) {
      queue = newPartitionQueue(key, topic, partition);
      this.#queues.set(key, queue);
    }
    // A batch starts as large as what this send still has to write (up to batchBytes): few regrowths.
    const capacity = Math.min(Math.max(batchCapacityMin, bytesAhead + batchCapacitySlack), this.#batchBytes + batchCapacitySlack);
    queue.open ??= new RecordBatchBuilder(capacity);
    if (!queue.open.tryAppend(fields, this.#batchBytes)) {
      const closed = this.#compressed(queue.open.finish());
      // Without a producer identity the batch is final now: its CRC is computed here, while an earlier request is out.
      if (!this.#idempotent) sealBatch(closed);
      queue.closed.push({ bytes: closed, records: queue.open.count, accounted: queue.openAccounted, sealed: !this.#idempotent });
      queue.open = new RecordBatchBuilder(capacity);
      queue.openAccounted = 0;
      queue.open.tryAppend(fields, this.#batchBytes); // a first record always fits
    }
    queue.openAccounted += bytes;
    const last = queue.runs.length > 0 ? queue.runs[queue.runs.length - 1]! : undefined;
    if (last !== undefined && last.send === state && last.firstIndex + last.count === index && last.timestamp === fields.timestamp) last.count += 1;
    else queue.runs.push({ send: state, firstIndex: index, count: 1, timestamp: fields.timestamp });
    if (queue.records === 0) queue.firstQueuedAtMs = Date.now();
    queue.records += 1;
    queue.bytes += bytes;
    queue.enqueuedTotal += 1;
    this.#schedule(queue);
    return queue;
  }

  #schedule(queue: PartitionQueue): void {
    if (queue.inFlight || queue.records === 0) return;
    const taken = queue.enqueuedTotal - queue.records;
    const urgent = queue.urgentUntil > taken || queue.bytes >= this.#batchBytes;
    if (urgent) {
      this.#drain(queue);
      return;
    }
    if (queue.timer === undefined) {
      // lingerMs 0 still waits a macrotask, so the records of one send() share a batch.
      const nowMs = Date.now();
      const waitMs = Math.max(0, queue.firstQueuedAtMs + this.#lingerMs - nowMs, this.#pacer?.waitMs(queue.key, nowMs) ?? 0);
      queue.timer = after(waitMs, () => this.#drain(queue, true));
    }
  }

  /** Sends the queue's oldest batches, up to requestBytesMax (at least one), as one request; `paced`: it counts against requestsPerSecond. */
  #drain(queue: PartitionQueue, paced = false): void {
    queue.timer?.();
    queue.timer = undefined;
    if (queue.inFlight || queue.records === 0) return;
    if (paced) this.#pacer?.take(queue.key, Date.now());
    const batches: ClosedBatch[] = [];
    let size = 0;
    while (queue.closed.length > batches.length && (batches.length === 0 || size + queue.closed[batches.length]!.bytes.length <= requestBytesMax)) {
      size += queue.closed[batches.length]!.bytes.length;
      batches.push(queue.closed[batches.length]!);
    }
    queue.closed.splice(0, batches.length);
    const open = queue.open;
    if (queue.closed.length === 0 && open !== undefined && (batches.length === 0 || size + open.byteLength <= requestBytesMax)) {
      batches.push({ bytes: this.#compressed(open.finish()), records: open.count, accounted: queue.openAccounted, sealed: false });
      queue.open = undefined;
      queue.openAccounted = 0;
    }
    let records = 0;
    let bytes = 0;
    for (const batch of batches) {
      records += batch.records;
      bytes += batch.accounted;
    }
    const runs = takeRuns(queue.runs, records);
    queue.records -= records;
    queue.bytes -= bytes;
    // The commit goes with the request that empties the queue (canCarryCommit: the first one).
    const carried = queue.records === 0 ? queue.carriedCommit : undefined;
    queue.carriedCommit = undefined;
    queue.inFlight = this.#write(queue, batches, runs, records, carried).finally(() => {
      queue.inFlight = undefined;
      queue.settledTotal += records;
      this.#release(bytes);
      queue.settledWaiters = queue.settledWaiters.filter((waiter) => {
        if (queue.settledTotal < waiter.target) return true;
        waiter.resolve();
        return false;
      });
      if (queue.records > 0) this.#schedule(queue);
      else if (queue.settledWaiters.length === 0) this.#queues.delete(queue.key);
    });
  }

  /** Never rejects: the outcome goes to each send the records belong to. */
  async #write(queue: PartitionQueue, batches: ClosedBatch[], runs: Run[], records: number, carried?: CarriedCommit): Promise<void> {
    let session: Promise<ProducerSession> | undefined;
    // A transactional producer writes only inside its transaction, with the session transaction() opened.
    const transaction = this.#transactions?.current;
    try {
      let identity: BatchProducer | undefined;
      if (this.#idempotent) {
        session = this.#transactions?.session ?? (this.#session ??= openProducerSession(this.#context.transport, this.#context.policy, this.#context.log, queue.topic));
        const current = await session;
        transaction?.writing();
        const baseSequence = takeSequences(current, queue.topic, queue.partition, records);
        identity = { producerId: current.producerId, producerEpoch: current.producerEpoch, baseSequence, transactional: transaction !== undefined };
      }
      for (const batch of batches) {
        if (!batch.sealed) sealBatch(batch.bytes, identity);
        batch.sealed = true; // a retry of this request resends these very bytes
        if (identity) identity = { ...identity, baseSequence: incrementSequence(identity.baseSequence, batch.records) };
      }
      const body = concatBytes(batches.map((batch) => batch.bytes));
      const transactionalId = this.#transactions?.transactionalId;
      // The topic's partitions this producer is writing now: the first write's check adds them all to the transaction at once.
      const transactionPartitions = transaction?.partitionsToAdd(queue.topic, queue.partition, [...this.#queues.values()].filter((other) => other.topic === queue.topic && (other.records > 0 || other.inFlight !== undefined)).map((other) => other.partition));
      const written = await postRecords(this.#context, { topic: queue.topic, partition: queue.partition, body, records, acks: this.#acks, transactionalId, transactionPartitions, commitAfterWrites: carried?.writes });
      transaction?.partitionsAdded(queue.topic, [queue.partition, ...(transactionPartitions ?? [])]);
      if (carried !== undefined && written.committed !== undefined) carried.committed = written.committed;
      let offset = written.baseOffset;
      for (const run of runs) {
        const { send } = run;
        const timestamp = written.timestamp ?? run.timestamp;
        for (let at = 0; at < run.count; at++) {
          send.results[run.firstIndex + at] = { topic: queue.topic, partition: queue.partition, offset: offset < 0 ? -1 : offset++, timestamp };
        }
        send.remaining -= run.count;
        if (send.remaining === 0 && !send.failed) send.resolve(send.results);
      }
    } catch (error) {
      // A failed idempotent write leaves its sequences in doubt: start over with a new producer id.
      // A transactional one dooms its transaction instead; the abort's epoch bump starts the sequences over.
      if (transaction !== undefined) transaction.writeFailed(error);
      else if (session !== undefined && this.#session === session) this.#session = undefined;
      for (const { send } of runs) {
        if (send.failed) continue;
        send.failed = true;
        send.reject(error);
      }
    }
  }
}

/** Kafka's default partitioner for a key given as text or bytes (no copy of the key is kept). */
let keyScratch = new Uint8Array(256);
function keyedPartition(key: string | Uint8Array, keyLength: number, partitionCount: number): number {
  if (partitionCount === 1) return 0;
  if (typeof key !== "string") return partitionForKey(key, partitionCount);
  if (keyScratch.length < keyLength) keyScratch = new Uint8Array(Math.max(keyLength, keyScratch.length * 2));
  writeUtf8(keyScratch, 0, key, keyLength);
  return partitionForKey(keyScratch.subarray(0, keyLength), partitionCount);
}
