/**
 * The binary transport (docs/api.md, "Binary record batches"): request and response bodies
 * that are one or more Kafka RecordBatch v2 (magic 2) batches, concatenated, exactly as a
 * partition stores them. Produce sends it as Content-Type; fetch asks for it with Accept.
 */
export const recordBatchContentType = "application/vnd.tributary.record-batch";

/** Response headers of a binary fetch: what the JSON answer carries beside the records. */
export const fetchHeaders = {
  highWatermark: "Tributary-High-Watermark",
  logStartOffset: "Tributary-Log-Start-Offset",
  nextOffset: "Tributary-Next-Offset",
  /** The first offset of the oldest open transaction, else the high watermark (docs/transactions.md). */
  lastStableOffset: "Tributary-Last-Stable-Offset",
  /** read_committed: the aborted transactions meeting the batches, JSON `[{producerId, firstOffset, lastOffset}]`; absent when none. */
  abortedTransactions: "Tributary-Aborted-Transactions",
} as const;

/** Whether a Content-Type or Accept header names the record-batch type. */
export function isRecordBatchType(header: string | null | undefined): boolean {
  return header?.toLowerCase().includes(recordBatchContentType) ?? false;
}
