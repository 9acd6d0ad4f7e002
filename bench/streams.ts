/**
 * The streaming rows (docs/api.md, "Streaming reads"): Tributary only, the baseline has no
 * streams.
 *
 * - `stream-latency`: p50/p99 from sending a single-record produce to a subscriber — the
 *   client's `partition(0).stream()` over SSE or a WebSocket, already connected — having the
 *   record; the next record 5 ms after the last arrived, as the long-poll row.
 * - `tail-read`: one long-polling reader (`waitMs`) following the head of a partition while one
 *   producer writes 1,000-record requests back to back: the records/s it receives.
 * - `fan-out`: the same producer, and 100 WebSocket subscribers (binary subprotocol) on the
 *   partition: records/s delivered across all of them. The subscribers count records from
 *   the batch headers (a fast consumer; decoding 100 copies of every record would measure
 *   this process, not the server) and return credit as the client does
 *   (src/protocol/stream-credit.ts: the largest window granted at opening, then one message
 *   per half of it processed). They stay connected across a
 *   row's runs, so the row's object requests (bench/cost.ts) are what serving them costs
 *   while they keep up (the producer's own requests are taken off, execute.ts).
 *
 * The fan-out subscribers do not offer permessage-deflate, as the long-polling reader asks
 * for identity encoding (bench/client.ts): both rows move the record batches as stored.
 * Node's WebSocket (undici) always offers it, and the runtime accepts, which deflates every
 * subscriber's copy of every frame separately (docs/api.md, "WebSocket on a partition"), so
 * these sockets are the `ws` package's with the extension off.
 */
import { Tributary } from "../src/client/index.ts";
import NodeWebSocket from "ws";
import { splitBatches } from "../src/protocol/record-batch.ts";
import { CreditLedger } from "../src/protocol/stream-credit.ts";
import { fetchRecords, produce, type Endpoint } from "./client.ts";
import { consumerWaitMs, percentile, rearmPauseMs, type EndToEndState, type LatencyRun, type ThroughputRun } from "./measure.ts";
import { numberInKey, recordPayloadBytes } from "./payloads.ts";
import type { ProduceBody } from "./transports.ts";

/** A record a subscriber has not seen this long after it was produced is lost: the run fails. */
const deliveryTimeoutMs = 10_000;
/** After a throughput run's producer stops, how long the readers get to catch up with what it wrote. */
const drainTimeoutMs = 30_000;
/** Sequential requests: bounds a runaway loop only. */
const requestsPerSecondMax = 2_000;
export const fanOutSubscribers = 100;
const recordBatchSubprotocol = "tributary.record-batch";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function throughput(records: number, requests: number, startedAt: number): ThroughputRun {
  const seconds = (performance.now() - startedAt) / 1000;
  const recordsPerSecond = records / seconds;
  return { records, requests, seconds, recordsPerSecond, megabytesPerSecond: (recordsPerSecond * recordPayloadBytes) / 1e6 };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(2);
  }
}

