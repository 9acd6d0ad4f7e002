/**
 * `npm run bench -- --bill`: the monthly bill of issue 19's two workloads, measured
 * (bench/README.md "The bill"). Each case runs through the client against one `wrangler dev`
 * with the billing meter on, then bill-math.ts extrapolates it to a month and prices it.
 *
 *   A: 10 messages/s of 1 KB, 3 partitions, 2 consumer groups, 7-day retention — run as is.
 *   B: 10,000 messages/s of 1 KB, 24 partitions, 3 consumer groups, 7-day retention — run on
 *      3 partitions at B's own per-partition rate (1,250 messages/s in all), and scaled × 8.
 *
 * Every case at RF 1 and RF 3 with the client's defaults (its producer paces each partition's
 * requests, request-pacer.ts; its group consumers read over WebSocket streams, stream-polls.ts),
 * then with polling group consumers, and with bare partition streams instead of group
 * consumers; then, at RF 1, what the pace saves: the defaults with an unpaced producer.
 */
import { join } from "node:path";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { monthlyBill, monthlyUsage, type Bill, type MeasuredRun, type Workload } from "./bill-math.ts";
import { runBillCase, type ConsumerMode, type RunResult } from "./bill-run.ts";
import { pricesReadOn } from "./prices.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";
import type { ProducerOptions } from "../src/client/index.ts";

export const billHeading = "## The monthly bill";

const segmentBytes = 8 * 1024 * 1024;
const sevenDaysSeconds = 7 * 24 * 3600;
const messageBytes = 1000;

interface WorkloadSpec extends Workload {
  name: "A" | "B";
  consumerGroups: number;
  /** Partitions the run uses, each at the workload's per-partition rate. */
  runPartitions: number;
}

const workloads: WorkloadSpec[] = [
  { name: "A", messagesPerSecond: 10, messageBytes, partitions: 3, consumerGroups: 2, runPartitions: 3, replicationFactor: 1, retentionSeconds: sevenDaysSeconds, segmentBytes },
  { name: "B", messagesPerSecond: 10_000, messageBytes, partitions: 24, consumerGroups: 3, runPartitions: 3, replicationFactor: 1, retentionSeconds: sevenDaysSeconds, segmentBytes },
];

interface Variant {
  label: string;
  consumers: ConsumerMode;
  producer: ProducerOptions;
  /** Run at RF 3 too. */
  rf3: boolean;
}

const variants: Variant[] = [
  { label: "client defaults (group consumers over WebSocket)", consumers: "group-websocket", producer: {}, rf3: true },
  { label: "group consumers polling (transport poll)", consumers: "long-poll", producer: {}, rf3: true },
  { label: "WebSocket streams instead of group consumers", consumers: "websocket", producer: {}, rf3: true },
  // What the producer's request pace saves: the defaults without it (Kafka's batching: lingerMs 5 only).
  { label: "client defaults but an unpaced producer (requestsPerSecond Infinity)", consumers: "group-websocket", producer: { requestsPerSecond: Infinity }, rf3: false },
];

/** R2 per segment that a run cannot see: the retention step that deletes it republishes the manifest (one put; the delete is free). */
const retentionClassAPerSegment = 1;
/** Seal costs when a run sealed nothing: the segment's put and the manifest's (src/objects/segment-tier.ts). */
const modelSealClassA = 2;

interface CaseResult {
  workload: WorkloadSpec;
  variant: Variant;
  replicationFactor: number;
  run: RunResult;
  bill: Bill;
}

function billOf(workload: WorkloadSpec, replicationFactor: number, run: RunResult, sealCost: { classA: number; classB: number } | undefined): Bill {
  const payload = run.messagesProduced * messageBytes;
  const sealedShare = run.storedBytes > 0 ? Math.min(1, (run.r2Segments * segmentBytes) / run.storedBytes) : 0;
  // Batch rows the run wrote but no seal deleted yet: each replica deletes its row of each when that segment seals.
  const deletionsLater = run.produceRequests * replicationFactor * (1 - sealedShare);
  const measured: MeasuredRun = { ...run, sqliteRowsWritten: run.sqliteRowsWritten + deletionsLater };
  const seal = sealCost ?? { classA: modelSealClassA, classB: 0 };
  const usage = monthlyUsage(measured, { ...workload, replicationFactor }, {
    partitionScale: workload.partitions / workload.runPartitions,
    storedBytesPerMessageByte: payload > 0 && run.storedBytes > 0 ? run.storedBytes / payload : 1,
    r2ClassAPerSegment: seal.classA + retentionClassAPerSegment,
    r2ClassBPerSegment: seal.classB,
  });
  return monthlyBill(usage);
}

