/** Loaders several pages share: topic descriptions (bounded fan-out) and the metrics' history. */
import { api, ApiError, path } from "./api.ts";
import type { MetricsAnswer, Topic, TopicSummary } from "./types.ts";

/** Describe calls in flight at once when a page describes every topic (a browser allows ~6 per origin). */
const describeConcurrency = 6;
/** Topics described for the topics and cluster pages; beyond it the table shows the list's columns only. */
export const describedTopicsMax = 200;

export async function describeTopics(topics: readonly TopicSummary[]): Promise<Map<string, Topic>> {
  const described = new Map<string, Topic>();
  const queue = topics.slice(0, describedTopicsMax).map((topic) => topic.name);
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      try {
        described.set(name, await api<Topic>("GET", path`/v1/topics/${name}`));
      } catch (error) {
        // Deleted between the list and the describe: the row shows the list's columns only.
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: describeConcurrency }, worker));
  return described;
}

export function listTopics(): Promise<TopicSummary[]> {
  return api<{ topics: TopicSummary[] }>("GET", "/v1/topics").then((answer) => answer.topics);
}

/** The metrics' JSON twin (`GET /v1/metrics`, Accept: application/json): rates for the charts. */
export function loadMetrics(): Promise<MetricsAnswer> {
  return api<MetricsAnswer>("GET", "/v1/metrics");
}

export function partitionBytes(topic: Topic | undefined): { sqlite: number; r2: number } | undefined {
  if (topic === undefined) return undefined;
  return topic.partitions.reduce(
    (sum, partition) => ({ sqlite: sum.sqlite + (partition.storage?.sqliteBytes ?? 0), r2: sum.r2 + (partition.storage?.r2Bytes ?? 0) }),
    { sqlite: 0, r2: 0 },
  );
}
