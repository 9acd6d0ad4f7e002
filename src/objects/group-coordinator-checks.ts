/**
 * The GroupCoordinator's pieces that need none of its state: checks of a request against topic
 * metadata and bounds (before anything is written), and committed offsets as rows and starts.
 */
import { TributaryError } from "../errors.ts";
import type { Assignment, AutoOffsetReset } from "../group/index.ts";
import { offsetMetadataLengthMax } from "../limits.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type { PartitionStart, Position } from "../contracts/group-coordinator-api.ts";
import type { Committed, CommittedOffset } from "./group-offsets-store.ts";

/** Topic ids whose deletion this object has seen; a commit racing a deletion must not revive them. */
const deletedTopicIdsMax = 1_000;

/** The last deletedTopicIdsMax topic ids deleted (the oldest is forgotten first). */
export class DeletedTopicIds {
  readonly #ids = new Set<string>();

  add(topicId: string): void {
    this.#ids.add(topicId);
    if (this.#ids.size <= deletedTopicIdsMax) return;
    const oldest = this.#ids.values().next();
    if (!oldest.done) this.#ids.delete(oldest.value);
  }

  has(topicId: string): boolean {
    return this.#ids.has(topicId);
  }
}

/** Positions as rows of the incarnation the metadata names; a deleted topic's are dropped. */
export function committedRows(positions: readonly (Position & { metadata?: string; leaderEpoch?: number })[], meta: ReadonlyMap<string, TopicMetadata>, deleted: DeletedTopicIds): CommittedOffset[] {
  const rows: CommittedOffset[] = [];
  for (const { topic, partition, offset, metadata, leaderEpoch } of positions) {
    const topicId = meta.get(topic)?.topicId;
    if (topicId === undefined || deleted.has(topicId)) continue;
    rows.push({ topicId, topic, partition, offset, metadata: metadata ?? "", leaderEpoch: leaderEpoch ?? -1 });
  }
  return rows;
}

/** A committed offset's leader epoch as answered: `leaderEpoch` where the commit carried one, nothing otherwise. */
export function leaderEpochOf(committed: Committed | undefined): { leaderEpoch?: number } {
  return committed === undefined || committed.leaderEpoch < 0 ? {} : { leaderEpoch: committed.leaderEpoch };
}

/** Where a poll starts each assigned partition: its committed offset, else the member's reset. */
export function partitionStarts(
  assignment: Assignment,
  meta: ReadonlyMap<string, TopicMetadata>,
  committedOf: (topicId: string) => Map<number, Committed>,
  resetFor: (topic: string, partition: number) => AutoOffsetReset,
): PartitionStart[] {
  const starts: PartitionStart[] = [];
  for (const { topic, partitions } of assignment) {
    const topicId = meta.get(topic)?.topicId;
    if (topicId === undefined) continue;
    const committed = committedOf(topicId);
    for (const partition of partitions) {
      starts.push({ topic, topicId, partition, committedOffset: committed.get(partition)?.offset ?? null, reset: resetFor(topic, partition) });
    }
  }
  return starts;
}

export function requirePartition(meta: ReadonlyMap<string, TopicMetadata>, topic: string, partition: number): void {
  const partitions = meta.get(topic)?.partitions.length;
  if (partitions === undefined) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic} does not exist`);
  if (partition >= partitions) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic} has no partition ${partition}`);
  }
}

/** Kafka's OffsetCommit refuses a metadata string past offset.metadata.max.bytes; over HTTP nothing of the request is written. */
export function requireMetadataFits(offsets: readonly { topic: string; partition: number; metadata?: string }[]): void {
  const tooLarge = offsets.filter(({ metadata }) => metadata !== undefined && metadata.length > offsetMetadataLengthMax);
  if (tooLarge.length === 0) return;
  const partitions = tooLarge.map(({ topic, partition }) => ({ topic, partition }));
  throw new TributaryError("OFFSET_METADATA_TOO_LARGE", `a commit's metadata is at most ${offsetMetadataLengthMax} characters`, { partitions, metadataMax: offsetMetadataLengthMax });
}

export function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_REQUEST", message);
}
