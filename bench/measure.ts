/**
 * The measuring loops. Each runs for a number of seconds and is also bounded in iterations,
 * so a server far faster than expected (or a loop that stops waiting) cannot spin forever.
 * Times come from performance.now(); a run's rate is what completed divided by the time
 * from its first request to its last answer.
 */
import { fetchRecords, produce, type Endpoint } from "./client.ts";
import { numberInKey, recordPayloadBytes } from "./payloads.ts";
import type { ProduceBody } from "./transports.ts";

/** Far above what loopback reaches (≈ 2 M records/s at 1,000 a request): only stops a runaway loop. */
const requestsPerSecondMax = 2_000;
/** Sequential single-record requests: loopback round trips take well over 0.2 ms. */
const latencySamplesPerSecondMax = 5_000;
/** Consume asks for the most records one fetch may answer (API.md). */
export const consumeMaxRecords = 10_000;
/** How long the end-to-end consumer's fetch waits; the producer's record arrives long before. */
export const consumerWaitMs = 2_000;
/** A record the consumer has not seen this long after it was produced is lost: the run fails. */
const deliveryTimeoutMs = 10_000;
/**
 * Pause after each end-to-end delivery, so the consumer's next long poll is waiting in the
 * partition before the next record is produced (the case being measured). Loopback
 * requests arrive in well under this.
 */
export const rearmPauseMs = 5;

export interface ThroughputRun {
  records: number;
  requests: number;
  seconds: number;
  recordsPerSecond: number;
  /** Key + value bytes per second, in 10^6 bytes. */
  megabytesPerSecond: number;
}

export interface LatencyRun {
  samples: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) throw new Error("no samples");
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

function throughputRun(records: number, requests: number, startedAt: number): ThroughputRun {
  const seconds = (performance.now() - startedAt) / 1000;
  const recordsPerSecond = records / seconds;
  return { records, requests, seconds, recordsPerSecond, megabytesPerSecond: (recordsPerSecond * recordPayloadBytes) / 1e6 };
}

function latencyRun(samplesMs: number[], startedAt: number): LatencyRun {
  const sorted = samplesMs.sort((a, b) => a - b);
  return {
    samples: sorted.length,
    seconds: (performance.now() - startedAt) / 1000,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}

/**
 * `inFlight` loops, each sending the same body as soon as its previous answer is read. With
 * several partitions, a transport that names the partition (binary) sends request n to
 * partition n mod partitions, as a client that batches per partition would.
 */
export async function measureProduce(
  endpoint: Endpoint,
  topic: string,
  body: ProduceBody,
  partitions: number,
  inFlight: number,
  seconds: number,
): Promise<ThroughputRun> {
  const requestsMax = Math.ceil(seconds * requestsPerSecondMax);
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  let requests = 0;
  let records = 0;
  const loop = async () => {
    while (requests < requestsMax && performance.now() < deadline) {
      const partition = requests++ % partitions;
      // Not `records += await …`: that reads `records` before the await, and the loops would
      // overwrite each other's counts.
      const acknowledged = await produce(endpoint, topic, body, partition);
      records += acknowledged;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  return throughputRun(records, requests, startedAt);
}

/**
 * One reader from offset 0, 10,000 records a fetch; at the end of the log it starts again
 * at 0. The first answer of a run is decoded in full and checked; the others only for their
 * positions (FetchDetail).
 */
export async function measureConsume(endpoint: Endpoint, topic: string, seconds: number): Promise<ThroughputRun> {
  const requestsMax = Math.ceil(seconds * requestsPerSecondMax);
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  let requests = 0;
  let records = 0;
  let offset = 0;
  while (requests < requestsMax && performance.now() < deadline) {
    const detail = requests === 0 ? "records" : "positions";
    const answer = await fetchRecords(endpoint, topic, { partition: 0, offset, maxRecords: consumeMaxRecords, waitMs: 0, detail });
    requests++;
    if (answer.records === 0) throw new Error(`${endpoint.server}: no records at offset ${offset} of ${topic} (high watermark ${answer.highWatermark})`);
    if (answer.records !== answer.nextOffset - offset) {
      throw new Error(`${endpoint.server}: ${answer.records} records from offset ${offset}, but the answer's nextOffset is ${answer.nextOffset}`);
    }
    records += answer.records;
    offset = answer.nextOffset >= answer.highWatermark ? 0 : answer.nextOffset;
  }
  return throughputRun(records, requests, startedAt);
}

/** Sequential single-record produce requests: the time from sending one to reading its answer. */
export async function measureProduceLatency(endpoint: Endpoint, topic: string, body: ProduceBody, seconds: number): Promise<LatencyRun> {
  const samplesMax = Math.ceil(seconds * latencySamplesPerSecondMax);
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  const samples: number[] = [];
  while (samples.length < samplesMax && performance.now() < deadline) {
    const sentAt = performance.now();
    await produce(endpoint, topic, body);
    samples.push(performance.now() - sentAt);
  }
  return latencyRun(samples, startedAt);
}

/** Where an end-to-end consumer is: carried from one run to the next on the same topic. */
export interface EndToEndState {
  nextOffset: number;
  nextSequence: number;
}

/**
 * One producer, one long-polling consumer on partition 0. The producer sends a record whose
 * key carries a sequence number, waits until the consumer has it, pauses so the consumer's
 * next poll is waiting, and sends the next: the latency is from sending to the consumer
 * having decoded the answer that holds it.
 */
export async function measureEndToEnd(
  endpoint: Endpoint,
  topic: string,
  bodyFor: (sequence: number) => ProduceBody,
  keyPrefix: string,
  state: EndToEndState,
  seconds: number,
): Promise<LatencyRun> {
  const samplesMax = Math.ceil(seconds * latencySamplesPerSecondMax);
  const stop = new AbortController();
  const deliveries = new Map<number, (receivedAt: number) => void>();
  let failConsumer: (error: unknown) => void = () => {};
  const consumerFailed = new Promise<never>((_, reject) => (failConsumer = reject));
  consumerFailed.catch(() => {}); // observed through Promise.race below
  const consumer = (async () => {
    while (!stop.signal.aborted) {
      const answer = await fetchRecords(endpoint, topic, {
        partition: 0, offset: state.nextOffset, maxRecords: 1_000, waitMs: consumerWaitMs, detail: "records", signal: stop.signal,
      });
      const receivedAt = performance.now();
      for (const key of answer.keys) deliveries.get(numberInKey(keyPrefix, key))?.(receivedAt);
      state.nextOffset = answer.nextOffset;
    }
  })().catch((error: unknown) => {
    if (!stop.signal.aborted) failConsumer(error);
  });

  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  const samples: number[] = [];
  try {
    while (samples.length < samplesMax && performance.now() < deadline) {
      const sequence = state.nextSequence++;
      const body = bodyFor(sequence);
      const delivered = new Promise<number>((resolve) => deliveries.set(sequence, resolve));
      const sentAt = performance.now();
      const [, receivedAt] = await within(
        deliveryTimeoutMs,
        `${endpoint.server}: record ${sequence} not delivered to the consumer within ${deliveryTimeoutMs} ms`,
        Promise.race([Promise.all([produce(endpoint, topic, body), delivered]), consumerFailed]),
      );
      deliveries.delete(sequence);
      samples.push(receivedAt - sentAt);
      await sleep(rearmPauseMs);
    }
  } finally {
    stop.abort();
    await consumer;
  }
  return latencyRun(samples, startedAt);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The promise's value, or an error with `message` when it takes longer than `ms`. */
async function within<T>(ms: number, message: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
