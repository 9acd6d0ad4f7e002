/**
 * HTTP helpers for the workers test layer: every call goes through the Worker's own fetch
 * handler (the `main` module of wrangler.toml), inside workerd, as a client would call it.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export const baseUrl = "http://tributary.test";

export interface ApiResponse<Body = any> {
  status: number;
  body: Body;
  headers: Headers;
  /** The raw response text (an empty string for 204). */
  text: string;
}

/** Any JSON-serialisable body, or a string sent as is (for malformed JSON). */
export type RequestBody = unknown;

export function request(method: string, path: string, body?: RequestBody, headers: Record<string, string> = {}): Request {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  return new Request(`${baseUrl}${path}`, init);
}

/** Reads a response: JSON bodies parsed, anything else kept as text in `text` (and `body` undefined). */
export async function readResponse<Body = any>(response: Response): Promise<ApiResponse<Body>> {
  const text = await response.text();
  let body: any;
  if (text !== "" && (response.headers.get("content-type") ?? "").includes("application/json")) body = JSON.parse(text);
  return { status: response.status, body, headers: response.headers, text };
}

/** Calls the Worker: `api("POST", "/v1/topics", {name: "t"})`. */
export async function api<Body = any>(
  method: string,
  path: string,
  body?: RequestBody,
  headers: Record<string, string> = {},
): Promise<ApiResponse<Body>> {
  return readResponse<Body>(await exports.default.fetch(request(method, path, body, headers)));
}

/** Asserts an API.md error body: `{"error": {"code", "message", ...data}}` with the given status. */
export function expectError(response: ApiResponse, status: number, code: string): Record<string, unknown> {
  expect({ status: response.status, code: response.body?.error?.code }, response.text).toEqual({ status, code });
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(typeof response.body.error.message).toBe("string");
  expect(response.body.error.message.length).toBeGreaterThan(0);
  expect(response.text).not.toMatch(/\bat .*\.(ts|js):\d+/); // never a stack trace
  return response.body.error;
}

/** Creates a topic and asserts 201; returns the Topic. */
export async function createTopic(
  name: string,
  options: { partitions?: number; replicationFactor?: number; configs?: Record<string, unknown> } = {},
) {
  const response = await api("POST", "/v1/topics", { name, ...options });
  expect(response.status, response.text).toBe(201);
  return response.body as Topic;
}

export async function describeTopic(name: string): Promise<Topic> {
  const response = await api("GET", `/v1/topics/${name}`);
  expect(response.status, response.text).toBe(200);
  return response.body as Topic;
}

/** Each partition's high watermark, in partition order. */
export async function highWatermarks(name: string): Promise<number[]> {
  return (await describeTopic(name)).partitions.map((partition) => partition.highWatermark);
}

export interface ProducedOffset {
  partition: number;
  offset: number;
  timestamp: number;
}

export interface ProduceRecordBody {
  key?: string | null;
  value: string | null;
  headers?: Record<string, string>;
  partition?: number;
  timestamp?: number;
}

/** Produces and asserts 200; returns the offsets. */
export async function produce(topic: string, records: ProduceRecordBody[], extra: Record<string, unknown> = {}): Promise<ProducedOffset[]> {
  const response = await api("POST", `/v1/topics/${topic}/records`, { records, ...extra });
  expect(response.status, response.text).toBe(200);
  return response.body.offsets as ProducedOffset[];
}

export interface FetchedRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface FetchAnswer {
  records: FetchedRecord[];
  nextOffset: number;
  highWatermark: number;
  logStartOffset: number;
}

/** `GET .../partitions/{p}/records?...`, returning the raw response. */
export function fetchRecords(topic: string, partition: number | string, query: Record<string, string | number>): Promise<ApiResponse<FetchAnswer>> {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
  return api<FetchAnswer>("GET", `/v1/topics/${topic}/partitions/${partition}/records?${search}`);
}

/** Fetches and asserts 200. */
export async function fetchOk(topic: string, partition: number, query: Record<string, string | number>): Promise<FetchAnswer> {
  const response = await fetchRecords(topic, partition, query);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Reads a whole partition from `offset` to its high watermark, page by page. */
export async function readAll(topic: string, partition: number, options: { offset?: number; encoding?: string } = {}): Promise<FetchedRecord[]> {
  const records: FetchedRecord[] = [];
  let offset = options.offset ?? 0;
  for (let page = 0; page < 10_000; page++) {
    const answer = await fetchOk(topic, partition, { offset, maxRecords: 10_000, encoding: options.encoding ?? "utf8" });
    records.push(...answer.records);
    if (answer.nextOffset >= answer.highWatermark) return records;
    expect(answer.nextOffset).toBeGreaterThan(offset);
    offset = answer.nextOffset;
  }
  throw new Error("readAll: too many pages");
}

export interface Topic {
  name: string;
  topicId: string;
  replicationFactor: number;
  configs: Record<string, string>;
  /** docs/api.md: the configs set on the topic (the others are defaults). */
  configOverrides: string[];
  partitions: {
    partition: number;
    leader: string;
    replicas: string[];
    isr: string[];
    logStartOffset: number;
    highWatermark: number;
    lastStableOffset: number;
    leaderEpoch: number;
    storage: { sqliteBatches: number; sqliteBytes: number; r2Segments: number; r2Bytes: number };
  }[];
}

/** A unique topic name per call, so tests in one file (which share storage) never collide. */
let counter = 0;
export function uniqueTopic(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Concatenated bytes: record batches travel back to back, as Kafka's own fetch answers carry them. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
}
