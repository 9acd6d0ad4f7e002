/**
 * Decoding Kafka RecordBatch v2 (the format drawn in record-batch.ts): every record of a
 * batch, checked — CRC-32C, record count, lengths, offset deltas — into keys, values and
 * headers as views of the input.
 */
import { crc32c } from "./crc32c.ts";
import {
  attributesAt,
  BatchFormatError,
  batchHeaderBytes,
  fail,
  logOverheadBytes,
  readBatchHeader,
  recordBodyBytesMin,
  timestampTypeLogAppendTime,
  type BatchHeader,
  type DecodedRecord,
  type RecordHeader,
} from "./record-batch.ts";
import { batchRecordsSection } from "./record-batch-compression.ts";
import { readUtf8 } from "./utf8.ts";
import { takeVarint, takeVarlong, VarintError, type ByteCursor } from "./varint.ts";

function takeBytes(cursor: ByteCursor): Uint8Array | null {
  const length = takeVarint(cursor);
  if (length === -1) return null;
  const start = cursor.position;
  if (length < -1 || length > cursor.end - start) fail(`field length ${length} at ${start}`);
  cursor.position = start + length;
  return cursor.bytes.subarray(start, start + length);
}

/** What takeHeaders answers for a record without headers: shared, never handed out as it is (see RecordBuilder). */
const noHeaders: readonly RecordHeader[] = Object.freeze([]);

function takeHeaders(cursor: ByteCursor): readonly RecordHeader[] {
  const count = takeVarint(cursor);
  // Each header takes two bytes at least, which bounds the allocation by the bytes present.
  if (count < 0 || count * 2 > cursor.end - cursor.position) fail(`header count ${count}`);
  if (count === 0) return noHeaders;
  const headers: RecordHeader[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const keyLength = takeVarint(cursor);
    const start = cursor.position;
    if (keyLength < 0 || keyLength > cursor.end - start) fail(`header key length ${keyLength}`);
    cursor.position = start + keyLength;
    const key = readUtf8(cursor.bytes, start, start + keyLength);
    headers[i] = { key, value: takeBytes(cursor) };
  }
  return headers;
}

/**
 * Builds a decoded record's output object from its fields, so a caller gets its own shape in
 * one pass (the client's FetchedRecord) instead of a DecodedRecord to convert. `headers` is a
 * shared empty array for a record without headers: a builder that keeps it must copy it.
 */
export type RecordBuilder<T> = (
  offset: number,
  timestamp: number,
  key: Uint8Array | null,
  value: Uint8Array | null,
  headers: readonly RecordHeader[],
) => T;

const decodedRecord: RecordBuilder<DecodedRecord> = (offset, timestamp, key, value, headers) => ({
  key,
  value,
  headers: headers.length === 0 ? [] : (headers as RecordHeader[]),
  timestamp,
  offset,
});

function decodeRecord<T>(cursor: ByteCursor, header: BatchHeader, index: number, build: RecordBuilder<T>): T {
  const body = takeVarint(cursor);
  const batchEnd = cursor.end;
  const start = cursor.position;
  if (body < recordBodyBytesMin || body > batchEnd - start) fail(`record length ${body}`);
  // Field reads stop at this record's end, so a bad length inside cannot reach the next one.
  const recordEnd = start + body;
  cursor.end = recordEnd;
  cursor.position = start + 1; // record attributes: Kafka defines none
  const timestampDelta = takeVarlong(cursor);
  const offsetDelta = takeVarint(cursor);
  if (offsetDelta !== index) fail(`offsetDelta ${offsetDelta}, expected ${index}`);
  const key = takeBytes(cursor);
  const value = takeBytes(cursor);
  const headers = takeHeaders(cursor);
  if (cursor.position !== recordEnd) {
    fail(`${recordEnd - cursor.position} bytes after the last field`);
  }
  cursor.end = batchEnd;
  let timestamp = header.maxTimestamp;
  if ((header.attributes & timestampTypeLogAppendTime) === 0) {
    timestamp = header.baseTimestamp + timestampDelta;
    if (!Number.isSafeInteger(timestamp)) fail(`timestamp beyond ±(2^53 − 1)`);
  }
  return build(header.baseOffset + offsetDelta, timestamp, key, value, headers);
}

/**
 * Decodes the batch at `at` after checking its header, its CRC and its structure: exactly
 * recordCount records, each exactly as long as its length says, offset deltas 0, 1, 2 …, and
 * nothing left over. Keys, values and header values are views into `bytes` (or into the
 * inflated records of a compressed batch), not copies: copy them (`slice()`) to keep them
 * past the life of the buffer or to modify it. Null and empty fields stay distinct. A
 * compressed batch (gzip, snappy, lz4, zstd) is inflated within `decompressedBytesMax`;
 * transactional and control bits are left in `header.attributes`. Throws BatchFormatError
 * (CompressionError for compressed bytes that cannot be read), and nothing else, on any
 * malformed input.
 *
 * `checkCrc: false` skips the CRC (every structural check stays, so malformed bytes still
 * throw and no read leaves the batch): for batches this service stored itself, whose CRC was
 * checked when they were produced (src/protocol/record-scan.ts) — a broker does not check
 * CRCs again on fetch, Kafka leaves that to consumers. The check is a full pass over the bytes.
 */
export interface DecodeOptions {
  checkCrc?: boolean;
  /** The most a compressed batch's records may inflate to; default decompressedBatchBytesMax. */
  decompressedBytesMax?: number;
}

export function decodeRecordBatch(
  bytes: Uint8Array,
  at = 0,
  options: DecodeOptions = {},
): { header: BatchHeader; records: DecodedRecord[] } {
  return decodeBatchRecords(bytes, at, decodedRecord, options);
}

/** decodeRecordBatch with each record built by `build` (same checks, same errors). */
export function decodeBatchRecords<T>(
  bytes: Uint8Array,
  at: number,
  build: RecordBuilder<T>,
  options: DecodeOptions = {},
): { header: BatchHeader; records: T[] } {
  const header = readBatchHeader(bytes, at);
  const end = at + logOverheadBytes + header.batchLength;
  if (options.checkCrc !== false) {
    const crc = crc32c(bytes, at + attributesAt, end);
    if (crc !== header.crc) fail(`batch at ${at}: CRC-32C ${crc}, stored ${header.crc}`);
  }
  const section = batchRecordsSection(bytes, at, header, options.decompressedBytesMax);
  const count = header.recordCount;
  if (count * (1 + recordBodyBytesMin) > section.end - section.start) {
    fail(`batch at ${at}: ${count} records cannot fit its length`);
  }
  const records: T[] = new Array(count);
  const cursor: ByteCursor = { bytes: section.bytes, position: section.start, end: section.end };
  let index = 0;
  try {
    for (; index < count; index++) records[index] = decodeRecord(cursor, header, index, build);
  } catch (error) {
    if (!(error instanceof BatchFormatError || error instanceof VarintError)) throw error;
    throw new BatchFormatError(`batch at ${at}, record ${index}: ${error.message}`, { cause: error });
  }
  if (cursor.position !== section.end) {
    fail(`batch at ${at}: ${section.end - cursor.position} bytes after the records`);
  }
  return { header, records };
}
