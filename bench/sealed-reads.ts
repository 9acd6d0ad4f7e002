/**
 * Catch-up reads from R2 (issue 19, ARCHITECTURE.md decision 11): consuming a fully sealed
 * log, which the router serves from R2 (src/data-plane/sealed-reads.ts), against consuming the
 * same records from the tail, which the partition object serves (its tail cache and SQLite
 * rows) — same server, same run. Per transport:
 *
 *   two topics, 1 partition, RF 1 ──► the same N records produced into both (1,000 a request)
 *   "sealed": segment.ms 1 s, cleaner run until no batch is left in SQLite
 *   "tail":   segment.bytes 64 MiB, nothing sealed
 *   ──► a warm-up pass over each (the isolate's code, the segments' indexes), then per run r:
 *       consume "tail" from 0, then "sealed" three times, 10,000 − 10·r records a fetch
 *
 * The fetch size differs per run so that a run's ranges are new to the Cache API: its first
 * sealed pass reads R2 (every range a miss, nothing cached: a one-pass reader), its second
 * reads R2 again and puts each range into the Cache API (a router caches a range it reads
 * from R2 the second time), its third finds every range in the Cache API.
 * Object requests are the partition leader's counters (bench/cost.ts) around each pass.
 */
import { join } from "node:path";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { costBetween, leaderCounters } from "./cost.ts";
import { createTopic, describeTopic, fetchRecords, produce, type Endpoint } from "./client.ts";
import { makeRecords } from "./payloads.ts";
import { describeEnvironment, sealedReadsHeading, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";
import { transports, type TransportName } from "./transports.ts";

export const sealedReadRows = [
  { id: "sealed-reads.binary", transport: "binary" },
  { id: "sealed-reads.json", transport: "json" },
] as const satisfies readonly { id: string; transport: TransportName }[];

export type SealedReadRowId = (typeof sealedReadRows)[number]["id"];

/** The rows `--only` selects (all without it), as run.ts selects the table's. */
export function selectedSealedReadRows(only: string | undefined): SealedReadRowId[] {
  return sealedReadRows.map((row) => row.id).filter((id) => only === undefined || only.split(",").some((text) => id.includes(text)));
}

/**
 * The rows on a Tributary server of their own (started and stopped here, after the table's
 * servers stopped), printed, and written as their section of RESULTS.md.
 */
export async function runSealedReads(ids: readonly SealedReadRowId[], runs: number, write: boolean, wranglerDefaults: boolean, progress: (line: string) => void): Promise<void> {
  if (ids.length === 0) return;
  progress("catch-up reads: starting Tributary under wrangler dev");
  const server = await startServer("tributary", wranglerDefaults);
  const signal = new AbortController().signal;
  try {
    const endpointOf = (transport: TransportName): Endpoint => ({ server: "tributary", url: server.url, transport: transports[transport], signal, processGroupId: server.processGroupId });
    const figures = await measureSealedReads(endpointOf, ids, runs, progress);
    const environment = describeEnvironment();
    const section = sealedReadsMarkdown(figures, environment.date, environment.commit);
    console.log(`\n${section}`);
    if (write) writeSection(join(repositoryRoot, "bench", "RESULTS.md"), sealedReadsHeading, section);
  } finally {
    await server.stop();
  }
}

/** The rows' sizes: 200,000 records a topic, 20 fetches of about 10,000 a pass (smaller in the smoke test). */
export interface SealedReadSizes {
  recordsPerTopic: number;
  recordsPerFetchMax: number;
}

const defaultSizes: SealedReadSizes = { recordsPerTopic: 200_000, recordsPerFetchMax: 10_000 };
const recordsPerRequest = 1_000;
const mib = 1024 * 1024;

interface Pass {
  seconds: number;
  objectRequestsPer1000: number;
  recordsPerFetch: number;
}

export interface SealedReadFigure {
  id: SealedReadRowId;
  transport: TransportName;
  records: number;
  segments: number;
  tail: Pass[];
  /** Each run's first sealed pass: ranges from R2, nothing cached. */
  fromR2: Pass[];
  /** Each run's second sealed pass: ranges from R2 again, each put into the Cache API. */
  caching: Pass[];
  /** Each run's third sealed pass: ranges from the Cache API. */
  fromCache: Pass[];
}

async function partitionState(endpoint: Endpoint, topic: string) {
  const described = (await describeTopic(endpoint, topic)) as { partitions: { highWatermark: number; storage: { sqliteBatches: number; r2Segments: number } }[] };
  return described.partitions[0]!;
}

async function fill(endpoint: Endpoint, topic: string, recordsPerTopic: number, configs: Record<string, string>): Promise<void> {
  const refused = await createTopic(endpoint, topic, 1, 1, configs);
  if (refused) throw new Error(`create ${topic}: ${refused}`);
  const body = endpoint.transport.produceBody(makeRecords(recordsPerRequest), 1);
  for (let produced = 0; produced < recordsPerTopic; produced += recordsPerRequest) await produce(endpoint, topic, body);
}

/** Runs the leader's cleaner (a config change does) until every committed batch is sealed. */
async function sealAll(endpoint: Endpoint, topic: string, recordsPerTopic: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const state = await partitionState(endpoint, topic);
    if (state.storage.sqliteBatches === 0 && state.highWatermark === recordsPerTopic) return state.storage.r2Segments;
    const response = await fetch(`${endpoint.url}/v1/topics/${encodeURIComponent(topic)}/configs`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ configs: { "segment.ms": "1000" } }),
    });
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${topic}: still unsealed batches after 100 cleaner runs`);
}

/** One pass from offset 0 to the end, with the leader's requests counted around it. */
async function consumePass(endpoint: Endpoint, topic: string, recordsPerTopic: number, recordsPerFetch: number): Promise<Pass> {
  const before = await leaderCounters(endpoint, topic);
  const startedAt = performance.now();
  let offset = 0;
  while (offset < recordsPerTopic) {
    const answer = await fetchRecords(endpoint, topic, { partition: 0, offset, maxRecords: recordsPerFetch, waitMs: 0, detail: "positions" });
    if (answer.nextOffset <= offset) throw new Error(`${topic}: no progress at offset ${offset}`);
    offset = answer.nextOffset;
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const after = await leaderCounters(endpoint, topic);
  const cost = before && after ? costBetween(before, after, recordsPerTopic, "1,000 records") : undefined;
  return { seconds, objectRequestsPer1000: cost?.objectRequests ?? Number.NaN, recordsPerFetch };
}

export async function measureSealedReads(
  endpointOf: (transport: TransportName) => Endpoint,
  ids: readonly SealedReadRowId[],
  runs: number,
  progress: (line: string) => void,
  sizes: SealedReadSizes = defaultSizes,
): Promise<SealedReadFigure[]> {
  const { recordsPerTopic, recordsPerFetchMax } = sizes;
  const figures: SealedReadFigure[] = [];
  const suffix = Date.now().toString(36);
  for (const row of sealedReadRows) {
    if (!ids.includes(row.id)) continue;
    const endpoint = endpointOf(row.transport);
    const sealed = `sealed-reads-${row.transport}-sealed-${suffix}`;
    const tail = `sealed-reads-${row.transport}-tail-${suffix}`;
    progress(`${row.id}: producing ${recordsPerTopic} records into each of two topics`);
    await fill(endpoint, sealed, recordsPerTopic, { "segment.ms": "1000" });
    await fill(endpoint, tail, recordsPerTopic, { "segment.bytes": String(64 * mib) });
    const segments = await sealAll(endpoint, sealed, recordsPerTopic);
    const tailState = await partitionState(endpoint, tail);
    if (tailState.storage.r2Segments !== 0) throw new Error(`${tail}: ${tailState.storage.r2Segments} segments sealed; the tail row would read R2`);
    const figure: SealedReadFigure = { id: row.id, transport: row.transport, records: recordsPerTopic, segments, tail: [], fromR2: [], caching: [], fromCache: [] };
    await consumePass(endpoint, tail, recordsPerTopic, recordsPerFetchMax);
    await consumePass(endpoint, sealed, recordsPerTopic, recordsPerFetchMax);
    for (let run = 1; run <= runs; run++) {
      const perFetch = recordsPerFetchMax - 10 * run;
      figure.tail.push(await consumePass(endpoint, tail, recordsPerTopic, perFetch));
      figure.fromR2.push(await consumePass(endpoint, sealed, recordsPerTopic, perFetch));
      figure.caching.push(await consumePass(endpoint, sealed, recordsPerTopic, perFetch));
      figure.fromCache.push(await consumePass(endpoint, sealed, recordsPerTopic, perFetch));
    }
    progress(`${row.id}: ${rate(figure, median(figure.tail))} records/s from the tail, ${rate(figure, median(figure.fromR2))} from R2, ${rate(figure, median(figure.fromCache))} through the Cache API`);
    figures.push(figure);
  }
  return figures;
}

function median(passes: readonly Pass[]): Pass {
  const sorted = [...passes].sort((a, b) => a.seconds - b.seconds);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function rate(figure: SealedReadFigure, pass: Pass): number {
  return Math.round(figure.records / pass.seconds);
}

function ratio(figure: SealedReadFigure, pass: Pass, tail: Pass): string {
  return `${(rate(figure, pass) / rate(figure, tail)).toFixed(2)} ×`;
}

function requests(pass: Pass): string {
  return Number.isNaN(pass.objectRequestsPer1000) ? "n/a" : pass.objectRequestsPer1000.toFixed(3);
}

export function sealedReadsMarkdown(figures: readonly SealedReadFigure[], date: string, commit: string): string {
  const lines = [
    sealedReadsHeading,
    "",
    `${date}, commit ${commit}. Issue 19's targets: a fully sealed log consumed with ≤ 0.02 partition object requests per 1,000 records, at ≥ 0.8 × the records/s of the same records read from the tail. ` +
      `${(figures[0]?.records ?? 0).toLocaleString("en-US")} records of 16 + 200 B per topic, about ${(figures[0]?.tail[0]?.recordsPerFetch ?? 0).toLocaleString("en-US")} a fetch, one fetch in flight, the answer read whole but not decoded; medians of the runs, after a warm-up pass over each topic (bench/sealed-reads.ts).`,
    "",
    "| row | served by | records/s | × tail | object requests / 1,000 records |",
    "|---|---|---:|---:|---:|",
  ];
  for (const figure of figures) {
    const tail = median(figure.tail);
    const fromR2 = median(figure.fromR2);
    const caching = median(figure.caching);
    const fromCache = median(figure.fromCache);
    lines.push(`| ${figure.id} | the partition object (tail) | ${rate(figure, tail).toLocaleString("en-US")} | 1.00 × | ${requests(tail)} |`);
    lines.push(`| ${figure.id} | the router from R2 (${figure.segments} segments, every range a cache miss) | ${rate(figure, fromR2).toLocaleString("en-US")} | ${ratio(figure, fromR2, tail)} | ${requests(fromR2)} |`);
    lines.push(`| ${figure.id} | the router from R2 again, putting each range into the Cache API | ${rate(figure, caching).toLocaleString("en-US")} | ${ratio(figure, caching, tail)} | ${requests(caching)} |`);
    lines.push(`| ${figure.id} | the router from the Cache API (the same ranges again) | ${rate(figure, fromCache).toLocaleString("en-US")} | ${ratio(figure, fromCache, tail)} | ${requests(fromCache)} |`);
  }
  return lines.join("\n");
}
