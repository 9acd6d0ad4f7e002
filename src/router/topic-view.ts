import { effectiveTopicConfigs } from "../topics/topic-configs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callLeader } from "../data-plane/leader-calls.ts";
import { billingMeterEnabled, billingSnapshot } from "../contracts/billing-meter.ts";

const emptyStorage = { sqliteBatches: 0, sqliteBytes: 0, r2Segments: 0, r2Bytes: 0 };

/**
 * Tells every partition leader a topic's new configs, so its cleaner runs now: retention shows
 * within seconds of the change. A leader that cannot be reached learns them with the next call.
 */
export async function announceConfigs(env: Env, topic: TopicMetadata): Promise<void> {
  await Promise.allSettled(
    topic.partitions.map((placement) =>
      callLeader(env, topic, placement.partition, (stub, call) => stub.applyConfig(call), { retryUnreachable: false }),
    ),
  );
}

/** API.md's Topic: metadata with effective configs and each partition's offsets from its leader. */
export async function topicView(env: Env, topic: TopicMetadata, options: { fresh?: boolean } = {}) {
  const partitions = await Promise.all(
    topic.partitions.map(async (placement) => {
      const state = options.fresh
        ? { logStartOffset: 0, highWatermark: 0, lastStableOffset: 0, storage: emptyStorage }
        : await callLeader(env, topic, placement.partition, (stub, call) => stub.state(call), { retryUnreachable: true });
      return {
        partition: placement.partition,
        leader: placement.leader,
        replicas: placement.replicas,
        isr: placement.isr,
        logStartOffset: state.logStartOffset,
        highWatermark: state.highWatermark,
        // An addition (docs/transactions.md): the first offset of the oldest open transaction, else the high watermark.
        lastStableOffset: state.lastStableOffset,
        // An addition (docs/api.md): the leader's epoch, as Kafka's Metadata reports it; it grows at every election.
        leaderEpoch: placement.leaderEpoch,
        // An addition to API.md's Topic: where the partition's bytes live (docs/api.md).
        storage: state.storage,
        // Only with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1: the leader's counters (docs/api.md, debug statistics).
        ...(env.TRIBUTARY_DEBUG_STATS === "1" && "debug" in state && state.debug ? { debug: state.debug } : {}),
      };
    }),
  );
  return {
    name: topic.name,
    topicId: topic.topicId,
    replicationFactor: topic.replicationFactor,
    configs: effectiveTopicConfigs(topic.configs),
    // An addition to API.md's Topic: the configs set on the topic (the others are defaults; docs/api.md).
    configOverrides: Object.keys(topic.configs).sort(),
    partitions,
    // Only with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1: the isolate's billing meter (src/contracts/billing-meter.ts; the benchmark's bill).
    ...(billingMeterEnabled(env) ? { debugBilling: billingSnapshot() } : {}),
  };
}
