/**
 * Runs one row of the scenario table against Tributary and, when the row has its own
 * baseline measurement, against the baseline: a warm-up on each, then the runs alternating
 * between the two servers (Tributary first on odd runs, the baseline first on even ones), so
 * a noisy neighbour on this shared machine hits both sides alike. The row's figure is the
 * median over its runs.
 */
import { createTopic, fetchMaxBytes, fetchRecords, produce, type Endpoint } from "./client.ts";
import {
  consumeMaxRecords,
  consumerWaitMs,
  measureConsume,
  measureEndToEnd,
  measureProduce,
  measureProduceLatency,
  rearmPauseMs,
  type EndToEndState,
} from "./measure.ts";
import { costBetween, leaderCounters, type CostFigure, type LeaderCounters } from "./cost.ts";
import { describeRun, figureOf, isThroughput, measureWithCpu, type MeasuredRun, type Run } from "./measured-run.ts";
import { keyBytes, keyFor, makeRecords, valueBytes, type BenchRecord } from "./payloads.ts";
import { FanOut, fanOutSubscribers, measureFanOut, measureStreamLatency, measureTailRead, type TailState } from "./streams.ts";
import type { ResultLookup, RowResult, Scenario } from "./scenarios.ts";
import { transports, type Acks, type ProduceBody, type ServerName, type TransportName } from "./transports.ts";

export interface Settings {
  runs: number;
  /** Length of one measured run. */
  seconds: number;
  /** Length of the unmeasured run before them, per server and row. */
  warmupSeconds: number;
  /** Produce to a scratch topic on each server before the first row. */
  serverWarmupSeconds: number;
}

/** Consume needs a log to read; a row run without the produce rows first fills one to this size. */
const consumeLogRecordsMin = 100_000;
const endToEndKeyPrefix = "e";
const recordsPerBatch = 1_000;

/** The bodies a transport sends, built once before anything is measured. */
interface Payloads {
  batch: Record<string, ProduceBody>;
  single: ProduceBody;
  endToEnd: (sequence: number) => ProduceBody;
}

export interface Executor {
  /** Produces to a scratch topic on both servers for a while, so the first row does not pay for cold isolates and objects. */
  warmUp(seconds: number): Promise<void>;
  runRow(scenario: Scenario, lookup: ResultLookup): Promise<RowResult>;
  /**
   * Prepares a row on one server (topic, log, warm-up), then measures one run inside
   * `around` (bench/profile.ts records a profile around it). Answers the run described, or
   * why the row cannot run.
   */
  runOnce(scenario: Scenario, server: ServerName, around: (measure: () => Promise<string>) => Promise<string>): Promise<string>;
  /** The settings, as lines for RESULTS.md. */
  describe(): string[];
}

export function createExecutor(
  settings: Settings,
  endpoints: (transport: TransportName) => Record<ServerName, Endpoint>,
  progress: (line: string) => void,
): Executor {
  return new RowRunner(settings, endpoints, progress);
}

function buildPayloads(): Map<TransportName, Payloads> {
  const records = makeRecords(recordsPerBatch);
  const payloads = new Map<TransportName, Payloads>();
  for (const [name, transport] of Object.entries(transports) as [TransportName, (typeof transports)[TransportName]][]) {
    if (transport.unavailable() !== undefined) continue;
    const body = (list: readonly BenchRecord[], acks: Acks) => transport.produceBody(list, acks);
    payloads.set(name, {
      batch: { "1": body(records, 1), all: body(records, "all") },
      single: body(records.slice(0, 1), 1),
      endToEnd: (sequence) => body([{ key: keyFor(endToEndKeyPrefix, sequence), value: records[0]!.value }], 1),
    });
  }
  return payloads;
}

class RowRunner implements Executor {
  readonly #settings: Settings;
  readonly #endpoints: (transport: TransportName) => Record<ServerName, Endpoint>;
  readonly #progress: (line: string) => void;
  readonly #payloads = buildPayloads();
  readonly #createdTopics = new Set<string>();
  readonly #endToEndStates = new Map<string, EndToEndState>();
  readonly #tailStates = new Map<string, TailState>();
  /** A fan-out row's subscribers, connected at its first (warm-up) run and kept until the row ends. */
  readonly #fans = new Map<string, FanOut>();

  constructor(settings: Settings, endpoints: (transport: TransportName) => Record<ServerName, Endpoint>, progress: (line: string) => void) {
    this.#settings = settings;
    this.#endpoints = endpoints;
    this.#progress = progress;
  }

