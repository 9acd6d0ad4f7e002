/**
 * Kafka's internal topics as the gateway shows them (docs/gateway.md): Metadata lists them with
 * `isInternal` (clients leave them out of regex subscriptions, as on Kafka), each with one
 * partition and an id that every gateway gives it; reading one finds an empty partition, and
 * writing one is refused, as Kafka refuses appends to its internal topics. What Kafka keeps in
 * them (committed offsets, transactions) Tributary keeps in its objects.
 */
import { createHash } from "node:crypto";
import { kafkaInternalTopics } from "../topics/topic-names.ts";

export { kafkaInternalTopics };

export function isInternalTopic(name: string | null | undefined): boolean {
  return (kafkaInternalTopics as readonly (string | null | undefined)[]).includes(name);
}

/** An internal topic's id: the first 16 bytes of its name's SHA-256, the same from every gateway. */
export function internalTopicId(name: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(name).digest().subarray(0, 16));
}
