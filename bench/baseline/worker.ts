/**
 * The benchmark's baseline: the least a Durable Object service can do to take a batch of
 * records over HTTP and serve it back — one SQLite BLOB row per produce request. It accepts
 * the same requests as Tributary, on the same paths, so the two are measured with the same
 * client and payloads (bench/README.md says what it does and does not do).
 *
 *   POST /v1/topics/{topic}/records                   JSON body: one row (the body, as sent)
 *   POST /v1/topics/{topic}/partitions/0/records      record-batch body: one row (the bytes, as sent)
 *   GET  /v1/topics/{topic}/partitions/0/records?offset=N&maxRecords=M&waitMs=W
 *        JSON {"nextOffset", "highWatermark", "batches": [<stored body>, ...]}, or with
 *        Accept: application/vnd.tributary.record-batch the stored bytes, positions in headers
 *   GET  /v1/health
 *
 * The Worker validates and counts (JSON.parse of a JSON body; the batch headers of a binary
 * one), then calls one object per topic over RPC, as Tributary's router does.
 *
 * Tiered mode, for topics named `tiered-…` (issue 19's fair ceiling): what any tiered log must
 * do and nothing more. Once the rows hold 8 MiB (`segment.bytes`), an alarm writes them to R2
 * as one object, keeps its index (each body's offsets and byte range) in one row, and deletes
 * them; a read below the rows takes whole bodies from the segment with one ranged get.
 */
import { DurableObject } from "cloudflare:workers";

interface BaselineEnv {
  LOGS: DurableObjectNamespace<BlobLog>;
  /** The tiered mode's segments (bench/README.md, "The tiered baseline"). */
  SEGMENTS: R2Bucket;
}

/** One row is at most 2 MB on the platform; a read answers at most as much as Tributary's maxBytes (8 MiB). */
const readBytesMax = 8 * 1024 * 1024;
const readRecordsMax = 10_000;
const waitMsMax = 30_000;
/** Bounds the long-poll waiters of one object, as Tributary's `waitersPerPartitionMax`. */
const waitersMax = 1_000;
/**
 * The tiered mode (topics named `tiered-…`): once the rows hold this many bytes (Tributary's
 * `segment.bytes` default), an alarm writes them to R2 as one object and deletes them.
 */
const segmentBytes = 8 * 1024 * 1024;
const tieredTopicPrefix = "tiered-";

/** A stored body inside a segment object: its offsets and where its bytes are. */
interface SegmentEntry {
  lastOffset: number;
  recordCount: number;
  start: number;
  length: number;
}

interface Segment {
  key: string;
  lastOffset: number;
  entries: SegmentEntry[];
}

export class BlobLog extends DurableObject<BaselineEnv> {
  #logEndOffset: number;
  readonly #waiters = new Set<() => void>();
  /** Tiered mode: sealed segments in offset order (one SQLite row each, with its index), and the bytes in rows. */
  readonly #segments: Segment[];
  #unsealedBytes: number;
  #sealArmed = false;

