/**
 * One measured run of the bill (bench/bill.ts): a topic, its consumers, a producer at a fixed
 * rate for a while, all through the client with its defaults unless the case says otherwise,
 * against a `wrangler dev` running with the billing meter on (src/contracts/billing-meter.ts).
 *
 *   topic (run partitions, RF) ──► consumers: G groups of one long-polling member, G groups of
 *   one member over WebSocket streams (`transport: "websocket"`), or G × partitions WebSocket
 *   streams ──► meter + client counts + runtime CPU ──►
 *   produce at the rate for S seconds, every 10 ms a send() of what is due (not awaited in
 *   turn: the producer's own queues batch them; with `transactional`, into a transaction
 *   committed every `commitEveryMs`) ──► flush, consumers catch up ──► counts again
 */
import NodeWebSocket from "ws";
import { Tributary, type Consumer, type ProducerOptions, type Transaction, type WebSocketConstructor } from "../src/client/index.ts";
import { cpuBetween, serverCpu } from "./cpu.ts";
import type { MeasuredRun } from "./bill-math.ts";
import type { billingSnapshot } from "../src/contracts/billing-meter.ts";
import { jsonEvent } from "./compression.ts";

/** A click-stream event (bench/compression.ts) with a basket of items, at least `bytes` long. */
function jsonValue(i: number, bytes: number): string {
  const event = JSON.parse(jsonEvent(i).value) as Record<string, unknown>;
  const items: { sku: string; qty: number; price: number }[] = [];
  let text = "";
  for (let n = 0; text.length < bytes; n++) {
    items.push({ sku: `sku-${(i * 31 + n * 7) % 5000}`, qty: 1 + ((i + n) % 4), price: ((i * 13 + n * 101) % 10000) / 100 });
    text = JSON.stringify({ ...event, items });
  }
  return text;
}

export type ConsumerMode = "long-poll" | "group-websocket" | "websocket";

export interface RunCase {
  topic: string;
  partitions: number;
  replicationFactor: number;
  consumerGroups: number;
  consumers: ConsumerMode;
  messagesPerSecond: number;
  messageBytes: number;
  seconds: number;
  producer: ProducerOptions;
  /** The values sent: "x" repeated (the bill's default), or realistic JSON of about that size (issue 27's zstd rows). */
  values?: "filler" | "json";
  /** Issue 28: a transactional producer (this transactional id) sending into a transaction it commits every `commitEveryMs`. */
  transactional?: { transactionalId: string; commitEveryMs: number };
}

export interface RunResult extends MeasuredRun {
  messagesProduced: number;
  messagesConsumed: number;
  produceRequests: number;
  /** Partition storage at the end: bytes in SQLite and in R2, and segments sealed. */
  storedBytes: number;
  r2Segments: number;
  r2ClassA: number;
  r2ClassB: number;
}

/** A topic description's `debugBilling` (the server's billing meter). */
type Meter = ReturnType<typeof billingSnapshot>;

interface Described {
  debugBilling?: Meter;
  partitions: { storage: { sqliteBytes: number; r2Bytes: number; r2Segments: number } }[];
}

/** Catching up after the producer stops: bounded. */
const catchUpMsMax = 30_000;
const tickMs = 10;
/** Waiting for a previous run's calls to end: bounded (a long poll waits at most 30 s). */
const quietMsMax = 35_000;

/**
 * `waitForQuietMs`: how long to wait for earlier calls to end first (the bill gives each case its
 * own server; the smoke test shares one with other rows and checks no figure, so it waits none).
 */
