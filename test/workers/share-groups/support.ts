/** Share groups over HTTP in the workers layer (docs/api.md, Share groups). */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { sharePartitionStub } from "../../../src/contracts/stubs.ts";
import { api, describeTopic, type ApiResponse } from "../support/http.ts";

export interface ShareRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
  deliveryCount: number;
}

export interface ShareFetchAnswer {
  records: ShareRecord[];
  lease: string;
  leaseExpiresAt: number;
  results?: AcknowledgeResult[];
}

export interface AcknowledgeResult {
  topic: string;
  partition: number;
  error?: { code: string; message: string };
}

export interface Ack {
  topic: string;
  partition: number;
  offsets: number[];
  type: "accept" | "release" | "reject";
}

export interface SharePartitionView {
  topic: string;
  partition: number;
  startOffset: number;
  endOffset: number;
  highWatermark: number;
  available: number;
  acquired: number;
  done: number;
  archived: number;
}

export const sharePath = (group: string, rest = "") => `/v1/share-groups/${encodeURIComponent(group)}${rest}`;

let groups = 0;
export function uniqueShareGroup(prefix: string): string {
  groups += 1;
  return `${prefix}-${Date.now().toString(36)}-${groups}`;
}

export function shareFetchRaw(group: string, body: Record<string, unknown>): Promise<ApiResponse<ShareFetchAnswer>> {
  return api("POST", sharePath(group, "/fetch"), body);
}

export async function shareFetch(group: string, body: Record<string, unknown>): Promise<ShareFetchAnswer> {
  const response = await shareFetchRaw(group, body);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function acknowledge(group: string, lease: string, acknowledgements: Ack[]): Promise<AcknowledgeResult[]> {
  const response = await api("POST", sharePath(group, "/acknowledge"), { lease, acknowledgements });
  expect(response.status, response.text).toBe(200);
  return response.body.results;
}

/** Accepts every record of an answer by its lease; asserts each partition's result is clean. */
export async function acceptAll(group: string, answer: ShareFetchAnswer): Promise<void> {
  if (answer.records.length === 0) return;
  const results = await acknowledge(group, answer.lease, acksOf(answer.records, "accept"));
  expect(results.filter((result) => result.error)).toEqual([]);
}

export function acksOf(records: readonly ShareRecord[], type: Ack["type"]): Ack[] {
  const byPartition = new Map<string, Ack>();
  for (const record of records) {
    const key = `${record.topic}/${record.partition}`;
    const ack = byPartition.get(key) ?? { topic: record.topic, partition: record.partition, offsets: [], type };
    ack.offsets.push(record.offset);
    byPartition.set(key, ack);
  }
  return [...byPartition.values()];
}

export async function setConfigs(group: string, configs: Record<string, string | null>): Promise<ApiResponse> {
  return api("PATCH", sharePath(group, "/configs"), { configs });
}

export async function describeShareGroup(group: string): Promise<{ group: string; configs: Record<string, string>; partitions: SharePartitionView[] }> {
  const response = await api("GET", sharePath(group));
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The share-partition's state replica in `region` (default: the partition leader's), for eviction (a restart) in tests. */
export async function sharePartitionObject(group: string, topic: string, partition: number, region?: string) {
  const { topicId, partitions } = await describeTopic(topic);
  return sharePartitionStub(env, { group, topicId, partition, region: region ?? partitions[partition]!.leader });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
