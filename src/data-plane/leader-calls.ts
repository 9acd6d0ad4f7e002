import { TributaryError, type Result } from "../errors.ts";
import { partitionConfig } from "../contracts/partition-config.ts";
import type { RoutedCall } from "../contracts/replica-api.ts";
import { controllerStub, replicaStub, type StubOf } from "../contracts/stubs.ts";
import type { PartitionPlacement, TopicMetadata } from "../topics/topic-metadata.ts";
import { isStaleMetadataError, rememberTopic, topicMetadata } from "./metadata-cache.ts";

/** A partition the topic has; one it does not have is 404. */
export function placementOf(topic: TopicMetadata, partition: number): PartitionPlacement {
  const placement = topic.partitions[partition];
  if (!placement) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic.name} has no partition ${partition}`);
  }
  return placement;
}

/** What a router tells a replica with every call: its view of the partition, and the replication configs. */
export function routedCall(topic: TopicMetadata, partition: number, region: string): RoutedCall {
  const placement = placementOf(topic, partition);
  const { partition: _, ...state } = placement;
  return { topicId: topic.topicId, partition, region, placement: state, config: partitionConfig(topic) };
}

export type ReplicaStub = StubOf<Env["PARTITIONS"]>;

/**
 * Calls a partition's leader with the router's cached metadata (ARCHITECTURE.md decision
 * 10). A stale answer (NOT_LEADER_OR_FOLLOWER, unknown topic) refreshes the metadata and
 * retries once — nothing was written. A leader that does not answer is reported to the
 * controller, which elects a new one when it is really gone; the call is then retried once
 * only when `retryUnreachable` (reads: safe to repeat), else answered with a retriable
 * LEADER_NOT_AVAILABLE, because a write may or may not have landed.
 */
export async function callLeader<T>(
  env: Env,
  initial: TopicMetadata,
  partition: number,
  action: (stub: ReplicaStub, call: RoutedCall) => Promise<Result<T>>,
  options: { retryUnreachable: boolean },
): Promise<T> {
  return callWithOneRetry(
    env,
    initial,
    partition,
    (topic, placement) => action(replicaStub(env, topic.topicId, partition, placement.leader), routedCall(topic, partition, placement.leader)),
    {
      retryOn: isStaleMetadataError,
      retryUnreachable: options.retryUnreachable,
      unreachable: () => `the leader of partition ${partition} did not answer; retry shortly`,
    },
  );
}

/** When `callWithOneRetry` calls once more, and what it says of a callee that did not answer. */
export interface OneRetryRules {
  /** Answers after which fresh metadata may succeed (the callee wrote nothing): refresh it and call once more. */
  retryOn: (error: TributaryError) => boolean;
  /** Call once more, with fresh metadata, after the leader was reported unreachable (only where repeating is safe). */
  retryUnreachable: boolean;
  /** LEADER_NOT_AVAILABLE's message when the callee did not answer and is not called again. */
  unreachable: (topic: TopicMetadata, placement: PartitionPlacement) => string;
}

/**
 * The one loop of calls to an object that the partition's leader placement names (the
 * leader's replica, a share-partition's leading state replica), with the cached metadata
 * first: an answer `rules.retryOn` picks refreshes the metadata and calls once more; a callee
 * that throws (did not answer) is reported to the controller (`reportUnreachable`), then
 * either called once more with fresh metadata (`rules.retryUnreachable`) or answered with a
 * retriable LEADER_NOT_AVAILABLE. At most two calls; the second's answer is final.
 */
export async function callWithOneRetry<T>(
  env: Env,
  initial: TopicMetadata,
  partition: number,
  call: (topic: TopicMetadata, placement: PartitionPlacement) => Promise<Result<T>>,
  rules: OneRetryRules,
): Promise<T> {
  let topic = initial;
  for (let attempt = 0; ; attempt++) {
    const placement = placementOf(topic, partition);
    let result: Result<T>;
    try {
      result = await call(topic, placement);
    } catch {
      await reportUnreachable(env, topic, placement);
      if (attempt > 0 || !rules.retryUnreachable) throw new TributaryError("LEADER_NOT_AVAILABLE", rules.unreachable(topic, placement));
      topic = await topicMetadata(env, topic.name, { refresh: true });
      continue;
    }
    if (result.ok) return result.value;
    const error = TributaryError.fromValue(result.error);
    if (attempt > 0 || !rules.retryOn(error)) throw error;
    topic = await topicMetadata(env, topic.name, { refresh: true });
  }
}

/** Tells the controller a leader did not answer; it elects a new one if the leader is really gone. */
export async function reportUnreachable(env: Env, topic: TopicMetadata, placement: PartitionPlacement): Promise<void> {
  const result = await controllerStub(env).reportUnreachable({
    topicId: topic.topicId,
    partition: placement.partition,
    leaderEpoch: placement.leaderEpoch,
  });
  if (!result.ok) return; // no leader can be elected now: the caller's retriable error says so
  const partitions = topic.partitions.map((existing) =>
    existing.partition === placement.partition ? { ...result.value, partition: placement.partition } : existing,
  );
  rememberTopic({ ...topic, partitions });
}
