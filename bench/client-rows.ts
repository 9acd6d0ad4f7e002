/**
 * `npm run bench -- --client [--runs N] [--peers] [--profile-client]`: the path users take —
 * Tributary's own client (src/client) — against the raw binary path (the table's
 * binary.produce.1-in-flight, binary.consume and binary.produce-latency rows: bench/measure.ts
 * with prebuilt bodies) on the same server in the same run (issue 19). One partition, RF 1,
 * records of 16 + 200 B (bench/payloads.ts):
 *
 *   produce   200,000 records into a fresh topic. Raw: 200 requests of one prebuilt
 *             1,000-record batch, one in flight, acks 1. Client: `producer({ acks: 1 })` and
 *             one `send()` of all 200,000 messages (strings), then `close()`; what it batches
 *             and how many requests it sends are its defaults
 *   consume   the 200,000 records back from offset 0, 10,000 a fetch. Raw: the answer read
 *             whole, positions from its headers (FetchDetail "positions"). Client:
 *             `topic(t).fetch(0, offset, { maxRecords: 10000, maxBytes: 8 MiB })`, every record
 *             counted
 *   latency   one record at a time, the ways in turn request by request: the raw
 *             single-record produce (acks 1); the client's `topic(t).produce([record])` with its
 *             defaults (acks "all", sent at once); `producer({ requestsPerSecond: Infinity })`
 *             (acks "all", idempotent, lingerMs 5) `send()` of one message; the same with
 *             lingerMs 0. (With its default requestsPerSecond, 2, a producer awaiting one record
 *             at a time sends one request a partition every 500 ms by design: request-pacer.ts.)
 *
 * Each run rotates which side goes first; each row's figure is the median of the runs. The
 * client's CPU is this process's (process.cpuUsage) over its passes, per 1,000 records; the
 * server's is its runtime workerd's (bench/cpu.ts). `--profile-client` records the client's
 * passes under V8's sampling profiler (node:inspector, in this process) — one more pass each,
 * after the measured runs, so the figures are not profiled — and writes where its CPU goes.
 * `--peers` adds Redis Streams and NATS JetStream on the same workload, in the same runs and
 * turns (bench/peers.ts), skipped with a message when their servers are not installed.
 *
 * Writes the "## Client" section of bench/RESULTS.md (unless --no-write).
 */
import { Session } from "node:inspector/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { Tributary } from "../src/client/index.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { createTopic, fetchMaxBytes, fetchRecords, produce, type Endpoint } from "./client.ts";
import { clientCpuMs, cpuBetween, serverCpu } from "./cpu.ts";
import { median, percentile } from "./measure.ts";
import { makeRecords } from "./payloads.ts";
import { selfTimes, unsampledLabel, type Profile } from "./profile.ts";
import { clientHeading, describeEnvironment, writeSection } from "./report.ts";
import type { Peer } from "./peers.ts";
import { startServer } from "./servers.ts";
import { transports } from "./transports.ts";

/** The workload's size: issue 19's 200,000 records and 1,000 latency samples a run, so a p99 is not 3 samples (smaller in the smoke test). */
export interface ClientSizes {
  records: number;
  latencySamples: number;
}

const defaultSizes: ClientSizes = { records: 200_000, latencySamples: 1_000 };
const recordsPerRequest = 1_000;
const recordsPerFetch = 10_000;
const latencyWarmup = 30;
const profiledFunctions = 25;
/** Of those, the lines RESULTS.md keeps (the console shows them all). */
const profileLinesWritten = 13;

export interface ClientBenchOptions {
  runs: number;
  write: boolean;
  wranglerDefaults: boolean;
  peers: boolean;
  profile: boolean;
  progress(line: string): void;
}

/** One pass: its rate and the CPU it cost per 1,000 records, this process's and the server runtime's. */
export interface Pass {
  recordsPerSecond: number;
  clientCpuMs: number;
  serverCpuMs: number | undefined;
}

