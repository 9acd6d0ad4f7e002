/**
 * The Durable Streams rows (docs/durable-streams.md, issue 18): the protocol at /ds against
 * Tributary's JSON API on the same Worker and the same data, as ratios (target ≥ 0.8×).
 * Tributary alone under wrangler dev (the baseline serves no protocol).
 *
 * - appends, 1 and 8 in flight: one 1 KiB text append per request — `POST /ds/<stream>`
 *   against a one-record `POST /v1/topics/<topic>/records` — requests/s.
 * - catch-up read: a stream of 4,000 records of 1 KiB read from the start to its tail, again
 *   and again — `GET /ds/<stream>?offset=…` following Stream-Next-Offset against
 *   `GET /v1/topics/<topic>/partitions/0/records?offset=…&maxBytes=1048576` following
 *   nextOffset, both 1 MiB per answer — payload MB/s.
 *
 *   npm run bench -- --durable-streams [--seconds S] [--runs N] [--no-write]
 */
import { join } from "node:path";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";

export const durableStreamsHeading = "## Durable Streams";

const valueBytes = 1024;
/** The catch-up row's stream: this many records of 1 KiB (a multiple of 500, the fill's request size). */
const catchUpRecordsDefault = 4_000;
const value = "x".repeat(valueBytes);

export interface DurableStreamsFigure {
  row: string;
  unit: string;
  protocol: number;
  jsonApi: number;
}

async function ok(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response;
}

/** Requests/s of `send` with `inFlight` loops for `seconds`. */
async function rate(seconds: number, inFlight: number, send: () => Promise<void>): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let requests = 0;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        await send();
        requests++;
      }
    }),
  );
  return requests / ((performance.now() - startedAt) / 1000);
}

