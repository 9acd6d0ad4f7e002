/**
 * Moving a replica's log start: on the leader (retention, DeleteRecords) and on a follower
 * taking its leader's. Records below the log start are gone for every reader; the batches this
 * replica holds wholly below it are dropped with it (a batch holding it stays whole: reads
 * answer whole batches, and readers skip the records before their offset). Pure.
 */
import type { EpochStart } from "./log-store.ts";
import type { PartitionLog } from "./partition-log.ts";

/** The leader's view a follower takes its log start from (the tier snapshot's fields). */
export interface LeaderLogStart {
  logStartOffset: number;
  /** The leader's first held offset: where a follower that must start over starts. */
  localStartOffset: number;
  epochs: readonly EpochStart[];
}

/** Moves the log start forward to `offset`, at most the high watermark (committed records only). */
export function moveLogStart(log: PartitionLog, offset: number): void {
  if (offset <= log.logStartOffset) return;
  if (offset > log.localStartOffset) log.dropBefore(offset);
  log.advanceLogStart(offset);
}

/**
 * A follower takes its leader's log start. Below its own high watermark that is a move like
 * the leader's. Above it (DeleteRecords to the high watermark, before the follower has heard
 * that the records are committed), the follower's records up to the new start are the
 * leader's when the epochs of the record before it agree (KIP-101's rule: same offset and
 * epoch, same log before them): they are committed, so its high watermark may move there
 * first. Otherwise (records missing, or a diverging tail) the follower starts over at its
 * leader's first held offset, as one too far behind does; until the leader's pushes reach the
 * new start, every read there is out of range and the router reads from the leader.
 */
export function followLogStart(log: PartitionLog, leader: LeaderLogStart): void {
  const offset = leader.logStartOffset;
  if (offset <= log.logStartOffset) return;
  if (offset > log.highWatermark) {
    const same = log.logEndOffset >= offset && log.epochAt(offset - 1) === epochAt(leader.epochs, offset - 1);
    if (!same) return log.restartAt(leader.localStartOffset, offset, leader.epochs);
    log.advanceHighWatermark(offset);
  }
  moveLogStart(log, offset);
}

/** The epoch of the record at `offset` in a log whose epochs start as listed (-1 before the first). */
function epochAt(epochs: readonly EpochStart[], offset: number): number {
  let epoch = -1;
  for (const start of epochs) {
    if (start.startOffset > offset) break;
    epoch = start.epoch;
  }
  return epoch;
}