/** Single-record produces, each timed until the subscriber (a client stream) has it. */
export async function measureStreamLatency(
  endpoint: Endpoint,
  topic: string,
  bodyFor: (sequence: number) => ProduceBody,
  keyPrefix: string,
  state: EndToEndState,
  seconds: number,
  transport: "sse" | "websocket",
): Promise<LatencyRun> {
  const client = new Tributary({ url: endpoint.url, logLevel: "nothing" });
  const stop = new AbortController();
  const onAbort = () => stop.abort(endpoint.signal.reason);
  endpoint.signal.addEventListener("abort", onAbort, { once: true });
  const deliveries = new Map<number, (receivedAt: number) => void>();
  const keys = new TextDecoder();
  let failed: unknown;
  const subscriber = (async () => {
    for await (const record of client.topic(topic).partition(0).stream({ from: state.nextOffset, transport, signal: stop.signal })) {
      deliveries.get(numberInKey(keyPrefix, keys.decode(record.key!)))?.(performance.now());
      state.nextOffset = record.offset + 1;
    }
  })().catch((error: unknown) => void (stop.signal.aborted || (failed = error)));
  const deliver = async (sequence: number): Promise<number> => {
    const delivered = new Promise<number>((resolve) => deliveries.set(sequence, resolve));
    const sentAt = performance.now();
    await produce(endpoint, topic, bodyFor(sequence));
    const timeout = sleep(deliveryTimeoutMs).then(() => Number.NaN);
    const receivedAt = await Promise.race([delivered, timeout]);
    deliveries.delete(sequence);
    if (failed !== undefined) throw failed;
    if (Number.isNaN(receivedAt)) throw new Error(`${endpoint.server}: record ${sequence} not delivered over ${transport} within ${deliveryTimeoutMs} ms`);
    return receivedAt - sentAt;
  };
  const samples: number[] = [];
  let startedAt = performance.now();
  try {
    // One record not timed: the subscriber is connected and caught up before the clock starts.
    await deliver(state.nextSequence++);
    await sleep(rearmPauseMs);
    startedAt = performance.now();
    const deadline = startedAt + seconds * 1000;
    while (performance.now() < deadline && samples.length < seconds * 5_000) {
      samples.push(await deliver(state.nextSequence++));
      await sleep(rearmPauseMs);
    }
  } finally {
    stop.abort(new Error("the run is over"));
    endpoint.signal.removeEventListener("abort", onAbort);
    await subscriber;
  }
  const sorted = samples.sort((a, b) => a - b);
  return { samples: sorted.length, seconds: (performance.now() - startedAt) / 1000, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

/** One producer writing 1,000-record requests back to back for `seconds`; answers the log end it reached and its request count. */
async function produceFor(endpoint: Endpoint, topic: string, body: ProduceBody, seconds: number, from: number): Promise<{ end: number; requests: number }> {
  const deadline = performance.now() + seconds * 1000;
  let requests = 0;
  let end = from;
  while (performance.now() < deadline && requests < seconds * requestsPerSecondMax) {
    end += await produce(endpoint, topic, body);
    requests++;
  }
  return { end, requests };
}

/** Where a row's readers are: carried from one run to the next on the same topic. */
export interface TailState {
  logEnd: number;
  readerOffset: number;
}

/** One long-polling reader at the head while the producer writes: the records/s it receives. */
export async function measureTailRead(endpoint: Endpoint, topic: string, body: ProduceBody, state: TailState, seconds: number): Promise<ThroughputRun> {
  const stop = new AbortController();
  let received = 0;
  const reader = (async () => {
    while (!stop.signal.aborted) {
      const answer = await fetchRecords(endpoint, topic, { partition: 0, offset: state.readerOffset, maxRecords: 10_000, waitMs: consumerWaitMs, detail: "positions", signal: stop.signal });
      received += answer.nextOffset - state.readerOffset;
      state.readerOffset = answer.nextOffset;
    }
  })().catch((error: unknown) => {
    if (!stop.signal.aborted) throw error;
  });
  const startedAt = performance.now();
  try {
    const { end, requests } = await produceFor(endpoint, topic, body, seconds, state.logEnd);
    state.logEnd = end;
    await until(() => state.readerOffset >= end, drainTimeoutMs, "the long-polling reader to catch up");
    return throughput(received, requests, startedAt);
  } finally {
    stop.abort(new Error("the run is over"));
    await reader;
  }
}

/** WebSocket subscribers (no permessage-deflate) that count records by batch headers and return credit by the client's rule. */
export class FanOut {
  readonly #sockets: NodeWebSocket[] = [];
  /** Each subscriber's next offset and records received. */
  readonly positions: number[] = [];
  received = 0;
  #failure: string | undefined;

  static async open(endpoint: Endpoint, topic: string, from: number, count: number): Promise<FanOut> {
    const fan = new FanOut();
    const url = `${endpoint.url.replace(/^http/, "ws")}/v1/topics/${encodeURIComponent(topic)}/partitions/0/records?offset=${from}`;
    await Promise.all(Array.from({ length: count }, (_, index) => fan.#subscribe(url, index, from)));
    return fan;
  }

  #subscribe(url: string, index: number, from: number): Promise<void> {
    this.positions[index] = from;
    const socket = new NodeWebSocket(url, [recordBatchSubprotocol], { perMessageDeflate: false }); // see the module's comment
    socket.binaryType = "arraybuffer";
    this.#sockets.push(socket);
    const ledger = new CreditLedger();
    const sendCredit = (credit: number) => {
      if (credit > 0) socket.send(JSON.stringify({ credit }));
    };
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") return void (this.#failure ??= `subscriber ${index}: ${event.data}`);
      const bytes = new Uint8Array(event.data as ArrayBuffer);
      for (const { header } of splitBatches(bytes)) {
        const next = header.baseOffset + header.lastOffsetDelta + 1;
        this.received += Math.max(0, next - Math.max(header.baseOffset, this.positions[index]!));
        this.positions[index] = Math.max(this.positions[index]!, next);
      }
      sendCredit(ledger.processed(bytes.byteLength));
    });
    socket.addEventListener("close", (event) => void (this.#failure ??= `subscriber ${index} closed with ${event.code} ${event.reason}`));
    return new Promise((resolve, reject) => {
      socket.addEventListener(
        "open",
        () => {
          sendCredit(ledger.opening());
          resolve();
        },
        { once: true },
      );
      socket.addEventListener("error", () => reject(new Error(`subscriber ${index} could not connect`)), { once: true });
    });
  }

  check(): void {
    if (this.#failure !== undefined) throw new Error(this.#failure);
  }

  close(): void {
    for (const socket of this.#sockets) socket.close(1000, "the benchmark is over");
  }
}

/** The producer, and the row's subscribers: records/s delivered across all of them, once they have caught up with what was produced. */
export async function measureFanOut(endpoint: Endpoint, topic: string, body: ProduceBody, fan: FanOut, state: TailState, seconds: number): Promise<ThroughputRun> {
  const receivedBefore = fan.received;
  const startedAt = performance.now();
  const { end, requests } = await produceFor(endpoint, topic, body, seconds, state.logEnd);
  state.logEnd = end;
  await until(() => (fan.check(), fan.positions.every((position) => position >= end)), drainTimeoutMs, "every subscriber to catch up");
  return throughput(fan.received - receivedBefore, requests, startedAt);
}
