/**
 * Kafka's RecordBatch v2 (magic 2), byte for byte (ARCHITECTURE.md decision 3): the unit a
 * partition stores, replicates and serves, so a Kafka wire gateway can hand stored batches
 * out without re-encoding. Pure TypeScript over Uint8Array/DataView: Workers, Node, browsers.
 */
import { readInt64, writeInt64 } from "./int64.ts";
import { crc32c } from "./crc32c.ts";
import { utf8Length, writeUtf8 } from "./utf8.ts";
import { varintSize, varlongSize, writeVarint, writeVarlong } from "./varint.ts";

export const batchHeaderBytes = 61;
/** Attributes bit 3: the broker's append time replaces every record's own timestamp. */
export const timestampTypeLogAppendTime = 0x08;
/** Attributes bits 0-2: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd. */
export const compressionMask = 0x07;
export const transactionalFlag = 0x10;
export const controlFlag = 0x20;
export const batchMagic = 2;

/** Bytes before `batchLength` counts: baseOffset and batchLength itself (Kafka's LOG_OVERHEAD). */
export const logOverheadBytes = 12;
/** The header after those 12 bytes: a batchLength below it cannot be a batch. */
const batchLengthMin = batchHeaderBytes - logOverheadBytes;
const partitionLeaderEpochAt = 12;
const magicAt = 16;
const crcAt = 17;
/** The CRC covers attributes to the end of the batch. */
export const attributesAt = 21;
const maxTimestampAt = 35;
/** attributes, timestampDelta, offsetDelta, keyLength, valueLength, headerCount: a byte each. */
export const recordBodyBytesMin = 6;
const int32Max = 0x7fffffff;

export interface RecordHeader {
  key: string;
  value: Uint8Array | null;
}

export interface RecordInput {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: RecordHeader[];
  timestamp: number;
}

export interface DecodedRecord extends RecordInput {
  offset: number;
}

