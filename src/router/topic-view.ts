import { effectiveTopicConfigs } from "../topics/topic-configs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callLeader } from "./leader-calls.ts";

/** API.md's Topic: metadata with effective configs and each partition's offsets from its leader. */
export async function topicView(env: Env, topic: TopicMetadata, options: { fresh?: boolean } = {}) {
  const partitions = await Promise.all(
    topic.partitions.map(async (placement) => {
      const state = options.fresh
        ? { logStartOffset: 0, highWatermark: 0 }
        : await callLeader(env, topic, placement.partition, (stub, call) => stub.state(call), { retryUnreachable: true });
      return {
        partition: placement.partition,
        leader: placement.leader,
        replicas: placement.replicas,
        isr: placement.isr,
        logStartOffset: state.logStartOffset,
        highWatermark: state.highWatermark,
      };
    }),
  );
  return {
    name: topic.name,
    topicId: topic.topicId,
    replicationFactor: topic.replicationFactor,
    configs: effectiveTopicConfigs(topic.configs),
    partitions,
  };
}
