import { asTributaryError, TributaryError, type ErrorCode } from "../errors.ts";
import type { LeaseAcknowledgement } from "../contracts/share-partition-api.ts";
import type { ShareAcknowledgement, ShareFetchAcknowledgement } from "../protocol/share-schemas.ts";
import { topicMetadata } from "./metadata-cache.ts";
import { writeHandedOutDeadLetters } from "./share-dead-letters.ts";
import { callShareState, sharePartitionKey } from "./share-state-calls.ts";

export { sharePartitionKey };

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
        const work = await callShareState(env, topic, group, partition, (stub, key) => stub.acknowledge(key, entries));
        await writeHandedOutDeadLetters(env, topic, sharePartitionKey(group, topic, partition), work);
        return { topic: name, partition };
      } catch (error) {
        const refused = asTributaryError(error);
        if (refused.status >= 500 && !(error instanceof TributaryError)) throw error;
        return { topic: name, partition, error: { code: refused.code, message: refused.message } };
      }
    }),
  );
}