const dollars = (value: number) => `$${value < 10 ? value.toFixed(2) : value.toFixed(0)}`;
const count = (value: number) => (value >= 1e6 ? `${(value / 1e6).toPrecision(3)} M` : value.toPrecision(3));

function markdown(results: CaseResult[], seconds: number, uptime: string): string {
  const environment = describeEnvironment();
  const lines = [
    billHeading,
    "",
    `${environment.date}, commit ${environment.commit}; prices read ${pricesReadOn} (bench/prices.ts); runs of ${seconds} s; load before the runs: ${uptime}.`,
    "A = 10 msg/s × 1 KB, 3 partitions, 2 groups; B = 10,000 msg/s × 1 KB, 24 partitions, 3 groups, run on 3 partitions at B's per-partition rate and scaled × 8. 7-day retention. bench/README.md explains each line.",
    "",
    "| workload | RF | setup | total / month | Worker req | DO req | DO duration | rows written | R2 stored | R2 ops | produce req/s (run) | records consumed |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { workload, variant, replicationFactor, run, bill } of results) {
    const cost = (item: string) => bill.lines.filter((entry) => entry.item.startsWith(item)).reduce((sum, entry) => sum + entry.dollars, 0);
    const usage = (item: string) => bill.lines.find((entry) => entry.item === item)!.usage;
    lines.push(
      `| ${workload.name} | ${replicationFactor} | ${variant.label} | **${dollars(bill.total)}** | ${dollars(cost("Worker requests"))} (${count(usage("Worker requests"))}) | ${dollars(cost("Durable Object requests"))} (${count(usage("Durable Object requests"))}) | ${dollars(cost("Durable Object duration"))} (${count(usage("Durable Object duration"))} GB-s) | ${dollars(cost("SQLite rows written"))} (${count(usage("SQLite rows written"))}) | ${dollars(cost("R2 stored"))} (${usage("R2 stored").toFixed(0)} GB) | ${dollars(cost("R2 class"))} | ${(run.produceRequests / run.seconds).toFixed(1)} | ${run.messagesConsumed} of ${run.messagesProduced * workload.consumerGroups} |`,
    );
  }
  lines.push("", "Lines not shown are $0 (within the included amounts) except the $5 subscription and Worker CPU (an upper bound: the runtime process's CPU, objects included), which the totals include.");
  return lines.join("\n");
}

export async function billBench(options: { seconds: number; write: boolean; uptime: string; log: (line: string) => void }): Promise<void> {
  const { seconds, write, log } = options;
  const results: CaseResult[] = [];
  {
    const sealCosts = new Map<number, { classA: number; classB: number }>();
    // B first: its runs seal, and give the per-segment R2 costs A's runs are too slow to see.
    for (const workload of [...workloads].reverse()) {
      for (const variant of variants) {
        for (const replicationFactor of variant.rf3 ? [1, 3] : [1]) {
          const topic = `bill-${workload.name}-rf${replicationFactor}-${variant.consumers}-${variant.producer.requestsPerSecond === Infinity ? "unpaced" : "d"}-${Date.now()}`.toLowerCase();
          log(`${workload.name}, RF ${replicationFactor}, ${variant.label}: ${seconds} s`);
          // A server of its own: a consumer that leaves cancels its poll, and a call cancelled with its request never reports its end to the meter.
          const server = await startServer("tributary", false);
          const run = await runBillCase(server.url, server.processGroupId, {
            topic,
            partitions: workload.runPartitions,
            replicationFactor,
            consumerGroups: workload.consumerGroups,
            consumers: variant.consumers,
            messagesPerSecond: (workload.messagesPerSecond * workload.runPartitions) / workload.partitions,
            messageBytes,
            seconds,
            producer: variant.producer,
          }, log).finally(() => server.stop());
          if (run.r2Segments > 0 && !sealCosts.has(replicationFactor)) sealCosts.set(replicationFactor, { classA: run.r2ClassA / run.r2Segments, classB: run.r2ClassB / run.r2Segments });
          const bill = billOf(workload, replicationFactor, run, sealCosts.get(replicationFactor));
          log(`  ${dollars(bill.total)}/month; ${run.produceRequests} produce requests, ${run.workerRequests} Worker requests, ${run.objectRequests} object requests, ${(run.objectActiveMs / 1000).toFixed(1)} object-s active, ${run.r2Segments} segments`);
          results.push({ workload, variant, replicationFactor, run, bill });
        }
      }
    }
  }
  results.sort((x, y) => x.workload.name.localeCompare(y.workload.name) || x.replicationFactor - y.replicationFactor);
  const section = markdown(results, seconds, options.uptime);
  console.log(`\n${section}\n`);
  for (const result of results) {
    console.log(`${result.workload.name} RF ${result.replicationFactor} ${result.variant.label}:`);
    for (const entry of result.bill.lines) console.log(`  ${entry.item.padEnd(28)} ${count(entry.usage).padStart(10)} ${entry.unit.padEnd(10)} ${dollars(entry.dollars)}`);
  }
  if (write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, billHeading, section);
    log(`wrote the bill's section of ${path}`);
  }
}