  describe(): string[] {
    const settings = this.#settings;
    const jsonBatch = this.#payloads.get("json")?.batch["1"];
    return [
      `Runs: ${settings.runs} of ${settings.seconds} s per row and server, alternating servers; the median is reported. ` +
        `Warm-up, not counted: ${settings.serverWarmupSeconds} s of produce per server at the start, then ${settings.warmupSeconds} s per row and server`,
      `Records: ${keyBytes}-byte keys, ${valueBytes}-byte values (printable ASCII), distinct keys; ` +
        `${recordsPerBatch.toLocaleString("en-US")} records a produce request` +
        `${jsonBatch ? ` (JSON body ${(jsonBatch.body.byteLength / 1000).toFixed(0)} kB)` : ""}; one partition and replication factor 1 unless stated`,
      `Consume: one reader, fetch maxRecords ${consumeMaxRecords.toLocaleString("en-US")} and maxBytes ${fetchMaxBytes / 1024 ** 2} MiB, ` +
        `from offset 0 and back to 0 at the end of the log`,
      `Latency: single-record produce requests one after another (acks 1); end to end: one producer, one consumer ` +
        `long-polling (waitMs ${consumerWaitMs}), the next record ${rearmPauseMs} ms after the last was delivered`,
      "Servers: each Worker built once at the start (wrangler deploy --dry-run) and served by wrangler dev --no-bundle, " +
        "both at once on 127.0.0.1 with the same flags and a fresh --persist-to each; " +
        "Request.cf fetch disabled (loopback only); HTTP/1.1 keep-alive (Node fetch), uncompressed answers (Accept-Encoding: identity); " +
        "Tributary with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1 for its cost counters (no fault is injected)",
    ];
  }

  async warmUp(seconds: number): Promise<void> {
    for (const [transport, bodies] of this.#payloads) {
      const servers = this.#endpoints(transport);
      for (const endpoint of [servers.tributary, servers.baseline]) {
        const topic = `bench-${transport}-warm-up`;
        const refused = await createTopic(endpoint, topic, 1, 1);
        if (refused !== undefined) throw new Error(`${endpoint.server} refused the warm-up topic: ${refused}`);
        await measureProduce(endpoint, topic, bodies.batch["1"]!, 1, 1, seconds / this.#payloads.size);
      }
    }
  }

  async runOnce(scenario: Scenario, server: ServerName, around: (measure: () => Promise<string>) => Promise<string>): Promise<string> {
    const unavailable = transports[scenario.transport].unavailable();
    if (unavailable !== undefined) return `skipped: ${unavailable}`;
    const servers = this.#endpoints(scenario.transport);
    const refused = await this.#prepare(servers[server], scenario);
    if (refused !== undefined) return `skipped: ${refused}`;
    await this.#measureOnce(servers[server], scenario, this.#settings.warmupSeconds);
    try {
      return await around(async () =>
        describeRun(await measureWithCpu(servers, server, () => this.#measureOnce(servers[server], scenario, this.#settings.seconds))),
      );
    } finally {
      this.#closeFan(servers[server], scenario);
    }
  }

  #closeFan(endpoint: Endpoint, scenario: Scenario): void {
    const key = `${endpoint.server}/${scenario.topic}`;
    this.#fans.get(key)?.close();
    this.#fans.delete(key);
  }

  async #tailState(endpoint: Endpoint, scenario: Scenario): Promise<TailState> {
    const key = `${endpoint.server}/${scenario.topic}`;
    let state = this.#tailStates.get(key);
    if (!state) {
      const probe = await fetchRecords(endpoint, scenario.topic, { partition: 0, offset: 0, maxRecords: 1, waitMs: 0, detail: "positions" });
      this.#tailStates.set(key, (state = { logEnd: probe.highWatermark, readerOffset: probe.highWatermark }));
    }
    return state;
  }

  async #fanOut(endpoint: Endpoint, scenario: Scenario, body: ProduceBody, seconds: number): Promise<Run> {
    const state = await this.#tailState(endpoint, scenario);
    const key = `${endpoint.server}/${scenario.topic}`;
    let fan = this.#fans.get(key);
    if (!fan) this.#fans.set(key, (fan = await FanOut.open(endpoint, scenario.topic, state.logEnd, fanOutSubscribers)));
    return measureFanOut(endpoint, scenario.topic, body, fan, state, seconds);
  }

