/**
 * Issue 27's server rows (`npm run bench -- --compression-server [--runs N] [--no-write]`): one
 * `wrangler dev`, Tributary's client as the producer, the same records for every codec, runs
 * that rotate which codec goes first; each figure the median of the runs and its ratio to
 * `none` measured in the same run (the baseline of these rows: the same server, uncompressed).
 *
 *   produce   `producer({ acks: 1, compression })` and one send() of all the records into a
 *             fresh topic (RF 1, one partition), then close(): records/s, and the topic's stored
 *             bytes after it (SQLite and R2, from describe's storage). A follower copies the
 *             stored batches as they are (compressed-storage.test.ts checks them byte for byte),
 *             so the bytes a follower copies are the stored bytes: the column says so.
 *   JSON fetch    the last run's zstd topic against its none topic, from offset 0, 10,000
 *             records a fetch, the answer read whole (not parsed: the server is measured)
 *   binary fetch  the same for the lz4 and zstd topics over the binary transport
 *
 * Payloads: the bench's 216-byte records (random letters: little to find) and realistic JSON
 * events (bench/compression.ts's click stream), whose compression ratio is printed.
 */
import { join } from "node:path";
import { Tributary } from "../src/client/index.ts";
import type { CompressionCodec } from "../src/protocol/compression/codecs.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { createTopic, describeTopic, fetchRecords, type Endpoint } from "./client.ts";
import { jsonEvent } from "./compression.ts";
import { median } from "./measure.ts";
import { makeRecords } from "./payloads.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";
import { transports } from "./transports.ts";

export const compressionServerHeading = "## Compressed topics (issue 27)";

/** Records per codec and payload (smaller in the smoke test). */
const defaultRecords = 100_000;
const recordsPerFetch = 10_000;
const codecs: CompressionCodec[] = ["none", "lz4", "zstd"];

interface Payload {
  name: string;
  messages: { key: string; value: string }[];
}

function payloads(records: number): Payload[] {
  // Every record distinct: a repeating cycle would hand libzstd's long window (the client's zstd) matches no real stream has.
  return [
    { name: "216-byte bench records", messages: makeRecords(records) },
    { name: "JSON events", messages: Array.from({ length: records }, (_, i) => jsonEvent(i)) },
  ];
}

interface Stored {
  sqliteBytes: number;
  r2Bytes: number;
}

async function stored(endpoint: Endpoint, topic: string): Promise<Stored> {
  const described = (await describeTopic(endpoint, topic)) as { partitions: { storage: Stored }[] };
  return described.partitions.reduce((sum, p) => ({ sqliteBytes: sum.sqliteBytes + p.storage.sqliteBytes, r2Bytes: sum.r2Bytes + p.storage.r2Bytes }), { sqliteBytes: 0, r2Bytes: 0 });
}

async function produceRun(client: Tributary, topic: string, codec: CompressionCodec, messages: Payload["messages"]): Promise<number> {
  const producer = client.producer({ acks: 1, compression: codec });
  const startedAt = performance.now();
  const results = await producer.send({ topic, messages });
  await producer.close();
  const seconds = (performance.now() - startedAt) / 1000;
  if (results.length !== messages.length || results.at(-1)!.offset !== messages.length - 1) throw new Error(`produce to ${topic}: ${results.length} results`);
  return messages.length / seconds;
}

async function consumeRun(endpoint: Endpoint, topic: string, records: number): Promise<number> {
  const startedAt = performance.now();
  let offset = 0;
  while (offset < records) {
    const answer = await fetchRecords(endpoint, topic, { partition: 0, offset, maxRecords: recordsPerFetch, waitMs: 0, detail: "positions" });
    if (answer.nextOffset <= offset) throw new Error(`fetch of ${topic}: no progress at ${offset}`);
    offset = answer.nextOffset;
  }
  return records / ((performance.now() - startedAt) / 1000);
}

