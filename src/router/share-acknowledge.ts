import { TributaryError, unwrap, type ErrorCode } from "../errors.ts";
import type { LeaseAcknowledgement } from "../objects/share-partition-api.ts";
import { sharePartitionStub } from "../objects/stubs.ts";
import type { ShareAcknowledgement, ShareFetchAcknowledgement } from "../protocol/share-schemas.ts";
import { topicMetadata } from "./metadata-cache.ts";
import { asTributaryError } from "./http-errors.ts";
import { writeHandedOutDeadLetters } from "./share-dead-letters.ts";
import { placementOf } from "./leader-calls.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type { SharePartitionKey } from "../objects/share-partition-api.ts";

/** Per partition: all of its acknowledgements applied, or none and why. */
export interface AcknowledgeResult {
  topic: string;
  partition: number;
  error?: { code: ErrorCode; message: string };
}

/** One partition's acknowledgements, from any number of leases. */
export interface PartitionAcknowledgements {
  topic: string;
  partition: number;
  entries: LeaseAcknowledgement[];
}

/** A share-partition's identity for a partition of a topic, near its leader now. */
export function sharePartitionKey(group: string, topic: TopicMetadata, partition: number): SharePartitionKey {
  return { group, topic: topic.name, topicId: topic.topicId, partition, region: placementOf(topic, partition).leader };
}

export function partitionKeyOf(topic: string, partition: number): string {
  return JSON.stringify([topic, partition]);
}

/** Acknowledgements grouped by partition (in the order first named), each keeping its lease. */
export function acknowledgementsByPartition(acknowledgements: readonly ShareFetchAcknowledgement[]): Map<string, PartitionAcknowledgements> {
  const byPartition = new Map<string, PartitionAcknowledgements>();
  for (const { topic, partition, offsets, type, lease } of acknowledgements) {
    const key = partitionKeyOf(topic, partition);
    const entry = byPartition.get(key) ?? { topic, partition, entries: [] };
    entry.entries.push({ lease, offsets, type });
    byPartition.set(key, entry);
  }
  return byPartition;
}

/**
 * The TypeScript entry point of `POST /v1/share-groups/{group}/acknowledge` from inside the
 * Worker: one lease's acknowledgements, one call to each partition's share-partition (all of
 * a partition's offsets or none). Authorization is the caller's (group read, topic read).
 */
export async function shareAcknowledge(env: Env, group: string, lease: string, acknowledgements: readonly ShareAcknowledgement[]): Promise<AcknowledgeResult[]> {
  const byPartition = acknowledgementsByPartition(acknowledgements.map((acknowledgement) => ({ ...acknowledgement, lease })));
  return sortResults(await acknowledgeAll(env, group, [...byPartition.values()]));
}

/** Results in topic, then partition order. */
export function sortResults(results: AcknowledgeResult[]): AcknowledgeResult[] {
  return results.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

/** Applies each partition's acknowledgements; a partition's failure is its result's error, never the request's. */
export async function acknowledgeAll(env: Env, group: string, partitions: readonly PartitionAcknowledgements[]): Promise<AcknowledgeResult[]> {
  return Promise.all(
    partitions.map(async ({ topic: name, partition, entries }): Promise<AcknowledgeResult> => {
      try {
        const topic = await topicMetadata(env, name);
        const key = sharePartitionKey(group, topic, partition);
        const work = unwrap(await sharePartitionStub(env, key).acknowledge(key, entries));
        await writeHandedOutDeadLetters(env, topic, key, work);
        return { topic: name, partition };
      } catch (error) {
        const refused = asTributaryError(error);
        if (refused.status >= 500 && !(error instanceof TributaryError)) throw error;
        return { topic: name, partition, error: { code: refused.code, message: refused.message } };
      }
    }),
  );
}
