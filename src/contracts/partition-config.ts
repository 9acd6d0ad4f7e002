import { configNumber, effectiveTopicConfigs } from "../topics/topic-configs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

/** The configs of a topic that sealing, retention and compaction follow. */
export interface TierConfig {
  segmentBytes: number;
  segmentMs: number;
  retentionMs: number;
  retentionBytes: number;
  /** cleanup.policy includes delete. */
  deleteEnabled: boolean;
  /** cleanup.policy includes compact. */
  compactEnabled: boolean;
  deleteRetentionMs: number;
}

/**
 * The topic configs a partition replica acts on by itself — replication (ISR, acks "all")
 * and its storage tiers (sealing, retention) — sent with every router and controller call
 * (the router caches topic metadata) and kept by the replica for its alarm.
 */
export interface PartitionConfig extends TierConfig {
  minInsyncReplicas: number;
  replicaLagMaxMs: number;
}

/**
 * Derived once per configs object: the router's cached metadata keeps one for seconds, and
 * every call to a replica carries the result (a WeakMap, so it goes with the metadata).
 */
const derived = new WeakMap<TopicMetadata["configs"], PartitionConfig>();

export function partitionConfig(topic: Pick<TopicMetadata, "configs">): PartitionConfig {
  let config = derived.get(topic.configs);
  if (!config) {
    config = Object.freeze(derivePartitionConfig(topic.configs));
    derived.set(topic.configs, config);
  }
  return config;
}

function derivePartitionConfig(explicit: TopicMetadata["configs"]): PartitionConfig {
  const configs = effectiveTopicConfigs(explicit);
  return {
    minInsyncReplicas: configNumber(configs, "min.insync.replicas"),
    replicaLagMaxMs: configNumber(configs, "replica.lag.time.max.ms"),
    segmentBytes: configNumber(configs, "segment.bytes"),
    segmentMs: configNumber(configs, "segment.ms"),
    retentionMs: configNumber(configs, "retention.ms"),
    retentionBytes: configNumber(configs, "retention.bytes"),
    deleteEnabled: configs["cleanup.policy"].includes("delete"),
    compactEnabled: configs["cleanup.policy"].includes("compact"),
    deleteRetentionMs: configNumber(configs, "delete.retention.ms"),
  };
}

/** What a replica assumes before any call has told it its topic's configs: Kafka's defaults. */
export const defaultPartitionConfig: PartitionConfig = partitionConfig({ configs: {} });

/** Whether two configs are the same (every call carries one; the replica persists it only when it changed). */
export function samePartitionConfig(a: PartitionConfig, b: PartitionConfig): boolean {
  const names = Object.keys(a) as (keyof PartitionConfig)[];
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}