/** Payload bytes/s (as MB/s) of reading the whole stream with `readAll`, repeated for `seconds`. */
async function readRate(seconds: number, readAll: () => Promise<number>): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  const startedAt = performance.now();
  let bytes = 0;
  while (performance.now() < deadline) bytes += await readAll();
  return bytes / ((performance.now() - startedAt) / 1000) / 1e6;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The rows against a running Tributary at `url` (bench/durable-streams.ts's header); `catchUpRecords` a multiple of 500. */
export async function measureDurableStreams(
  url: string,
  { seconds, runs, catchUpRecords = catchUpRecordsDefault }: { seconds: number; runs: number; catchUpRecords?: number },
  progress: (line: string) => void,
): Promise<DurableStreamsFigure[]> {
  const text = { "content-type": "text/plain" };
  const appendStream = `${url}/ds/bench/appends`;
  const appendTopic = "ds.bench_2Fappends";
  await ok(await fetch(appendStream, { method: "PUT", headers: text }), "create the append stream");
  const dsAppend = async () => void (await ok(await fetch(appendStream, { method: "POST", headers: text, body: value }), "append")).arrayBuffer();
  const jsonBody = JSON.stringify({ records: [{ value }] });
  const jsonAppend = async () =>
    void (await ok(await fetch(`${url}/v1/topics/${appendTopic}/records`, { method: "POST", headers: { "content-type": "application/json" }, body: jsonBody }), "produce")).arrayBuffer();

  const readStream = `${url}/ds/bench/catch-up`;
  const readTopic = "ds.bench_2Fcatch-up";
  await ok(await fetch(readStream, { method: "PUT", headers: text }), "create the catch-up stream");
  const fill = JSON.stringify({ records: Array.from({ length: 500 }, () => ({ value })) });
  for (let written = 0; written < catchUpRecords; written += 500) {
    await ok(await fetch(`${url}/v1/topics/${readTopic}/records`, { method: "POST", headers: { "content-type": "application/json" }, body: fill }), "fill");
  }
  const dsReadAll = async () => {
    let offset = "-1";
    let bytes = 0;
    for (;;) {
      const response = await ok(await fetch(`${readStream}?offset=${offset}`), "catch-up read");
      bytes += (await response.arrayBuffer()).byteLength;
      offset = response.headers.get("stream-next-offset")!;
      if (response.headers.get("stream-up-to-date") === "true") return bytes;
    }
  };
  const jsonReadAll = async () => {
    let offset = 0;
    let bytes = 0;
    for (;;) {
      const response = await ok(await fetch(`${url}/v1/topics/${readTopic}/partitions/0/records?offset=${offset}&maxBytes=1048576&maxRecords=10000`), "fetch");
      const body = (await response.json()) as { records: { value: string }[]; nextOffset: number; highWatermark: number };
      for (const record of body.records) bytes += record.value.length;
      offset = body.nextOffset;
      if (offset >= body.highWatermark) return bytes;
    }
  };

  const rows: { row: string; unit: string; protocol: () => Promise<number>; jsonApi: () => Promise<number> }[] = [
    { row: "appends, 1 in flight (1 KiB each)", unit: "req/s", protocol: () => rate(seconds, 1, dsAppend), jsonApi: () => rate(seconds, 1, jsonAppend) },
    { row: "appends, 8 in flight (1 KiB each)", unit: "req/s", protocol: () => rate(seconds, 8, dsAppend), jsonApi: () => rate(seconds, 8, jsonAppend) },
    { row: `catch-up read of ${catchUpRecords.toLocaleString("en-US")} records of 1 KiB`, unit: "MB/s", protocol: () => rate1(dsReadAll), jsonApi: () => rate1(jsonReadAll) },
  ];
  function rate1(readAll: () => Promise<number>) {
    return readRate(seconds, readAll);
  }
  const figures: DurableStreamsFigure[] = [];
  for (const row of rows) {
    await row.protocol(); // warm-up of both paths
    await row.jsonApi();
    const protocol: number[] = [];
    const jsonApi: number[] = [];
    for (let run = 0; run < runs; run++) {
      protocol.push(await row.protocol());
      jsonApi.push(await row.jsonApi());
    }
    const figure = { row: row.row, unit: row.unit, protocol: median(protocol), jsonApi: median(jsonApi) };
    progress(`${figure.row}: ${figure.protocol.toFixed(1)} vs ${figure.jsonApi.toFixed(1)} ${figure.unit}`);
    figures.push(figure);
  }
  return figures;
}

export function durableStreamsMarkdown(figures: readonly DurableStreamsFigure[], seconds: number, runs: number): string {
  const environment = describeEnvironment();
  const lines = [
    durableStreamsHeading,
    "",
    `\`npm run bench -- --durable-streams\` (bench/durable-streams.ts): ${runs} runs of ${seconds} s per row and path, medians, on ${environment.date} (commit ${environment.commit}).`,
    "The protocol at /ds against Tributary's JSON API on the same Worker and the same data; ratio = protocol ÷ JSON API (higher is better, target ≥ 0.8×).",
    "",
    "| row | Durable Streams | JSON API | ratio | target |",
    "|---|---|---|---|---|",
    ...figures.map((figure) => {
      const ratio = figure.protocol / figure.jsonApi;
      return `| ${figure.row} | ${figure.protocol.toFixed(1)} ${figure.unit} | ${figure.jsonApi.toFixed(1)} ${figure.unit} | ${ratio.toFixed(2)}× | ${ratio >= 0.8 ? "met" : "NOT met"} |`;
    }),
  ];
  return `${lines.join("\n")}\n`;
}

/** Starts Tributary, measures the rows, prints them and (with `write`) puts their section into bench/RESULTS.md. */
export async function durableStreamsBench(options: { seconds: number; runs: number; write: boolean }, progress: (line: string) => void): Promise<void> {
  progress("starting Tributary under wrangler dev for the Durable Streams rows");
  const server = await startServer("tributary", false);
  try {
    const figures = await measureDurableStreams(server.url, options, progress);
    const section = durableStreamsMarkdown(figures, options.seconds, options.runs);
    console.log(`\n${section}`);
    if (options.write) writeSection(join(repositoryRoot, "bench", "RESULTS.md"), durableStreamsHeading, section);
  } finally {
    await server.stop();
  }
}