  constructor(ctx: DurableObjectState, env: BaselineEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS batches (
      last_offset INTEGER PRIMARY KEY, base_offset INTEGER NOT NULL, record_count INTEGER NOT NULL, bytes BLOB NOT NULL)`);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS segments (last_offset INTEGER PRIMARY KEY, key TEXT NOT NULL, entries TEXT NOT NULL)");
    this.#segments = ctx.storage.sql
      .exec<{ last_offset: number; key: string; entries: string }>("SELECT last_offset, key, entries FROM segments ORDER BY last_offset")
      .toArray()
      .map((row) => ({ key: row.key, lastOffset: row.last_offset, entries: JSON.parse(row.entries) as SegmentEntry[] }));
    const row = ctx.storage.sql.exec<{ end: number | null; bytes: number | null }>("SELECT max(last_offset) + 1 AS end, sum(length(bytes)) AS bytes FROM batches").one();
    this.#logEndOffset = row.end ?? (this.#segments.at(-1)?.lastOffset ?? -1) + 1;
    this.#unsealedBytes = row.bytes ?? 0;
  }

  /**
   * One INSERT; the answer leaves the object once SQLite has it (the output gate). Record
   * batches get their base offsets written in (bytes 0-7, outside the CRC), as any log's
   * leader must, so a reader knows each record's offset.
   */
  append(bytes: ArrayBuffer, recordCount: number, binary: boolean, tiered = false): { baseOffset: number; lastOffset: number } {
    const baseOffset = this.#logEndOffset;
    const lastOffset = baseOffset + recordCount - 1;
    if (binary) setBaseOffsets(bytes, baseOffset);
    this.ctx.storage.sql.exec(
      "INSERT INTO batches (last_offset, base_offset, record_count, bytes) VALUES (?, ?, ?, ?)",
      lastOffset, baseOffset, recordCount, bytes,
    );
    this.#logEndOffset = lastOffset + 1;
    for (const wake of this.#waiters) wake();
    if (tiered) {
      this.#unsealedBytes += bytes.byteLength;
      if (this.#unsealedBytes >= segmentBytes && !this.#sealArmed) {
        this.#sealArmed = true;
        void this.ctx.storage.setAlarm(Date.now()); // in the append's output gate, like the row
      }
    }
    return { baseOffset, lastOffset };
  }

  /**
   * Tiered mode: every row now held becomes one R2 object, its index one row, and the rows
   * are deleted. Appends meanwhile stay rows, for the next seal.
   */
  override async alarm(): Promise<void> {
    const rows = this.ctx.storage.sql
      .exec<{ last_offset: number; record_count: number; bytes: ArrayBuffer }>("SELECT last_offset, record_count, bytes FROM batches ORDER BY last_offset")
      .toArray();
    if (rows.length > 0) {
      const entries: SegmentEntry[] = [];
      let start = 0;
      for (const row of rows) {
        entries.push({ lastOffset: row.last_offset, recordCount: row.record_count, start, length: row.bytes.byteLength });
        start += row.bytes.byteLength;
      }
      const lastOffset = rows.at(-1)!.last_offset;
      const key = `segments/${this.ctx.id.toString()}/${String(lastOffset).padStart(20, "0")}`;
      await this.env.SEGMENTS.put(key, concat(rows.map((row) => new Uint8Array(row.bytes))));
      this.ctx.storage.sql.exec("INSERT INTO segments (last_offset, key, entries) VALUES (?, ?, ?)", lastOffset, key, JSON.stringify(entries));
      this.ctx.storage.sql.exec("DELETE FROM batches WHERE last_offset <= ?", lastOffset);
      this.#segments.push({ key, lastOffset, entries });
      this.#unsealedBytes -= start;
    }
    this.#sealArmed = this.#unsealedBytes >= segmentBytes;
    if (this.#sealArmed) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Tiered mode: whole stored bodies from the sealed segment holding `offset` (one ranged R2 get), or undefined when no segment does. */
  async #readSealed(offset: number, maxRecords: number): Promise<{ batches: ArrayBuffer[]; nextOffset: number } | undefined> {
    const segment = this.#segments.find((candidate) => candidate.lastOffset >= offset);
    if (!segment) return undefined;
    const first = segment.entries.findIndex((entry) => entry.lastOffset >= offset);
    const taken: SegmentEntry[] = [];
    let records = 0;
    for (const entry of segment.entries.slice(first)) {
      if (taken.length > 0 && entry.start + entry.length - taken[0]!.start > readBytesMax) break;
      taken.push(entry);
      records += entry.recordCount;
      if (records >= maxRecords) break;
    }
    const from = taken[0]!.start;
    const object = await this.env.SEGMENTS.get(segment.key, { range: { offset: from, length: taken.at(-1)!.start + taken.at(-1)!.length - from } });
    if (!object) throw new Error(`segment ${segment.key} is missing`);
    const bytes = await object.arrayBuffer();
    return { batches: taken.map((entry) => bytes.slice(entry.start - from, entry.start - from + entry.length)), nextOffset: taken.at(-1)!.lastOffset + 1 };
  }

  /** Whole stored bodies from the one holding `offset`, up to maxRecords; waits up to waitMs when there is none. */
  async read(offset: number, maxRecords: number, waitMs: number): Promise<{ batches: ArrayBuffer[]; nextOffset: number; highWatermark: number }> {
    if (offset >= this.#logEndOffset && waitMs > 0 && this.#waiters.size < waitersMax) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, waitMs);
        this.#waiters.add(wake);
      });
    }
    const sealed = await this.#readSealed(offset, maxRecords);
    if (sealed) return { ...sealed, highWatermark: this.#logEndOffset };
    const batches: ArrayBuffer[] = [];
    let nextOffset = offset;
    let records = 0;
    let bytes = 0;
    const rows = this.ctx.storage.sql.exec<{ last_offset: number; record_count: number; bytes: ArrayBuffer }>(
      "SELECT last_offset, record_count, bytes FROM batches WHERE last_offset >= ? ORDER BY last_offset", offset,
    );
    for (const row of rows) {
      if (batches.length > 0 && bytes + row.bytes.byteLength > readBytesMax) break;
      batches.push(row.bytes);
      bytes += row.bytes.byteLength;
      records += row.record_count;
      nextOffset = row.last_offset + 1;
      if (records >= maxRecords) break;
    }
    return { batches, nextOffset, highWatermark: this.#logEndOffset };
  }
}

const encoder = new TextEncoder();

function errorResponse(status: 400 | 404 | 415, message: string): Response {
  return Response.json({ error: { code: status === 404 ? "NOT_FOUND" : "INVALID_REQUEST", message } }, { status });
}

/** Records in a JSON produce body (JSON.parse: the least a service must check), or undefined when it is not one. */
function countJsonRecords(bytes: ArrayBuffer): number | undefined {
  try {
    const body = JSON.parse(new TextDecoder().decode(bytes)) as { records?: unknown };
    return Array.isArray(body.records) && body.records.length > 0 ? body.records.length : undefined;
  } catch {
    return undefined;
  }
}

/** Records in concatenated Kafka v2 record batches (their headers only: no CRC, no record parsing), or undefined. */
function countBatchRecords(bytes: ArrayBuffer): number | undefined {
  const view = new DataView(bytes);
  let records = 0;
  let at = 0;
  while (at + 61 <= bytes.byteLength) { // 61 bytes: a v2 batch header
    const batchLength = view.getInt32(at + 8); // bytes after the first 12
    if (view.getInt8(at + 16) !== 2 || batchLength < 61 - 12) return undefined;
    records += view.getInt32(at + 57);
    at += 12 + batchLength;
  }
  return at === bytes.byteLength && records > 0 ? records : undefined;
}

/** Walks batches that countBatchRecords accepted, giving each the offset after the previous one's records. */
function setBaseOffsets(bytes: ArrayBuffer, baseOffset: number): void {
  const view = new DataView(bytes);
  let offset = baseOffset;
  for (let at = 0; at < bytes.byteLength; at += 12 + view.getInt32(at + 8)) {
    view.setBigInt64(at, BigInt(offset));
    offset += view.getInt32(at + 57);
  }
}

const recordBatchMediaType = "application/vnd.tributary.record-batch";

async function produce(request: Request, log: DurableObjectStub<BlobLog>, binary: boolean, tiered: boolean): Promise<Response> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.startsWith(binary ? recordBatchMediaType : "application/json")) {
    return errorResponse(415, `expected ${binary ? recordBatchMediaType : "application/json"}`);
  }
  const bytes = await request.arrayBuffer();
  const recordCount = binary ? countBatchRecords(bytes) : countJsonRecords(bytes);
  if (recordCount === undefined) return errorResponse(400, binary ? "expected record batches" : "expected a JSON produce body with records");
  return Response.json(await log.append(bytes, recordCount, binary, tiered));
}

async function fetchRecords(request: Request, url: URL, log: DurableObjectStub<BlobLog>): Promise<Response> {
  const number = (name: string, fallback: number, max: number) =>
    Math.min(max, Math.max(0, Math.trunc(Number(url.searchParams.get(name) ?? fallback)) || 0));
  const read = await log.read(number("offset", 0, Number.MAX_SAFE_INTEGER), number("maxRecords", 500, readRecordsMax), number("waitMs", 0, waitMsMax));
  if ((request.headers.get("accept") ?? "").includes(recordBatchMediaType)) {
    const headers = {
      "content-type": recordBatchMediaType,
      "tributary-next-offset": String(read.nextOffset),
      "tributary-high-watermark": String(read.highWatermark),
    };
    return new Response(concat(read.batches.map((batch) => new Uint8Array(batch))), { headers });
  }
  // The stored JSON bodies, spliced into one JSON document without parsing them again.
  const parts = [encoder.encode(`{"nextOffset":${read.nextOffset},"highWatermark":${read.highWatermark},"batches":[`)];
  read.batches.forEach((batch, index) => {
    if (index > 0) parts.push(encoder.encode(","));
    parts.push(new Uint8Array(batch));
  });
  parts.push(encoder.encode("]}"));
  return new Response(concat(parts), { headers: { "content-type": "application/json" } });
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

export default {
  async fetch(request: Request, env: BaselineEnv): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.split("/").map(decodeURIComponent); // ["", "v1", "topics", topic, ...]
    if (url.pathname === "/v1/health") return Response.json({ status: "ok" });
    if (path[1] !== "v1" || path[2] !== "topics" || !path[3]) return errorResponse(404, `no route for ${url.pathname}`);
    const log = env.LOGS.get(env.LOGS.idFromName(path[3]));
    const partitionRecords = path.length === 7 && path[4] === "partitions" && path[5] === "0" && path[6] === "records";
    const tiered = path[3].startsWith(tieredTopicPrefix);
    if (request.method === "POST" && path.length === 5 && path[4] === "records") return produce(request, log, false, tiered);
    if (request.method === "POST" && partitionRecords) return produce(request, log, true, tiered);
    if (request.method === "GET" && partitionRecords) return fetchRecords(request, url, log);
    return errorResponse(404, `no route for ${request.method} ${url.pathname}`);
  },
} satisfies ExportedHandler<BaselineEnv>;
