/**
 * Fetch read-ahead (src/gateway/handlers/fetch-read-ahead.ts), through the Fetch handler and its
 * reads over node:http (upstream-read.ts) from a real local server that answers binary fetches
 * from a table (each read seen, with its signal, on its way to the server): a partition
 * left behind its high watermark is read on before the client asks; the next Fetch at that
 * offset is answered from that read; nothing is read ahead at the head, for another offset, past
 * the byte bound, after the age bound, or once the connection closed.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { GatewayRequestContext } from "../../../src/gateway/handler-types.ts";
import { FetchReadAhead } from "../../../src/gateway/handlers/fetch-read-ahead.ts";
import { fetch as fetchHandler } from "../../../src/gateway/handlers/fetch.ts";
import type { Session } from "../../../src/gateway/session.ts";
import { recordBatchReadsOverHttp } from "../../../src/gateway/upstream-read.ts";
import { localHttpServers } from "./support/local-http.ts";
import { binaryFetchMaxRecordsMax, gatewayReadAheadBytesMax, gatewayReadAheadDepth, gatewayReadAheadMaxAgeMs, gatewayReadAheadReadBytes } from "../../../src/limits.ts";

/** How long a poll waits for what must come: the machine may be busy with other test runs. */
const patient = { timeout: 15_000, interval: 5 };
const patientStill = 100;

interface Read {
  offset: number;
  maxBytes: number;
  maxRecords: number;
  signal: AbortSignal;
  /** Its answer came back whole (seen by the gateway in the same turn). */
  answered: boolean;
}

/** A partition of `highWatermark` records, `perRead` records per read, each record one byte equal to its offset; the first read of an offset in `failing` answers 500. */
const { listen } = localHttpServers();

/** `stalled`: reads of these offsets get no answer (until the connection closes). */
function upstream(highWatermark: number, perRead: number, failing = new Set<number>(), stalled = new Set<number>()) {
  return serving((request, response) => {
    const requested = new URL(request.url!, "http://upstream.test");
    const offset = Number(requested.searchParams.get("offset"));
    if (stalled.has(offset)) return;
    if (failing.delete(offset)) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "INTERNAL", message: "failed for the test" } }));
      return;
    }
    const next = Math.min(highWatermark, offset + perRead);
    response.writeHead(200, { "tributary-high-watermark": String(highWatermark), "tributary-log-start-offset": "0", "tributary-next-offset": String(next) });
    response.end(Uint8Array.from({ length: next - offset }, (_, i) => (offset + i) % 256));
  });
}

/** Bytes of a batch of `records` records in batchedUpstream's partitions. */
const batchBytes = (records: number) => 12 + records;

/**
 * A partition of `highWatermark` records stored in batches of `perBatch`, each a 12-byte header
 * (base offset and length, as Kafka's batches start: what the gateway walks) and a byte per
 * record; a read answers the whole batches from the one holding its offset within its maxBytes
 * (the first always), at most `perRead` records; `aborted`: the aborted-transactions header
 * every answer carries.
 */
function batchedUpstream(highWatermark: number, perBatch: number, perRead = highWatermark, aborted?: string) {
  return serving((request, response) => {
    const query = new URL(request.url!, "http://upstream.test").searchParams;
    const maxBytes = Number(query.get("maxBytes"));
    let next = Math.floor(Number(query.get("offset")) / perBatch) * perBatch;
    const first = next;
    const batches: Buffer[] = [];
    while (next < highWatermark && (batches.length === 0 || ((batches.length + 1) * batchBytes(perBatch) <= maxBytes && next + perBatch - first <= perRead))) {
      const batch = Buffer.alloc(batchBytes(perBatch), next % 256);
      batch.writeBigInt64BE(BigInt(next), 0);
      batch.writeInt32BE(perBatch, 8);
      batches.push(batch);
      next += perBatch;
    }
    response.writeHead(200, {
      "tributary-high-watermark": String(highWatermark),
      "tributary-log-start-offset": "0",
      "tributary-next-offset": String(next),
      ...(aborted === undefined ? {} : { "tributary-aborted-transactions": aborted }),
    });
    response.end(Buffer.concat(batches));
  });
}

/** The base offsets of the batches in an answer's records, and its bytes. */
function batchesOf(answer: Awaited<ReturnType<ReturnType<typeof connection>["fetch"]>>) {
  const bytes = Buffer.concat(answer.responses[0]!.partitions[0]!.records);
  const offsets: number[] = [];
  for (let at = 0; at < bytes.length; at += 12 + bytes.readInt32BE(at + 8)) offsets.push(Number(bytes.readBigInt64BE(at)));
  return offsets;
}

