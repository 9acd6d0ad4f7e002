/**
 * `npm run bench -- --soak MINUTES`: a sustained produce/consume run against Tributary alone,
 * watching memory (issue 7: "a partition object's heap stays bounded under a sustained
 * 10-minute produce/consume run"). Two producers send 1,000-record binary batches to one
 * partition while one consumer follows the head with long polls. Every few seconds it samples
 * the live heap of the Worker's isolate — which holds the router and the partition object
 * under wrangler dev — over the DevTools protocol (a full garbage collection, then
 * Runtime.getHeapUsage: objects and ArrayBuffer backing stores, where batches live), the resident memory of the runtime workerd process (which also
 * holds local R2, SQLite and the runtime's own buffers), and the partition leader's bounded
 * structures from its debug statistics (tail cache, waiters, appends waiting for group
 * commit; docs/api.md), with its storage. The topic keeps 512 MiB (retention.bytes), so
 * segments are sealed to R2 and deleted as they age, as in a long-running deployment, and the
 * disk stays bounded.
 *
 * Verdict: the heap is flat when the median live heap of the last third of the run is at
 * most 20% above that of the first third after warm-up (the first 20% of the run), and no
 * bounded structure went past its bound. Without the inspector, resident memory is judged
 * instead (peaks, +10%).
 */
import { appendsWaitingMax, tailCacheBytesMax, waitersPerPartitionMax } from "../src/limits.ts";
import { createTopic, describeTopic, fetchRecords, produce, type Endpoint } from "./client.ts";
import { runtimeResidentBytes } from "./cpu.ts";
import { connect, liveHeapBytes, type Inspector } from "./inspector.ts";
import { makeRecords } from "./payloads.ts";
import { soakHeading } from "./report.ts";

export interface SoakSample {
  atSeconds: number;
  produced: number;
  consumed: number;
  /** Live objects and ArrayBuffer backing stores of the Worker's isolate after a full collection; undefined without the inspector. */
  heapBytes: number | undefined;
  runtimeResidentBytes: number | undefined;
  tailCacheBytes: number;
  waiters: number;
  appendsWaiting: number;
  sqliteBytes: number;
  r2Bytes: number;
}

export interface SoakResult {
  minutes: number;
  samples: SoakSample[];
  flat: boolean;
  verdict: string;
}

const producersInFlight = 2;
const consumerWaitMs = 1_000;
const retentionBytes = 512 * 1024 * 1024;
/** Growth of the median live heap, last third against first third, still called flat. */
const heapGrowthMax = 0.2;
/** Growth of the resident size (peaks), last third against first third, still called flat. */
const residentGrowthMax = 0.1;

interface PartitionView {
  debug?: { tailCacheBytes: number; waiters: number; appendsWaiting: number };
  storage?: { sqliteBytes: number; r2Bytes: number };
}

async function sample(
  endpoint: Endpoint,
  topic: string,
  inspector: Inspector | undefined,
  base: Pick<SoakSample, "atSeconds" | "produced" | "consumed">,
): Promise<SoakSample> {
  const described = (await describeTopic(endpoint, topic)) as { partitions: PartitionView[] };
  const partition = described.partitions[0] ?? {};
  const processGroupId = endpoint.processGroupId;
  return {
    ...base,
    heapBytes: inspector ? await liveHeapBytes(inspector).catch(() => undefined) : undefined,
    runtimeResidentBytes: processGroupId === undefined ? undefined : runtimeResidentBytes(processGroupId),
    tailCacheBytes: partition.debug?.tailCacheBytes ?? 0,
    waiters: partition.debug?.waiters ?? 0,
    appendsWaiting: partition.debug?.appendsWaiting ?? 0,
    sqliteBytes: partition.storage?.sqliteBytes ?? 0,
    r2Bytes: partition.storage?.r2Bytes ?? 0,
  };
}

