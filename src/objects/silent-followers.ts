import { produce } from "../data-plane/produce.ts";

/**
 * An in-sync region's state replica did not answer a push: one record to the anchor partition
 * (acks 1), so that its log's leader pushes to the silent follower, finds it behind, and drops
 * it from the ISR after replica.lag.time.max.ms as for any partition. An anchor holds no other
 * records, and a follower of a log nobody writes never falls behind: without this, the loss of
 * a follower's region would refuse every call to the state (NOT_ENOUGH_REPLICAS) for as long
 * as it lasts. Used by the schema registry and the transaction coordinators.
 */
export async function markSilentFollowers(env: Env, anchor: { topic: string; partition: number; leaderEpoch: number }, regions: string[], what: string): Promise<void> {
  const record = { key: `${what}-replicas-silent`, value: JSON.stringify({ regions, leaderEpoch: anchor.leaderEpoch }) };
  try {
    await produce(env, { waitUntil: () => undefined }, anchor.topic, { records: [{ ...record, partition: anchor.partition }], acks: 1, encoding: "utf8" });
  } catch {
    // Best-effort: the call is refused (NOT_ENOUGH_REPLICAS) either way, and the next refused call tries again.
  }
}