/** A local server answering reads with `handler`; each read seen, with its signal, on its way there. */
async function serving(handler: Parameters<typeof listen>[0]) {
  const { url } = await listen(handler);
  const read = recordBatchReadsOverHttp({ baseUrl: url, server: url, token: undefined, requestTimeoutMs: 10_000 });
  const reads: Read[] = [];
  const session = {
    invalidate() {},
    readRecords: (request: Parameters<typeof read>[0]) => {
      const seen: Read = { offset: Number(request.query.offset), maxBytes: Number(request.query.maxBytes), maxRecords: Number(request.query.maxRecords), signal: request.signal ?? new AbortController().signal, answered: false };
      reads.push(seen);
      const answer = read(request);
      answer.then(() => (seen.answered = true), () => {});
      return answer;
    },
  } as unknown as Session;
  return { reads, session };
}

let connections = 0;

function connection(session: Session) {
  const closers: (() => void)[] = [];
  const context = {
    apiVersion: 11,
    connectionId: 1_000_000 + ++connections,
    session,
    onClose: (listener: () => void) => closers.push(listener),
  } as unknown as GatewayRequestContext;
  // By default a Fetch has room for one read (10 one-byte records): the reads after it are not added to its answer.
  const fetch = (offset: number, partitionMaxBytes = 10, { isolationLevel = 0, partitions = 1 } = {}) =>
    fetchHandler(
      { maxWaitMs: 0, minBytes: 1, maxBytes: 50 << 20, isolationLevel, topics: [{ topic: "t", partitions: Array.from({ length: partitions }, (_, partition) => ({ partition, fetchOffset: BigInt(offset), partitionMaxBytes })) }] },
      context,
    ) as Promise<{
      responses: { partitions: { records: Uint8Array[]; errorCode: number; abortedTransactions: { producerId: bigint; firstOffset: bigint }[] }[] }[];
    }>;
  return { fetch, context, close: () => closers.splice(0).forEach((close) => close()) };
}

const recordsOf = (answer: Awaited<ReturnType<ReturnType<typeof connection>["fetch"]>>) => answer.responses[0]!.partitions[0]!.records.flatMap((piece) => Array.from(piece));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => (from + i) % 256);

afterEach(() => {
  vi.useRealTimers();
});

