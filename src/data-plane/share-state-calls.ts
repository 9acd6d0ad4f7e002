import { TributaryError, type Result } from "../errors.ts";
import type { SharePartitionKey } from "../objects/share-partition-api.ts";
import type { SharePartitionState } from "../objects/share-partition-state.ts";
import { sharePartitionStub } from "../objects/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { placementOf, reportUnreachable } from "./leader-calls.ts";
import { topicMetadata } from "./metadata-cache.ts";

/**
 * Calls to a share-partition's state (docs/api.md, Share groups, "Where the state lives"): the
 * state replica in the partition leader's region leads it, at the partition's leader epoch
 * (src/share/share-state-replication.ts). As for the log (leader-calls.ts): a stale answer
 * (NOT_LEADER_OR_FOLLOWER: the metadata was old, or the replica was deposed and answered
 * nothing) refreshes the metadata and retries once; a replica that does not answer is reported
 * to the controller, which elects a new leader when the partition's leader is really gone, and
 * the call is answered with a retriable LEADER_NOT_AVAILABLE (its write may have landed).
 */

export type ShareStateStub = DurableObjectStub<SharePartitionState>;

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
  let topic = initial;
  for (let attempt = 0; ; attempt++) {
    const key = sharePartitionKey(group, topic, partition);
    let result: Result<T>;
    try {
      result = await action(sharePartitionStub(env, key), key);
    } catch {
      await reportUnreachable(env, topic, placementOf(topic, partition));
      throw new TributaryError("LEADER_NOT_AVAILABLE", `the share-partition state of ${topic.name} partition ${partition} in ${key.region} did not answer; retry shortly`);
    }
    if (result.ok) return result.value;
    const error = TributaryError.fromValue(result.error);
    // An in-sync state replica did not answer: the write is not committed; the ISR may shrink meanwhile.
    if (error.code === "NOT_ENOUGH_REPLICAS") await topicMetadata(env, topic.name, { refresh: true });
    if (attempt > 0 || error.code !== "NOT_LEADER_OR_FOLLOWER") throw error;
    topic = await topicMetadata(env, topic.name, { refresh: true });
  }
}
