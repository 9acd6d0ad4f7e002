/**
 * Compressed RecordBatch v2 (issue 27; the format in record-batch.ts): the 61-byte header
 * stays as it is — offsets, timestamps, producer fields, record count — and only the records
 * after it are compressed as one block, the codec in attributes bits 0-2. So a leader assigns
 * offsets to a compressed batch without touching its records (ARCHITECTURE.md decision 16),
 * and decoding means inflating the records section, within decompressedBatchBytesMax.
 */
import { decompressedBatchBytesMax } from "../limits.ts";
import { codecBits, codecOfBits, compressBytes, decompressBytes, type CompressionCodec } from "./compression/codecs.ts";
import { attributesAt, batchHeaderBytes, compressionMask, logOverheadBytes, readBatchHeader, writeBatchCrc, type BatchHeader } from "./record-batch.ts";

/** The records of a batch as bytes[start, end): the batch's own bytes when uncompressed. */
export interface RecordsSection {
  bytes: Uint8Array;
  start: number;
  end: number;
}

/** A batch's codec by its attributes (undefined for bits 5-7, which name none). */
export function batchCodec(header: Pick<BatchHeader, "attributes">): CompressionCodec | undefined {
  return codecOfBits(header.attributes & compressionMask);
}

/**
 * The records section of the batch at `at` whose header is `header`, inflated when the batch
 * is compressed, into at most `bytesMax` bytes. Throws CompressionError (a BatchFormatError).
 */
export function batchRecordsSection(bytes: Uint8Array, at: number, header: BatchHeader, bytesMax = decompressedBatchBytesMax): RecordsSection {
  const start = at + batchHeaderBytes;
  const end = at + logOverheadBytes + header.batchLength;
  const bits = header.attributes & compressionMask;
  if (bits === 0) return { bytes, start, end };
  const records = decompressBytes(bits, bytes.subarray(start, end), bytesMax);
  return { bytes: records, start: 0, end: records.length };
}

/** A batch of `header` (from `source`) around `records`, already in the codec of `bits`: a new CRC. */
function withRecords(source: Uint8Array, records: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(batchHeaderBytes + records.length);
  out.set(source.subarray(0, batchHeaderBytes));
  out.set(records, batchHeaderBytes);
  const view = new DataView(out.buffer, out.byteOffset, batchHeaderBytes);
  view.setInt32(8, out.length - logOverheadBytes);
  view.setInt16(attributesAt, (view.getInt16(attributesAt) & ~compressionMask) | bits);
  writeBatchCrc(out);
  return out;
}

/**
 * The uncompressed batch that is all of `batch` with its records compressed by `codec` (the
 * same batch for "none"). `preferNative` lets the client use Node's libzstd where it exists.
 */
export function compressBatch(batch: Uint8Array, codec: CompressionCodec, options: { preferNative?: boolean } = {}): Uint8Array {
  if (codec === "none") return batch;
  const header = readBatchHeader(batch, 0);
  if ((header.attributes & compressionMask) !== 0) throw new RangeError("compressBatch takes an uncompressed batch");
  const records = batch.subarray(batchHeaderBytes, logOverheadBytes + header.batchLength);
  return withRecords(batch, compressBytes(codec, records, options), codecBits(codec));
}

/**
 * The batch that is all of `batch` in `codec` instead of its own (the same bytes when it is
 * in it already): what a topic's `compression.type` other than `producer` asks. Inflates
 * within `bytesMax`; throws CompressionError.
 */
export function recompressBatch(batch: Uint8Array, codec: CompressionCodec, bytesMax = decompressedBatchBytesMax): Uint8Array {
  const header = readBatchHeader(batch, 0);
  const bits = codecBits(codec);
  if ((header.attributes & compressionMask) === bits) return batch;
  const section = batchRecordsSection(batch, 0, header, bytesMax);
  const records = section.bytes.subarray(section.start, section.end);
  return withRecords(batch, compressBytes(codec, records), bits);
}