describe("Fetch read-ahead", { timeout: 30_000 }, () => {
  it("reads a partition left behind its high watermark before the client asks, and answers the next Fetch from that read", async () => {
    const { reads, session } = await upstream(30, 10);
    const client = connection(session);
    expect(recordsOf(await client.fetch(0))).toEqual(range(0, 10));
    // The read of [10, 20) started with the answer, not with the next Fetch, and [20, 30) once it answered.
    await expect.poll(() => reads.map((read) => read.offset), patient).toEqual([0, 10, 20]);
    expect(recordsOf(await client.fetch(10))).toEqual(range(10, 20));
    expect(recordsOf(await client.fetch(20))).toEqual(range(20, 30));
    // At the head: nothing more is read ahead.
    await new Promise((resolve) => setTimeout(resolve, patientStill));
    expect(reads.map((read) => read.offset)).toEqual([0, 10, 20]);
    client.close();
  });

  it("a Fetch with room for more answers with the reads after it that have answered, as far as its byte bound allows", async () => {
    const { reads, session } = await upstream(100, 10);
    const client = connection(session);
    expect(recordsOf(await client.fetch(0, 25))).toEqual(range(0, 10));
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "10 true", "20 true"]);
    // [10, 20) and [20, 30) fit in 25 bytes' room, not a third read: the answer holds two reads, and [30, …) is read on.
    expect(recordsOf(await client.fetch(10, 25))).toEqual(range(10, 30));
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "10 true", "20 true", "30 true", "40 true"]);
    expect(recordsOf(await client.fetch(30, 25))).toEqual(range(30, 50));
    expect(reads.at(-1)!.offset).toBe(50);
    client.close();
  });

  it("a read after the one a Fetch takes that has not answered yet is not waited for", async () => {
    const { reads, session } = await upstream(100, 10, new Set(), new Set([20]));
    const client = connection(session);
    await client.fetch(0, 25);
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "10 true", "20 false"]);
    expect(recordsOf(await client.fetch(10, 25))).toEqual(range(10, 20));
    client.close();
  });

  it("reads nothing ahead of a partition at its high watermark", async () => {
    const { reads, session } = await upstream(10, 10);
    const client = connection(session);
    expect(recordsOf(await client.fetch(0))).toEqual(range(0, 10));
    await new Promise((resolve) => setTimeout(resolve, patientStill));
    expect(reads.map((read) => read.offset)).toEqual([0]);
    client.close();
  });

  it("a Fetch at another offset (a seek) or with another byte bound drops the read made ahead and reads afresh", async () => {
    const { reads, session } = await upstream(100, 10);
    const client = connection(session);
    await client.fetch(0);
    await expect.poll(() => reads.length, patient).toBe(3);
    expect(recordsOf(await client.fetch(5))).toEqual(range(5, 15));
    expect([reads[1]!.signal.aborted, reads[2]!.signal.aborted]).toEqual([true, true]);
    expect(reads.slice(0, 4).map((read) => read.offset)).toEqual([0, 10, 20, 5]);
    await expect.poll(() => reads.length, patient).toBe(6); // [15, 25) and [25, 35) ahead
    expect(recordsOf(await client.fetch(15, 1000))).toEqual(range(15, 25));
    expect([reads[4]!.signal.aborted, reads[5]!.signal.aborted]).toEqual([true, true]);
    expect(reads[6]).toMatchObject({ offset: 15, maxBytes: 1000 });
    client.close();
  });

  it("a read made ahead that failed is read again for the Fetch", async () => {
    const { reads, session } = await upstream(30, 10, new Set([10]));
    const client = connection(session);
    await client.fetch(0);
    await expect.poll(() => reads.length, patient).toBe(2);
    // The read that failed does not chain: nothing is read after it.
    await new Promise((resolve) => setTimeout(resolve, patientStill));
    expect(reads).toHaveLength(2);
    const answer = await client.fetch(10);
    expect(answer.responses[0]!.partitions[0]!.errorCode).toBe(0);
    expect(recordsOf(answer)).toEqual(range(10, 20));
    expect(reads.slice(0, 3).map((read) => read.offset)).toEqual([0, 10, 10]);
    client.close();
  });

  it("what was read ahead with one token is not served after the connection authenticated with another", async () => {
    const first = await upstream(30, 10);
    const second = await upstream(30, 10);
    const client = connection(first.session);
    await client.fetch(0);
    await expect.poll(() => first.reads.length, patient).toBe(3);
    (client.context as { session: Session }).session = second.session;
    expect(recordsOf(await client.fetch(10))).toEqual(range(10, 20));
    expect([first.reads[1]!.signal.aborted, first.reads[2]!.signal.aborted]).toEqual([true, true]);
    expect(second.reads[0]!.offset).toBe(10);
    client.close();
  });

  it("closing the connection aborts what was read ahead", async () => {
    const { reads, session } = await upstream(100, 10);
    const client = connection(session);
    await client.fetch(0);
    await expect.poll(() => reads.length, patient).toBe(3);
    client.close();
    expect([reads[1]!.signal.aborted, reads[2]!.signal.aborted]).toEqual([true, true]);
  });

  it("reads at most gatewayReadAheadDepth ahead of a partition, and reads on as the client takes them", async () => {
    const { reads, session } = await upstream(100, 10);
    const client = connection(session);
    await client.fetch(0);
    await expect.poll(() => reads.map((read) => read.offset), patient).toEqual([0, ...range(1, 1 + gatewayReadAheadDepth).map((i) => i * 10)]);
    await new Promise((resolve) => setTimeout(resolve, patientStill));
    expect(reads).toHaveLength(1 + gatewayReadAheadDepth);
    expect(recordsOf(await client.fetch(10))).toEqual(range(10, 20));
    await expect.poll(() => reads.length, patient).toBe(2 + gatewayReadAheadDepth);
    expect(reads.at(-1)!.offset).toBe(10 * (1 + gatewayReadAheadDepth));
    expect(reads.every((read) => !read.signal.aborted)).toBe(true);
    client.close();
  });
});

