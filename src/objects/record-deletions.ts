/**
 * Kafka's DeleteRecords on the partition's leader (docs/api.md, Delete records). The offset is
 * checked against the log first, nothing changed on a refusal; then the log start moves by the
 * cleaner's retention step (SegmentTier.applyRetention) — the manifest published to readers
 * with the new start, segments wholly below it out of R2, the held batches below it dropped,
 * the tier's new version sent to the followers — so that the log start moves one way only.
 */
import { TributaryError } from "../errors.ts";
import type { PartitionLog } from "../log/partition-log.ts";
import type { DeleteRecordsAnswer } from "../contracts/replica-api.ts";
import type { SegmentTier } from "./segment-tier.ts";

/** The log start `beforeOffset` asks for: −1 is the high watermark; past it is Kafka's OFFSET_OUT_OF_RANGE. */
export function requestedLogStart(log: PartitionLog, beforeOffset: number): number {
  if (!Number.isSafeInteger(beforeOffset) || beforeOffset < -1) {
    throw new TributaryError("INVALID_REQUEST", `beforeOffset is an offset, or -1 for the high watermark; got ${beforeOffset}`);
  }
  const offset = beforeOffset === -1 ? log.highWatermark : beforeOffset;
  if (offset > log.highWatermark) {
    throw new TributaryError("OFFSET_OUT_OF_RANGE", `records can be deleted up to the high watermark ${log.highWatermark}; ${offset} is past it`, {
      logStartOffset: log.logStartOffset,
      highWatermark: log.highWatermark,
    });
  }
  return offset;
}

/**
 * Moves the log start to `beforeOffset` through `clean` (the replica's cleaner, one run at a
 * time) and answers the new low watermark. A start already past it is answered as it is, as
 * Kafka does. A run already past its retention step when the request came leaves it to the
 * next one: two runs at most; a log start still short after them means this replica stopped
 * leading on the way.
 */
export async function deleteRecords(log: PartitionLog, tier: SegmentTier, beforeOffset: number, clean: () => Promise<void>): Promise<DeleteRecordsAnswer> {
  const offset = requestedLogStart(log, beforeOffset);
  if (offset > log.logStartOffset) {
    tier.requestLogStart(offset);
    for (let run = 0; run < 2 && log.logStartOffset < offset; run++) await clean();
    if (log.logStartOffset < offset) throw new TributaryError("NOT_LEADER_OR_FOLLOWER", "this replica stopped leading before the records were deleted; retry");
  }
  return { lowWatermark: log.logStartOffset };
}
