/**
 * Issue 30's rows (`npm run bench -- --schema-validation [--runs N] [--no-write]`): one
 * `wrangler dev`, Tributary's client, RF 1, one partition; each figure the median of the runs,
 * each ratio against the same records produced to a topic without validation in the same run;
 * the modes take turns at going first.
 *
 *   produce   `producer({ acks: 1 })` and one send() of `records` records (16-byte keys, values in
 *             Confluent's wire format: magic byte, the registered schema's id, then the datum),
 *             then close(), into a fresh topic per mode and run:
 *               off   no validation (the same Avro-encoded values)
 *               id    `confluent.value.schema.validation=true` (the id under `<topic>-value`)
 *               full Avro / full JSON   `tributary.value.schema.validation=full`: each value's
 *                     datum read against its schema (an Avro record of a long and a string; a JSON
 *                     Schema object of an integer and a string), values of about 200 bytes
 *             records/s, and the server runtime's CPU per 1,000 records (bench/cpu.ts)
 *   lookup    GET /registry/schemas/ids/{id} one after another from this process, after a warm-up
 *             that fills the router isolate's cache (src/registry-api/schema-cache.ts): p50 and
 *             p99, beside GET /v1/health in the same turns (the path through wrangler's proxy and
 *             the router with no work: what a lookup adds is the difference). This is the route's
 *             cache, not produce's (src/data-plane/schema-id-checks.ts), whose cost is in the
 *             produce rows
 *
 * Writes the "## Schema validation on produce (issue 30)" section of bench/RESULTS.md.
 */
import { join } from "node:path";
import { Tributary } from "../src/client/index.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { cpuBetween, serverCpu } from "./cpu.ts";
import { median, percentile } from "./measure.ts";
import { makeRecords } from "./payloads.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";

export const schemaValidationHeading = "## Schema validation on produce (issue 30)";

const defaultRecords = 100_000;
const defaultLookups = 1_000;
const lookupWarmup = 50;
const registryType = "application/vnd.schemaregistry.v1+json";

type Mode = "off" | "id" | "full-avro" | "full-json";
const modes: Mode[] = ["off", "id", "full-avro", "full-json"];

const avroSchema = { type: "record", name: "BenchEvent", fields: [{ name: "id", type: "long" }, { name: "payload", type: "string" }] };
const jsonSchema = { type: "object", properties: { id: { type: "integer" }, payload: { type: "string" } }, required: ["id", "payload"] };

/** Avro's zig-zag varint of a long (here below 2^31). */
function avroLong(value: number): number[] {
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  const bytes: number[] = [];
  while (zigzag >= 0x80) {
    bytes.push((zigzag & 0x7f) | 0x80);
    zigzag = Math.floor(zigzag / 128);
  }
  bytes.push(zigzag);
  return bytes;
}

function wire(id: number, datum: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(5 + datum.length);
  new DataView(bytes.buffer).setUint32(1, id);
  bytes.set(datum, 5);
  return bytes;
}

/** The bench's 200-byte values as datums of about that size: Avro (id, payload) or JSON text. */
function values(records: number, id: number, encoding: "avro" | "json"): { key: string; value: Uint8Array }[] {
  const encoder = new TextEncoder();
  return makeRecords(records, 13).map(({ key, value }, index) => {
    const payload = value.slice(0, 180);
    const datum = encoding === "avro"
      ? Uint8Array.from([...avroLong(index), ...avroLong(payload.length), ...encoder.encode(payload)])
      : encoder.encode(JSON.stringify({ id: index, payload }));
    return { key, value: wire(id, datum) };
  });
}

async function register(url: string, subject: string, schema: object, schemaType?: "JSON"): Promise<number> {
  const response = await fetch(`${url}/registry/subjects/${encodeURIComponent(subject)}/versions`, {
    method: "POST",
    headers: { "content-type": registryType, "accept-encoding": "identity" },
    body: JSON.stringify({ schema: JSON.stringify(schema), ...(schemaType ? { schemaType } : {}) }),
  });
  const answer = (await response.json()) as { id?: number };
  if (response.status !== 200 || typeof answer.id !== "number") throw new Error(`register ${subject}: ${response.status} ${JSON.stringify(answer)}`);
  return answer.id;
}