describe("Fetch read-ahead in reads larger than a Fetch", { timeout: 30_000 }, () => {
  it("reads ahead up to gatewayReadAheadReadBytes, asking no record bound but the binary fetch's, and answers the Fetches after it from that one read, whole batches within each one's bound", async () => {
    const { reads, session } = await batchedUpstream(100, 10);
    const client = connection(session);
    const bound = 2 * batchBytes(10);
    expect(batchesOf(await client.fetch(0, bound))).toEqual([0, 10]);
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "20 true"]);
    expect(reads.map(({ maxBytes, maxRecords }) => [maxBytes, maxRecords])).toEqual([
      [bound, binaryFetchMaxRecordsMax],
      [gatewayReadAheadReadBytes, binaryFetchMaxRecordsMax],
    ]);
    for (const offset of [20, 40, 60, 80]) expect(batchesOf(await client.fetch(offset, bound))).toEqual([offset, offset + 10]);
    // The read from 20 reached the high watermark: nothing more was read.
    expect(reads).toHaveLength(2);
    client.close();
  });

  it("a Fetch takes what is left of one read and, with room for more, the start of the next that answered", async () => {
    const { reads, session } = await batchedUpstream(100, 10, 30);
    const client = connection(session);
    const bound = 2 * batchBytes(10);
    expect(batchesOf(await client.fetch(0, bound))).toEqual([0, 10]);
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "20 true", "50 true"]);
    expect(batchesOf(await client.fetch(20, bound))).toEqual([20, 30]);
    // [40, 50) is what is left of the read from 20; the read from 50 has answered: its first batch fits beside it.
    expect(batchesOf(await client.fetch(40, bound))).toEqual([40, 50]);
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "20 true", "50 true", "80 true"]);
    expect(batchesOf(await client.fetch(60, bound))).toEqual([60, 70]);
    expect(batchesOf(await client.fetch(80, bound))).toEqual([80, 90]);
    expect(reads).toHaveLength(4);
    client.close();
  });

  it("a Fetch whose bound is smaller than a batch gets that one batch whole, the rest kept", async () => {
    const { reads, session } = await batchedUpstream(60, 10);
    const client = connection(session);
    expect(batchesOf(await client.fetch(0, 5))).toEqual([0]);
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "10 true"]);
    for (const offset of [10, 20, 30, 40, 50]) expect(batchesOf(await client.fetch(offset, 5))).toEqual([offset]);
    expect(reads).toHaveLength(2);
    client.close();
  });

  it("each part of a read names the aborted transactions it meets: those beginning before its end, those whose ABORT marker is not before its start", async () => {
    const aborted = JSON.stringify([
      { producerId: 7, firstOffset: 25, lastOffset: 45 },
      { producerId: 8, firstOffset: 55, lastOffset: 90 },
      { producerId: 9, firstOffset: 65 },
    ]);
    const { reads, session } = await batchedUpstream(100, 10, 100, aborted);
    const client = connection(session);
    const bound = 2 * batchBytes(10);
    const committed = { isolationLevel: 1 };
    const producersOf = (answer: Awaited<ReturnType<typeof client.fetch>>) => answer.responses[0]!.partitions[0]!.abortedTransactions.map((entry) => Number(entry.producerId));
    expect(batchesOf(await client.fetch(0, bound, committed))).toEqual([0, 10]);
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "20 true"]);
    const parts = [];
    for (const offset of [20, 40, 60, 80]) {
      const answer = await client.fetch(offset, bound, committed);
      parts.push([batchesOf(answer), producersOf(answer)]);
    }
    expect(parts).toEqual([
      [[20, 30], [7]],
      [[40, 50], [7, 8]],
      [[60, 70], [8, 9]],
      [[80, 90], [8, 9]],
    ]);
    expect(reads).toHaveLength(2);
    client.close();
  });

  it("a read of one batch larger than the Fetch's bound goes whole, with its aborted transactions and where it ends", async () => {
    const aborted = JSON.stringify([{ producerId: 7, firstOffset: 15, lastOffset: 25 }]);
    const { reads, session } = await batchedUpstream(30, 10, 10, aborted);
    const client = connection(session);
    const committed = { isolationLevel: 1 };
    expect(batchesOf(await client.fetch(0, 5, committed))).toEqual([0]);
    await expect.poll(() => reads.map((read) => `${read.offset} ${read.answered}`), patient).toEqual(["0 true", "10 true", "20 true"]);
    const second = await client.fetch(10, 5, committed);
    expect(batchesOf(second)).toEqual([10]);
    expect(second.responses[0]!.partitions[0]!.abortedTransactions.map((entry) => Number(entry.producerId))).toEqual([7]);
    expect(batchesOf(await client.fetch(20, 5, committed))).toEqual([20]);
    expect(reads).toHaveLength(3);
    client.close();
  });

  it("shares the connection's read-ahead bound among the partitions a Fetch names: each reads ahead in parts of it, never below the Fetch's own bound", async () => {
    const { reads, session } = await batchedUpstream(100, 10);
    const client = connection(session);
    await client.fetch(0, batchBytes(10), { partitions: 4 });
    const share = gatewayReadAheadBytesMax / (gatewayReadAheadDepth * 4);
    await expect.poll(() => reads.filter((read) => read.offset === 10).map((read) => read.maxBytes), patient).toEqual([share, share, share, share]);
    client.close();
    const large = await batchedUpstream(100, 10, 20);
    const other = connection(large.session);
    await other.fetch(0, share * 2, { partitions: 4 });
    await expect.poll(() => large.reads.filter((read) => read.offset === 20).map((read) => read.maxBytes), patient).toEqual([share * 2, share * 2, share * 2, share * 2]);
    other.close();
  });
});