export interface BatchHeader {
  baseOffset: number;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export interface EncodeOptions {
  /** Default 0: the leader overwrites it on append (setBaseOffset). */
  baseOffset?: number;
  /** Default -1, Kafka's "no epoch": the leader overwrites it on append. */
  partitionLeaderEpoch?: number;
  /** Sets attributes bit 3; decoders then report the batch's maxTimestamp for every record. */
  logAppendTime?: boolean;
  /** Default -1 (no idempotent producer). */
  producerId?: number;
  /** Default -1. */
  producerEpoch?: number;
  /** Default -1. */
  baseSequence?: number;
  /** Sets attributes bit 4: the records belong to a transaction (docs/transactions.md). */
  transactional?: boolean;
  /** Sets attributes bit 5: a control batch (a transaction marker, src/protocol/control-batch.ts). */
  control?: boolean;
}

/** A batch that is truncated, corrupt, or in a form this codec does not read. */
export class BatchFormatError extends Error {
  override readonly name: string = "BatchFormatError";
}

export function fail(message: string): never {
  throw new BatchFormatError(message);
}

function assertInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} ${value} is not an integer in [${min}, ${max}]`);
  }
}

function readSafeInt64(view: DataView, at: number, field: string): number {
  const value = readInt64(view, at);
  if (!Number.isSafeInteger(value)) {
    fail(`${field} is beyond ±(2^53 − 1), which a JS number cannot hold`);
  }
  return value;
}

function bytesFieldSize(field: Uint8Array | null): number {
  return field === null ? 1 : varintSize(field.length) + field.length;
}

function recordBodySize(record: RecordInput, timestampDelta: number, offsetDelta: number): number {
  let size = 1 + varlongSize(timestampDelta) + varintSize(offsetDelta);
  size += bytesFieldSize(record.key) + bytesFieldSize(record.value);
  const headers = record.headers;
  size += varintSize(headers.length);
  for (let i = 0; i < headers.length; i++) {
    const header = headers[i]!;
    const keyBytes = utf8Length(header.key);
    size += varintSize(keyBytes) + keyBytes + bytesFieldSize(header.value);
  }
  return size;
}

/**
 * Bytes one record takes inside a batch, its length varint included, given its timestamp
 * delta (from the batch's first record) and offset delta (its index in the batch). Lets a
 * caller cut a large request into batches under a byte bound before encoding any of them.
 */
export function encodedRecordSize(
  record: RecordInput,
  timestampDelta: number,
  offsetDelta: number,
): number {
  const body = recordBodySize(record, timestampDelta, offsetDelta);
  return varintSize(body) + body;
}

function writeBytesField(bytes: Uint8Array, at: number, field: Uint8Array | null): number {
  if (field === null) {
    bytes[at] = 1; // varint −1: null, distinct from an empty field (varint 0)
    return at + 1;
  }
  const length = field.length;
  const position = writeVarint(bytes, at, length);
  if (length <= 32) {
    // Short fields (keys, header values): a loop beats set()'s call and argument checks.
    for (let i = 0; i < length; i++) bytes[position + i] = field[i]!;
  } else {
    bytes.set(field, position);
  }
  return position + length;
}

/**
 * One record:
 *
 *   length          varint   bytes of the record after this field
 *   attributes      int8     unused by Kafka, always 0
 *   timestampDelta  varlong  timestamp − baseTimestamp
 *   offsetDelta     varint   offset − baseOffset (the record's index in the batch)
 *   keyLength       varint   −1: null key
 *   key             bytes
 *   valueLength     varint   −1: null value
 *   value           bytes
 *   headerCount     varint
 *   headers         headerCount × header:
 *     keyLength     varint   ≥ 0 (Kafka has no null header key)
 *     key           UTF-8
 *     valueLength   varint   −1: null value
 *     value         bytes
 */
function writeRecord(
  bytes: Uint8Array,
  at: number,
  record: RecordInput,
  body: number,
  timestampDelta: number,
  offsetDelta: number,
): number {
  let position = writeVarint(bytes, at, body);
  bytes[position++] = 0;
  position = writeVarlong(bytes, position, timestampDelta);
  position = writeVarint(bytes, position, offsetDelta);
  position = writeBytesField(bytes, position, record.key);
  position = writeBytesField(bytes, position, record.value);
  const headers = record.headers;
  position = writeVarint(bytes, position, headers.length);
  for (let i = 0; i < headers.length; i++) {
    const header = headers[i]!;
    const keyBytes = utf8Length(header.key);
    position = writeVarint(bytes, position, keyBytes);
    writeUtf8(bytes, position, header.key, keyBytes);
    position = writeBytesField(bytes, position + keyBytes, header.value);
  }
  return position;
}

/**
 * The batch, big-endian (offsets in bytes):
 *
 *    0  baseOffset            int64   offset of the first record; set by the leader on append
 *    8  batchLength           int32   bytes after this field (total − 12)
 *   12  partitionLeaderEpoch  int32   set by the leader on append
 *   16  magic                 int8    2
 *   17  crc                   uint32  CRC-32C of bytes 21 … end
 *  ┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄  fields below are covered by the CRC
 *   21  attributes            int16   bits 0-2 compression, 3 log-append time,
 *                                     4 transactional, 5 control
 *   23  lastOffsetDelta       int32   recordCount − 1
 *   27  baseTimestamp         int64   first record's timestamp (ms)
 *   35  maxTimestamp          int64   largest record timestamp, or the log-append time
 *   43  producerId            int64   −1: none
 *   51  producerEpoch         int16   −1: none
 *   53  baseSequence          int32   −1: none
 *   57  recordCount           int32   ≥ 1
 *   61  records               recordCount × record (see writeRecord)
 *
 * Sizes are computed first and the batch is written into one exact allocation. batchLength
 * is an int32, so a batch is below 2 GiB; Tributary's own bound (limits.ts batchBytesMax) is
 * the caller's to enforce, with encodedRecordSize. Timestamps and offsets must be safe
 * integers; invalid arguments throw RangeError.
 */
export function encodeRecordBatch(records: RecordInput[], options: EncodeOptions = {}): Uint8Array {
  const count = records.length;
  if (count < 1) throw new RangeError("a record batch holds at least one record");
  const baseOffset = options.baseOffset ?? 0;
  assertInteger("baseOffset", baseOffset, 0, Number.MAX_SAFE_INTEGER - (count - 1));
  const partitionLeaderEpoch = options.partitionLeaderEpoch ?? -1;
  assertInteger("partitionLeaderEpoch", partitionLeaderEpoch, -1 - int32Max, int32Max);
  const producerId = options.producerId ?? -1;
  assertInteger("producerId", producerId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const producerEpoch = options.producerEpoch ?? -1;
  assertInteger("producerEpoch", producerEpoch, -0x8000, 0x7fff);
  const baseSequence = options.baseSequence ?? -1;
  assertInteger("baseSequence", baseSequence, -1 - int32Max, int32Max);

  const baseTimestamp = records[0]!.timestamp;
  let maxTimestamp = baseTimestamp;
  const bodySizes = new Int32Array(count);
  let size = batchHeaderBytes;
  for (let i = 0; i < count; i++) {
    const record = records[i]!;
    const timestamp = record.timestamp;
    const timestampDelta = timestamp - baseTimestamp;
    if (!Number.isSafeInteger(timestamp) || !Number.isSafeInteger(timestampDelta)) {
      throw new RangeError(`record ${i}: timestamp ${timestamp} or its delta is not a safe integer`);
    }
    if (timestamp > maxTimestamp) maxTimestamp = timestamp;
    const body = recordBodySize(record, timestampDelta, i);
    bodySizes[i] = body;
    size += varintSize(body) + body;
  }
  if (size - logOverheadBytes > int32Max) {
    throw new RangeError(`a batch of ${size} bytes exceeds batchLength's int32`);
  }

  const bytes = new Uint8Array(size);
  const attributes = (options.logAppendTime ? timestampTypeLogAppendTime : 0) | (options.transactional ? transactionalFlag : 0) | (options.control ? controlFlag : 0);
  writeBatchHeader(bytes, { size, baseOffset, partitionLeaderEpoch, attributes, count, baseTimestamp, maxTimestamp, producerId, producerEpoch, baseSequence });
  let position = batchHeaderBytes;
  for (let i = 0; i < count; i++) {
    const record = records[i]!;
    const timestampDelta = record.timestamp - baseTimestamp;
    position = writeRecord(bytes, position, record, bodySizes[i]!, timestampDelta, i);
  }
  // Sizes and writes come from the same fields; a mismatch means a record changed mid-call.
  if (position !== size) throw new Error(`record batch: wrote ${position} bytes, sized ${size}`);
  writeBatchCrc(bytes);
  return bytes;
}

