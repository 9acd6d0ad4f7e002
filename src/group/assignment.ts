/**
 * Assignments as API.md writes them (`[{topic, partitions: [...]}]`) and the set operations
 * the group needs on them. Every Assignment the group stores or returns is normalized: topics
 * sorted and distinct, partitions ascending and distinct, no topic without partitions. That
 * one form makes equality a plain comparison and keeps serialized state deterministic.
 */

import { TributaryError } from "../errors.ts";

export interface TopicAssignment {
  topic: string;
  partitions: number[];
}

export type Assignment = TopicAssignment[];

/** One partition of one topic, as in a Position (`{topic, partition, offset}` fits). */
export interface TopicPartition {
  topic: string;
  partition: number;
}

/**
 * What the router knows of the topics, passed in with each call: partition count by topic
 * name. A topic missing here is "no news", not "deleted" (see ConsumerGroup.removeTopic).
 */
export type TopicsMeta = Readonly<Record<string, { readonly partitions: number }>>;

/** The partition count of `topic` in `meta`, or undefined; safe for names like `__proto__`. */
export function partitionsIn(meta: TopicsMeta, topic: string): number | undefined {
  return Object.hasOwn(meta, topic) ? meta[topic]?.partitions : undefined;
}

/**
 * A partition as one string, for sets and maps. Partition numbers hold no ":", so splitting
 * at the last ":" recovers the pair whatever the topic name holds.
 */
export type PartitionKey = string;

export function partitionKey(topic: string, partition: number): PartitionKey {
  return `${topic}:${partition}`;
}

export function parsePartitionKey(key: PartitionKey): TopicPartition {
  const at = key.lastIndexOf(":");
  return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) };
}

export function assignmentKeys(assignment: readonly TopicAssignment[]): Set<PartitionKey> {
  const keys = new Set<PartitionKey>();
  for (const { topic, partitions } of assignment) {
    for (const partition of partitions) keys.add(partitionKey(topic, partition));
  }
  return keys;
}

export function assignmentFromKeys(keys: Iterable<PartitionKey>): Assignment {
  const byTopic = new Map<string, number[]>();
  for (const key of keys) {
    const { topic, partition } = parsePartitionKey(key);
    const partitions = byTopic.get(topic);
    if (partitions) partitions.push(partition);
    else byTopic.set(topic, [partition]);
  }
  return fromTopicMap(byTopic);
}

/** Merges repeated topics, sorts, drops duplicates and empty topics. */
export function normalizeAssignment(assignment: readonly TopicAssignment[]): Assignment {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partitions } of assignment) {
    const list = byTopic.get(topic) ?? [];
    list.push(...partitions);
    byTopic.set(topic, list);
  }
  return fromTopicMap(byTopic);
}

function fromTopicMap(byTopic: Map<string, number[]>): Assignment {
  const result: Assignment = [];
  for (const topic of [...byTopic.keys()].sort(compareStrings)) {
    const partitions = [...new Set(byTopic.get(topic))].sort((a, b) => a - b);
    if (partitions.length > 0) result.push({ topic, partitions });
  }
  return result;
}

/** Code-unit order: the same on every runtime and locale, unlike localeCompare. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function partitionCount(assignment: readonly TopicAssignment[]): number {
  let count = 0;
  for (const { partitions } of assignment) count += partitions.length;
  return count;
}

export function isSubset(inner: readonly TopicAssignment[], outer: readonly TopicAssignment[]): boolean {
  const outerKeys = assignmentKeys(outer);
  for (const key of assignmentKeys(inner)) if (!outerKeys.has(key)) return false;
  return true;
}

/** Equality of normalized assignments. */
export function sameAssignment(a: readonly TopicAssignment[], b: readonly TopicAssignment[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((entry, i) => {
    const other = b[i];
    return (
      other !== undefined &&
      entry.topic === other.topic &&
      entry.partitions.length === other.partitions.length &&
      entry.partitions.every((partition, j) => partition === other.partitions[j])
    );
  });
}

/**
 * Checks an Assignment that came from a request and returns it normalized. Shape errors are
 * the router's to catch first; this is the core's own guard, so bad input never reaches state.
 */
export function parseAssignment(value: unknown, field: string): Assignment {
  if (!Array.isArray(value)) throw invalid(`${field} must be a list of {topic, partitions}`);
  for (const entry of value as unknown[]) {
    const { topic, partitions } = (entry ?? {}) as Partial<TopicAssignment>;
    if (typeof topic !== "string" || topic.length === 0 || !Array.isArray(partitions)) {
      throw invalid(`${field} must be a list of {topic, partitions}`);
    }
    if (!partitions.every(isPartitionNumber)) {
      throw invalid(`${field}: partitions of ${topic} must be integers >= 0`);
    }
  }
  return normalizeAssignment(value as TopicAssignment[]);
}

export function isPartitionNumber(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_REQUEST", message);
}