export interface Latency {
  p50Ms: number;
  p99Ms: number;
}

interface SideFigures {
  produce: Pass[];
  consume: Pass[];
  latency: Latency[];
}

/** Times `work` (which handles `records` records) with this process's CPU and the server runtime's around it. */
export async function timed(records: number, processGroupId: number | undefined, work: () => Promise<void>): Promise<Pass> {
  const serverBefore = processGroupId === undefined ? undefined : serverCpu(processGroupId);
  const cpuBefore = clientCpuMs();
  const startedAt = performance.now();
  await work();
  const seconds = (performance.now() - startedAt) / 1000;
  const clientMs = clientCpuMs() - cpuBefore;
  const server = cpuBetween(serverBefore, processGroupId === undefined ? undefined : serverCpu(processGroupId));
  return { recordsPerSecond: records / seconds, clientCpuMs: (clientMs * 1000) / records, serverCpuMs: server && (server.runtimeMs * 1000) / records };
}

function medianPass(passes: readonly Pass[]): Pass {
  const sorted = [...passes].sort((a, b) => a.recordsPerSecond - b.recordsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function medianLatency(runs: readonly Latency[]): Latency {
  return { p50Ms: median(runs.map((run) => run.p50Ms)), p99Ms: median(runs.map((run) => run.p99Ms)) };
}

/** The same messages for every client pass: strings, as an application hands them over. */
function clientMessages(records: number): { key: string; value: string }[] {
  const batch = makeRecords(recordsPerRequest);
  return Array.from({ length: records }, (_, index) => batch[index % recordsPerRequest]!);
}

async function rawProduce(endpoint: Endpoint, topic: string, body: ReturnType<typeof transports.binary.produceBody>, records: number): Promise<void> {
  for (let sent = 0; sent < records; sent += recordsPerRequest) await produce(endpoint, topic, body);
}

async function rawConsume(endpoint: Endpoint, topic: string, records: number): Promise<void> {
  let offset = 0;
  while (offset < records) {
    const answer = await fetchRecords(endpoint, topic, { partition: 0, offset, maxRecords: recordsPerFetch, waitMs: 0, detail: "positions" });
    if (answer.nextOffset <= offset) throw new Error(`raw consume of ${topic}: no progress at ${offset}`);
    offset = answer.nextOffset;
  }
}

async function clientProduce(client: Tributary, topic: string, messages: { key: string; value: string }[]): Promise<void> {
  const producer = client.producer({ acks: 1 });
  const results = await producer.send({ topic, messages });
  await producer.close();
  if (results.length !== messages.length || results.at(-1)!.offset !== messages.length - 1) {
    throw new Error(`client produce to ${topic}: ${results.length} results, last offset ${results.at(-1)?.offset}`);
  }
}

async function clientConsume(client: Tributary, topic: string, records: number): Promise<void> {
  const handle = client.topic(topic);
  let offset = 0;
  let read = 0;
  while (offset < records) {
    const answer = await handle.fetch(0, offset, { maxRecords: recordsPerFetch, maxBytes: fetchMaxBytes });
    if (answer.nextOffset <= offset) throw new Error(`client consume of ${topic}: no progress at ${offset}`);
    read += answer.records.length;
    offset = answer.nextOffset;
  }
  if (read !== records) throw new Error(`client consume of ${topic}: ${read} records, expected ${records}`);
}

/**
 * The group consumer with its defaults (`consumer({ groupId })`: WebSocket streams where there is
 * one, eachBatch), a group of its own from the beginning: from `run()` to its last record,
 * joining the group included; its disconnect after, not timed.
 */
async function groupConsume(client: Tributary, topic: string, records: number, groupId: string): Promise<() => Promise<void>> {
  const consumer = client.consumer({ groupId });
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let read = 0;
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachBatch: async ({ batch }) => {
          read += batch.messages.length;
          if (read >= records) resolve();
        },
      })
      .catch(reject);
  });
  if (read !== records) throw new Error(`consumer() of ${topic}: ${read} records, expected ${records}`);
  return () => consumer.disconnect();
}

