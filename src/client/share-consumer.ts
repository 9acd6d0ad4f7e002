/**
 * A share consumer (KIP-932's KafkaShareConsumer over docs/api.md's share groups): any number
 * of them work the same partitions together, each record locked to one fetch's lease and
 * acknowledged one by one.
 *
 *   run ──► fetch(acknowledgements so far) ──► records, lease ──► eachMessage (≤ concurrency at once)
 *             ▲                                                          │ accept / release / reject
 *             └────────────── acknowledgements ride along ◄──────────────┘
 *
 * Implicit acknowledgement (the default): a handler that returns accepts its record, one that
 * throws releases it (delivered again, its delivery counted), one that throws a `RejectRecord`
 * rejects it (never delivered again). A handler may also call `acknowledge(message, type)`
 * itself, which then wins. Explicit acknowledgement: only `acknowledge()` does, and the next
 * fetch waits until every record held is acknowledged or its lease expired (so what a
 * consumer holds stays bounded by one fetch), as Kafka's explicit mode.
 *
 * Acknowledgements ride along on the next fetch, as KIP-932's ShareFetch does; when handlers
 * failed on every record of a fetch, they are sent at once (released records go to the other
 * consumers) and the next fetch waits the backoff policy's delay. `stop()` lets the handlers
 * at work finish, releases the records not handed to a handler, and sends every pending
 * acknowledgement. An acknowledgement the server refuses (INVALID_RECORD_STATE: the lease
 * expired) is logged, not thrown: those records are delivered again.
 *
 * Fetches are retried on retriable errors without end (logged), as the group consumer's polls;
 * the first one, in `run()`, only `retry.retries` times, so a wrong URL fails.
 */
import { EventHub } from "./consumer-events.ts";
import type { PolledRecord } from "./group-member.ts";
import type { ClientLog } from "./logger.ts";
import { consumedFromPolled } from "./records.ts";
import { backoffMs, sleep, withRetries, type RetryPolicy } from "./retry.ts";
import { invalidRecordState, RejectRecord, ShareAcks, type LeasedAcknowledgement } from "./share-acks.ts";
import type { AcknowledgeType, ShareAcknowledgementResult, ShareConsumerEvents, ShareConsumerOptions, ShareMessage, ShareRunConfig } from "./share-types.ts";
import { path, type Transport } from "./transport.ts";

export { RejectRecord } from "./share-acks.ts";

/** A share fetch's answer, as the consumer reads it (checked against the router's schema in test/unit/client/share-types.test.ts). */
export interface FetchAnswer {
  records: (PolledRecord & { deliveryCount: number })[];
  lease?: string | null;
  leaseExpiresAt?: number | null;
  /** Per-partition results of the acknowledgements that rode along (present when some did). */
  results?: ShareAcknowledgementResult[];
}

export interface ShareConsumerContext {
  transport: Transport;
  policy: RetryPolicy;
  log: ClientLog;
}

const defaultWaitMs = 5_000;

export function checkShareOptions(options: ShareConsumerOptions): void {
  if (options === null || typeof options !== "object") throw new TypeError("shareConsumer({ group, topics })");
  if (typeof options.group !== "string" || options.group === "") throw new TypeError("shareConsumer: group is required");
  const { topics } = options;
  if (!Array.isArray(topics) || topics.length === 0 || !topics.every((topic) => typeof topic === "string" && topic !== "")) {
    throw new TypeError("shareConsumer: topics is a non-empty list of topic names");
  }
  const { concurrency = 1, acknowledgement = "implicit" } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError(`shareConsumer: concurrency must be an integer >= 1, got ${concurrency}`);
  if (acknowledgement !== "implicit" && acknowledgement !== "explicit") throw new TypeError(`shareConsumer: acknowledgement is "implicit" or "explicit", got ${String(acknowledgement)}`);
}

export class ShareConsumer {
  readonly #context: ShareConsumerContext;
  readonly #options: ShareConsumerOptions;
  readonly #acks: ShareAcks;
  readonly #explicit: boolean;
  readonly #events = new EventHub<ShareConsumerEvents>();
  #running = false;
  #stopped = false;
  #abort = new AbortController();
  /** run()'s first fetch: a stop() meanwhile waits for it, then for the loop that releases what it got. */
  #starting: Promise<FetchAnswer> | undefined;
  #loop: Promise<void> | undefined;

  constructor(context: ShareConsumerContext, options: ShareConsumerOptions) {
    checkShareOptions(options);
    this.#context = context;
    this.#options = { ...options, topics: [...options.topics] };
    this.#acks = new ShareAcks(context.log);
    this.#explicit = options.acknowledgement === "explicit";
  }

