/**
 * How records travel: the request a produce sends and how a fetch answer is read, for each
 * transport and each server. A new transport is one more entry in `transports`; the
 * scenario table (scenarios.ts) already has a row for every transport.
 *
 * - json: the API.md body `{"records": [{"key", "value"}], "acks"}` to
 *   `POST /v1/topics/{topic}/records`, sent unchanged to both servers. Tributary answers
 *   per-record offsets and fetches `{"records": [...]}`; the baseline answers
 *   `{"baseOffset", "lastOffset"}` and fetches the stored bodies as `{"batches": [<body>, ...]}`.
 * - binary: Kafka RecordBatch v2 bytes (`application/vnd.tributary.record-batch`, docs/api.md)
 *   to `POST /v1/topics/{topic}/partitions/{partition}/records?acks=…`; fetch with that
 *   `Accept` answers the stored batches, positions in `Tributary-*` headers. The baseline
 *   speaks the same (bench/baseline/worker.ts). Measured only while docs/api.md documents it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { encodeRecordBatch, splitBatches } from "../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../src/protocol/record-batch-decode.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import type { BenchRecord } from "./payloads.ts";

export type TransportName = "json" | "binary";
export type ServerName = "tributary" | "baseline";
export type Acks = 1 | "all";

export interface ProduceBody {
  /** Encoded once, up front: sending it costs the client no encoding. */
  body: Uint8Array;
  contentType: string;
  records: number;
  acks: Acks;
}

/**
 * How much of a fetch answer the client decodes. "records": all of it (what an application
 * would); "positions": only where the answer ends, so a consume run measures the server and
 * not the client decoding megabytes on the same two cores. Either way the whole body is read
 * off the connection.
 */
export type FetchDetail = "records" | "positions";

export interface FetchAnswer {
  /** Records in the answer at or after the offset asked for: decoded ("records"), or nextOffset − offset ("positions"). */
  records: number;
  nextOffset: number;
  highWatermark: number;
  /** Keys of those records in offset order ("records" only). */
  keys: string[];
}