/** Sends one record each way in turn (who goes first rotates), `latencySamples` times: each way's p50/p99. */
async function latencies(ways: readonly (() => Promise<unknown>)[], latencySamples: number): Promise<Latency[]> {
  for (let i = 0; i < latencyWarmup; i++) for (const send of ways) await send();
  const samples = ways.map((): number[] => []);
  for (let i = 0; i < latencySamples; i++) {
    for (let turn = 0; turn < ways.length; turn++) {
      const way = (i + turn) % ways.length;
      const startedAt = performance.now();
      await ways[way]!();
      samples[way]!.push(performance.now() - startedAt);
    }
  }
  return samples.map((taken) => {
    taken.sort((a, b) => a - b);
    return { p50Ms: percentile(taken, 0.5), p99Ms: percentile(taken, 0.99) };
  });
}

/** The client's passes under V8's sampling profiler in this process: self time per function. */
async function profiled<T>(session: Session | undefined, work: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  if (!session) return { result: await work(), lines: [] };
  await session.post("Profiler.start");
  const result = await work();
  const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
  const times = await selfTimes({ call: async (method, params) => (await session.post(method as "Debugger.getScriptSource", params as { scriptId: string })) as never }, profile);
  // The inspector's own `post` (Profiler.stop hands the profile over) is the profiler's cost, not the client's.
  const client = times.filter((time) => !time.label.startsWith("(idle)") && !time.label.startsWith("post  ‹post(method, params, callback)") && time.label !== unsampledLabel);
  const busy = client.reduce((sum, time) => sum + time.ms, 0);
  const unsampled = times.find((time) => time.label === unsampledLabel)?.ms ?? 0;
  const lines = client
    .filter((time) => !time.label.startsWith("(program)"))
    .slice(0, profiledFunctions)
    .map((time) => `${time.ms.toFixed(0).padStart(6)} ms ${((100 * time.ms) / busy).toFixed(1).padStart(5)}%  ${time.label}`);
  return { result, lines: [`busy ${busy.toFixed(0)} ms (samples outside idle and the inspector's own calls; ${unsampled.toFixed(0)} ms unsampled)`, ...lines] };
}

/** What measureClientRows answers: each side's passes and latencies, the producer()'s latencies, the profiles taken. */
export interface ClientFigures {
  raw: SideFigures;
  own: SideFigures;
  producerLatency: Latency[];
  /** `producer({ lingerMs: 0 })`, else lingerMs 5: what the linger costs a lone record (both unpaced). */
  eagerLatency: Latency[];
  profiles: { what: string; lines: string[] }[];
  /** `consumer({ groupId })` with its defaults over each run's client topic, after the consume turns. */
  groupConsume: Pass[];
  /** Redis Streams and NATS JetStream (`--peers`), measured in the same turns. */
  peers: { peer: Peer; figures: SideFigures }[];
}

/**
 * The rows on a running Tributary (`url`; its process group for the server's CPU): a warm-up,
 * then `runs` runs of raw and client produce and consume in alternating order, then the
 * latencies. With a profiler session, one more client pass of each kind under it.
 */