const rate = (value: number) => `${(value / 1000).toFixed(0)}k`;
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)} ×`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/** The section's tables, measured against a running server at `url` (bench/compression-server.ts's drawing). */
export async function measureCompressedTopics(url: string, options: { runs: number; records: number; log: (line: string) => void }): Promise<string[]> {
  const { runs, records, log } = options;
  const lines: string[] = [];
  const client = new Tributary({ url });
  const endpoint = (transport: "json" | "binary"): Endpoint => ({ server: "tributary", url, transport: transports[transport], signal: new AbortController().signal });
  // Warm-up: cold isolates, objects and JIT, every codec once.
  for (const codec of codecs) {
    await createTopic(endpoint("json"), `warm-${codec}`, 1, 1);
    await produceRun(client, `warm-${codec}`, codec, makeRecords(Math.min(20_000, records)));
  }
  const produceHeader = ["| payload | codec | produce records/s | × none | SQLite bytes | R2 bytes | stored ÷ none (= what a follower copies) |", "|---|---|---|---|---|---|---|"];
  const fetchHeader = ["| payload | read | records/s | × uncompressed | target |", "|---|---|---|---|---|"];
  const fetchRows: string[] = [];
  lines.push(...produceHeader);
  for (const payload of payloads(records)) {
    const rates = new Map<CompressionCodec, number[]>(codecs.map((c) => [c, []]));
    const bytes = new Map<CompressionCodec, Stored>();
    const topics = new Map<CompressionCodec, string>();
    for (let run = 0; run < runs; run++) {
      const order = codecs.map((_, i) => codecs[(i + run) % codecs.length]!);
      for (const codec of order) {
        const topic = `c-${payload.name.split(" ")[0]!.replace(/\W/g, "")}-${codec}-${run}`.toLowerCase();
        const refused = await createTopic(endpoint("json"), topic, 1, 1);
        if (refused) throw new Error(`create ${topic}: ${refused}`);
        const measured = await produceRun(client, topic, codec, payload.messages);
        rates.get(codec)!.push(measured);
        log(`${payload.name} ${codec} run ${run + 1}: ${rate(measured)} records/s`);
        bytes.set(codec, await stored(endpoint("json"), topic));
        topics.set(codec, topic);
      }
    }
    const base = median(rates.get("none")!);
    const baseBytes = bytes.get("none")!.sqliteBytes + bytes.get("none")!.r2Bytes;
    for (const codec of codecs) {
      const figure = median(rates.get(codec)!);
      const { sqliteBytes, r2Bytes } = bytes.get(codec)!;
      const note = codec === "none" ? "" : ` (compression ratio ${(baseBytes / (sqliteBytes + r2Bytes)).toFixed(2)} ×)`;
      lines.push(`| ${payload.name} | ${codec} | ${rate(figure)} | ${ratio(figure, base)} | ${kib(sqliteBytes)} | ${kib(r2Bytes)} | ${ratio(sqliteBytes + r2Bytes, baseBytes)}${note} |`);
    }
    // Reads: runs alternate uncompressed and compressed first.
    for (const [transport, codec, target] of [["json", "zstd", "≥ 0.6 ×"], ["binary", "lz4", "≥ 1 ×"], ["binary", "zstd", "≥ 1 ×"]] as const) {
      const plain: number[] = [];
      const packed: number[] = [];
      for (let run = 0; run < runs; run++) {
        const pair = [[topics.get("none")!, plain], [topics.get(codec)!, packed]] as const;
        for (const [topic, into] of run % 2 === 0 ? pair : [...pair].reverse()) into.push(await consumeRun(endpoint(transport), topic, records));
      }
      log(`${payload.name} ${transport} fetch ${codec}: ${packed.map(rate).join(", ")} against ${plain.map(rate).join(", ")}`);
      fetchRows.push(`| ${payload.name} | ${transport} fetch of a ${codec} topic | ${rate(median(packed))} (none: ${rate(median(plain))}) | ${ratio(median(packed), median(plain))} | ${target} |`);
    }
  }
  lines.push("", ...fetchHeader, ...fetchRows);
  return lines;
}

export async function compressionServerBench(options: { runs: number; write: boolean; log: (line: string) => void }): Promise<void> {
  const { runs } = options;
  const records = defaultRecords;
  const server = await startServer("tributary", false);
  const lines = await measureCompressedTopics(server.url, { runs, records, log: options.log }).finally(() => server.stop());
  const environment = describeEnvironment();
  const section = [
    compressionServerHeading,
    "",
    `\`npm run bench -- --compression-server\` (bench/compression-server.ts), ${environment.date}, commit ${environment.commit}, ${runs} runs of ${records.toLocaleString("en")} records per codec and payload, medians; one \`wrangler dev\`, RF 1, one partition; the client's producer (\`acks: 1\`, its defaults otherwise); ratios against \`none\` in the same run.`,
    "",
    ...lines,
  ].join("\n");
  console.log(`\n${section}\n`);
  if (options.write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, compressionServerHeading, section);
    options.log(`wrote ${compressionServerHeading} in ${path}`);
  }
}