  /**
   * Makes a first fetch (retried `retry.retries` times: a wrong URL or group fails here), then
   * consumes until `stop()`; resolves once the first fetch answered. `done()` follows the rest.
   */
  async run(config: ShareRunConfig): Promise<void> {
    if (this.#starting) throw new Error("the share consumer is already running");
    if (this.#stopped) throw new Error("the share consumer was stopped; create another to consume again");
    if (typeof config?.eachMessage !== "function") throw new TypeError("run: eachMessage is required");
    this.#running = true;
    this.#starting = this.#fetch([], { waitMs: 0, forever: false });
    let first: FetchAnswer;
    try {
      first = await this.#starting;
    } catch (error) {
      this.#running = false;
      throw error;
    }
    this.#loop = this.#consume(config, first).catch((error: unknown) => {
      this.#events.emit("crash", { error });
      throw error;
    });
    this.#loop.catch(() => undefined); // observed through done() and the crash event
  }

  /** Listens to `fetch` (after each fetch: how many records it acquired) or `crash`; returns a function that removes the listener. */
  on<Event extends keyof ShareConsumerEvents>(event: Event, listener: (payload: ShareConsumerEvents[Event]) => void): () => void {
    return this.#events.on(event, listener);
  }

  /** Resolves when the consumer stopped, rejects with the error that ended it. */
  done(): Promise<void> {
    return this.#loop ?? Promise.resolve();
  }

  /**
   * Acknowledges a record this consumer holds (accept, release or reject); sent with the next
   * fetch, or by `stop()`. Each record once; in implicit mode, inside its handler, this wins
   * over what the handler's outcome would acknowledge.
   */
  acknowledge(message: Pick<ShareMessage, "topic" | "partition" | "offset">, type: AcknowledgeType): void {
    this.#acks.acknowledge(message, type);
  }

