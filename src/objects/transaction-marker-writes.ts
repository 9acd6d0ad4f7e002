/**
 * Where the transaction coordinator writes its markers into partitions: the data plane's
 * `writeTransactionMarkers` (src/data-plane/transaction-markers.ts, the partition side of issue
 * 28: it finds each leader, follows leader moves, and is ok only when every partition holds
 * the marker; an error names the partitions still without it in `data.failed`, each with its
 * code).
 */
import type { Result } from "../errors.ts";
import { groupStub } from "../contracts/stubs.ts";
import { writeTransactionMarkers } from "../data-plane/transaction-markers.ts";
import type { TopicPartition, TransactionMarker, TransactionResult } from "../transactions/transaction-metadata.ts";

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

/** One round of a decision's markers, to every partition and group in parallel: those that hold it now (the alarm retries the rest). */
export async function writeMarkerRound(
  env: Env,
  marker: TransactionMarker & { coordinatorEpoch: number },
  pending: { partitions: TopicPartition[]; groups: string[] },
): Promise<{ partitions: TopicPartition[]; groups: string[] }> {
  const [partitions, groups] = await Promise.all([
    pending.partitions.length === 0 ? [] : partitionMarkers(env, marker, pending.partitions),
    Promise.all(pending.groups.map(async (group) => ((await groupMarker(env, group, marker)) ? [group] : []))).then((written) => written.flat()),
  ]);
  return { partitions, groups };
}

async function partitionMarkers(env: Env, marker: PartitionMarkerRequest, partitions: TopicPartition[]): Promise<TopicPartition[]> {
  try {
    return writtenPartitions(partitions, await writePartitionMarkers(env, marker, partitions));
  } catch (error) {
    console.warn("transaction markers to partitions failed; the alarm retries", error);
    return [];
  }
}

async function groupMarker(env: Env, group: string, marker: TransactionMarker & { coordinatorEpoch: number }): Promise<boolean> {
  try {
    return (await groupStub(env, group).transactionMarker(group, marker)).ok;
  } catch (error) {
    console.warn(`transaction marker to group ${group} failed; the alarm retries`, error);
    return false;
  }
}