const configsOf: Record<Mode, Record<string, string>> = {
  off: {},
  id: { "confluent.value.schema.validation": "true" },
  "full-avro": { "tributary.value.schema.validation": "full" },
  "full-json": { "tributary.value.schema.validation": "full" },
};

export interface SchemaValidationFigures {
  records: number;
  runs: number;
  produce: Record<Mode, { recordsPerSecond: number[]; runtimeCpuMsPer1000: number[] }>;
  lookup: { id: number; p50Ms: number; p99Ms: number; healthP50Ms: number; healthP99Ms: number; samples: number };
}

/** The rows against a running server (`processGroupId` for its CPU, when known); also the bench smoke test's, with small sizes. */
export async function measureSchemaValidation(url: string, processGroupId: number | undefined, options: { runs: number; records?: number; lookups?: number; log: (line: string) => void }): Promise<SchemaValidationFigures> {
  const { runs, log } = options;
  const records = options.records ?? defaultRecords;
  const lookups = options.lookups ?? defaultLookups;
  const client = new Tributary({ url, logLevel: "error" });
  const admin = client.admin();
  const stamp = Date.now().toString(36);
  const produce = Object.fromEntries(modes.map((mode) => [mode, { recordsPerSecond: [] as number[], runtimeCpuMsPer1000: [] as number[] }])) as SchemaValidationFigures["produce"];
  // Ids do not depend on the subject: one registration per schema gives the id every topic's subject gets too.
  const avroId = await register(url, `bench-${stamp}-avro`, avroSchema);
  const jsonId = await register(url, `bench-${stamp}-json`, jsonSchema, "JSON");
  const avroValues = values(records, avroId, "avro");
  const jsonValues = values(records, jsonId, "json");
  for (let run = -1; run < runs; run++) { // run -1: a warm-up of each mode, not counted
    const order = modes.map((_, i) => modes[(i + Math.max(0, run)) % modes.length]!);
    for (const mode of order) {
      const topic = `sv-${stamp}-${mode}-${run + 1}`;
      await admin.topics.create({ name: topic, partitions: 1, replicationFactor: 1, configs: configsOf[mode] });
      if (mode !== "off") await register(url, `${topic}-value`, mode === "full-json" ? jsonSchema : avroSchema, mode === "full-json" ? "JSON" : undefined);
      const messages = mode === "full-json" ? jsonValues : avroValues;
      const producer = client.producer({ acks: 1 });
      const cpuBefore = processGroupId === undefined ? undefined : serverCpu(processGroupId);
      const startedAt = performance.now();
      const results = await producer.send({ topic, messages });
      await producer.close();
      const seconds = (performance.now() - startedAt) / 1000;
      const cpu = cpuBetween(cpuBefore, processGroupId === undefined ? undefined : serverCpu(processGroupId));
      if (results.length !== records) throw new Error(`produce to ${topic}: ${results.length} results`);
      if (run < 0) continue;
      produce[mode].recordsPerSecond.push(records / seconds);
      if (cpu) produce[mode].runtimeCpuMsPer1000.push((cpu.runtimeMs / records) * 1000);
      log(`${mode} run ${run + 1}: ${Math.round(records / seconds).toLocaleString("en")} records/s`);
    }
  }
  // Lookups by id, in turns with the health route.
  const timed = async (path: string) => {
    const startedAt = performance.now();
    const response = await fetch(`${url}${path}`, { headers: { "accept-encoding": "identity" } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    return performance.now() - startedAt;
  };
  const byId: number[] = [];
  const health: number[] = [];
  for (let i = -lookupWarmup; i < lookups; i++) {
    const pair = [await timed(`/registry/schemas/ids/${avroId}`), await timed("/v1/health")];
    if (i >= 0) {
      byId.push(pair[0]!);
      health.push(pair[1]!);
    }
  }
  byId.sort((a, b) => a - b);
  health.sort((a, b) => a - b);
  const lookup = { id: avroId, p50Ms: percentile(byId, 0.5), p99Ms: percentile(byId, 0.99), healthP50Ms: percentile(health, 0.5), healthP99Ms: percentile(health, 0.99), samples: byId.length };
  log(`lookup by id: p50 ${lookup.p50Ms.toFixed(2)} ms, p99 ${lookup.p99Ms.toFixed(2)} ms (health: ${lookup.healthP50Ms.toFixed(2)}, ${lookup.healthP99Ms.toFixed(2)})`);
  return { records, runs, produce, lookup };
}

const labels: Record<Mode, string> = {
  off: "no validation",
  id: "schema id validation (`confluent.value.schema.validation=true`)",
  "full-avro": "full validation, Avro (`tributary.value.schema.validation=full`)",
  "full-json": "full validation, JSON Schema (`tributary.value.schema.validation=full`)",
};

/** The section's tables (without the heading's paragraph). */
export function schemaValidationMarkdown(figures: SchemaValidationFigures): string[] {
  const base = median(figures.produce.off.recordsPerSecond);
  const baseCpu = figures.produce.off.runtimeCpuMsPer1000.length > 0 ? median(figures.produce.off.runtimeCpuMsPer1000) : undefined;
  const lines = ["| produce to a topic with | records/s (median) | × no validation | runtime CPU per 1,000 records | target (issue 30) |", "|---|---|---|---|---|"];
  for (const mode of modes) {
    const { recordsPerSecond, runtimeCpuMsPer1000 } = figures.produce[mode];
    const ratio = median(recordsPerSecond) / base;
    const cpu = runtimeCpuMsPer1000.length > 0 ? median(runtimeCpuMsPer1000) : undefined;
    const cpuText = cpu === undefined ? "—" : `${cpu.toFixed(2)} ms${mode === "off" || baseCpu === undefined ? "" : ` (+${(cpu - baseCpu).toFixed(2)})`}`;
    const target = mode === "id" ? `≥ 0.9 × ${ratio >= 0.9 ? "(met)" : "(missed)"}` : mode === "off" ? "" : "records/s and cost reported";
    lines.push(`| ${labels[mode]} | ${Math.round(median(recordsPerSecond)).toLocaleString("en")} | ${ratio.toFixed(2)} × | ${cpuText} | ${target} |`);
  }
  const { lookup } = figures;
  lines.push(
    "",
    "| `GET /registry/schemas/ids/{id}`, warm router cache | p50 | p99 | samples |",
    "|---|---|---|---|",
    `| lookup by id | ${lookup.p50Ms.toFixed(2)} ms | ${lookup.p99Ms.toFixed(2)} ms | ${lookup.samples} |`,
    `| \`GET /v1/health\` in the same turns (no work behind the proxy and router) | ${lookup.healthP50Ms.toFixed(2)} ms | ${lookup.healthP99Ms.toFixed(2)} ms | ${lookup.samples} |`,
  );
  return lines;
}

export async function schemaValidationBench(options: { runs: number; write: boolean; log: (line: string) => void }): Promise<void> {
  const server = await startServer("tributary", false);
  const figures = await measureSchemaValidation(server.url, server.processGroupId, { runs: options.runs, log: options.log }).finally(() => server.stop());
  const environment = describeEnvironment();
  const section = [
    schemaValidationHeading,
    "",
    `\`npm run bench -- --schema-validation\` (bench/schema-validation.ts), ${environment.date}, ${environment.machine}, commit ${environment.commit}; ${options.runs} runs of ${figures.records.toLocaleString("en")} records per mode, medians; one \`wrangler dev\`, RF 1, one partition; the client's producer (\`acks: 1\`, one send of all the records); values of about 200 bytes in Confluent's wire format; ratios against no validation in the same run. Runtime CPU: the workerd process running the Worker and its objects (bench/cpu.ts), per 1,000 records.`,
    "",
    ...schemaValidationMarkdown(figures),
  ].join("\n");
  console.log(`\n${section}\n`);
  if (options.write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, schemaValidationHeading, section);
    options.log(`wrote ${schemaValidationHeading} in ${path}`);
  }
}