export async function measureClientRows(
  url: string,
  processGroupId: number | undefined,
  runs: number,
  progress: (line: string) => void,
  sizes: ClientSizes = defaultSizes,
  session?: Session,
  peers: readonly Peer[] = [],
): Promise<ClientFigures> {
  const { records } = sizes;
  const endpoint: Endpoint = { server: "tributary", url, transport: transports.binary, signal: new AbortController().signal, processGroupId };
  const client = new Tributary({ url });
  const body = transports.binary.produceBody(makeRecords(recordsPerRequest), 1);
  const messages = clientMessages(records);
  const suffix = Date.now().toString(36);
  const topic = async (name: string) => {
    const refused = await createTopic(endpoint, `${name}-${suffix}`, 1, 1);
    if (refused) throw new Error(`create ${name}: ${refused}`);
    return `${name}-${suffix}`;
  };
  // Warm-up, not measured: both paths' code, and the server's, on a topic of their own.
  const warm = await topic("client-warm");
  await rawProduce(endpoint, warm, body, records);
  await clientProduce(client, await topic("client-warm-own"), messages);
  await rawConsume(endpoint, warm, records);
  await clientConsume(client, warm, records);
  await (await groupConsume(client, warm, records, `client-warm-${suffix}`))();
  const live = peers.filter((peer) => peer.skipped === undefined);
  for (const peer of live) {
    await peer.produce(-1, records);
    await peer.consume(-1, records);
  }

  const raw: SideFigures = { produce: [], consume: [], latency: [] };
  const own: SideFigures = { produce: [], consume: [], latency: [] };
  const peerFigures = live.map((peer) => ({ peer, figures: { produce: [], consume: [], latency: [] } as SideFigures }));
  const groupPasses: Pass[] = [];
  for (let run = 0; run < runs; run++) {
    const rawTopic = await topic(`client-raw-${run}`);
    const ownTopic = await topic(`client-own-${run}`);
    const sides = [
      { figures: raw, produce: () => rawProduce(endpoint, rawTopic, body, records), consume: () => rawConsume(endpoint, rawTopic, records), name: "raw", server: processGroupId },
      { figures: own, produce: () => clientProduce(client, ownTopic, messages), consume: () => clientConsume(client, ownTopic, records), name: "client", server: processGroupId },
      ...peerFigures.map(({ peer, figures }) => ({ figures, produce: () => peer.produce(run, records), consume: () => peer.consume(run, records), name: peer.name, server: undefined })),
    ];
    // Who goes first turns with the run, so that a change in the machine's load falls on each alike.
    const ordered = sides.map((_, at) => sides[(at + run) % sides.length]!);
    for (const side of ordered) {
      const result = await timed(records, side.server, side.produce);
      side.figures.produce.push(result);
      progress(`run ${run + 1}/${runs} ${side.name} produce: ${describePass(result)}`);
    }
    for (const side of ordered) {
      const result = await timed(records, side.server, side.consume);
      side.figures.consume.push(result);
      progress(`run ${run + 1}/${runs} ${side.name} consume: ${describePass(result)}`);
    }
    let disconnect: (() => Promise<void>) | undefined;
    const grouped = await timed(records, processGroupId, async () => void (disconnect = await groupConsume(client, ownTopic, records, `client-group-${run}-${suffix}`)));
    await disconnect?.();
    groupPasses.push(grouped);
    progress(`run ${run + 1}/${runs} consumer() consume: ${describePass(grouped)}`);
  }
  const profiles: { what: string; lines: string[] }[] = [];
  if (session) {
    // One more client pass of each kind, not measured, under the profiler.
    const profiledTopic = await topic("client-profiled");
    profiles.push({ what: "produce", lines: (await profiled(session, () => clientProduce(client, profiledTopic, messages))).lines });
    profiles.push({ what: "consume", lines: (await profiled(session, () => clientConsume(client, profiledTopic, records))).lines });
  }
  const latencyTopic = await topic("client-latency");
  const single = transports.binary.produceBody(makeRecords(1), 1);
  const producer = client.producer({ requestsPerSecond: Infinity });
  const eager = client.producer({ lingerMs: 0, requestsPerSecond: Infinity });
  const one = [messages[0]!];
  const producerLatency: Latency[] = [];
  const eagerLatency: Latency[] = [];
  for (let run = 0; run < runs; run++) {
    const [rawFigure, topicFigure, producerFigure, eagerFigure, ...peerLatencies] = await latencies(
      [
        () => produce(endpoint, latencyTopic, single),
        () => client.topic(latencyTopic).produce(one),
        () => producer.send({ topic: latencyTopic, messages: one }),
        () => eager.send({ topic: latencyTopic, messages: one }),
        ...live.map((peer) => () => peer.single()),
      ],
      sizes.latencySamples,
    );
    peerLatencies.forEach((figure, at) => peerFigures[at]!.figures.latency.push(figure));
    raw.latency.push(rawFigure!);
    own.latency.push(topicFigure!);
    producerLatency.push(producerFigure!);
    eagerLatency.push(eagerFigure!);
    const text = (figure: Latency) => `p50 ${figure.p50Ms.toFixed(2)} p99 ${figure.p99Ms.toFixed(2)} ms`;
    progress(`run ${run + 1}/${runs} latency: raw ${text(rawFigure!)}; topic.produce ${text(topicFigure!)}; producer() ${text(producerFigure!)}; lingerMs 0 ${text(eagerFigure!)}`);
  }
  await Promise.all([producer.close(), eager.close()]);
  return { raw, own, producerLatency, eagerLatency, groupConsume: groupPasses, profiles, peers: peerFigures };
}

