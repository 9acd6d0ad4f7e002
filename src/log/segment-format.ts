/**
 * A sealed segment as one immutable R2 object (ARCHITECTURE.md decision 6). Pure: the
 * partition object writes the bytes create-only, readers fetch ranges of them.
 */
import { readInt64, writeInt64 } from "../protocol/int64.ts";
import { crc32c } from "../protocol/crc32c.ts";
import { batchByteLength, batchHeaderBytes, readBatchHeader } from "../protocol/record-batch.ts";
import type { StoredBatch } from "./log-store.ts";
import { segmentIndexIntervalBytes } from "../limits.ts";

/** "TRSG": Tributary segment. */
export const segmentMagic = 0x54525347;
export const segmentVersion = 1;
export const segmentIndexEntryBytes = 36;
export const segmentFooterBytes = 22;

const int32Max = 0x7fffffff;

/** One index entry: a run of whole batches, found at [position, position + length) of the object. */
export interface SegmentIndexEntry {
  /** The first batch's base offset. */
  baseOffset: number;
  /** The last batch's last offset. Compacted runs may hold gaps between their batches. */
  lastOffset: number;
  position: number;
  length: number;
  /** The largest batch maxTimestamp in the run. */
  maxTimestamp: number;
}

export interface EncodedSegment {
  bytes: Uint8Array;
  index: SegmentIndexEntry[];
  /** segmentChecksum of the object: a retried create-only put compares it with the stored object's. */
  checksum: number;
}

export interface SegmentFooter {
  version: number;
  entryCount: number;
  /** Where the index starts: the bytes of batches before it. */
  indexStart: number;
  indexCrc: number;
  /** Bytes at the end of the object that hold the index and the footer. */
  tailBytes: number;
}

/** A segment object (or a tail of one) that is truncated, corrupt, or of another version. */
export class SegmentFormatError extends Error {
  override readonly name = "SegmentFormatError";
  /** Set when the bytes were a tail too short to hold the index: the tail length that would. */
  readonly tailBytesNeeded: number | undefined;

  constructor(message: string, tailBytesNeeded?: number) {
    super(message);
    this.tailBytesNeeded = tailBytesNeeded;
  }
}

function fail(message: string, tailBytesNeeded?: number): never {
  throw new SegmentFormatError(message, tailBytesNeeded);
}

function readSafeInt64(view: DataView, at: number, field: string): number {
  const value = readInt64(view, at);
  if (!Number.isSafeInteger(value)) fail(`${field} is beyond ±(2^53 − 1)`);
  return value;
}

/** The batch's bytes must be one whole batch whose header agrees with its metadata. */
function checkStoredBatch(batch: StoredBatch, index: number, previousLastOffset: number): void {
  const header = readBatchHeader(batch.bytes, 0);
  const lastOffset = header.baseOffset + header.lastOffsetDelta;
  if (batchByteLength(batch.bytes, 0) !== batch.bytes.length) {
    throw new RangeError(`batch ${index}: ${batch.bytes.length} bytes hold more or less than one batch`);
  }
  if (header.baseOffset !== batch.baseOffset || lastOffset !== batch.lastOffset || header.maxTimestamp !== batch.maxTimestamp) {
    throw new RangeError(`batch ${index}: its metadata disagrees with its header (offsets ${header.baseOffset}..${lastOffset})`);
  }
  if (batch.baseOffset <= previousLastOffset) {
    throw new RangeError(`batch ${index} at ${batch.baseOffset} does not follow offset ${previousLastOffset}`);
  }
}

/**
 * The object, big-endian (positions in bytes):
 *
 *   0            batches    the stored batches, concatenated exactly as stored (Kafka's
 *                           RecordBatch v2), ascending offsets, never overlapping; a
 *                           compacted segment may leave gaps between batches
 *   indexStart   index      entryCount × 36-byte entry, one per run of whole batches:
 *                  +0  baseOffset    int64   first batch's base offset
 *                  +8  lastOffset    int64   last batch's last offset
 *                 +16  position      int64   where the run starts: runs are contiguous, the
 *                                            first at 0, the last ending at indexStart
 *                 +24  length        int32   bytes of the run
 *                 +28  maxTimestamp  int64   largest batch maxTimestamp in the run
 *   end − 22     footer
 *                  +0  magic         uint32  0x54525347 "TRSG"
 *                  +4  version       uint16  1
 *                  +6  entryCount    uint32  ≥ 1
 *                 +10  indexStart    int64   bytes of batches
 *                 +18  indexCrc      uint32  CRC-32C of indexStart … end − 4: the index and
 *                                            the footer before this field
 *
 * So a ranged read of [position, position + length) yields whole Kafka batches, which a
 * fetch serves as they are, and the tail alone (index + footer, `tailBytes`) locates them.
 * A run closes once it is `indexIntervalBytes` long (default segmentIndexIntervalBytes,
 * Kafka's index.interval.bytes; 0 gives one entry per batch), so a batch that long has an
 * entry of its own and the index stays sparse for small batches. Offsets and timestamps are
 * safe integers; the object is as large as its batches plus 36 bytes a run plus 22; a run is
 * below 2 GiB (int32). Batches are checked against their metadata (header only, not CRCs);
 * invalid arguments throw RangeError, malformed batch headers BatchFormatError.
 */
