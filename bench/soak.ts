/**
 * `npm run bench -- --soak MINUTES`: a sustained produce/consume run against Tributary alone,
 * watching memory (issue 7: "a partition object's heap stays bounded under a sustained
 * 10-minute produce/consume run"). Two producers send 1,000-record binary batches to one
 * partition while one consumer follows the head with long polls. Every few seconds it samples
 * the resident memory of the runtime workerd (the process holding the Worker and every
 * object; an isolate's heap is not observable from outside, and inside workerd no API tells
 * it) and the partition leader's bounded structures from its debug statistics (tail cache,
 * waiters, appends waiting for group commit; docs/api.md), with its storage. The topic keeps
 * 512 MiB (retention.bytes), so segments are sealed to R2 and deleted as they age, as in a
 * long-running deployment, and the disk stays bounded.
 *
 * Verdict: memory is flat when the largest resident size in the last third of the run is at
 * most 10% above the largest in the first third after warm-up (the first 20% of the run), and
 * no bounded structure went past its bound.
 */
import { appendsWaitingMax, tailCacheBytesMax, waitersPerPartitionMax } from "../src/limits.ts";
import { createTopic, describeTopic, fetchRecords, produce, type Endpoint } from "./client.ts";
import { runtimeResidentBytes } from "./cpu.ts";
import { makeRecords } from "./payloads.ts";
import { soakHeading } from "./report.ts";

export interface SoakSample {
  atSeconds: number;
  produced: number;
  consumed: number;
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
/** Growth of the resident size, last third against first third, still called flat. */
const flatGrowthMax = 0.1;

interface PartitionView {
  debug?: { tailCacheBytes: number; waiters: number; appendsWaiting: number };
  storage?: { sqliteBytes: number; r2Bytes: number };
}

async function sample(endpoint: Endpoint, topic: string, processGroupId: number | undefined, base: Omit<SoakSample, "runtimeResidentBytes" | "tailCacheBytes" | "waiters" | "appendsWaiting" | "sqliteBytes" | "r2Bytes">): Promise<SoakSample> {
  const described = (await describeTopic(endpoint, topic)) as { partitions: PartitionView[] };
  const partition = described.partitions[0] ?? {};
  return {
    ...base,
    runtimeResidentBytes: processGroupId === undefined ? undefined : runtimeResidentBytes(processGroupId),
    tailCacheBytes: partition.debug?.tailCacheBytes ?? 0,
    waiters: partition.debug?.waiters ?? 0,
    appendsWaiting: partition.debug?.appendsWaiting ?? 0,
    sqliteBytes: partition.storage?.sqliteBytes ?? 0,
    r2Bytes: partition.storage?.r2Bytes ?? 0,
  };
}

/** Runs the soak for `minutes` against `endpoint` (binary transport), sampling every `sampleSeconds`. */
export async function runSoak(endpoint: Endpoint, minutes: number, sampleSeconds: number, progress: (line: string) => void): Promise<SoakResult> {
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
  const sampler = async () => {
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(sampleSeconds * 1000, Math.max(0, deadline - performance.now()))));
      const atSeconds = (performance.now() - startedAt) / 1000;
      const taken = await sample(endpoint, topic, endpoint.processGroupId, { atSeconds, produced, consumed });
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
    `runtime RSS ${mebibytes(sample.runtimeResidentBytes)}; tail cache ${mebibytes(sample.tailCacheBytes)}, ` +
    `waiters ${sample.waiters}, appends waiting ${sample.appendsWaiting}; SQLite ${mebibytes(sample.sqliteBytes)}, R2 ${mebibytes(sample.r2Bytes)}`
  );
}

/** Flat resident memory (last third against first third after warm-up) and every bounded structure within its bound. */
export function judge(samples: readonly SoakSample[]): { flat: boolean; verdict: string } {
  const warm = samples.filter((sample) => sample.atSeconds >= samples.at(-1)!.atSeconds * 0.2);
  const resident = warm.flatMap((sample) => (sample.runtimeResidentBytes === undefined ? [] : [sample.runtimeResidentBytes]));
  const overBound = samples.filter(
    (sample) => sample.tailCacheBytes > tailCacheBytesMax || sample.waiters > waitersPerPartitionMax || sample.appendsWaiting > appendsWaitingMax,
  ).length;
  const bounds = overBound === 0 ? "tail cache, waiters and appends waiting stayed within their bounds" : `${overBound} samples had a structure past its bound`;
  if (resident.length < 3) return { flat: overBound === 0, verdict: `resident memory not measured (needs /proc); ${bounds}` };
  const third = Math.max(1, Math.floor(resident.length / 3));
  const firstMax = Math.max(...resident.slice(0, third));
  const lastMax = Math.max(...resident.slice(-third));
  const growth = (lastMax - firstMax) / firstMax;
  const flat = growth <= flatGrowthMax && overBound === 0;
  return {
    flat,
    verdict:
      `${flat ? "FLAT" : "NOT flat"}: runtime RSS peaked at ${mebibytes(firstMax)} in the first third (after warm-up) and ` +
      `${mebibytes(lastMax)} in the last (${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)}%, bound +${flatGrowthMax * 100}%); ${bounds}`,
  };
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

| at | produced | runtime RSS | tail cache | waiters | appends waiting | SQLite | R2 |
|---|---|---|---|---|---|---|---|
${shown
  .map(
    (sample) =>
      `| ${sample.atSeconds.toFixed(0)} s | ${sample.produced.toLocaleString("en-US")} | ${mebibytes(sample.runtimeResidentBytes)} | ` +
      `${mebibytes(sample.tailCacheBytes)} | ${sample.waiters} | ${sample.appendsWaiting} | ${mebibytes(sample.sqliteBytes)} | ${mebibytes(sample.r2Bytes)} |`,
  )
  .join("\n")}
`;
}