export const billZstdHeading = "## The monthly bill B with zstd (issue 27)";

/**
 * `npm run bench -- --bill-zstd [--seconds S] [--no-write]`: workload B at RF 1 with the client's
 * defaults, its values realistic JSON of about 1 KB (bench/bill-run.ts), the producer sending
 * them uncompressed and then compressing with zstd; each on a server of its own.
 */
export async function billZstdBench(options: { seconds: number; write: boolean; uptime: string; log: (line: string) => void }): Promise<void> {
  const { seconds, log } = options;
  const workload = workloads.find((spec) => spec.name === "B")!;
  const lines = [
    billZstdHeading,
    "",
    `${describeEnvironment().date}, commit ${describeEnvironment().commit}; B at RF 1, the client's defaults (group consumers over WebSocket), values JSON of about 1 KB; runs of ${seconds} s; load before: ${options.uptime}. A reader pays the same lines of the bill (Cloudflare bills no bandwidth to a Worker's readers); what it downloads and decodes shrinks with the stored bytes.`,
    "",
    "| producer | total / month | R2 stored | stored bytes per message byte | rows written | DO req | Worker CPU | produce req/s | records consumed |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const compression of ["none", "zstd"] as const) {
    const server = await startServer("tributary", false);
    log(`B, RF 1, JSON values, compression ${compression}: ${seconds} s`);
    const run = await runBillCase(server.url, server.processGroupId, {
      topic: `bill-zstd-${compression}-${Date.now()}`,
      partitions: workload.runPartitions,
      replicationFactor: 1,
      consumerGroups: workload.consumerGroups,
      consumers: "group-websocket",
      messagesPerSecond: (workload.messagesPerSecond * workload.runPartitions) / workload.partitions,
      messageBytes,
      seconds,
      producer: { compression },
      values: "json",
    }, log).finally(() => server.stop());
    const bill = billOf(workload, 1, run, run.r2Segments > 0 ? { classA: run.r2ClassA / run.r2Segments, classB: run.r2ClassB / run.r2Segments } : undefined);
    const cost = (item: string) => bill.lines.filter((entry) => entry.item.startsWith(item)).reduce((sum, entry) => sum + entry.dollars, 0);
    const usage = (item: string) => bill.lines.find((entry) => entry.item === item)!.usage;
    lines.push(
      `| ${compression} | **${dollars(bill.total)}** | ${dollars(cost("R2 stored"))} (${usage("R2 stored").toFixed(0)} GB) | ${(run.storedBytes / (run.messagesProduced * messageBytes)).toFixed(3)} | ${dollars(cost("SQLite rows written"))} (${count(usage("SQLite rows written"))}) | ${dollars(cost("Durable Object requests"))} (${count(usage("Durable Object requests"))}) | ${dollars(cost("Worker CPU"))} | ${(run.produceRequests / run.seconds).toFixed(1)} | ${run.messagesConsumed} of ${run.messagesProduced * workload.consumerGroups} |`,
    );
    log(`  ${dollars(bill.total)}/month, stored ${run.storedBytes} bytes for ${run.messagesProduced} messages`);
  }
  const section = lines.join("\n");
  console.log(`\n${section}\n`);
  if (options.write) writeSection(join(repositoryRoot, "bench", "RESULTS.md"), billZstdHeading, section);
}

export const billTransactionsHeading = "## The monthly bill B with transactions (issue 28)";