export function encodeSegment(
  batches: readonly StoredBatch[],
  options: { indexIntervalBytes?: number } = {},
): EncodedSegment {
  if (batches.length === 0) throw new RangeError("a segment holds at least one batch");
  const interval = options.indexIntervalBytes ?? segmentIndexIntervalBytes;
  if (!Number.isSafeInteger(interval) || interval < 0) throw new RangeError(`indexIntervalBytes ${interval}`);
  const index: SegmentIndexEntry[] = [];
  let run: SegmentIndexEntry | undefined;
  let position = 0;
  let previousLastOffset = -1;
  for (let i = 0; i < batches.length; i++) {
    const batch = batches[i]!;
    checkStoredBatch(batch, i, previousLastOffset);
    const length = batch.bytes.length;
    if (run && run.length < interval && run.length + length <= int32Max) {
      run.lastOffset = batch.lastOffset;
      run.length += length;
      run.maxTimestamp = Math.max(run.maxTimestamp, batch.maxTimestamp);
    } else {
      run = { baseOffset: batch.baseOffset, lastOffset: batch.lastOffset, position, length, maxTimestamp: batch.maxTimestamp };
      index.push(run);
    }
    position += length;
    previousLastOffset = batch.lastOffset;
  }

  const indexStart = position;
  const size = indexStart + index.length * segmentIndexEntryBytes + segmentFooterBytes;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  position = 0;
  for (const batch of batches) {
    bytes.set(batch.bytes, position);
    position += batch.bytes.length;
  }
  for (const entry of index) {
    writeInt64(view, position, entry.baseOffset);
    writeInt64(view, position + 8, entry.lastOffset);
    writeInt64(view, position + 16, entry.position);
    view.setInt32(position + 24, entry.length);
    writeInt64(view, position + 28, entry.maxTimestamp);
    position += segmentIndexEntryBytes;
  }
  view.setUint32(position, segmentMagic);
  view.setUint16(position + 4, segmentVersion);
  view.setUint32(position + 6, index.length);
  writeInt64(view, position + 10, indexStart);
  view.setUint32(position + 18, crc32c(bytes, indexStart, size - 4));
  return { bytes, index: index.map((entry) => ({ ...entry })), checksum: segmentChecksum(bytes, batches.length, indexStart) };
}

/** Bytes of a batch's header up to and including its CRC: what the batch's own CRC-32C does not cover. */
const batchPrefixBytes = 21;

/**
 * The object's checksum for create-only retries, without a second pass over the payload:
 * CRC-32C of each batch's first 21 bytes (base offset, length, leader epoch, magic, its own
 * CRC-32C of the rest of the batch) followed by the index and footer. Two objects with the
 * same checksum hold the same bytes, up to CRC collisions.
 */
export function segmentChecksum(bytes: Uint8Array, batchCount: number, indexStart: number): number {
  const tailBytes = bytes.length - indexStart;
  const input = new Uint8Array(batchCount * batchPrefixBytes + tailBytes);
  let at = 0;
  for (let position = 0; position < indexStart; position += batchByteLength(bytes, position)) {
    input.set(bytes.subarray(position, position + batchPrefixBytes), at);
    at += batchPrefixBytes;
  }
  input.set(bytes.subarray(indexStart), at);
  return crc32c(input, 0, at + tailBytes);
}

/**
 * Reads and checks the footer at the end of `bytes`, which are the last `bytes.length` bytes
 * of an object of `objectBytes` bytes (the whole object by default): magic, version, at
 * least one entry and one batch, and sizes that add up to the object exactly. Does not check
 * the index CRC (decodeSegmentIndex does). A reader that knows only the object's size reads
 * its last segmentFooterBytes, then its last `tailBytes`.
 */