export interface Transport {
  name: TransportName;
  /** Why this transport cannot be measured yet; undefined when it can. */
  unavailable(): string | undefined;
  produceBody(records: readonly BenchRecord[], acks: Acks): ProduceBody;
  /** Path and query of a produce; `partition` is where the client put the records (json lets the server choose). */
  producePath(topic: string, partition: number, body: ProduceBody): string;
  fetchHeaders(): Record<string, string>;
  /** Records the answer acknowledges; the caller checks the count. */
  readProduceAnswer(server: ServerName, response: Response): Promise<number>;
  readFetchAnswer(server: ServerName, response: Response, offset: number, detail: FetchDetail): Promise<FetchAnswer>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const topicPath = (topic: string) => `/v1/topics/${encodeURIComponent(topic)}`;

// ---- json ----------------------------------------------------------------------------

interface TributaryFetchJson {
  records: { key: string | null }[];
  nextOffset: number;
  highWatermark: number;
}

interface BaselineFetchJson {
  batches: { records: { key?: string | null }[] }[];
  nextOffset: number;
  highWatermark: number;
}

/** Bytes at the end (Tributary) or start (baseline) of a JSON fetch answer that hold its positions. */
const positionsWindowBytes = 256;

/**
 * nextOffset and highWatermark without parsing the records: Tributary writes them after the
 * records, the baseline before its batches. Undefined when they are not there.
 */
function jsonPositions(server: ServerName, body: Uint8Array): { nextOffset: number; highWatermark: number } | undefined {
  const window = server === "tributary"
    ? body.subarray(Math.max(0, body.byteLength - positionsWindowBytes))
    : body.subarray(0, positionsWindowBytes);
  const text = decoder.decode(window);
  const nextOffset = /"nextOffset":(\d+)/.exec(text)?.[1];
  const highWatermark = /"highWatermark":(\d+)/.exec(text)?.[1];
  return nextOffset === undefined || highWatermark === undefined
    ? undefined
    : { nextOffset: Number(nextOffset), highWatermark: Number(highWatermark) };
}

const json: Transport = {
  name: "json",
  unavailable: () => undefined,
  produceBody: (records, acks) => ({
    body: encoder.encode(JSON.stringify({ records, acks })),
    contentType: "application/json",
    records: records.length,
    acks,
  }),
  producePath: (topic) => `${topicPath(topic)}/records`,
  fetchHeaders: () => ({}),
  async readProduceAnswer(server, response) {
    if (server === "tributary") {
      const answer = (await response.json()) as { offsets: unknown[] };
      return answer.offsets.length;
    }
    const answer = (await response.json()) as { baseOffset: number; lastOffset: number };
    return answer.lastOffset - answer.baseOffset + 1;
  },
  async readFetchAnswer(server, response, offset, detail) {
    if (detail === "positions") {
      const positions = jsonPositions(server, new Uint8Array(await response.arrayBuffer()));
      if (positions) return { ...positions, records: positions.nextOffset - offset, keys: [] };
      throw new Error(`${server}: no nextOffset and highWatermark where the benchmark expects them in a JSON fetch answer`);
    }
    const parsed = JSON.parse(await response.text()) as TributaryFetchJson | BaselineFetchJson;
    const records = server === "tributary"
      ? (parsed as TributaryFetchJson).records
      : (parsed as BaselineFetchJson).batches.flatMap((batch) => batch.records);
    return {
      records: records.length,
      nextOffset: parsed.nextOffset,
      highWatermark: parsed.highWatermark,
      keys: records.map((record) => record.key ?? ""),
    };
  },
};

// ---- binary --------------------------------------------------------------------------

export const recordBatchMediaType = "application/vnd.tributary.record-batch";

function binaryDocumented(): boolean {
  try {
    return readFileSync(join(repositoryRoot, "docs", "api.md"), "utf8").includes(recordBatchMediaType);
  } catch {
    return false;
  }
}

function positionHeader(server: ServerName, response: Response, name: string): number {
  const value = Number(response.headers.get(name) ?? "NaN");
  if (!Number.isSafeInteger(value)) throw new Error(`${server}: a binary fetch answer without a ${name} header`);
  return value;
}

const binary: Transport = {
  name: "binary",
  unavailable: () => (binaryDocumented() ? undefined : `docs/api.md does not document ${recordBatchMediaType} (issue 7)`),
  produceBody(records, acks) {
    const timestamp = Date.now();
    const inputs = records.map((record) => ({
      key: encoder.encode(record.key),
      value: encoder.encode(record.value),
      headers: [],
      timestamp,
    }));
    return { body: encodeRecordBatch(inputs), contentType: recordBatchMediaType, records: records.length, acks };
  },
  producePath: (topic, partition, body) => `${topicPath(topic)}/partitions/${partition}/records?acks=${body.acks}`,
  fetchHeaders: () => ({ accept: recordBatchMediaType }),
  async readProduceAnswer(_server, response) {
    const answer = (await response.json()) as { baseOffset: number; lastOffset: number };
    return answer.lastOffset - answer.baseOffset + 1;
  },
  async readFetchAnswer(server, response, offset, detail) {
    const body = new Uint8Array(await response.arrayBuffer());
    const nextOffset = positionHeader(server, response, "tributary-next-offset");
    const highWatermark = positionHeader(server, response, "tributary-high-watermark");
    if (detail === "positions") return { records: nextOffset - offset, nextOffset, highWatermark, keys: [] };
    const keys: string[] = [];
    for (const { start } of splitBatches(body)) {
      for (const record of decodeRecordBatch(body, start).records) {
        // Whole batches: skip records before the offset asked for and at or past the high watermark.
        if (record.offset < offset || record.offset >= highWatermark) continue;
        keys.push(record.key === null ? "" : decoder.decode(record.key));
      }
    }
    return { records: keys.length, nextOffset, highWatermark, keys };
  },
};

export const transports: Record<TransportName, Transport> = { json, binary };