/**
 * `npm run bench -- --bill-transactions [--seconds S] [--no-write]`: workload B at RF 1 with the
 * client's defaults (group consumers over WebSocket, read_committed), its producer idempotent
 * (the defaults) and then transactional, committing once a second; each on a server of its own.
 * The transaction coordinator's requests, alarms and rows are in the billing meter's counts as
 * every object's are; its storage is one row per transactional id (its metadata) — bytes, not a
 * line of the bill. B's 24 partitions are run as 3 and scaled × 8: 8 producers, each committing
 * once a second a transaction over 3 partitions.
 */
export async function billTransactionsBench(options: { seconds: number; write: boolean; uptime: string; log: (line: string) => void }): Promise<void> {
  const { seconds, log } = options;
  const workload = workloads.find((spec) => spec.name === "B")!;
  const lines = [
    billTransactionsHeading,
    "",
    `${describeEnvironment().date}, commit ${describeEnvironment().commit}; B at RF 1, the client's defaults (group consumers over WebSocket, reading read_committed); runs of ${seconds} s; load before: ${options.uptime}. The transactional run's figures include its coordinator's requests, alarms and rows (bench/bill.ts).`,
    "",
    "| producer | total / month | Worker req | DO req | DO duration | rows written | R2 stored | Worker CPU | produce req/s | other Worker req/s (client) | records consumed |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const transactional of [false, true]) {
    const server = await startServer("tributary", false);
    const label = transactional ? "transactional, a commit a second" : "idempotent (the defaults)";
    log(`B, RF 1, ${label}: ${seconds} s`);
    const topic = `bill-txn-${transactional ? "t" : "i"}-${Date.now()}`;
    const run = await runBillCase(server.url, server.processGroupId, {
      topic,
      partitions: workload.runPartitions,
      replicationFactor: 1,
      consumerGroups: workload.consumerGroups,
      consumers: "group-websocket",
      messagesPerSecond: (workload.messagesPerSecond * workload.runPartitions) / workload.partitions,
      messageBytes,
      seconds,
      producer: {},
      ...(transactional ? { transactional: { transactionalId: `${topic}-producer`, commitEveryMs: 1000 } } : {}),
    }, log).finally(() => server.stop());
    const bill = billOf(workload, 1, run, run.r2Segments > 0 ? { classA: run.r2ClassA / run.r2Segments, classB: run.r2ClassB / run.r2Segments } : undefined);
    const cost = (item: string) => bill.lines.filter((entry) => entry.item.startsWith(item)).reduce((sum, entry) => sum + entry.dollars, 0);
    const usage = (item: string) => bill.lines.find((entry) => entry.item === item)!.usage;
    const otherRequests = run.workerRequests - run.produceRequests; // the consumers' requests, in both rows alike, and the transaction's calls
    lines.push(
      `| ${label} | **${dollars(bill.total)}** | ${dollars(cost("Worker requests"))} (${count(usage("Worker requests"))}) | ${dollars(cost("Durable Object requests"))} (${count(usage("Durable Object requests"))}) | ${dollars(cost("Durable Object duration"))} (${count(usage("Durable Object duration"))} GB-s) | ${dollars(cost("SQLite rows written"))} (${count(usage("SQLite rows written"))}) | ${dollars(cost("R2 stored"))} (${usage("R2 stored").toFixed(0)} GB) | ${dollars(cost("Worker CPU"))} | ${(run.produceRequests / run.seconds).toFixed(1)} | ${(otherRequests / run.seconds).toFixed(1)} | ${run.messagesConsumed} of ${run.messagesProduced * workload.consumerGroups} |`,
    );
    log(`  ${dollars(bill.total)}/month; ${run.produceRequests} produce requests, ${run.workerRequests} Worker requests, ${run.objectRequests} object requests, ${run.sqliteRowsWritten} rows written`);
  }
  lines.push("", "\"other Worker req/s\": the client's Worker requests that are not produce requests — the consumers' (the same in both rows) and, for the transactional producer, its end calls where its last writes did not carry the commit (a request still in flight at the commit; docs/transactions.md, \"The commit carried by the last writes\"; its writes add their partitions: KIP-890's implicit add).");
  const section = lines.join("\n");
  console.log(`\n${section}\n`);
  if (options.write) writeSection(join(repositoryRoot, "bench", "RESULTS.md"), billTransactionsHeading, section);
}