/** The header fields a batch's writer knows (the drawing above encodeRecordBatch); `size` is the whole batch's bytes. */
export interface BatchHeaderFields {
  size: number;
  baseOffset: number;
  partitionLeaderEpoch: number;
  attributes: number;
  count: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

/** Writes the 61-byte header at the start of `bytes`, but for the CRC (writeBatchCrc, once the rest is final). */
export function writeBatchHeader(bytes: Uint8Array, fields: BatchHeaderFields): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, batchHeaderBytes);
  writeInt64(view, 0, fields.baseOffset);
  view.setInt32(8, fields.size - logOverheadBytes);
  view.setInt32(partitionLeaderEpochAt, fields.partitionLeaderEpoch);
  bytes[magicAt] = batchMagic;
  view.setInt16(attributesAt, fields.attributes);
  view.setInt32(23, fields.count - 1);
  writeInt64(view, 27, fields.baseTimestamp);
  writeInt64(view, maxTimestampAt, fields.maxTimestamp);
  writeProducerFields(view, fields.producerId, fields.producerEpoch, fields.baseSequence);
  view.setInt32(57, fields.count);
}

/** producerId, producerEpoch and baseSequence of a batch's header (inside the CRC). */
export function writeProducerFields(view: DataView, producerId: number, producerEpoch: number, baseSequence: number): void {
  writeInt64(view, 43, producerId);
  view.setInt16(51, producerEpoch);
  view.setInt32(53, baseSequence);
}

/** Computes and stores the CRC-32C of the batch that is all of `bytes`. */
export function writeBatchCrc(bytes: Uint8Array): void {
  new DataView(bytes.buffer, bytes.byteOffset, batchHeaderBytes).setUint32(crcAt, crc32c(bytes, attributesAt, bytes.length));
}

/**
 * Reads and validates the 61-byte header of the batch at `at`: magic 2, the whole batch
 * present in `bytes`, recordCount ≥ 1 with lastOffsetDelta = recordCount − 1, int64 fields
 * within ±(2^53 − 1), baseOffset ≥ 0. Does not check the CRC (verifyBatchCrc does).
 */
