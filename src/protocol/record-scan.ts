import { crc32c } from "./crc32c.ts";
import { BatchFormatError, readBatchHeader, timestampTypeLogAppendTime, type BatchHeader, type RecordInput } from "./record-batch.ts";
import { batchRecordsSection } from "./record-batch-compression.ts";
import { utf8Length } from "./utf8.ts";
import { takeVarint, takeVarlong, VarintError, type ByteCursor } from "./varint.ts";

/** What a producer's record must be checked for, without its bytes: see src/topics/record-rules.ts. */
export interface RecordSummary {
  keyIsNull: boolean;
  /** Key, value, header keys and header values, in bytes. */
  payloadBytes: number;
  headerCount: number;
  timestamp: number;
}

/** A record's size as `max.message.bytes` and fetch `maxBytes` count it (what the scan's `payloadBytes` counts of a record's bytes): key, value, header keys (UTF-8) and values. */
export function recordPayloadBytes(record: Pick<RecordInput, "key" | "value" | "headers">): number {
  let bytes = (record.key?.byteLength ?? 0) + (record.value?.byteLength ?? 0);
  for (const header of record.headers) bytes += utf8Length(header.key) + (header.value?.byteLength ?? 0);
  return bytes;
}

/** Bytes a record body needs at least: attributes, timestampDelta, offsetDelta, keyLength, valueLength, headerCount. */
const recordBodyBytesMin = 6;

function fail(message: string): never {
  throw new BatchFormatError(message);
}

/** Skips a length-prefixed field (-1 = null); returns its length, or -1. */
function skipField(cursor: ByteCursor): number {
  const length = takeVarint(cursor);
  if (length < -1 || length > cursor.end - cursor.position) fail(`field length ${length} at ${cursor.position}`);
  if (length > 0) cursor.position += length;
  return length;
}

/**
 * A scanned record's summary with where its key and value are (offsets into `bytes`, the
 * batch's records as scanned: the body itself, or a compressed batch's inflated records;
 * a length of -1 is null): what a topic's schema id validation reads (src/registry/wire-format.ts).
 */
export interface ScannedRecord extends RecordSummary {
  bytes: Uint8Array;
  keyStart: number;
  keyLength: number;
  valueStart: number;
  valueLength: number;
}

/** Receives each record's summary; `summary` is reused between calls (copy what you keep). */
export type RecordVisitor = (summary: ScannedRecord, index: number) => void;

function scanRecord(cursor: ByteCursor, header: BatchHeader, index: number, summary: ScannedRecord): void {
  const body = takeVarint(cursor);
  const batchEnd = cursor.end;
  const start = cursor.position;
  if (body < recordBodyBytesMin || body > batchEnd - start) fail(`record length ${body}`);
  const recordEnd = start + body;
  cursor.end = recordEnd;
  cursor.position = start + 1;
  const timestampDelta = takeVarlong(cursor);
  if (takeVarint(cursor) !== index) fail(`offsetDelta, expected ${index}`);
  const keyLength = skipField(cursor);
  summary.keyStart = cursor.position - Math.max(keyLength, 0);
  const valueLength = skipField(cursor);
  summary.valueStart = cursor.position - Math.max(valueLength, 0);
  const headerCount = takeVarint(cursor);
  if (headerCount < 0 || headerCount * 2 > recordEnd - cursor.position) fail(`header count ${headerCount}`);
  let payloadBytes = Math.max(keyLength, 0) + Math.max(valueLength, 0);
  for (let at = 0; at < headerCount; at++) {
    const headerKeyLength = skipField(cursor);
    if (headerKeyLength < 0) fail("a null header key");
    payloadBytes += headerKeyLength + Math.max(skipField(cursor), 0);
  }
  if (cursor.position !== recordEnd) fail(`${recordEnd - cursor.position} bytes after the last field`);
  cursor.end = batchEnd;
  const logAppendTime = (header.attributes & timestampTypeLogAppendTime) !== 0;
  summary.keyIsNull = keyLength === -1;
  summary.keyLength = keyLength;
  summary.valueLength = valueLength;
  summary.payloadBytes = payloadBytes;
  summary.headerCount = headerCount;
  summary.timestamp = logAppendTime ? header.maxTimestamp : header.baseTimestamp + timestampDelta;
}

/**
 * Validates the batch at `at` as decodeRecordBatch does — header, CRC-32C, exactly
 * recordCount well-formed records, nothing left over — and calls `onRecord` with each
 * record's summary (one object, reused), without building records, strings or views: the check a producer's
 * batch needs before it is stored (the router's hot path). A compressed batch's records are
 * inflated (within `decompressedBytesMax`) and scanned. Throws BatchFormatError (CompressionError
 * for compressed bytes that cannot be read).
 */
export function scanRecordBatch(bytes: Uint8Array, at: number, onRecord: RecordVisitor, decompressedBytesMax?: number): BatchHeader {
  const header = readBatchHeader(bytes, at);
  const end = at + 12 + header.batchLength;
  const crc = crc32c(bytes, at + 21, end);
  if (crc !== header.crc) fail(`batch at ${at}: CRC-32C ${crc}, stored ${header.crc}`);
  const section = batchRecordsSection(bytes, at, header, decompressedBytesMax);
  const cursor: ByteCursor = { bytes: section.bytes, position: section.start, end: section.end };
  const summary: ScannedRecord = { keyIsNull: false, payloadBytes: 0, headerCount: 0, timestamp: 0, bytes: section.bytes, keyStart: 0, keyLength: -1, valueStart: 0, valueLength: -1 };
  let index = 0;
  try {
    for (; index < header.recordCount; index++) {
      scanRecord(cursor, header, index, summary);
      onRecord(summary, index);
    }
  } catch (error) {
    if (!(error instanceof BatchFormatError || error instanceof VarintError)) throw error;
    throw new BatchFormatError(`batch at ${at}, record ${index}: ${error.message}`, { cause: error });
  }
  if (cursor.position !== section.end) fail(`batch at ${at}: ${section.end - cursor.position} bytes after the records`);
  return header;
}
