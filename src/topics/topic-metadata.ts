import type { PartitionState } from "../replication/partition-state.ts";
import type { TopicConfigs } from "./topic-configs.ts";

/** Where one partition's replicas live, and who leads. Regions name replicas (ARCHITECTURE.md decision 2). */
export interface PartitionPlacement extends PartitionState {
  partition: number;
}

/** What the controller knows of a topic; the router caches it for a few seconds. */
export interface TopicMetadata {
  name: string;
  /** A fresh UUID per creation: a recreated topic never meets its old data. */
  topicId: string;
  replicationFactor: number;
  /** Explicit configs only; see effectiveTopicConfigs for the full set. */
  configs: TopicConfigs;
  partitions: PartitionPlacement[];
}

export interface TopicSummary {
  name: string;
  partitions: number;
  replicationFactor: number;
}
