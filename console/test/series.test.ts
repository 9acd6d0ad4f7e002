import { describe, expect, it } from "vitest";
import { mergeRecords, orderFor, shownRecordsMax, type ShownRecord } from "../src/record-reads.ts";
import { appendSample, chartWindow, chartWindowSeconds, topicRates, totalLag } from "../src/series.ts";
import type { MetricsAnswer } from "../src/types.ts";

const record = (partition: number, offset: number, timestamp: number): ShownRecord => ({ partition, offset, timestamp, key: null, value: "", headers: {} });

describe("console series", () => {
  it("sums a topic's partitions per minute bucket into records per second", () => {
    const metrics: MetricsAnswer = {
      generatedAt: 0,
      families: [],
      history: {
        partitions: [
          { topic: "t", partition: 0, minuteStartMs: [60_000, 120_000], recordsIn: [60, 120], recordsOut: [0, 60] },
          { topic: "t", partition: 1, minuteStartMs: [60_000, 120_000], recordsIn: [60, 0], recordsOut: [6, 6] },
          { topic: "other", partition: 0, minuteStartMs: [60_000], recordsIn: [600], recordsOut: [600] },
        ],
      },
    };
    expect(topicRates(metrics, "t")).toEqual({ times: [60, 120], recordsInPerSecond: [2, 2], recordsOutPerSecond: [0.1, 1.1] });
    expect(topicRates(metrics, "t", 1).recordsInPerSecond).toEqual([1, 0]);
    expect(topicRates(undefined, "t")).toEqual({ times: [], recordsInPerSecond: [], recordsOutPerSecond: [] });
  });

  it("totals the lag of partitions with a commit, and keeps the newest samples", () => {
    expect(totalLag([{ lag: 2 }, { lag: null }, { lag: 5 }])).toBe(7);
    expect(appendSample([[1, 1], [2, 2]], [3, 3], 2)).toEqual([[2, 2], [3, 3]]);
  });

  it("merges records read twice (a fetch and a stream overlapping) once, in time order, bounded", () => {
    const merged = mergeRecords([record(0, 0, 10), record(1, 0, 5)], [record(0, 0, 10), record(0, 1, 12)]);
    expect(merged.map((r) => `${r.partition}:${r.offset}`)).toEqual(["1:0", "0:0", "0:1"]);
    const many = Array.from({ length: shownRecordsMax + 5 }, (_, i) => record(0, i, i));
    const bounded = mergeRecords([], many);
    expect(bounded).toHaveLength(shownRecordsMax);
    expect(bounded[0]!.offset).toBe(5);
  });

  it("lists the latest records newest first across partitions by timestamp, keeping the newest N", () => {
    const read = [record(0, 7, 100), record(1, 3, 300), record(2, 9, 200), record(0, 8, 400), record(1, 2, 50)];
    expect(orderFor({ kind: "latest" })).toBe("newest-first");
    expect(orderFor({ kind: "earliest" })).toBe("oldest-first");
    expect(mergeRecords([], read, "newest-first").map((r) => `${r.partition}:${r.offset}`)).toEqual(["0:8", "1:3", "2:9", "0:7", "1:2"]);
    expect(mergeRecords([], read, "newest-first", 3).map((r) => `${r.partition}:${r.offset}`)).toEqual(["0:8", "1:3", "2:9"]);
    expect(mergeRecords([], read, "oldest-first", 3).map((r) => `${r.partition}:${r.offset}`)).toEqual(["2:9", "1:3", "0:8"]);
    // Records arriving on a live tail go on top.
    expect(mergeRecords(mergeRecords([], read, "newest-first"), [record(2, 10, 500)], "newest-first")[0]).toMatchObject({ partition: 2, offset: 10 });
  });

  it("charts the last 15 minutes up to now, whatever the samples", () => {
    const now = Date.UTC(2026, 11, 3, 8, 0, 0);
    expect(chartWindowSeconds).toBe(900);
    expect(chartWindow(now)).toEqual([now / 1000 - 900, now / 1000]);
  });
});
