/**
 * The scenario table: one row per thing measured, for every transport. A row says what
 * Tributary does, which baseline figure it is compared with, and issue 7's targets for it.
 * Adding a transport adds its rows here without changing anything else; a row whose
 * transport cannot run yet is reported as skipped, with the reason.
 */
import type { CostFigure } from "./cost.ts";
import { transports, type Acks, type TransportName } from "./transports.ts";

export type Measure = "produce" | "consume" | "produce-latency" | "end-to-end-latency" | "stream-latency" | "tail-read" | "fan-out";

/** What a row's figures are: medians over the runs. Throughput rows fill the rates, latency rows the percentiles. */
export interface Figure {
  recordsPerSecond?: number;
  megabytesPerSecond?: number;
  p50Ms?: number;
  p99Ms?: number;
  /** CPU per unit of work (medians over the runs), where /proc tells it (bench/cpu.ts). */
  cpu?: CpuFigure;
  /** The largest share of the machine's CPU other processes took during one of the runs. */
  otherLoadMax?: number;
  /** The runs' own values (records/s or p99), to see the spread. */
  runs: number[];
}

export interface CpuFigure {
  /** Throughput rows: per 1,000 records; latency rows: per record (one produce request each). */
  per: "1,000 records" | "record";
  /** The workerd that runs the Worker and its Durable Objects: the service's own work. */
  runtimeMs: number;
  /** Of runtimeMs, user time: the service's code, without the kernel's part that swings between runs of the same code (bench/cpu.ts). */
  runtimeUserMs: number;
  /** wrangler dev's proxy workerd and Node process: the dev server's work, the same kind for both servers. */
  devServerMs: number;
  /** The benchmark process (requests, answers, JSON). */
  clientMs: number;
}

export interface RowResult {
  scenario: Scenario;
  skipped?: string;
  tributary?: Figure;
  baseline?: Figure;
  /** Tributary's object requests and rows written over the row's runs (bench/cost.ts). */
  cost?: CostFigure;
}

/** Looks up another row's result, for targets that compare rows (RF 3 against RF 1). */
export type ResultLookup = (id: string) => RowResult | undefined;

export interface TargetRule {
  /** As printed next to the figure, e.g. "≥ 120,000 rec/s". */
  text: string;
  /** true/false once both sides are known; undefined when it cannot be judged (a side is missing). */
  met(row: RowResult, lookup: ResultLookup): boolean | undefined;
}

export interface Scenario {
  /** Stable id, e.g. "json.produce.1-in-flight". */
  id: string;
  transport: TransportName;
  measure: Measure;
  /** Human description for the table. */
  label: string;
  /** Tributary topic (and baseline object) this row uses; rows that share a log share a topic. */
  topic: string;
  partitions: number;
  replicationFactor: number;
  recordsPerRequest: number;
  inFlight: number;
  acks: Acks;
  /** Streaming rows (bench/streams.ts): how the subscriber reads. */
  stream?: "sse" | "websocket";
  /** "measure": the baseline runs this row too; { sameAs }: compared with that row's baseline figure; "none": no matching baseline. */
  baseline: "measure" | { sameAs: string } | "none";
  targets: TargetRule[];
}

const recordsPerRequest = 1_000;

const format = (value: number) => Math.round(value).toLocaleString("en-US");

function atLeastRecordsPerSecond(minimum: number): TargetRule {
  return {
    text: `≥ ${format(minimum)} rec/s`,
    met: (row) => (row.tributary?.recordsPerSecond === undefined ? undefined : row.tributary.recordsPerSecond >= minimum),
  };
}

function atLeastBaselineShare(share: number): TargetRule {
  return {
    text: `≥ ${share} × baseline`,
    met: (row) => {
      const ours = row.tributary?.recordsPerSecond;
      const theirs = row.baseline?.recordsPerSecond;
      return ours === undefined || theirs === undefined ? undefined : ours >= share * theirs;
    },
  };
}

function p99AtMostBaselineTimes(factor: number): TargetRule {
  return {
    text: `p99 ≤ ${factor} × baseline p99`,
    met: (row) => {
      const ours = row.tributary?.p99Ms;
      const theirs = row.baseline?.p99Ms;
      return ours === undefined || theirs === undefined ? undefined : ours <= factor * theirs;
    },
  };
}

/** The streaming rows' latency bound: no worse than long-polling (the same transport's end-to-end row). */
function p99AtMostRow(otherId: string, otherLabel: string): TargetRule {
  return {
    text: `p99 ≤ ${otherLabel} p99`,
    met: (row, lookup) => {
      const ours = row.tributary?.p99Ms;
      const theirs = lookup(otherId)?.tributary?.p99Ms;
      return ours === undefined || theirs === undefined ? undefined : ours <= theirs;
    },
  };
}

/** Object requests per 1,000 records delivered to subscribers, the producer's own taken off (execute.ts). */
function subscriberRequestsBelow(bound: number): TargetRule {
  return {
    text: `< ${bound} object requests per 1,000 delivered`,
    met: (row) => (row.cost === undefined ? undefined : row.cost.objectRequests < bound),
  };
}