describe("FetchReadAhead bounds", () => {
  /** Answers not cut: each answers one Fetch whole. */
  const whole = <T>(answer: T) => ({ head: answer });
  const never = () => new Promise<string>(() => {});

  it("holds read-aheads whose byte bounds add up to at most gatewayReadAheadBytesMax, a read taken counting until it answered", async () => {
    const readAhead = new FetchReadAhead<string>(whole);
    const half = gatewayReadAheadBytesMax / 2;
    let answer!: (value: string) => void;
    expect(readAhead.start("a", 0, half, () => new Promise<string>((resolve) => (answer = resolve)))).toBe(true);
    expect(readAhead.start("b", 0, half, never)).toBe(true);
    expect(readAhead.start("c", 0, 1, never)).toBe(false);
    expect(readAhead.size).toBe(2);
    const taken = readAhead.take("a", 0, half);
    expect(readAhead.start("c", 0, 1, never)).toBe(false);
    answer("read");
    expect(await taken).toBe("read");
    expect(readAhead.size).toBe(1);
    expect(readAhead.start("c", 0, 1, never)).toBe(true);
    readAhead.close();
  });

  it("counts every chained read toward gatewayReadAheadBytesMax, and chains no further than it allows", async () => {
    const half = gatewayReadAheadBytesMax / 2;
    const offsets: number[] = [];
    const readAhead = new FetchReadAhead<number>(whole);
    readAhead.start("a", 0, half, (offset) => (offsets.push(offset), Promise.resolve(offset + 10)), (next) => next);
    await expect.poll(() => offsets, patient).toEqual([0, 10]);
    expect(readAhead.size).toBe(2);
    expect(readAhead.start("b", 0, 1, () => Promise.resolve(0))).toBe(false);
    readAhead.close();
    const large = new FetchReadAhead<number>(whole);
    const larger: number[] = [];
    large.start("a", 0, half + 1, (offset) => (larger.push(offset), Promise.resolve(offset + 10)), (next) => next);
    await new Promise((resolve) => setTimeout(resolve, patientStill));
    expect(larger).toEqual([0]);
    large.close();
  });

  it("drops a read-ahead gatewayReadAheadMaxAgeMs after it started (aborting it); the next Fetch reads afresh", () => {
    vi.useFakeTimers();
    const readAhead = new FetchReadAhead<string>(whole);
    let signal: AbortSignal | undefined;
    readAhead.start("a", 10, 100, (_, given) => ((signal = given), Promise.resolve("read")));
    vi.advanceTimersByTime(gatewayReadAheadMaxAgeMs - 1);
    expect(readAhead.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(readAhead.size).toBe(0);
    expect(signal!.aborted).toBe(true);
    expect(readAhead.take("a", 10, 100)).toBeUndefined();
  });

  it("drops the read-aheads of partitions a Fetch does not name, and starts none once closed", () => {
    const readAhead = new FetchReadAhead<string>(whole);
    const signals: AbortSignal[] = [];
    readAhead.start("a", 0, 1, (_, signal) => (signals.push(signal), never()));
    readAhead.start("b", 0, 1, (_, signal) => (signals.push(signal), never()));
    readAhead.dropOthers(new Set(["b"]));
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
    expect(readAhead.size).toBe(1);
    readAhead.close();
    expect(signals[1]!.aborted).toBe(true);
    expect(readAhead.start("c", 0, 1, never)).toBe(false);
  });
});
