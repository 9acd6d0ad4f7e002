/**
 * Series for the charts, pure: per-second rates from the metrics' one-minute buckets, and the
 * group's total lag sampled while its page is open.
 */
import type { MetricsAnswer } from "./types.ts";

/**
 * What every time chart shows: the last 15 minutes (the metrics' history holds 15 one-minute
 * buckets), whatever the samples — one sample is a point in it and none an empty stretch of
 * it, never an axis of years chosen from the samples alone.
 */
export const chartWindowSeconds = 15 * 60;

/** The x axis's range at `nowMs`, in uPlot's seconds since the epoch. */
export function chartWindow(nowMs: number, windowSeconds = chartWindowSeconds): [number, number] {
  const now = nowMs / 1000;
  return [now - windowSeconds, now];
}

export interface RateSeries {
  /** Seconds since the epoch (uPlot's x axis), one per minute bucket. */
  times: number[];
  recordsInPerSecond: number[];
  recordsOutPerSecond: number[];
}

/** The topic's records in/out per second per minute bucket, summed over its partitions (or one partition). */
export function topicRates(metrics: MetricsAnswer | undefined, topic: string, partition?: number): RateSeries {
  const rows = (metrics?.history.partitions ?? []).filter((row) => row.topic === topic && (partition === undefined || row.partition === partition));
  const byMinute = new Map<number, { in: number; out: number }>();
  for (const row of rows) {
    row.minuteStartMs.forEach((minute, index) => {
      const bucket = byMinute.get(minute) ?? { in: 0, out: 0 };
      bucket.in += row.recordsIn[index] ?? 0;
      bucket.out += row.recordsOut[index] ?? 0;
      byMinute.set(minute, bucket);
    });
  }
  const minutes = [...byMinute.keys()].sort((a, b) => a - b);
  return {
    times: minutes.map((minute) => minute / 1000),
    recordsInPerSecond: minutes.map((minute) => byMinute.get(minute)!.in / 60),
    recordsOutPerSecond: minutes.map((minute) => byMinute.get(minute)!.out / 60),
  };
}

/** Total lag: the sum of the partitions' lag, where an offset is committed. */
export function totalLag(offsets: readonly { lag: number | null }[]): number {
  return offsets.reduce((sum, row) => sum + (row.lag ?? 0), 0);
}

/** Samples kept for the lag chart: the newest `max` (a page left open for hours stays bounded). */
export function appendSample(samples: readonly [number, number][], sample: [number, number], max: number): [number, number][] {
  const next = [...samples, sample];
  return next.length > max ? next.slice(next.length - max) : next;
}