/**
 * Runs the soak for `minutes` against `endpoint` (binary transport), sampling every
 * `sampleSeconds`; the heap through `inspectorUrl` (the server's --inspector-port) when given.
 */
export async function runSoak(
  endpoint: Endpoint,
  minutes: number,
  sampleSeconds: number,
  progress: (line: string) => void,
  inspectorUrl?: string,
): Promise<SoakResult> {
  const inspector = inspectorUrl === undefined ? undefined : await connect(inspectorUrl, endpoint.signal);
  try {
    return await soakWith(endpoint, minutes, sampleSeconds, progress, inspector);
  } finally {
    inspector?.close();
  }
}

async function soakWith(endpoint: Endpoint, minutes: number, sampleSeconds: number, progress: (line: string) => void, inspector: Inspector | undefined): Promise<SoakResult> {
  const topic = `bench-soak-${Date.now()}`;
  const refused = await createTopic(endpoint, topic, 1, 1, { "retention.bytes": String(retentionBytes) });
  if (refused !== undefined) throw new Error(`the soak topic was refused: ${refused}`);
  const body = endpoint.transport.produceBody(makeRecords(1_000), 1);
  const startedAt = performance.now();
  const deadline = startedAt + minutes * 60_000;
  let produced = 0;
  let consumed = 0;
  const producer = async () => {
    while (performance.now() < deadline) {
      const acknowledged = await produce(endpoint, topic, body, 0);
      produced += acknowledged;
    }
  };
  const consumer = async () => {
    let offset = 0;
    while (performance.now() < deadline) {
      const answer = await fetchRecords(endpoint, topic, { partition: 0, offset, maxRecords: 10_000, waitMs: consumerWaitMs, detail: "positions" });
      consumed += answer.nextOffset - offset;
      offset = answer.nextOffset;
    }
  };
  const samples: SoakSample[] = [];
  // Samples are taken under load only: the last one a sampling period before the deadline.
  const sampler = async () => {
    while (performance.now() + sampleSeconds * 1000 <= deadline) {
      await new Promise((resolve) => setTimeout(resolve, sampleSeconds * 1000));
      const atSeconds = (performance.now() - startedAt) / 1000;
      const taken = await sample(endpoint, topic, inspector, { atSeconds, produced, consumed });
      samples.push(taken);
      progress(`soak ${atSeconds.toFixed(0)} s: ${describeSample(taken)}`);
    }
  };
  await Promise.all([...Array.from({ length: producersInFlight }, producer), consumer(), sampler()]);
  return { minutes, samples, ...judge(samples) };
}

