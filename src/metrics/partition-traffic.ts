import { metricsHistoryMinutes, metricsPersistIntervalMs } from "../limits.ts";
import { batchByteLength, readBatchHeader } from "../protocol/record-batch.ts";

/**
 * A partition replica's traffic counters and its per-minute history (docs/metrics.md). Pure:
 * time and the log end come in as arguments; the object persists `snapshot()` lazily.
 *
 * - records appended = log end − `recordsBase`, so it is exact across restarts without a
 *   write per append: the base is the log end when the counters were created (0 for a new
 *   partition), lowered by what a truncation takes back so the counter never falls.
 * - bytes appended, fetches and records fetched are counted in memory and written at most
 *   once per metricsPersistIntervalMs (with the next call that finds them due): a restart
 *   loses at most that long's worth of them.
 * - history: records in and out per minute, the last metricsHistoryMinutes minutes.
 */
export interface TrafficSnapshot {
  recordsBase: number;
  /** The log end last seen, to notice truncations. */
  logEndSeen: number;
  bytesAppended: number;
  fetches: number;
  recordsFetched: number;
  /** [minuteStartMs, recordsIn, recordsOut], oldest first, at most metricsHistoryMinutes. */
  history: [number, number, number][];
}

export interface TrafficHistory {
  minuteStartMs: number[];
  recordsIn: number[];
  recordsOut: number[];
}

const minuteMs = 60_000;

export class PartitionTraffic {
  #state: TrafficSnapshot;
  #dirty = false;
  #persistedAtMs: number;

  constructor(state: TrafficSnapshot, nowMs: number) {
    this.#state = { ...state, history: state.history.map((bucket) => [...bucket]) };
    this.#persistedAtMs = nowMs;
  }

  /** Counters that start now, at the log end the replica has (0 for a new partition). */
  static fresh(logEndOffset: number): TrafficSnapshot {
    return { recordsBase: logEndOffset, logEndSeen: logEndOffset, bytesAppended: 0, fetches: 0, recordsFetched: 0, history: [] };
  }

  /** The log grew (appended as leader, or replicated): `records` new records of `bytes` bytes. */
  appended(records: number, bytes: number, logEndOffset: number, nowMs: number): void {
    this.observeLogEnd(logEndOffset);
    this.#state.bytesAppended += bytes;
    this.#bucket(nowMs)[1] += records;
    this.#dirty = true;
  }

  /** A fetch was served, with `records` records. */
  fetched(records: number, nowMs: number): void {
    this.#state.fetches++;
    this.#state.recordsFetched += records;
    this.#bucket(nowMs)[2] += records;
    this.#dirty = true;
  }

  /** The replica's log end now: a truncation lowers the base by what it took, so records appended never falls. */
  observeLogEnd(logEndOffset: number): void {
    if (logEndOffset < this.#state.logEndSeen) {
      this.#state.recordsBase -= this.#state.logEndSeen - logEndOffset;
      this.#dirty = true;
    }
    this.#state.logEndSeen = logEndOffset;
  }

  recordsAppended(logEndOffset: number): number {
    this.observeLogEnd(logEndOffset);
    return logEndOffset - this.#state.recordsBase;
  }

  get bytesAppended(): number {
    return this.#state.bytesAppended;
  }

  get fetches(): number {
    return this.#state.fetches;
  }

  get recordsFetched(): number {
    return this.#state.recordsFetched;
  }

  /** The last metricsHistoryMinutes one-minute buckets up to the current one, oldest first, zeros where nothing happened. */
  history(nowMs: number): TrafficHistory {
    const current = minuteStart(nowMs);
    const answer: TrafficHistory = { minuteStartMs: [], recordsIn: [], recordsOut: [] };
    for (let index = metricsHistoryMinutes - 1; index >= 0; index--) {
      const start = current - index * minuteMs;
      const bucket = this.#state.history.find(([at]) => at === start);
      answer.minuteStartMs.push(start);
      answer.recordsIn.push(bucket?.[1] ?? 0);
      answer.recordsOut.push(bucket?.[2] ?? 0);
    }
    return answer;
  }

  /** What to write now, when something changed and the last write is metricsPersistIntervalMs old; else undefined. */
  due(nowMs: number): TrafficSnapshot | undefined {
    if (!this.#dirty || nowMs - this.#persistedAtMs < metricsPersistIntervalMs) return undefined;
    return this.snapshot();
  }

  snapshot(): TrafficSnapshot {
    return { ...this.#state, history: this.#state.history.map((bucket) => [...bucket]) };
  }

  /** The snapshot was written. */
  persisted(nowMs: number): void {
    this.#dirty = false;
    this.#persistedAtMs = nowMs;
  }

  #bucket(nowMs: number): [number, number, number] {
    const start = minuteStart(nowMs);
    const history = this.#state.history;
    let bucket = history.find(([at]) => at === start);
    if (!bucket) {
      bucket = [start, 0, 0];
      history.push(bucket);
      history.sort((a, b) => a[0] - b[0]);
      const oldest = start - (metricsHistoryMinutes - 1) * minuteMs;
      while (history.length > 0 && (history[0]![0] < oldest || history.length > metricsHistoryMinutes)) history.shift();
    }
    return bucket;
  }
}

function minuteStart(nowMs: number): number {
  return Math.floor(nowMs / minuteMs) * minuteMs;
}

/** Records a fetch answer carries from `offset` on (a first batch may start before it), from the batches' headers only. */
export function recordsFrom(offset: number, batches: readonly Uint8Array[]): number {
  let records = 0;
  for (const bytes of batches) {
    for (let at = 0; at < bytes.length; at += batchByteLength(bytes, at)) {
      const header = readBatchHeader(bytes, at);
      const lastOffset = header.baseOffset + header.lastOffsetDelta;
      if (lastOffset >= offset) records += lastOffset + 1 - Math.max(header.baseOffset, offset);
    }
  }
  return records;
}