function atLeastShareOfRow(share: number, otherId: string, otherLabel: string): TargetRule {
  return {
    text: `≥ ${share} × ${otherLabel}`,
    met: (row, lookup) => {
      const ours = row.tributary?.recordsPerSecond;
      const theirs = lookup(otherId)?.tributary?.recordsPerSecond;
      return ours === undefined || theirs === undefined ? undefined : ours >= share * theirs;
    },
  };
}

/**
 * Issue 7's targets. They are stated for the binary transport, except JSON's own throughput
 * floors; the single-record p99 bound is applied to JSON too, since both servers get the
 * same JSON body there.
 */
function targetsFor(transport: TransportName, key: string): TargetRule[] {
  const binary = transport === "binary";
  switch (key) {
    case "produce.1-in-flight":
      return binary ? [atLeastBaselineShare(0.8)] : [atLeastRecordsPerSecond(120_000)];
    case "produce.4-in-flight":
      return binary ? [atLeastBaselineShare(0.8), atLeastRecordsPerSecond(250_000)] : [];
    case "produce.rf3.acks-all.4-in-flight":
      return [atLeastShareOfRow(0.5, `${transport}.produce.acks-all.4-in-flight`, "RF 1 acks all")];
    case "consume":
      return binary ? [atLeastRecordsPerSecond(550_000), atLeastBaselineShare(0.8)] : [atLeastRecordsPerSecond(400_000)];
    case "produce-latency":
      return [p99AtMostBaselineTimes(1.3)];
    case "stream-latency.sse":
    case "stream-latency.websocket":
      return [p99AtMostRow(`${transport}.end-to-end-latency`, "long poll")];
    case "fan-out.websocket":
      return [atLeastShareOfRow(10, `${transport}.tail-read.long-poll`, "one long-polling reader"), subscriberRequestsBelow(0.01)];
    default:
      return [];
  }
}

/** Every row for one transport, in the order they run: produce rows first (consume reads their log). */
function rowsFor(transport: TransportName): Scenario[] {
  const topic = (name: string) => `bench-${transport}-${name}`;
  const base = { transport, partitions: 1, replicationFactor: 1, recordsPerRequest, inFlight: 1, acks: 1 as Acks };
  const rows: (Omit<Scenario, "id" | "targets"> & { key: string })[] = [
    { ...base, key: "produce.1-in-flight", measure: "produce", label: "produce, 1 in flight, acks 1", topic: topic("p1"), baseline: "measure" },
    { ...base, key: "produce.4-in-flight", measure: "produce", label: "produce, 4 in flight, acks 1", topic: topic("p1"), inFlight: 4, baseline: "measure" },
    {
      ...base, key: "produce.acks-all.4-in-flight", measure: "produce", label: "produce, 4 in flight, acks all", topic: topic("p1"), acks: "all", inFlight: 4,
      baseline: { sameAs: `${transport}.produce.4-in-flight` },
    },
    {
      ...base, key: "produce.8-partitions.4-in-flight", measure: "produce",
      // JSON: keyed records, the router partitions them; binary: the client batches per partition, requests round robin.
      label: `produce, 8 partitions (${transport === "json" ? "keyed records" : "a batch per partition"}), 4 in flight, acks 1`,
      topic: topic("p8"), partitions: 8, inFlight: 4, baseline: "none",
    },
    {
      ...base, key: "produce.rf3.acks-all.4-in-flight", measure: "produce", label: "produce, RF 3, 4 in flight, acks all",
      topic: topic("rf3"), replicationFactor: 3, acks: "all", inFlight: 4, baseline: "none",
    },
    { ...base, key: "consume", measure: "consume", label: "consume from offset 0, 10,000 a fetch", topic: topic("p1"), baseline: "measure" },
    { ...base, key: "produce-latency", measure: "produce-latency", label: "single-record produce latency", topic: topic("latency"), recordsPerRequest: 1, baseline: "measure" },
    {
      ...base, key: "end-to-end-latency", measure: "end-to-end-latency", label: "end-to-end latency, produce → long poll",
      topic: topic("e2e"), recordsPerRequest: 1, baseline: "measure",
    },
    // Streams (bench/streams.ts): SSE with the JSON producer, WebSockets with the binary one; Tributary only.
    ...(transport === "json"
      ? [{ ...base, key: "stream-latency.sse", measure: "stream-latency" as const, stream: "sse" as const, label: "end-to-end latency, produce → SSE subscriber", topic: topic("sse"), recordsPerRequest: 1, baseline: "none" as const }]
      : [
          { ...base, key: "stream-latency.websocket", measure: "stream-latency" as const, stream: "websocket" as const, label: "end-to-end latency, produce → WebSocket subscriber", topic: topic("ws"), recordsPerRequest: 1, baseline: "none" as const },
          { ...base, key: "tail-read.long-poll", measure: "tail-read" as const, label: "one long-polling reader at the head, producer 1 in flight", topic: topic("tail"), baseline: "none" as const },
          {
            ...base, key: "fan-out.websocket", measure: "fan-out" as const, stream: "websocket" as const,
            label: "fan-out to 100 WebSocket subscribers (records delivered), producer 1 in flight", topic: topic("fan-out"), baseline: "none" as const,
          },
        ]),
  ];
  return rows.map(({ key, ...row }) => ({ ...row, id: `${transport}.${key}`, targets: targetsFor(transport, key) }));
}

export function scenarioTable(): Scenario[] {
  return (Object.keys(transports) as TransportName[]).flatMap(rowsFor);
}
