import type { GroupCommitStats } from "../log/group-commit.ts";

/**
 * A partition object's counters since it started, reported in its state (and so in a topic's
 * description) only when TRIBUTARY_FAULTS is "1" — for tests and the benchmark (bench/), which
 * prints object requests and SQLite rows written per 1,000 records and watches memory in its
 * soak mode. Never a production API: the counters are per instance and start over when the
 * object does.
 */
export interface ReplicaDebugStats {
  /** RPC calls this object answered (each one an object request, as Cloudflare bills them). */
  requests: number;
  /** Alarm invocations (billed as requests too). */
  alarms: number;
  /** Rows written to its SQLite (cursor.rowsWritten summed): what Cloudflare bills for storage writes. */
  sqliteRowsWritten: number;
  /** Group commit: transactions of appends, the appends they held, and what waits now. */
  appendGroups: number;
  appendsGrouped: number;
  appendsWaiting: number;
  appendBytesWaiting: number;
  /** The bounded structures that hold memory: the tail cache's bytes and the long-poll waiters. */
  tailCacheBytes: number;
  waiters: number;
  /** WebSocket subscribers open now (held across hibernation), and since this instance started: frames and bytes pushed, log reads made for them (one per position, shared by every subscriber there). */
  subscribers: number;
  framesPushed: number;
  bytesPushed: number;
  subscriberReads: number;
  /** Push runs over the subscribers (each visits every socket): per commit, and per credit that may unblock one. */
  subscriberPushes: number;
  /** Messages received from subscribers (credit): incoming WebSocket messages, billed 20 to a request. */
  subscriberMessages: number;
}

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