export async function runBillCase(url: string, processGroupId: number, spec: RunCase, log: (line: string) => void, waitForQuietMs = quietMsMax): Promise<RunResult> {
  const counts = { requests: 0, produceRequests: 0 };
  const countingFetch = (request: Request) => {
    counts.requests++;
    if (request.method === "POST" && /\/partitions\/\d+\/records$|\/records$/.test(new URL(request.url).pathname)) counts.produceRequests++;
    return fetch(request);
  };
  // Node's own WebSocket offers permessage-deflate; without it, as docs/client.md suggests on Node.
  const webSocket = class extends NodeWebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { perMessageDeflate: false });
      counts.requests++; // the upgrade is a Worker request
    }
  } as unknown as WebSocketConstructor;
  const client = new Tributary({ url, fetch: countingFetch, webSocket, logLevel: "error" });
  const admin = new Tributary({ url, logLevel: "error" }).admin(); // describes: not part of the bill
  await admin.topics.create({ name: spec.topic, partitions: spec.partitions, replicationFactor: spec.replicationFactor });
  const describe = async () => (await admin.topics.describe(spec.topic)) as unknown as Described;
  // A previous run's long polls outlive its consumers (the server holds each until its wait ends): let them end.
  const quietBy = performance.now() + waitForQuietMs;
  while ((await describe()).debugBilling?.objectsActiveNow && performance.now() < quietBy) await new Promise((resolve) => setTimeout(resolve, 250));

  let consumed = 0;
  const stop = new AbortController();
  const consumers: Consumer[] = [];
  const streams: Promise<void>[] = [];
  if (spec.consumers === "long-poll" || spec.consumers === "group-websocket") {
    const transport = spec.consumers === "long-poll" ? "poll" : "websocket";
    for (let group = 0; group < spec.consumerGroups; group++) {
      const consumer = client.consumer({ groupId: `${spec.topic}-g${group}`, transport });
      await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
      await consumer.run({ eachBatch: async ({ batch }) => void (consumed += batch.messages.length) });
      consumers.push(consumer);
    }
  } else {
    for (let group = 0; group < spec.consumerGroups; group++) {
      for (let partition = 0; partition < spec.partitions; partition++) {
        const stream = client.topic(spec.topic).partition(partition).stream({ from: 0, transport: "websocket", signal: stop.signal });
        streams.push((async () => {
          for await (const _record of stream) consumed++;
        })().catch(() => undefined));
      }
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // members joined, sockets open, first polls waiting

  const before = { described: await describe(), requests: counts.requests, produceRequests: counts.produceRequests, cpu: serverCpu(processGroupId), at: performance.now() };
  if (!before.described.debugBilling) throw new Error("the server reports no billing meter: run it with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1");

  const producer = client.producer(spec.transactional ? { ...spec.producer, transactionalId: spec.transactional.transactionalId } : spec.producer);
  const filler = "x".repeat(spec.messageBytes);
  const value = (n: number) => (spec.values === "json" ? jsonValue(n, spec.messageBytes) : filler);
  const started = performance.now();
  let produced = 0;
  const sends: Promise<unknown>[] = [];
  // Issue 28: the records go into a transaction, committed every commitEveryMs (and at the end); the next one opens with the next send.
  let transaction: Transaction | undefined;
  let committedAt = started;
  while (performance.now() - started < spec.seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * spec.messagesPerSecond) - produced;
    if (due > 0) {
      const request = { topic: spec.topic, messages: Array.from({ length: due }, (_, n) => ({ key: null, value: value(produced + n) })) };
      if (spec.transactional) sends.push((transaction ??= await producer.transaction()).send(request));
      else sends.push(producer.send(request));
      produced += due;
    }
    if (transaction && performance.now() - committedAt >= spec.transactional!.commitEveryMs) {
      await transaction.commit();
      transaction = undefined;
      committedAt = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  await transaction?.commit();
  await producer.close();
  await Promise.all(sends);
  const target = produced * spec.consumerGroups;
  const catchUpStarted = performance.now();
  while (consumed < target && performance.now() - catchUpStarted < catchUpMsMax) await new Promise((resolve) => setTimeout(resolve, 20));
  if (consumed < target) log(`${spec.topic}: consumers caught up to ${consumed} of ${target} records in ${catchUpMsMax / 1000} s`);

  const after = { described: await describe(), requests: counts.requests, produceRequests: counts.produceRequests, cpu: serverCpu(processGroupId), at: performance.now() };
  stop.abort();
  await Promise.allSettled([...consumers.map((consumer) => consumer.disconnect()), ...streams]);

  const a = before.described.debugBilling;
  const b = after.described.debugBilling!;
  const cpu = cpuBetween(before.cpu, after.cpu);
  // The describe after counts its own call to each partition leader.
  const ownDescribeCalls = spec.partitions;
  const storage = after.described.partitions.reduce(
    (sum, partition) => ({ bytes: sum.bytes + partition.storage.sqliteBytes + partition.storage.r2Bytes, segments: sum.segments + partition.storage.r2Segments }),
    { bytes: 0, segments: 0 },
  );
  return {
    seconds: (after.at - before.at) / 1000,
    workerRequests: after.requests - before.requests,
    workerCpuMs: cpu?.runtimeMs ?? 0,
    objectRequests: b.objectRequests + b.alarms - (a.objectRequests + a.alarms) - ownDescribeCalls,
    websocketMessages: b.websocketMessages - a.websocketMessages,
    objectActiveMs: b.objectActiveMs - a.objectActiveMs,
    sqliteRowsRead: b.sqliteRowsRead - a.sqliteRowsRead,
    sqliteRowsWritten: b.sqliteRowsWritten - a.sqliteRowsWritten,
    r2ClassA: b.r2ClassA - a.r2ClassA,
    r2ClassB: b.r2ClassB - a.r2ClassB,
    messagesProduced: produced,
    messagesConsumed: consumed,
    produceRequests: after.produceRequests - before.produceRequests,
    storedBytes: storage.bytes,
    r2Segments: storage.segments,
  };
}
