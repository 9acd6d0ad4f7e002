import type { ReplicaDebugStats } from "../contracts/replica-api.ts";
import type { GroupCommitStats } from "../log/group-commit.ts";

/*
 * A partition object's counters since it started, shown only when TRIBUTARY_FAULTS is "1"; their
 * shape, part of the replica's answer, is ReplicaDebugStats in src/contracts/replica-api.ts.
 */

/** The counters an object keeps itself (the rest it reads from its parts when asked). */
export class ReplicaCounters {
  requests = 0;
  alarms = 0;
}

export function debugStatsEnabled(env: { TRIBUTARY_FAULTS?: string }): boolean {
  return env.TRIBUTARY_FAULTS === "1";
}

export function replicaDebugStats(
  counters: ReplicaCounters,
  parts: {
    sqliteRowsWritten: number;
    appends: GroupCommitStats;
    tailCacheBytes: number;
    waiters: number;
    subscribers: { open: number; framesPushed: number; bytesPushed: number; reads: number; pushes: number; messages: number };
  },
): ReplicaDebugStats {
  return {
    requests: counters.requests,
    alarms: counters.alarms,
    sqliteRowsWritten: parts.sqliteRowsWritten,
    appendGroups: parts.appends.groups,
    appendsGrouped: parts.appends.items,
    appendsWaiting: parts.appends.waitingItems,
    appendBytesWaiting: parts.appends.waitingBytes,
    tailCacheBytes: parts.tailCacheBytes,
    waiters: parts.waiters,
    subscribers: parts.subscribers.open,
    framesPushed: parts.subscribers.framesPushed,
    bytesPushed: parts.subscribers.bytesPushed,
    subscriberReads: parts.subscribers.reads,
    subscriberPushes: parts.subscribers.pushes,
    subscriberMessages: parts.subscribers.messages,
  };
}
