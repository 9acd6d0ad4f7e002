/**
 * KIP-320's check of the leader epoch a client says it knows (`currentLeaderEpoch` in Fetch v9+,
 * ListOffsets v4+ and OffsetForLeaderEpoch v2+), as Kafka's broker makes it: an epoch older than
 * the partition's is FENCED_LEADER_EPOCH (the client's metadata is stale: it refreshes it), a
 * newer one UNKNOWN_LEADER_EPOCH (this gateway's view is behind: it looks again once before
 * answering so), −1 is no check. The partition's epoch is the session's, the one Metadata
 * reports (at most gatewayMetadataMaxAgeMs old).
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";

/** The client's value when it asks for no check. */
export const noLeaderEpoch = -1;

/** The partition's leader epoch as the session knows it, described again once when the client's is newer; undefined for an unknown partition. */
export async function sessionLeaderEpoch(context: GatewayRequestContext, topic: string, partition: number, clients: number): Promise<number | undefined> {
  const known = (await context.session.leaderEpochs(topic))?.[partition];
  if (known === undefined || clients <= known) return known;
  return (await context.session.leaderEpochs(topic, true))?.[partition];
}

/** The code a request carrying `clients` is answered with for the partition: NONE when it passes (or asks for no check, or the partition is unknown here: the read says so). */
export async function leaderEpochCheck(context: GatewayRequestContext, topic: string, partition: number, clients: number): Promise<number> {
  if (clients === noLeaderEpoch) return kafkaErrors.NONE;
  const current = await sessionLeaderEpoch(context, topic, partition, clients);
  if (current === undefined) return kafkaErrors.NONE;
  return epochCode(clients, current);
}

/** Kafka's answer for a client's epoch against the partition's. */
export function epochCode(clients: number, current: number): number {
  if (clients === noLeaderEpoch || clients === current) return kafkaErrors.NONE;
  return clients > current ? kafkaErrors.UNKNOWN_LEADER_EPOCH : kafkaErrors.FENCED_LEADER_EPOCH;
}
