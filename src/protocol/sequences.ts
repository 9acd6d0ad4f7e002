/**
 * Kafka's producer sequence arithmetic, shared by the partition's producer state, the client,
 * the gateway and compaction: an idempotent producer's sequences count its records in a
 * partition from 0, as int32, and wrap to 0 after 2^31 − 1.
 */

/** Sequences are int32 and wrap to 0 after 2^31 − 1, as Kafka's. */
export const sequenceModulus = 0x80000000;

/** `sequence` moved forward by `increment` records, wrapping after 2^31 − 1. */
export function incrementSequence(sequence: number, increment: number): number {
  return (sequence + increment) % sequenceModulus;
}

/** How many steps forward (with wrap) `to` lies from `from`: 0 … 2^31 − 1. */
export function sequenceDistance(from: number, to: number): number {
  return (((to - from) % sequenceModulus) + sequenceModulus) % sequenceModulus;
}
