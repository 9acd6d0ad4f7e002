/**
 * Where the transaction coordinator writes its markers into partitions: the data plane's
 * `writeTransactionMarkers` (src/data-plane/transaction-markers.ts, the partition side of issue
 * 28: it finds each leader, follows leader moves, and is ok only when every partition holds
 * the marker; an error names the partitions still without it in `data.failed`, each with its
 * code).
 */
import type { Result } from "../errors.ts";
import { writeTransactionMarkers } from "../data-plane/transaction-markers.ts";
import type { TopicPartition, TransactionResult } from "../transactions/transaction-metadata.ts";

export interface PartitionMarkerRequest {
  producerId: number;
  producerEpoch: number;
  result: TransactionResult;
  coordinatorEpoch: number;
}

export function writePartitionMarkers(env: Env, marker: PartitionMarkerRequest, partitions: TopicPartition[]): Promise<Result<void>> {
  return writeTransactionMarkers(env, marker, partitions);
}

/**
 * The partitions a round wrote: all on ok, else those the error does not name as failed (none,
 * when it names none). A partition that refused the marker as fenced (INVALID_PRODUCER_EPOCH:
 * it saw a newer epoch of the producer id, so a later end already closed it) is done: retrying
 * could never succeed.
 */
export function writtenPartitions(partitions: readonly TopicPartition[], result: Result<void>): TopicPartition[] {
  if (result.ok) return [...partitions];
  const failed = result.error.data?.["failed"];
  if (!Array.isArray(failed)) return [];
  const retry = new Set(
    (failed as (TopicPartition & { code?: string })[]).filter((entry) => entry.code !== "INVALID_PRODUCER_EPOCH").map((entry) => `${entry.topic}\u0000${entry.partition}`),
  );
  return partitions.filter((partition) => !retry.has(`${partition.topic}\u0000${partition.partition}`));
}