  async runRow(scenario: Scenario, lookup: ResultLookup): Promise<RowResult> {
    const unavailable = transports[scenario.transport].unavailable();
    if (unavailable !== undefined) return { scenario, skipped: unavailable };
    const servers = this.#endpoints(scenario.transport);
    const measured: ServerName[] = scenario.baseline === "measure" ? ["tributary", "baseline"] : ["tributary"];
    for (const server of measured) {
      const refused = await this.#prepare(servers[server], scenario);
      if (refused !== undefined) return { scenario, skipped: refused };
    }
    for (const server of measured) await this.#measureOnce(servers[server], scenario, this.#settings.warmupSeconds);
    const countersBefore = await leaderCounters(servers.tributary, scenario.topic);
    const runs: Record<ServerName, MeasuredRun[]> = { tributary: [], baseline: [] };
    const { runs: runCount, seconds } = this.#settings;
    for (let index = 0; index < runCount; index++) {
      const order = index % 2 === 0 ? measured : [...measured].reverse();
      for (const server of order) {
        const measuredRun = await measureWithCpu(servers, server, () => this.#measureOnce(servers[server], scenario, seconds));
        runs[server].push(measuredRun);
        this.#progress(`${scenario.id} ${server} run ${index + 1}/${runCount}: ${describeRun(measuredRun)}`);
      }
    }
    const baseline =
      scenario.baseline === "measure" ? figureOf(runs.baseline)
      : scenario.baseline === "none" ? undefined
      : lookup(scenario.baseline.sameAs)?.baseline;
    const countersAfter = countersBefore && (await leaderCounters(servers.tributary, scenario.topic));
    this.#closeFan(servers.tributary, scenario);
    // A fan-out row's cost is its subscribers': the producer's requests are taken off.
    const excluded = scenario.measure === "fan-out" ? runs.tributary.reduce((sum, { run }) => sum + (isThroughput(run) ? run.requests : 0), 0) : 0;
    const cost = countersBefore && countersAfter && costOfRuns(countersBefore, countersAfter, runs.tributary, excluded);
    return { scenario, tributary: figureOf(runs.tributary), baseline, ...(cost ? { cost } : {}) };
  }

  /** The row's topic, and for consume a log to read; answers why not when the server refuses the topic. */
  async #prepare(endpoint: Endpoint, scenario: Scenario): Promise<string | undefined> {
    const key = `${endpoint.server}/${scenario.topic}`;
    if (!this.#createdTopics.has(key)) {
      const refused = await createTopic(endpoint, scenario.topic, scenario.partitions, scenario.replicationFactor);
      if (refused !== undefined) return `${endpoint.server} refused the topic: ${refused}`;
      this.#createdTopics.add(key);
    }
    if (scenario.measure === "consume") await this.#fillLog(endpoint, scenario, this.#payloads.get(scenario.transport)!.batch["1"]!);
    return undefined;
  }

  async #fillLog(endpoint: Endpoint, scenario: Scenario, body: ProduceBody): Promise<void> {
    const probe = await fetchRecords(endpoint, scenario.topic, { partition: 0, offset: 0, maxRecords: 1, waitMs: 0, detail: "positions" });
    const requests = Math.ceil(Math.max(0, consumeLogRecordsMin - probe.highWatermark) / body.records);
    for (let sent = 0; sent < requests; sent++) await produce(endpoint, scenario.topic, body);
  }

  #measureOnce(endpoint: Endpoint, scenario: Scenario, seconds: number): Promise<Run> {
    const bodies = this.#payloads.get(scenario.transport)!;
    switch (scenario.measure) {
      case "produce":
        return measureProduce(endpoint, scenario.topic, bodies.batch[String(scenario.acks)]!, scenario.partitions, scenario.inFlight, seconds);
      case "consume":
        return measureConsume(endpoint, scenario.topic, seconds);
      case "produce-latency":
        return measureProduceLatency(endpoint, scenario.topic, bodies.single, seconds);
      case "end-to-end-latency": {
        const key = `${endpoint.server}/${scenario.topic}`;
        let state = this.#endToEndStates.get(key);
        if (!state) this.#endToEndStates.set(key, (state = { nextOffset: 0, nextSequence: 0 }));
        return measureEndToEnd(endpoint, scenario.topic, bodies.endToEnd, endToEndKeyPrefix, state, seconds);
      }
      case "stream-latency": {
        const key = `${endpoint.server}/${scenario.topic}`;
        let state = this.#endToEndStates.get(key);
        if (!state) this.#endToEndStates.set(key, (state = { nextOffset: 0, nextSequence: 0 }));
        return measureStreamLatency(endpoint, scenario.topic, bodies.endToEnd, endToEndKeyPrefix, state, seconds, scenario.stream!);
      }
      case "tail-read":
        return this.#tailState(endpoint, scenario).then((state) => measureTailRead(endpoint, scenario.topic, bodies.batch["1"]!, state, seconds));
      case "fan-out":
        return this.#fanOut(endpoint, scenario, bodies.batch["1"]!, seconds);
    }
  }
}

/** Cost per 1,000 records (throughput rows) or per record (latency rows: one request each) over the row's runs. */
function costOfRuns(before: LeaderCounters, after: LeaderCounters, runs: readonly MeasuredRun[], excludedRequests = 0): CostFigure | undefined {
  const throughput = runs.every((measured) => isThroughput(measured.run));
  const units = runs.reduce((sum, { run }) => sum + (isThroughput(run) ? run.records : run.samples), 0);
  return costBetween(before, after, units, throughput ? "1,000 records" : "record", excludedRequests);
}
