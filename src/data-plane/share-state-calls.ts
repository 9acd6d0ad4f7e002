import { TributaryError, type Result } from "../errors.ts";
import type { SharePartitionKey } from "../contracts/share-partition-api.ts";
import { sharePartitionStub, type StubOf } from "../contracts/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callWithOneRetry, placementOf } from "./leader-calls.ts";
import { topicMetadata } from "./metadata-cache.ts";

/**
 * Calls to a share-partition's state (docs/api.md, Share groups, "Where the state lives"): the
 * state replica in the partition leader's region leads it, at the partition's leader epoch
 * (src/replication/state-replication.ts). As for the log, in the same loop (callWithOneRetry
 * in leader-calls.ts): a stale answer (NOT_LEADER_OR_FOLLOWER: the metadata was old, or the
 * replica was deposed and answered nothing) refreshes the metadata and retries once; a replica
 * that does not answer is reported to the controller, which elects a new leader when the
 * partition's leader is really gone, and the call is answered with a retriable
 * LEADER_NOT_AVAILABLE (its write may have landed), never called again. NOT_ENOUGH_REPLICAS
 * refreshes the metadata too, and is answered as it is.
 */

export type ShareStateStub = StubOf<Env["SHARE_PARTITIONS"]>;

/** A share-partition's identity for a partition of a topic, with the partition's placement now. */
export function sharePartitionKey(group: string, topic: TopicMetadata, partition: number): SharePartitionKey {
  const placement = placementOf(topic, partition);
  return {
    group,
    topic: topic.name,
    topicId: topic.topicId,
    partition,
    region: placement.leader,
    replicas: placement.replicas,
    leaderEpoch: placement.leaderEpoch,
    isr: placement.isr,
  };
}

/** Calls the leading state replica of a share-partition (see above); answers the call's value or throws its error. */
export async function callShareState<T>(
  env: Env,
  initial: TopicMetadata,
  group: string,
  partition: number,
  action: (stub: ShareStateStub, key: SharePartitionKey) => Promise<Result<T>>,
): Promise<T> {
  try {
    return await callWithOneRetry(
      env,
      initial,
      partition,
      (topic) => {
        const key = sharePartitionKey(group, topic, partition);
        return action(sharePartitionStub(env, key), key);
      },
      {
        retryOn: (error) => error.code === "NOT_LEADER_OR_FOLLOWER",
        retryUnreachable: false,
        unreachable: (topic, placement) => `the share-partition state of ${topic.name} partition ${partition} in ${placement.leader} did not answer; retry shortly`,
      },
    );
  } catch (error) {
    // An in-sync state replica did not answer: the write is not committed; the ISR may shrink meanwhile.
    if (error instanceof TributaryError && error.code === "NOT_ENOUGH_REPLICAS") await topicMetadata(env, initial.name, { refresh: true });
    throw error;
  }
}