export function readBatchHeader(bytes: Uint8Array, at = 0): BatchHeader {
  const available = bytes.length - at;
  if (!Number.isInteger(at) || at < 0 || available < 0) fail(`batch position ${at} is outside`);
  if (available < batchHeaderBytes) fail(`truncated batch at ${at}: ${available} bytes, no header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, batchHeaderBytes);
  const magic = view.getInt8(magicAt);
  if (magic !== batchMagic) fail(`batch at ${at} has magic ${magic}; only magic 2 is supported`);
  const batchLength = view.getInt32(8);
  if (batchLength < batchLengthMin) fail(`batch at ${at}: batchLength ${batchLength}`);
  if (batchLength > available - logOverheadBytes) {
    fail(`truncated batch at ${at}: ${logOverheadBytes + batchLength} bytes, ${available} present`);
  }
  const recordCount = view.getInt32(57);
  const lastOffsetDelta = view.getInt32(23);
  if (recordCount < 1 || lastOffsetDelta !== recordCount - 1) {
    fail(`batch at ${at}: recordCount ${recordCount} with lastOffsetDelta ${lastOffsetDelta}`);
  }
  const baseOffset = readSafeInt64(view, 0, "baseOffset");
  const baseOffsetMax = Number.MAX_SAFE_INTEGER - lastOffsetDelta;
  if (baseOffset < 0 || baseOffset > baseOffsetMax) fail(`batch at ${at}: baseOffset ${baseOffset}`);
  return {
    baseOffset,
    batchLength,
    partitionLeaderEpoch: view.getInt32(partitionLeaderEpochAt),
    magic,
    crc: view.getUint32(crcAt),
    attributes: view.getInt16(attributesAt),
    lastOffsetDelta,
    baseTimestamp: readSafeInt64(view, 27, "baseTimestamp"),
    maxTimestamp: readSafeInt64(view, 35, "maxTimestamp"),
    producerId: readSafeInt64(view, 43, "producerId"),
    producerEpoch: view.getInt16(51),
    baseSequence: view.getInt32(53),
    recordCount,
  };
}

/**
 * Total bytes of the batch at `at` (12 + batchLength). Needs only its first 12 bytes, so a
 * reader can size a batch from a short ranged read; validates nothing beyond them.
 */
export function batchByteLength(bytes: Uint8Array, at = 0): number {
  if (!Number.isInteger(at) || at < 0 || bytes.length - at < logOverheadBytes) {
    fail(`truncated batch at ${at}: no length field in ${bytes.length} bytes`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, logOverheadBytes);
  const batchLength = view.getInt32(8);
  if (batchLength < batchLengthMin) fail(`batch at ${at}: batchLength ${batchLength}`);
  return logOverheadBytes + batchLength;
}

/** Whether the stored CRC matches; throws BatchFormatError when the header itself is invalid. */
export function verifyBatchCrc(bytes: Uint8Array, at = 0): boolean {
  const header = readBatchHeader(bytes, at);
  const end = at + logOverheadBytes + header.batchLength;
  return crc32c(bytes, at + attributesAt, end) === header.crc;
}

function headerView(bytes: Uint8Array, at: number, width: number): DataView {
  if (!Number.isInteger(at) || at < 0 || at + width > bytes.length) {
    throw new RangeError(`batch position ${at} is outside 0..${bytes.length - width}`);
  }
  return new DataView(bytes.buffer, bytes.byteOffset + at, width);
}

/** Overwrites the batch's baseOffset in place; it is outside the CRC, so the CRC stays valid. */
export function setBaseOffset(bytes: Uint8Array, at: number, baseOffset: number): void {
  assertInteger("baseOffset", baseOffset, 0, Number.MAX_SAFE_INTEGER);
  writeInt64(headerView(bytes, at, 8), 0, baseOffset);
}

/** Overwrites the batch's partitionLeaderEpoch in place; outside the CRC too. */
export function setPartitionLeaderEpoch(bytes: Uint8Array, at: number, epoch: number): void {
  assertInteger("partitionLeaderEpoch", epoch, -1 - int32Max, int32Max);
  headerView(bytes, at, partitionLeaderEpochAt + 4).setInt32(partitionLeaderEpochAt, epoch);
}

/**
 * Marks the batch at `at` as LogAppendTime with `timestampMs` as its maxTimestamp — what
 * every record then reads as its timestamp — and recomputes the CRC (both fields lie inside
 * it). Kafka's broker does the same for topics with message.timestamp.type=LogAppendTime.
 */
export function stampLogAppendTime(bytes: Uint8Array, at: number, timestampMs: number): void {
  assertInteger("timestampMs", timestampMs, 0, Number.MAX_SAFE_INTEGER);
  const header = readBatchHeader(bytes, at);
  const view = headerView(bytes, at, batchHeaderBytes);
  view.setInt16(attributesAt, header.attributes | timestampTypeLogAppendTime);
  writeInt64(view, maxTimestampAt, timestampMs);
  view.setUint32(crcAt, crc32c(bytes, at + attributesAt, at + logOverheadBytes + header.batchLength));
}

/**
 * Walks concatenated batches, as Kafka's fetch responses and Tributary's segments carry them,
 * validating each header (not the CRC). Throws BatchFormatError at a partial trailing batch.
 * Every step advances by at least one header, so the walk is bounded by bytes.length / 61.
 */
export function* splitBatches(
  bytes: Uint8Array,
): Generator<{ header: BatchHeader; start: number; end: number }> {
  let start = 0;
  while (start < bytes.length) {
    const header = readBatchHeader(bytes, start);
    const end = start + logOverheadBytes + header.batchLength;
    yield { header, start, end };
    start = end;
  }
}