function mebibytes(bytes: number | undefined): string {
  return bytes === undefined ? "—" : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

function describeSample(sample: SoakSample): string {
  return (
    `produced ${sample.produced.toLocaleString("en-US")}, consumed ${sample.consumed.toLocaleString("en-US")}; ` +
    `isolate heap ${mebibytes(sample.heapBytes)}, runtime RSS ${mebibytes(sample.runtimeResidentBytes)}; tail cache ${mebibytes(sample.tailCacheBytes)}, ` +
    `waiters ${sample.waiters}, appends waiting ${sample.appendsWaiting}; SQLite ${mebibytes(sample.sqliteBytes)}, R2 ${mebibytes(sample.r2Bytes)}`
  );
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Last third against first third of `values` (after warm-up): medians or peaks. */
function growth(values: readonly number[], pick: (third: readonly number[]) => number): { first: number; last: number; growth: number } {
  const third = Math.max(1, Math.floor(values.length / 3));
  const first = pick(values.slice(0, third));
  const last = pick(values.slice(-third));
  return { first, last, growth: (last - first) / first };
}

function percentText(value: number): string {
  return `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)}%`;
}

/** Flat heap (or, without it, resident memory) after warm-up, and every bounded structure within its bound. */
export function judge(samples: readonly SoakSample[]): { flat: boolean; verdict: string } {
  const warm = samples.filter((sample) => sample.atSeconds >= samples.at(-1)!.atSeconds * 0.2);
  const heap = warm.flatMap((sample) => (sample.heapBytes === undefined ? [] : [sample.heapBytes]));
  const resident = warm.flatMap((sample) => (sample.runtimeResidentBytes === undefined ? [] : [sample.runtimeResidentBytes]));
  const overBound = samples.filter(
    (sample) => sample.tailCacheBytes > tailCacheBytesMax || sample.waiters > waitersPerPartitionMax || sample.appendsWaiting > appendsWaitingMax,
  ).length;
  const bounds = overBound === 0 ? "tail cache, waiters and appends waiting stayed within their bounds" : `${overBound} samples had a structure past its bound`;
  const residentText = (() => {
    if (resident.length < 3) return "resident memory not measured (needs /proc)";
    const change = growth(resident, (third) => Math.max(...third));
    return `runtime RSS peaked at ${mebibytes(change.first)} in the first third and ${mebibytes(change.last)} in the last (${percentText(change.growth)})`;
  })();
  if (heap.length >= 3) {
    const change = growth(heap, median);
    const flat = change.growth <= heapGrowthMax && overBound === 0;
    return {
      flat,
      verdict:
        `${flat ? "FLAT" : "NOT flat"}: the Worker isolate's live heap (router and partition object) had a median of ` +
        `${mebibytes(change.first)} in the first third after warm-up and ${mebibytes(change.last)} in the last ` +
        `(${percentText(change.growth)}, bound +${heapGrowthMax * 100}%); ${bounds}; ${residentText}`,
    };
  }
  if (resident.length < 3) return { flat: overBound === 0, verdict: `memory not measured (needs the inspector or /proc); ${bounds}` };
  const change = growth(resident, (third) => Math.max(...third));
  const flat = change.growth <= residentGrowthMax && overBound === 0;
  return { flat, verdict: `${flat ? "FLAT" : "NOT flat"} (resident memory, bound +${residentGrowthMax * 100}%): ${residentText}; ${bounds}` };
}

/** The section RESULTS.md keeps across benchmark runs (bench/report.ts). */
export function soakMarkdown(result: SoakResult, date: string, commit: string): string {
  const last = result.samples.at(-1);
  const seconds = last?.atSeconds ?? 0;
  const every = Math.max(1, Math.ceil(result.samples.length / 12));
  const shown = result.samples.filter((_, index) => index % every === 0 || index === result.samples.length - 1);
  return `${soakHeading}

Written by \`npm run bench -- --soak ${result.minutes}\` (bench/soak.ts) on ${date}, Tributary commit ${commit}; a benchmark run keeps
this section. ${producersInFlight} producers (binary, 1,000 records a request, acks 1) and one long-polling consumer on one
partition (RF 1, retention.bytes ${retentionBytes / 1024 ** 2} MiB) for ${result.minutes} minutes: ${(last?.produced ?? 0).toLocaleString("en-US")} records
produced (${Math.round((last?.produced ?? 0) / Math.max(seconds, 1)).toLocaleString("en-US")} a second), ${(last?.consumed ?? 0).toLocaleString("en-US")} consumed.

**${result.verdict}.**

| at | produced | isolate heap | runtime RSS | tail cache | waiters | appends waiting | SQLite | R2 |
|---|---|---|---|---|---|---|---|---|
${shown
  .map(
    (sample) =>
      `| ${sample.atSeconds.toFixed(0)} s | ${sample.produced.toLocaleString("en-US")} | ${mebibytes(sample.heapBytes)} | ${mebibytes(sample.runtimeResidentBytes)} | ` +
      `${mebibytes(sample.tailCacheBytes)} | ${sample.waiters} | ${sample.appendsWaiting} | ${mebibytes(sample.sqliteBytes)} | ${mebibytes(sample.r2Bytes)} |`,
  )
  .join("\n")}
`;
}
