/**
 * The share group row (issue 15): Tributary alone under `wrangler dev`, its own section of
 * RESULTS.md (`npm run bench -- --only share`).
 *
 * - `share.fetch-accept`: one partition holding 20,000 records (1,000-record produce requests of
 *   100-byte values); four share consumers each fetch up to 500 records and accept them on their
 *   next fetch (the acknowledgements ride along, as KIP-932's ShareFetch), the last ones with an
 *   acknowledge request: records/s until every record is accepted. Beside it, in the same run, one
 *   consumer group member polling the same partition (500 a poll): records/s. Target: share ≥ 0.5 ×
 *   the poll.
 * - SQLite rows the share-partition's object wrote per 1,000 records acknowledged (its debug
 *   counters, TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1 as servers.ts starts Tributary).
 */
import { join } from "node:path";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";

export const shareRowId = "share.fetch-accept";
const shareHeading = "## Share groups";
const records = 20_000;
const recordsPerProduce = 1_000;
const maxRecords = 500;
const consumers = 4;
const value = "x".repeat(100);

interface ShareRun {
  shareRecordsPerSecond: number;
  pollRecordsPerSecond: number;
  rowsPerThousandAcknowledged: number;
  shareRequests: number;
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json", "accept-encoding": "identity" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return text === "" ? undefined : JSON.parse(text);
}

async function topicWithRecords(url: string, run: number): Promise<string> {
  const topic = `bench-share-${Date.now().toString(36)}-${run}`;
  await call(url, "POST", "/v1/topics", { name: topic, partitions: 1 });
  for (let sent = 0; sent < records; sent += recordsPerProduce) {
    await call(url, "POST", `/v1/topics/${topic}/records`, { records: Array.from({ length: recordsPerProduce }, () => ({ value })) });
  }
  return topic;
}

/** One consumer group member polls the partition from the start until it has every record. */
async function pollAll(url: string, topic: string): Promise<number> {
  const group = `${topic}-poll`;
  const startedAt = performance.now();
  const member = await call(url, "POST", `/v1/groups/${group}/members`, { topics: [topic], autoOffsetReset: "earliest", sessionTimeoutMs: 60_000 });
  let positions: unknown[] | undefined;
  let received = 0;
  while (received < records) {
    const answer = await call(url, "POST", `/v1/groups/${group}/members/${member.memberId}/poll`, { memberEpoch: member.memberEpoch, maxRecords, ...(positions ? { positions } : {}) });
    received += answer.records.length;
    positions = answer.positions;
  }
  return received / ((performance.now() - startedAt) / 1000);
}

/** Four share consumers until every record is accepted; answers records/s and the requests made. */
async function shareAll(url: string, topic: string): Promise<{ recordsPerSecond: number; requests: number }> {
  const group = `${topic}-share`;
  await call(url, "PATCH", `/v1/share-groups/${group}/configs`, { configs: { "auto.offset.reset": "earliest" } });
  let fetched = 0;
  let requests = 0;
  const startedAt = performance.now();
  const consumer = async () => {
    let pending: { topic: string; partition: number; offsets: number[]; type: "accept"; lease: string }[] = [];
    while (fetched < records) {
      const answer = await call(url, "POST", `/v1/share-groups/${group}/fetch`, { topics: [topic], maxRecords, waitMs: 200, ...(pending.length ? { acknowledgements: pending } : {}) });
      requests += 1;
      fetched += answer.records.length;
      pending = answer.records.length ? [{ topic, partition: 0, offsets: answer.records.map((record: { offset: number }) => record.offset), type: "accept", lease: answer.lease }] : [];
    }
    if (pending.length > 0) {
      const { lease, ...ack } = pending[0]!;
      await call(url, "POST", `/v1/share-groups/${group}/acknowledge`, { lease, acknowledgements: [ack] });
      requests += 1;
    }
  };
  await Promise.all(Array.from({ length: consumers }, consumer));
  return { recordsPerSecond: records / ((performance.now() - startedAt) / 1000), requests };
}

async function rowsPerThousand(url: string, group: string): Promise<number> {
  const described = await call(url, "GET", `/v1/share-groups/${group}`);
  const debug = described.partitions[0]?.debug as { rowsWritten: number; recordsAcknowledged: number } | undefined;
  if (!debug || debug.recordsAcknowledged === 0) return Number.NaN;
  return (debug.rowsWritten / debug.recordsAcknowledged) * 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function shareSection(runs: number, write: boolean, wranglerDefaults: boolean, progress: (line: string) => void): Promise<void> {
  progress(`${shareRowId}: starting Tributary under wrangler dev`);
  const server = await startServer("tributary", wranglerDefaults);
  const results: ShareRun[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const topic = await topicWithRecords(server.url, run);
      const pollRecordsPerSecond = await pollAll(server.url, topic);
      const share = await shareAll(server.url, topic);
      const rowsPerThousandAcknowledged = await rowsPerThousand(server.url, `${topic}-share`);
      results.push({ shareRecordsPerSecond: share.recordsPerSecond, pollRecordsPerSecond, rowsPerThousandAcknowledged, shareRequests: share.requests });
      progress(`${shareRowId} run ${run + 1}: share ${share.recordsPerSecond.toFixed(0)} rec/s, poll ${pollRecordsPerSecond.toFixed(0)} rec/s, ${rowsPerThousandAcknowledged.toFixed(1)} rows/1,000 acknowledged`);
    }
  } finally {
    await server.stop();
  }
  const share = median(results.map((run) => run.shareRecordsPerSecond));
  const poll = median(results.map((run) => run.pollRecordsPerSecond));
  const rows = median(results.map((run) => run.rowsPerThousandAcknowledged));
  const format = (figure: number) => Math.round(figure).toLocaleString("en-US");
  const environment = describeEnvironment();
  const section = [
    shareHeading,
    "",
    `${environment.date}, commit ${environment.commit}; ${runs} run(s), medians; one partition of ${format(records)} 100-byte records, maxRecords ${maxRecords} (bench/share.ts).`,
    "",
    "| row | figure | target | met |",
    "|---|---|---|---|",
    `| share fetch + accept, ${consumers} consumers (acknowledgements riding along) | ${format(share)} rec/s | ≥ 0.5 × consumer-group poll (${format(poll)} rec/s) = ${format(poll / 2)} | ${share >= poll / 2 ? "yes" : "no"} |`,
    `| SQLite rows written by the share-partition per 1,000 records acknowledged | ${rows.toFixed(1)} | — | — |`,
    "",
  ].join("\n");
  console.log(`\n${section}`);
  if (write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, shareHeading, section);
    progress(`wrote the share section of ${path}`);
  }
}
