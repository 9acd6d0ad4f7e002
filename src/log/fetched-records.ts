import { readBatchHeader, type DecodedRecord } from "../protocol/record-batch.ts";
import { decodeRecordBatch } from "../protocol/record-batch-decode.ts";
import { recordPayloadBytes } from "../protocol/record-scan.ts";
import { isControlBatch, isTransactionalBatch } from "../protocol/control-batch.ts";
import { isAbortedBatch, type AbortedTransaction } from "../protocol/aborted-transactions.ts";

export interface RecordWindow {
  /** The first offset wanted: records before it in the first batch are skipped. */
  fromOffset: number;
  /** The high watermark (read_uncommitted) or the last stable offset (read_committed): records at or after it are not readable. */
  untilOffset: number;
  /** read_committed: the aborted transactions whose records are skipped (the partition's index). */
  abortedTransactions?: readonly AbortedTransaction[];
  maxRecords: number;
  /** Bounds the records' key, value and header bytes; the first record is returned whatever its size. */
  maxBytes: number;
}

/**
 * The records of fetched batches that a reader may see: within [fromOffset, untilOffset),
 * at most maxRecords, and within maxBytes except that the first record always comes (as
 * Kafka, so a record larger than maxBytes can still be consumed). Returns the records and
 * the offset to continue from. The batches are ones this service stored (their CRC is not
 * checked again). Control batches (transaction markers) are never records; with
 * `abortedTransactions` (read_committed), neither are the transactional batches they name.
 */
export function recordsInWindow(
  batches: readonly Uint8Array[],
  window: RecordWindow,
): { records: DecodedRecord[]; nextOffset: number } {
  const records: DecodedRecord[] = [];
  let nextOffset = window.fromOffset;
  let bytes = 0;
  for (const batch of batches) {
    const skipped = skippedBatch(batch, window.abortedTransactions);
    if (skipped) {
      if (skipped.baseOffset >= window.untilOffset) return { records, nextOffset };
      nextOffset = Math.max(nextOffset, Math.min(skipped.lastOffset + 1, window.untilOffset));
      continue;
    }
    // Stored batches: their CRC was checked when produced; a fetch does not pay a second pass for it.
    const { header, records: batchRecords } = decodeRecordBatch(batch, 0, { checkCrc: false });
    for (const record of batchRecords) {
      if (record.offset < nextOffset) continue;
      if (record.offset >= window.untilOffset || records.length >= window.maxRecords) {
        return { records, nextOffset };
      }
      const size = recordPayloadBytes(record);
      if (records.length > 0 && bytes + size > window.maxBytes) return { records, nextOffset };
      records.push(record);
      bytes += size;
      nextOffset = record.offset + 1;
    }
    // A whole batch read: continue after its last offset, even where compaction left a gap.
    nextOffset = Math.max(nextOffset, Math.min(header.baseOffset + header.lastOffsetDelta + 1, window.untilOffset));
  }
  return { records, nextOffset };
}

/** A batch no reader sees as records (a marker, or an aborted transaction's batch): its offsets; else undefined. */
export function skippedBatch(batch: Uint8Array, aborted: readonly AbortedTransaction[] | undefined): { baseOffset: number; lastOffset: number } | undefined {
  const header = readBatchHeader(batch, 0);
  if (!isTransactionalBatch(header.attributes)) return undefined;
  const span = { baseOffset: header.baseOffset, lastOffset: header.baseOffset + header.lastOffsetDelta };
  if (isControlBatch(header.attributes)) return span;
  return isAbortedBatch(header.producerId, header.baseOffset, aborted) ? span : undefined;
}
