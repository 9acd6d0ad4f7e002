/**
 * The monthly bill's arithmetic (pure; bench/README.md "The bill" explains each line): what a
 * measured run counted, extrapolated to a 30-day month of the workload, priced with
 * bench/prices.ts. bench/bill.ts measures the runs; test/unit/bench/bill-math.test.ts checks
 * this against hand-computed bills.
 */
import { prices as publishedPrices, type Prices } from "./prices.ts";

/** Cloudflare's examples price a month as 30 days. */
export const monthSeconds = 30 * 24 * 3600;
/** Storage is priced per GB; a GB here is 10^9 bytes (the larger count of the two readings). */
const bytesPerGb = 1e9;

/** What one run counted, over its measured window. */
export interface MeasuredRun {
  seconds: number;
  /** HTTP requests and WebSocket upgrades the clients made: each one a Worker request. */
  workerRequests: number;
  /** CPU of the process running the Worker and its objects: an upper bound on the Worker's own (objects bill duration, not CPU). */
  workerCpuMs: number;
  /** Calls on object stubs and alarm invocations. */
  objectRequests: number;
  websocketMessages: number;
  /** Σ over objects of the time each had a request in flight. */
  objectActiveMs: number;
  sqliteRowsRead: number;
  /** Counted, plus the rows the run's unsealed batches will cost when a seal deletes them (a DELETE's rows are rows written). */
  sqliteRowsWritten: number;
}

export interface Workload {
  messagesPerSecond: number;
  messageBytes: number;
  partitions: number;
  replicationFactor: number;
  retentionSeconds: number;
  /** segment.bytes: what a partition holds in SQLite before it seals the bytes to R2. */
  segmentBytes: number;
}

/**
 * How a run stands for the workload: `partitionScale` is the workload's partitions over the
 * run's, each run partition written at the workload's own per-partition rate; the rest is what
 * sealing and retention cost per segment (measured where a run sealed, else the model's).
 */
export interface Extrapolation {
  partitionScale: number;
  /** Bytes stored in R2 (and in SQLite before sealing) per byte of message produced: record and batch overhead. */
  storedBytesPerMessageByte: number;
  /** R2 operations per segment over its life: seal (segment put, manifest publication) and the retention step that deletes it. */
  r2ClassAPerSegment: number;
  r2ClassBPerSegment: number;
}

export interface MonthlyUsage {
  workerRequests: number;
  workerCpuMs: number;
  objectRequests: number;
  websocketMessages: number;
  activeObjectSeconds: number;
  sqliteRowsRead: number;
  sqliteRowsWritten: number;
  sqliteStoredGb: number;
  r2StoredGb: number;
  r2ClassA: number;
  r2ClassB: number;
}

export function monthlyUsage(run: MeasuredRun, workload: Workload, extrapolation: Extrapolation): MonthlyUsage {
  const scale = (monthSeconds / run.seconds) * extrapolation.partitionScale;
  const storedBytesPerSecond = workload.messagesPerSecond * workload.messageBytes * extrapolation.storedBytesPerMessageByte;
  const segmentsPerMonth = (storedBytesPerSecond * monthSeconds) / workload.segmentBytes;
  return {
    workerRequests: run.workerRequests * scale,
    workerCpuMs: run.workerCpuMs * scale,
    objectRequests: run.objectRequests * scale,
    websocketMessages: run.websocketMessages * scale,
    activeObjectSeconds: (run.objectActiveMs / 1000) * scale,
    sqliteRowsRead: run.sqliteRowsRead * scale,
    sqliteRowsWritten: run.sqliteRowsWritten * scale,
    // Each replica holds at most one unsealed segment a partition: the bound, not the average (half).
    sqliteStoredGb: (workload.partitions * workload.replicationFactor * workload.segmentBytes) / bytesPerGb,
    // Steady state: retention keeps its window of sealed bytes, once (the leader writes segments; followers share them).
    r2StoredGb: (storedBytesPerSecond * workload.retentionSeconds) / bytesPerGb,
    r2ClassA: segmentsPerMonth * extrapolation.r2ClassAPerSegment,
    r2ClassB: segmentsPerMonth * extrapolation.r2ClassBPerSegment,
  };
}

export interface BillLine {
  item: string;
  usage: number;
  unit: string;
  included: number;
  /** Dollars per `per` units beyond what is included. */
  price: number;
  per: number;
  dollars: number;
}

export interface Bill {
  lines: BillLine[];
  total: number;
}

function line(item: string, usage: number, unit: string, included: number, price: number, per: number): BillLine {
  return { item, usage, unit, included, price, per, dollars: (Math.max(0, usage - included) / per) * price };
}

/** A month's usage priced: one line per billed quantity, and the Workers Paid subscription. */
export function monthlyBill(usage: MonthlyUsage, prices: Prices = publishedPrices): Bill {
  const million = 1_000_000;
  const { workers, durableObjects: objects, sqlite, r2 } = prices;
  const lines: BillLine[] = [
    { item: "Workers Paid subscription", usage: 1, unit: "month", included: 0, price: workers.baseMonthly, per: 1, dollars: workers.baseMonthly },
    line("Worker requests", usage.workerRequests, "requests", workers.requestsIncluded, workers.perMillionRequests, million),
    line("Worker CPU", usage.workerCpuMs, "CPU ms", workers.cpuMsIncluded, workers.perMillionCpuMs, million),
    line(
      "Durable Object requests",
      usage.objectRequests + usage.websocketMessages / objects.websocketMessagesPerRequest,
      "requests",
      objects.requestsIncluded,
      objects.perMillionRequests,
      million,
    ),
    line("Durable Object duration", usage.activeObjectSeconds * objects.gbPerActiveObject, "GB-s", objects.gbSecondsIncluded, objects.perMillionGbSeconds, million),
    line("SQLite rows read", usage.sqliteRowsRead, "rows", sqlite.rowsReadIncluded, sqlite.perMillionRowsRead, million),
    line("SQLite rows written", usage.sqliteRowsWritten, "rows", sqlite.rowsWrittenIncluded, sqlite.perMillionRowsWritten, million),
    line("SQLite stored", usage.sqliteStoredGb, "GB-month", sqlite.storedGbMonthIncluded, sqlite.perGbMonth, 1),
    line("R2 stored", usage.r2StoredGb, "GB-month", r2.storedGbMonthIncluded, r2.perGbMonth, 1),
    line("R2 class A (put, list)", usage.r2ClassA, "operations", r2.classAIncluded, r2.perMillionClassA, million),
    line("R2 class B (get, head)", usage.r2ClassB, "operations", r2.classBIncluded, r2.perMillionClassB, million),
  ];
  return { lines, total: lines.reduce((sum, entry) => sum + entry.dollars, 0) };
}
