/** Loaders several pages share: topic descriptions (bounded fan-out) and the metrics' history. */
import { api, ApiError, path } from "./api.ts";
import { storedToken } from "./session.ts";
import type { MetricsAnswer, Topic, TopicSummary } from "./types.ts";

/** Describe calls in flight at once when a page describes every topic (a browser allows ~6 per origin). */
const describeConcurrency = 6;
/** Topics (share groups) described for a list page; beyond it the table shows the list's columns only. */
export const describedTopicsMax = 200;

/**
 * `describe(name)` for each of the first `describedTopicsMax` names, `describeConcurrency` at
 * a time. A name the API no longer knows (404: deleted between the list and the describe) is
 * left out: its row shows the list's columns only.
 */
export async function describeEach<T>(names: readonly string[], describe: (name: string) => Promise<T>): Promise<Map<string, T>> {
  const described = new Map<string, T>();
  const queue = names.slice(0, describedTopicsMax);
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      try {
        described.set(name, await describe(name));
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: describeConcurrency }, worker));
  return described;
}

export function describeTopics(topics: readonly TopicSummary[]): Promise<Map<string, Topic>> {
  return describeEach(topics.map((topic) => topic.name), (name) => api<Topic>("GET", path`/v1/topics/${name}`));
}

export function listTopics(): Promise<TopicSummary[]> {
  return api<{ topics: TopicSummary[] }>("GET", "/v1/topics").then((answer) => answer.topics);
}

/**
 * A refusal of the metrics for a token (403: it may not describe the cluster; 404: a Worker
 * without the route): pages refreshing every few seconds do not ask again with that token.
 */
let metricsRefusal: { token: string | null; error: ApiError } | undefined;

/** The metrics' JSON twin (`GET /v1/metrics`, Accept: application/json): rates for the charts. */
export async function loadMetrics(): Promise<MetricsAnswer> {
  const token = storedToken();
  if (metricsRefusal !== undefined && metricsRefusal.token === token) throw metricsRefusal.error;
  try {
    return await api<MetricsAnswer>("GET", "/v1/metrics");
  } catch (error) {
    if (error instanceof ApiError && (error.status === 403 || error.status === 404)) metricsRefusal = { token, error };
    throw error;
  }
}

/** Why a page shows no rates. */
export function missingRatesReason(error: unknown): string {
  if (error instanceof ApiError && error.status === 403) return "Rates need a token that may describe the cluster (GET /v1/metrics).";
  if (error instanceof ApiError && error.status === 404) return "This Worker serves no metrics (GET /v1/metrics), so no rates.";
  return error === undefined ? "Loading rates…" : `No rates: ${error instanceof Error ? error.message : String(error)}`;
}

export function partitionBytes(topic: Topic | undefined): { sqlite: number; r2: number } | undefined {
  if (topic === undefined) return undefined;
  return topic.partitions.reduce(
    (sum, partition) => ({ sqlite: sum.sqlite + (partition.storage?.sqliteBytes ?? 0), r2: sum.r2 + (partition.storage?.r2Bytes ?? 0) }),
    { sqlite: 0, r2: 0 },
  );
}
