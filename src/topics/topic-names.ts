import { TributaryError } from "../errors.ts";
import { topicNameLengthMax } from "../limits.ts";

const legalTopicName = /^[a-zA-Z0-9._-]+$/;

/** Kafka's topic name rules: 1–249 characters of [a-zA-Z0-9._-], not "." or "..". */
export function checkTopicName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0) {
    throw new TributaryError("INVALID_TOPIC_EXCEPTION", "a topic name is a non-empty string");
  }
  if (name.length > topicNameLengthMax) {
    throw new TributaryError("INVALID_TOPIC_EXCEPTION", `a topic name has at most ${topicNameLengthMax} characters`);
  }
  if (name === "." || name === ".." || !legalTopicName.test(name)) {
    throw new TributaryError(
      "INVALID_TOPIC_EXCEPTION",
      `topic name ${JSON.stringify(name)} is not legal: use [a-zA-Z0-9._-], not "." or ".."`,
    );
  }
  return name;
}

/**
 * Kafka's internal topics (the group coordinator's offsets, the transaction coordinator's
 * log, KIP-932's share-group state): Tributary keeps that state in its objects, not in topics,
 * but Kafka clients know these names. The Kafka gateway lists them as internal topics.
 */
export const kafkaInternalTopics = ["__consumer_offsets"] as const;

/**
 * Tributary's own internal topics: each anchors a replicated state's placement (the schema
 * registry's, docs/schema-registry.md; the transaction coordinators', docs/transactions.md).
 * The state lives in replicas named by the topic's id, so deleting the topic would forget it
 * all: deleting one is refused (`checkDeletable`), as Kafka's tools refuse to delete theirs.
 */
export const registryTopic = "_schemas";
export const transactionStateTopic = "_transaction_state";
export const anchorTopics = [registryTopic, transactionStateTopic] as const;

/** Refuses the deletion of an anchor topic (INVALID_REQUEST, nothing deleted). */
export function checkDeletable(name: string): void {
  if ((anchorTopics as readonly string[]).includes(name)) {
    throw new TributaryError("INVALID_REQUEST", `topic ${JSON.stringify(name)} is internal: it anchors ${name === registryTopic ? "the schema registry's" : "the transaction coordinators'"} state, which deleting it would lose`);
  }
}

/**
 * A name for a new topic: Kafka's rules, and not beginning with "__", which Kafka reserves
 * for its internal topics (a topic of that name would be listed, auto-created and consumed by
 * Kafka clients as if it were Kafka's own). Topics created before this rule keep their names.
 */
export function checkNewTopicName(name: unknown): string {
  const checked = checkTopicName(name);
  if (checked.startsWith("__")) {
    throw new TributaryError("INVALID_TOPIC_EXCEPTION", `topic name ${JSON.stringify(checked)} begins with "__", which is reserved for Kafka's internal topics (${kafkaInternalTopics.join(", ")})`);
  }
  return checked;
}

/**
 * Kafka's collision rule: two topic names collide when they are equal once every "." is read
 * as "_" (`my.topic` and `my_topic`), since Kafka's metric names replace one with the other.
 * Kafka refuses to create a topic that collides with an existing one, and so do we, so that
 * topics can be mirrored to and from Kafka under their own names.
 */
export function topicCollisionKey(name: string): string {
  return name.replaceAll(".", "_");
}

/** An existing topic that `name` collides with (other than `name` itself), or undefined. */
export function collidingTopic(name: string, existing: Iterable<string>): string | undefined {
  const key = topicCollisionKey(name);
  for (const other of existing) if (other !== name && topicCollisionKey(other) === key) return other;
  return undefined;
}