  /**
   * Stops: handlers at work finish (and are acknowledged), records not handed to a handler and
   * records not acknowledged are released, and every acknowledgement is sent. A fetch in flight
   * is let finish (up to `maxWaitTimeInMs`), so that what it acquired is released too rather
   * than locked until its lease expires; a retry's wait is cut short. Inside a handler, call it
   * without `await` (it waits for the handler).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#running = false;
    this.#abort.abort(new Error("the share consumer is stopping"));
    await this.#starting?.catch(() => undefined);
    await this.#loop?.catch(() => undefined);
  }

  async #consume(config: ShareRunConfig, first: FetchAnswer): Promise<void> {
    let answer: FetchAnswer | undefined = first;
    let failedRounds = 0;
    try {
      while (this.#running) {
        if (answer === undefined) {
          if (this.#explicit) await this.#untilAcknowledged();
          if (!this.#running) break;
          const outgoing = this.#acks.take();
          try {
            answer = await this.#fetch(outgoing, { waitMs: this.#options.maxWaitTimeInMs ?? defaultWaitMs, forever: true });
          } catch (error) {
            if (!this.#running) {
              this.#acks.restore(outgoing);
              break;
            }
            throw error;
          }
        }
        const { handled, failed } = await this.#process(answer, config);
        answer = undefined;
        if (handled > 0 && failed === handled) {
          // Every record failed: hand them to the others now, and do not spin on a broken dependency.
          await this.#flush(false);
          const delayMs = backoffMs(failedRounds++, this.#context.policy);
          this.#context.log.log("warn", `every record of the last fetch failed in its handler; fetching again in ${delayMs} ms`, { delayMs, failedRounds });
          await sleep(delayMs, this.#abort.signal).catch(() => undefined);
        } else if (handled > 0) {
          failedRounds = 0;
        }
      }
    } finally {
      this.#running = false;
      const released = this.#acks.releaseUnacknowledged();
      if (released > 0) this.#context.log.log("debug", `stopping: released ${released} record(s) not handled`, { records: released });
      await this.#flush(true);
    }
  }

  /** Explicit mode: waits until every held record is acknowledged, or its lease expired, or the consumer stops. */
  async #untilAcknowledged(): Promise<void> {
    while (this.#running && this.#acks.unacknowledged > 0) {
      const expiry = this.#acks.nextExpiry()!;
      // The expiry timer ends with the wait, so waits of many acknowledgements leave no timers behind.
      const waited = new AbortController();
      const untilExpiry = sleep(Math.max(0, expiry - Date.now()), AbortSignal.any([this.#abort.signal, waited.signal])).catch(() => undefined);
      await Promise.race([this.#acks.nextAcknowledgement(), untilExpiry]);
      waited.abort();
      this.#acks.dropExpired(Date.now());
    }
  }

  /** One fetch carrying `acknowledgements`; retriable failures retried (logged), without end when `forever`. */
  async #fetch(acknowledgements: LeasedAcknowledgement[], how: { waitMs: number; forever: boolean }): Promise<FetchAnswer> {
    const { group, topics, maxRecords, maxBytes } = this.#options;
    const request = () => withRetries(
      () =>
        this.#context.transport.json<FetchAnswer>({
          method: "POST",
          path: path("share-groups", group, "fetch"),
          json: { topics, maxRecords, maxBytes, waitMs: how.waitMs, encoding: "base64", ...(acknowledgements.length > 0 ? { acknowledgements } : {}) },
          waitMs: how.waitMs,
          // No signal: stop() lets a fetch in flight finish and releases what it acquired. Cut
          // short, the server could still acquire records for it that no one would acknowledge.
        }),
      { policy: this.#context.policy, log: this.#context.log, signal: this.#abort.signal, forever: how.forever },
    );
    let answer: FetchAnswer;
    try {
      answer = await request();
    } catch (error) {
      // A fetch refused whole for its acknowledgements: they changed nothing; fetch without them.
      const { code, message } = error as { code?: unknown; message?: unknown };
      if (code !== invalidRecordState || acknowledgements.length === 0) throw error;
      for (const ack of acknowledgements) this.#acks.refused(ack.topic, ack.partition, ack.offsets.length, { code, message: String(message) });
      return this.#fetch([], how);
    }
    this.#acks.settle(acknowledgements, answer.results);
    if (answer.lease != null && answer.records.length > 0) this.#acks.hold(answer.lease, answer.leaseExpiresAt ?? Number.POSITIVE_INFINITY, answer.records);
    this.#events.emit("fetch", { records: answer.records.length });
    return answer;
  }

  /** The records of one fetch through the handler, `concurrency` at a time; stops handing out records once stopping. */
  async #process(answer: FetchAnswer, config: ShareRunConfig): Promise<{ handled: number; failed: number }> {
    const messages = answer.records.map((record): ShareMessage => ({ ...consumedFromPolled(record), deliveryCount: record.deliveryCount }));
    let next = 0;
    let handled = 0;
    let failed = 0;
    const worker = async () => {
      while (this.#running && next < messages.length) {
        const message = messages[next++]!;
        handled++;
        if (!(await this.#handle(message, config))) failed++;
      }
    };
    const workers = Math.min(this.#options.concurrency ?? 1, messages.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return { handled, failed };
  }

  /** One record through the handler and its acknowledgement (implicit mode); false when the handler threw. */
  async #handle(message: ShareMessage, config: ShareRunConfig): Promise<boolean> {
    const { topic, partition, offset, deliveryCount } = message;
    try {
      await config.eachMessage({ topic, partition, message });
      if (!this.#explicit && !this.#acks.isAcknowledged(message)) this.#acks.acknowledge(message, "accept");
      return true;
    } catch (error) {
      const reject = error instanceof RejectRecord;
      const type = reject ? "reject" : "release";
      const already = this.#acks.isAcknowledged(message);
      if (!already) this.#acks.acknowledge(message, type);
      const reason = error instanceof Error ? error.message : String(error);
      const outcome = already ? "acknowledged by the handler before it threw" : reject ? "rejected" : "released for redelivery";
      this.#context.log.log(reject ? "info" : "warn", `the handler failed on ${topic}/${partition}@${offset} (delivery ${deliveryCount}): ${reason}; ${outcome}`, {
        topic,
        partition,
        offset,
        deliveryCount,
        type,
      });
      return false;
    }
  }

  /**
   * Sends every pending acknowledgement now, one request per lease (retried as the policy says).
   * Refusals are logged (those records come again). A request that still fails: mid-run, its
   * acknowledgements go back to ride along on the next fetch; when `final`, the first such
   * error is thrown once every lease was tried, and `done()` rejects with it.
   */
  async #flush(final: boolean): Promise<void> {
    const byLease = new Map<string, LeasedAcknowledgement[]>();
    for (const ack of this.#acks.take()) byLease.set(ack.lease, [...(byLease.get(ack.lease) ?? []), ack]);
    let failure: unknown;
    for (const [lease, acks] of byLease) {
      const acknowledgements = acks.map(({ lease: _lease, ...ack }) => ack);
      try {
        const answer = await withRetries(
          () =>
            this.#context.transport.json<{ results: ShareAcknowledgementResult[] }>({
              method: "POST",
              path: path("share-groups", this.#options.group, "acknowledge"),
              json: { lease, acknowledgements },
            }),
          { policy: this.#context.policy, log: this.#context.log },
        );
        this.#acks.settle(acks, answer.results);
      } catch (error) {
        if (!final) this.#acks.restore(acks);
        else failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
