/**
 * What a row costs in Cloudflare's billing units — object requests and SQLite rows written —
 * per 1,000 records (per record for latency rows). Tributary runs with TRIBUTARY_FAULTS=1 and
 * TRIBUTARY_DEBUG_STATS=1 in the benchmark, so a topic's description carries each partition leader's counters
 * (docs/api.md, debug statistics): RPC calls answered (the object requests), alarms, messages
 * received from WebSocket subscribers (billed 20 to a request), and rows written as the
 * SQLite cursors report them. The row reads them before and after its
 * runs. Where the server also reports its billing meter (`debugBilling`,
 * src/contracts/billing-meter.ts: every call on an object stub, alarm, WebSocket message and
 * SQLite row in the isolate, which under `wrangler dev` is the whole deployment), those
 * counts are used instead, so a replication factor 3 row includes its followers (the leader's
 * pushes to them, the rows they write) and the router's calls to other objects.
 * The baseline has no counters; by its construction (bench/baseline/worker.ts) it makes one
 * object request and writes one row per produce request, and none per fetch.
 */
import { describeTopic, type Endpoint } from "./client.ts";

export interface LeaderCounters {
  requests: number;
  alarms: number;
  subscriberMessages: number;
  sqliteRowsWritten: number;
  /** Partitions whose leader reported counters. */
  partitions: number;
  /** "meter": every object in the isolate (followers too); "leaders": the partition leaders' own counters. */
  source: "meter" | "leaders";
}

export interface CostFigure {
  per: "1,000 records" | "record";
  /** Object requests: RPC calls and alarms of the partition leaders, and their subscribers' messages (credit) ÷ 20, as billed. */
  objectRequests: number;
  sqliteRowsWritten: number;
  /** Counted over every object (the billing meter), or the partition leaders only. */
  allObjects: boolean;
}

interface MeterBlock {
  objectRequests: number;
  alarms: number;
  websocketMessages: number;
  sqliteRowsWritten: number;
}

interface DebugBlock {
  requests?: number;
  alarms?: number;
  subscriberMessages?: number;
  sqliteRowsWritten?: number;
}

/** Cloudflare bills incoming WebSocket messages to a Durable Object 20 to one request. */
const websocketMessagesPerRequest = 20;

/** The counters of the topic's partition leaders, summed; undefined when the server reports none. */
export async function leaderCounters(endpoint: Endpoint, topic: string): Promise<LeaderCounters | undefined> {
  if (endpoint.server !== "tributary") return undefined;
  const described = (await describeTopic(endpoint, topic)) as { partitions?: { debug?: DebugBlock }[]; debugBilling?: MeterBlock };
  const blocks = (described.partitions ?? []).flatMap((partition) => (partition.debug ? [partition.debug] : []));
  if (blocks.length === 0) return undefined;
  const meter = described.debugBilling;
  if (meter) {
    return { requests: meter.objectRequests, alarms: meter.alarms, subscriberMessages: meter.websocketMessages, sqliteRowsWritten: meter.sqliteRowsWritten, partitions: blocks.length, source: "meter" };
  }
  const sum = (field: keyof DebugBlock) => blocks.reduce((total, block) => total + (block[field] ?? 0), 0);
  return { requests: sum("requests"), alarms: sum("alarms"), subscriberMessages: sum("subscriberMessages"), sqliteRowsWritten: sum("sqliteRowsWritten"), partitions: blocks.length, source: "leaders" };
}

/**
 * The cost of the work between two readings, per unit. The reading after counts its own call
 * to each leader (describe asks every leader for its state), which is taken off, as are
 * `excludedRequests` (a fan-out row's producer: what is left is its subscribers' cost).
 */
export function costBetween(before: LeaderCounters, after: LeaderCounters, units: number, per: CostFigure["per"], excludedRequests = 0): CostFigure | undefined {
  if (units <= 0) return undefined;
  const messages = (after.subscriberMessages - before.subscriberMessages) / websocketMessagesPerRequest;
  const requests = after.requests + after.alarms - (before.requests + before.alarms) - after.partitions - excludedRequests + messages;
  const scale = per === "1,000 records" ? 1000 : 1;
  return {
    per,
    objectRequests: (requests / units) * scale,
    sqliteRowsWritten: ((after.sqliteRowsWritten - before.sqliteRowsWritten) / units) * scale,
    allObjects: before.source === "meter" && after.source === "meter",
  };
}

/** Two decimals (none from 10), but small non-zero figures with four, so that one can be read against a target like 0.01. */
export function costText(value: number): string {
  if (value > 0 && value < 0.1) return value.toFixed(4);
  return value.toFixed(value < 10 ? 2 : 0);
}

/**
 * The rows' costs as a Markdown table (RESULTS.md, and printed after the medians). The
 * baseline's column is what its construction implies, not a measurement.
 */
export function costTable(results: readonly { scenario: { id: string; transport: string; label: string; measure: string; replicationFactor: number }; cost?: CostFigure }[]): string {
  const rows = results.filter((row) => row.cost);
  if (rows.length === 0) return "Not measured (the server reported no counters).";
  return [
    "| scenario | per | object requests | SQLite rows written | baseline (by construction) |",
    "|---|---|---|---|---|",
    ...rows.map(({ scenario, cost }) => {
      const baselineUnits =
        scenario.measure === "consume" ? "0.1 request, 0 rows"
        : ["end-to-end-latency", "stream-latency", "tail-read", "fan-out"].includes(scenario.measure) ? "—"
        : "1 request, 1 row";
      const leadersOnly = scenario.replicationFactor > 1 && !cost!.allObjects ? " (leader only)" : "";
      return `| ${scenario.transport}: ${scenario.label} | ${cost!.per} | ${costText(cost!.objectRequests)}${leadersOnly} | ${costText(cost!.sqliteRowsWritten)}${leadersOnly} | ${baselineUnits} |`;
    }),
  ].join("\n");
}
