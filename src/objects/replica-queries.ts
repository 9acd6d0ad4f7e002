/**
 * What a partition replica answers about itself without changing anything: an offset by time or
 * position (Kafka's ListOffsets), its state (a topic's description), and its active producers
 * (Kafka's DescribeProducers, src/log/active-producers.ts). Kept out of partition-replica.ts,
 * which holds the object's lifecycle and writes.
 */
import { epochEndOffset } from "../log/epoch-end.ts";
import type { OffsetQuery, ReplicaState } from "../contracts/replica-api.ts";
import { activeProducers, type ActiveProducer } from "../log/active-producers.ts";
import type { LogStore } from "../log/log-store.ts";
import type { PartitionLog } from "../log/partition-log.ts";
import type { ReplicaNode } from "../replication/replica-node.ts";
import { maxTimestamp, type SegmentTier } from "./segment-tier.ts";

/** The offset `at` names: the log's ends, or the first offset at or after a time (R2's segments first). */
export async function offsetAt(
  log: PartitionLog,
  tier: SegmentTier | undefined,
  at: OffsetQuery,
  committedOnly: boolean,
  leaderEpoch: number,
): Promise<{ offset: number; timestamp?: number; leaderEpoch?: number }> {
  if (typeof at === "object" && "epochEnd" in at) {
    // The leader's own epoch counts from its log's end even before it wrote in it (Kafka assigns it at the election);
    // a reader never read past the high watermark, so the latest epoch ends there.
    const history = log.epochStarts();
    if (leaderEpoch > (history.at(-1)?.epoch ?? -1)) history.push({ epoch: leaderEpoch, startOffset: log.logEndOffset });
    return epochEndOffset(history, at.epochEnd, log.highWatermark);
  }
  if (at === "earliest") return { offset: log.logStartOffset };
  if (at === "latest") return { offset: committedOnly ? log.lastStableOffset : log.highWatermark };
  if (at === "earliest-local") return { offset: log.localStartOffset };
  if (at === "latest-tiered" || at === "earliest-pending-upload") return tieredOffset(log, tier, at);
  const timestampMs = at === "max-timestamp" ? maxTimestamp(tier?.maxTimestamp(log.logStartOffset), log.maxHeldTimestamp()) : at.timestampMs;
  if (timestampMs === undefined) return { offset: log.highWatermark };
  const sealed = await tier?.offsetForTimestamp(timestampMs, log.logStartOffset);
  return sealed ?? log.offsetForTimestamp(timestampMs);
}

/**
 * KIP-1005's and KIP-1023's offsets, as Kafka's log answers them with remote storage on (every
 * Tributary partition seals to R2): the last offset sealed (−1 when none is), and the first not
 * sealed yet — after the last sealed one (not below the log start); with none sealed, the log
 * start when the partition holds its whole log, else −1 (segments sealed before it knew them).
 */
function tieredOffset(log: PartitionLog, tier: SegmentTier | undefined, at: "latest-tiered" | "earliest-pending-upload"): { offset: number } {
  const highest = tier?.manifest.at(-1)?.lastOffset ?? -1;
  if (at === "latest-tiered") return { offset: highest };
  if (highest >= 0) return { offset: Math.max(highest + 1, log.logStartOffset) };
  return { offset: log.localStartOffset === log.logStartOffset ? log.logStartOffset : -1 };
}

export function replicaState(node: ReplicaNode, tier: SegmentTier | undefined, debug: ReplicaState["debug"]): ReplicaState {
  const storage = node.log.storage();
  const totals = tier?.totals() ?? { segments: 0, bytes: 0 };
  return {
    logStartOffset: node.log.logStartOffset,
    highWatermark: node.log.highWatermark,
    lastStableOffset: node.log.lastStableOffset,
    logEndOffset: node.log.logEndOffset,
    leaderEpoch: node.leaderEpoch,
    role: node.role.kind,
    storage: { sqliteBatches: storage.batches, sqliteBytes: storage.bytes, r2Segments: totals.segments, r2Bytes: totals.bytes },
    ...(debug === undefined ? {} : { debug }),
  };
}

/** The partition's active producers: the store's producers (every one it remembers) with the log's transactions. */
export function producersOf(store: LogStore, log: PartitionLog): ActiveProducer[] {
  return activeProducers(store.readProducers(), log.transactions);
}
