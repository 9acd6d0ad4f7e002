import { TributaryError } from "../errors.ts";
import { fetchMaxRecordsMax, streamReadBytesMax } from "../limits.ts";
import type { Isolation } from "../protocol/schemas.ts";
import { closesStream } from "../protocol/stream-records.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { listOffset, readPartition } from "../data-plane/partition-reads.ts";
import { StreamError } from "./stream-errors.ts";

/**
 * Reading a stream's records through the partition reads every fetch uses
 * (src/data-plane/partition-reads.ts): whole records from an offset, up to the high watermark
 * (at read_committed, the default, the last stable offset: docs/transactions.md), and whether
 * the stream is closed there — the closing record is the log's last.
 */
export interface StreamRead {
  /** The records' values in order (a closing record without data has none). */
  values: Uint8Array[];
  nextOffset: number;
  /** The read reached the high watermark (at read_committed the last stable offset): nothing more to read now. */
  upToDate: boolean;
  /** Up to date, and the stream is closed: nothing more will ever come. */
  closed: boolean;
}

export interface StreamTail {
  nextOffset: number;
  closed: boolean;
}

/** The last record before `offset` closes the stream (one record read; false at offset 0). */
async function closedBefore(env: Env, topic: TopicMetadata, offset: number): Promise<boolean> {
  if (offset === 0) return false;
  const read = await readPartition(env, topic, 0, { offset: offset - 1, maxRecords: 1, maxBytes: 1, waitMs: 0 });
  const last = read.records.at(-1);
  return last !== undefined && last.offset === offset - 1 && closesStream(last.headers);
}

/** Where the stream ends now for a reader (its high watermark; at read_committed its last stable offset), and whether it is closed there. */
export async function streamTail(env: Env, topic: TopicMetadata, isolation: Isolation = "read_committed"): Promise<StreamTail> {
  const { offset } = await listOffset(env, topic, 0, "latest", isolation);
  return { nextOffset: offset, closed: await closedBefore(env, topic, offset) };
}

/**
 * The records from `offset`, at most streamReadBytesMax of values (a whole record always),
 * waiting up to `waitMs` for one when there is none. An offset past the tail is 400; one
 * before the log start (retention) 410.
 */
export async function readStream(env: Env, topic: TopicMetadata, offset: number, waitMs: number, isolation: Isolation = "read_committed"): Promise<StreamRead> {
  let read;
  try {
    read = await readPartition(env, topic, 0, { offset, maxRecords: fetchMaxRecordsMax, maxBytes: streamReadBytesMax, waitMs, isolation });
  } catch (error) {
    if (!(error instanceof TributaryError) || error.code !== "OFFSET_OUT_OF_RANGE") throw error;
    const logStartOffset = Number(error.data.logStartOffset);
    if (offset < logStartOffset) throw new StreamError(410, `offset ${offset} is before the stream's earliest retained offset`);
    throw new StreamError(400, `offset ${offset} is past the stream's tail`);
  }
  const values: Uint8Array[] = [];
  let closedHere = false;
  for (const record of read.records) {
    if (record.value !== null && record.value.byteLength > 0) values.push(record.value);
    closedHere = closesStream(record.headers);
  }
  const upToDate = read.nextOffset >= (isolation === "read_committed" ? read.lastStableOffset : read.highWatermark);
  let closed = false;
  if (upToDate) closed = read.records.length > 0 ? closedHere : await closedBefore(env, topic, read.nextOffset);
  return { values, nextOffset: read.nextOffset, upToDate, closed };
}