export function readSegmentFooter(bytes: Uint8Array, objectBytes = bytes.length): SegmentFooter {
  if (!Number.isSafeInteger(objectBytes) || objectBytes < bytes.length) {
    throw new RangeError(`objectBytes ${objectBytes} is less than the ${bytes.length} bytes given`);
  }
  if (bytes.length < segmentFooterBytes) {
    fail(`${bytes.length} bytes cannot hold the ${segmentFooterBytes}-byte footer`, objectBytes < segmentFooterBytes ? undefined : segmentFooterBytes);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - segmentFooterBytes, segmentFooterBytes);
  const magic = view.getUint32(0);
  if (magic !== segmentMagic) fail(`segment magic 0x${magic.toString(16)}, expected 0x${segmentMagic.toString(16)}`);
  const version = view.getUint16(4);
  if (version !== segmentVersion) fail(`segment version ${version}; only version ${segmentVersion} is read`);
  const entryCount = view.getUint32(6);
  const indexStart = readSafeInt64(view, 10, "indexStart");
  const tailBytes = entryCount * segmentIndexEntryBytes + segmentFooterBytes;
  if (entryCount < 1 || indexStart < batchHeaderBytes || indexStart + tailBytes !== objectBytes) {
    fail(`footer: ${entryCount} entries at ${indexStart} do not fill an object of ${objectBytes} bytes`);
  }
  return { version, entryCount, indexStart, indexCrc: view.getUint32(18), tailBytes };
}

/**
 * The index of a segment object, from the whole object or from a tail of it (`bytes` are
 * then its last bytes and `objectBytes` its size), after checking the footer, the CRC over
 * the index and footer, and the index's structure: runs contiguous from position 0 to the
 * index, each at least a batch header long, offsets ascending without overlap. Throws
 * SegmentFormatError, and nothing else, on any malformed input; a tail too short for the
 * index gives one with `tailBytesNeeded` set.
 */
export function decodeSegmentIndex(bytes: Uint8Array, objectBytes = bytes.length): SegmentIndexEntry[] {
  const footer = readSegmentFooter(bytes, objectBytes);
  const tailStart = objectBytes - bytes.length;
  if (footer.indexStart < tailStart) {
    fail(`the index starts ${footer.tailBytes} bytes before the object's end, ${bytes.length} given`, footer.tailBytes);
  }
  const at = footer.indexStart - tailStart;
  const crc = crc32c(bytes, at, bytes.length - 4);
  if (crc !== footer.indexCrc) fail(`segment index CRC-32C ${crc}, stored ${footer.indexCrc}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, footer.entryCount * segmentIndexEntryBytes);
  const index: SegmentIndexEntry[] = new Array(footer.entryCount);
  let expectedPosition = 0;
  let previousLastOffset = -1;
  for (let i = 0; i < footer.entryCount; i++) {
    const entryAt = i * segmentIndexEntryBytes;
    const entry: SegmentIndexEntry = {
      baseOffset: readSafeInt64(view, entryAt, "baseOffset"),
      lastOffset: readSafeInt64(view, entryAt + 8, "lastOffset"),
      position: readSafeInt64(view, entryAt + 16, "position"),
      length: view.getInt32(entryAt + 24),
      maxTimestamp: readSafeInt64(view, entryAt + 28, "maxTimestamp"),
    };
    if (entry.position !== expectedPosition || entry.length < batchHeaderBytes) {
      fail(`index entry ${i}: ${entry.length} bytes at ${entry.position}, expected a run at ${expectedPosition}`);
    }
    if (entry.baseOffset <= previousLastOffset || entry.lastOffset < entry.baseOffset) {
      fail(`index entry ${i}: offsets ${entry.baseOffset}..${entry.lastOffset} after ${previousLastOffset}`);
    }
    index[i] = entry;
    expectedPosition += entry.length;
    previousLastOffset = entry.lastOffset;
  }
  if (expectedPosition !== footer.indexStart) fail(`index runs end at ${expectedPosition}, the index starts at ${footer.indexStart}`);
  return index;
}

/** The bytes of batches in a whole segment object: what precedes its index. */
export function segmentBatchBytes(bytes: Uint8Array): Uint8Array {
  return bytes.subarray(0, readSegmentFooter(bytes).indexStart);
}