export async function clientBench(options: ClientBenchOptions): Promise<void> {
  const { progress, runs } = options;
  progress("client rows: starting Tributary under wrangler dev");
  const server = await startServer("tributary", options.wranglerDefaults);
  const session = options.profile ? new Session() : undefined;
  session?.connect();
  if (session) {
    await session.post("Profiler.enable");
    await session.post("Debugger.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
  }
  let peers: Peer[] = [];
  try {
    if (options.peers) peers = await (await import("./peers.ts")).startPeers(progress);
    const figures = await measureClientRows(server.url, server.processGroupId, runs, progress, defaultSizes, session, peers);
    const peerLines = options.peers ? peerRows(runs, figures, peers) : [];
    const profileLines = figures.profiles.flatMap(({ what, lines }) => [
      "",
      `Client ${what}, one more pass of ${defaultSizes.records.toLocaleString("en-US")} records under V8's sampling profiler (\`--profile-client\`), this process's self time by function:`,
      "",
      "```",
      ...lines.slice(0, profileLinesWritten),
      "```",
    ]);
    const section = clientMarkdown(figures, defaultSizes.records, runs, peerLines, profileLines);
    console.log(`\n${section}\n`);
    if (options.write) {
      const path = join(repositoryRoot, "bench", "RESULTS.md");
      writeSection(path, clientHeading, section);
      progress(`wrote the client section of ${path}`);
    }
  } finally {
    session?.disconnect();
    await Promise.all(peers.map((peer) => peer.stop()));
    await server.stop();
  }
}

function describePass(pass: Pass): string {
  const server = pass.serverCpuMs === undefined ? "" : `, server runtime ${pass.serverCpuMs.toFixed(1)} ms`;
  return `${Math.round(pass.recordsPerSecond).toLocaleString("en-US")} rec/s; CPU per 1,000 records: this process ${pass.clientCpuMs.toFixed(1)} ms${server}`;
}

/** The peers' rows beside the client's own figures; a skipped peer says why. */
function peerRows(runs: number, figures: ClientFigures, peers: readonly Peer[]): string[] {
  const mine = { produce: medianPass(figures.own.produce), consume: medianPass(figures.own.consume), grouped: medianPass(figures.groupConsume), latency: medianLatency(figures.own.latency) };
  const lines = [
    `Peers on the same machine, in the same runs and turns as the rows above (bench/peers.ts; ${defaultSizes.records.toLocaleString("en-US")} records of 16 + 200 B, one stream or partition, medians of ${runs} runs after a warm-up pass; latency in the same turns, one record awaited at a time):`,
    "",
    "| system | produce, records/s | consume, records/s | single-record p50 / p99, ms | client CPU per 1,000 records, ms (produce / consume) | Tributary's client ÷ it (produce / consume: topic.fetch, consumer()) | how |",
    "|---|---:|---:|---:|---:|---:|---|",
    `| Tributary's client | ${rate(mine.produce.recordsPerSecond)} | ${rate(mine.consume.recordsPerSecond)} (consumer(): ${rate(mine.grouped.recordsPerSecond)}) | ${mine.latency.p50Ms.toFixed(2)} / ${mine.latency.p99Ms.toFixed(2)} | ${ms(mine.produce.clientCpuMs)} / ${ms(mine.consume.clientCpuMs)} (${ms(mine.grouped.clientCpuMs)}) | | the rows above (\`producer({ acks: 1 })\`, \`topic.fetch\` and \`consumer({ groupId })\`, \`topic.produce\`) |`,
  ];
  for (const peer of peers) {
    const measured = figures.peers.find((entry) => entry.peer === peer)?.figures;
    if (peer.skipped !== undefined || measured === undefined) {
      lines.push(`| ${peer.name} | skipped: ${peer.skipped ?? "not measured"} | | | | | ${peer.how} |`);
      continue;
    }
    const [produced, consumed, latency] = [medianPass(measured.produce), medianPass(measured.consume), medianLatency(measured.latency)];
    const ahead = [mine.produce, mine.consume, mine.grouped].map((pass, at) => `${(pass.recordsPerSecond / (at === 0 ? produced : consumed).recordsPerSecond).toFixed(2)} ×`).join(" / ");
    lines.push(
      `| ${peer.name} | ${rate(produced.recordsPerSecond)} | ${rate(consumed.recordsPerSecond)} | ${latency.p50Ms.toFixed(2)} / ${latency.p99Ms.toFixed(2)} | ${ms(produced.clientCpuMs)} / ${ms(consumed.clientCpuMs)} | ${ahead} | ${peer.how} |`,
    );
  }
  return lines;
}

const rate = (value: number) => Math.round(value).toLocaleString("en-US");
const ms = (value: number | undefined) => (value === undefined ? "n/a" : value.toFixed(1));

export function clientMarkdown(figures: ClientFigures, records: number, runs: number, peerLines: readonly string[], profileLines: readonly string[]): string {
  const { raw, own, producerLatency, eagerLatency } = figures;
  const environment = describeEnvironment();
  const [rawProduce, ownProduce, rawConsume, ownConsume] = [raw.produce, own.produce, raw.consume, own.consume].map(medianPass) as [Pass, Pass, Pass, Pass];
  const [rawLatency, ownLatency, lingering, eager] = [medianLatency(raw.latency), medianLatency(own.latency), medianLatency(producerLatency), medianLatency(eagerLatency)];
  const grouped = medianPass(figures.groupConsume);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)} ×`;
  return [
    clientHeading,
    "",
    `\`npm run bench -- --client${peerLines.length > 0 ? " --peers" : ""}${profileLines.length > 0 ? " --profile-client" : ""}\` on ${environment.date} (commit ${environment.commit}): Tributary under wrangler dev, the client in the bench process, ` +
      `${records.toLocaleString("en-US")} records of 16 + 200 B, one partition, RF 1; medians of ${runs} runs, raw and client in turns, who goes first rotating with the run (bench/client-rows.ts). ` +
      "Issue 19's targets: client produce and consume ≥ 0.8 × raw; client single-record p99 ≤ 1.3 × raw.",
    "",
    "| row | raw binary path | Tributary's client | client ÷ raw | CPU ms per 1,000 records: client process (raw / client) | server runtime (raw / client) |",
    "|---|---:|---:|---:|---:|---:|",
    `| produce, records/s (raw: 1,000-record requests, 1 in flight; client: \`producer({ acks: 1 })\`, one \`send()\`) | ${rate(rawProduce.recordsPerSecond)} | ${rate(ownProduce.recordsPerSecond)} | ${ratio(ownProduce.recordsPerSecond, rawProduce.recordsPerSecond)} | ${ms(rawProduce.clientCpuMs)} / ${ms(ownProduce.clientCpuMs)} | ${ms(rawProduce.serverCpuMs)} / ${ms(ownProduce.serverCpuMs)} |`,
    `| consume, records/s (10,000 a fetch; raw: positions only; client: \`topic.fetch\`, records decoded) | ${rate(rawConsume.recordsPerSecond)} | ${rate(ownConsume.recordsPerSecond)} | ${ratio(ownConsume.recordsPerSecond, rawConsume.recordsPerSecond)} | ${ms(rawConsume.clientCpuMs)} / ${ms(ownConsume.clientCpuMs)} | ${ms(rawConsume.serverCpuMs)} / ${ms(ownConsume.serverCpuMs)} |`,
    `| consume through \`consumer({ groupId })\`, its defaults (a group of its own from the beginning; WebSocket streams, a catch-up over fetches first; eachBatch; joining included) | ${rate(rawConsume.recordsPerSecond)} | ${rate(grouped.recordsPerSecond)} | ${ratio(grouped.recordsPerSecond, rawConsume.recordsPerSecond)} | ${ms(rawConsume.clientCpuMs)} / ${ms(grouped.clientCpuMs)} | ${ms(rawConsume.serverCpuMs)} / ${ms(grouped.serverCpuMs)} |`,
    `| single-record produce p50 / p99, ms (raw acks 1; client: \`topic(t).produce([record])\`, its defaults: acks "all", no lingering; in turns) | ${rawLatency.p50Ms.toFixed(2)} / ${rawLatency.p99Ms.toFixed(2)} | ${ownLatency.p50Ms.toFixed(2)} / ${ownLatency.p99Ms.toFixed(2)} | p99 ${ratio(ownLatency.p99Ms, rawLatency.p99Ms)} | | |`,
    `| the same through \`producer({ requestsPerSecond: Infinity })\` (acks "all", idempotent, lingerMs 5: a lone record waits 5 ms for company by design; with the default pace, 2 requests a second a partition, records awaited one at a time go every 500 ms, also by design) | ${rawLatency.p50Ms.toFixed(2)} / ${rawLatency.p99Ms.toFixed(2)} | ${lingering.p50Ms.toFixed(2)} / ${lingering.p99Ms.toFixed(2)} | p99 ${ratio(lingering.p99Ms, rawLatency.p99Ms)} | | |`,
    `| the same through \`producer({ lingerMs: 0, requestsPerSecond: Infinity })\`, its other defaults kept | ${rawLatency.p50Ms.toFixed(2)} / ${rawLatency.p99Ms.toFixed(2)} | ${eager.p50Ms.toFixed(2)} / ${eager.p99Ms.toFixed(2)} | p99 ${ratio(eager.p99Ms, rawLatency.p99Ms)} | | |`,
    "",
    "Where the client started (issue 19, commit b83f880, this bench on this machine): CPU in the client's process 6.3 ms per 1,000 records produced and 1.8 per 1,000 consumed (raw: 1.7 and 0.6); produce 0.81 ×, consume 0.73 ×, `producer()` single-record p99 1.38 × raw. " +
      "What changed: each record is written into its partition's batch at `send` (src/protocol/record-batch-builder.ts), a fetch is decoded in one pass, binary requests ask for identity encoding (docs/client.md).",
    "",
    `Runs, records/s — raw produce ${raw.produce.map((pass) => rate(pass.recordsPerSecond)).join(", ")}; client produce ${own.produce.map((pass) => rate(pass.recordsPerSecond)).join(", ")}; ` +
      `raw consume ${raw.consume.map((pass) => rate(pass.recordsPerSecond)).join(", ")}; client consume ${own.consume.map((pass) => rate(pass.recordsPerSecond)).join(", ")}; ` +
      `consumer() ${figures.groupConsume.map((pass) => rate(pass.recordsPerSecond)).join(", ")}.`,
    "",
    ...(peerLines.length > 0 ? [...peerLines, ""] : []),
    `Machine load average when it ended: ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores.`,
    ...profileLines,
  ].join("\n");
}
