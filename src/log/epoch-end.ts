import type { EpochStart } from "./log-store.ts";

/**
 * Kafka's OffsetForLeaderEpoch on a leader's epoch history (KIP-101, KIP-320; Kafka's
 * LeaderEpochFileCache.endOffsetFor): where `requested` ended — the start offset of the first
 * epoch after it, or `endOffset` when it is the latest — and the epoch that answer belongs to,
 * the largest epoch not after `requested`. A consumer asks with the epoch of the last record it
 * read: an end offset below its position is a truncation it must handle.
 *
 *   history (epoch@start): 0@0  2@100  5@160      endOffset 200
 *   requested 0 → (0, 100)   1 → (0, 100)   2 → (2, 160)   5 → (5, 200)
 *   requested 6 (after the latest) → undefined (−1, −1); none kept → undefined
 *   requested before the first kept epoch → (requested, the first kept epoch's start)
 */
export const undefinedEpochEnd = { leaderEpoch: -1, offset: -1 } as const;

export function epochEndOffset(history: readonly EpochStart[], requested: number, endOffset: number): { leaderEpoch: number; offset: number } {
  const latest = history.at(-1);
  if (requested < 0 || latest === undefined) return undefinedEpochEnd;
  if (requested === latest.epoch) return { leaderEpoch: requested, offset: endOffset };
  const next = history.findIndex((entry) => entry.epoch > requested);
  if (next === -1) return undefinedEpochEnd;
  const floor = history[next - 1];
  return { leaderEpoch: floor?.epoch ?? requested, offset: history[next]!.startOffset };
}
