/**
 * How the schema registry's replicas are reached (docs/schema-registry.md, "Replication across
 * regions"): one replica per replica region of partition 0 of an internal topic, `_schemas` (as
 * Confluent's registry keeps its state in its `_schemas` topic), created at the deployment's
 * replication factor on the registry's first call. The controller's elections of that
 * partition decide which region's replica leads, at its leader epoch; the topic holds no
 * records, it only anchors the placement.
 */
export { registryTopic } from "../topics/topic-names.ts";

/** What every call to a registry replica carries: the anchor partition's placement as the caller knows it. */
export interface RegistryKey {
  /** The anchor topic (`_schemas`, or a test's own). */
  topic: string;
  topicId: string;
  /** The region of the replica called: the leader's, as the caller knows it. */
  region: string;
  replicas: string[];
  isr: string[];
  leaderEpoch: number;
}

/** A replica's name: by the anchor topic's id, so a topic deleted and created again anchors a new registry. */
export function registryReplicaName(topicId: string, region: string): string {
  return `schema-registry/${topicId}/${region}`;
}
