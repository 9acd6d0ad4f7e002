/**
 * bench/bill-math.ts: a measured run extrapolated to a month, and a month priced with
 * bench/prices.ts, against bills computed by hand (free tiers, WebSocket messages 20 to a
 * request, duration at 128 MB an active object, storage per GB-month).
 */
import { describe, expect, it } from "vitest";
import { monthlyBill, monthlyUsage, monthSeconds, type MonthlyUsage } from "../../../bench/bill-math.ts";

const nothing: MonthlyUsage = {
  workerRequests: 0,
  workerCpuMs: 0,
  objectRequests: 0,
  websocketMessages: 0,
  activeObjectSeconds: 0,
  sqliteRowsRead: 0,
  sqliteRowsWritten: 0,
  sqliteStoredGb: 0,
  r2StoredGb: 0,
  r2ClassA: 0,
  r2ClassB: 0,
};

const dollarsOf = (usage: Partial<MonthlyUsage>, item: string) => monthlyBill({ ...nothing, ...usage }).lines.find((line) => line.item === item)!.dollars;

describe("the monthly bill", () => {
  it("is the $5 subscription alone while every quantity stays within what is included", () => {
    const bill = monthlyBill({
      workerRequests: 10_000_000,
      workerCpuMs: 30_000_000,
      objectRequests: 900_000,
      websocketMessages: 2_000_000, // 100,000 requests
      activeObjectSeconds: 400_000 / 0.128,
      sqliteRowsRead: 25e9,
      sqliteRowsWritten: 50e6,
      sqliteStoredGb: 5,
      r2StoredGb: 10,
      r2ClassA: 1e6,
      r2ClassB: 10e6,
    });
    expect(bill.total).toBeCloseTo(5, 10);
  });

  it("prices Worker requests and CPU beyond 10 M and 30 M ms", () => {
    expect(dollarsOf({ workerRequests: 30e6 }, "Worker requests")).toBeCloseTo(20 * 0.3, 10); // $6.00
    expect(dollarsOf({ workerCpuMs: 130e6 }, "Worker CPU")).toBeCloseTo(100 * 0.02, 10); // $2.00
  });

  it("bills incoming WebSocket messages 20 to an object request", () => {
    // 2 M calls + 20 M messages = 3 M requests; 1 M included: 2 M × $0.15.
    expect(dollarsOf({ objectRequests: 2e6, websocketMessages: 20e6 }, "Durable Object requests")).toBeCloseTo(0.3, 10);
  });

  it("bills duration at 128 MB for each second an object is active", () => {
    // 3 objects held active all month: 3 × 2,592,000 s × 0.128 GB = 995,328 GB-s; 400,000 included.
    const dollars = dollarsOf({ activeObjectSeconds: 3 * monthSeconds }, "Durable Object duration");
    expect(dollars).toBeCloseTo(((995_328 - 400_000) / 1e6) * 12.5, 10); // $7.4416
  });

  it("prices SQLite and R2 storage and operations beyond their included amounts", () => {
    const bill = monthlyBill({
      ...nothing,
      sqliteRowsRead: 26e9, // 1,000 M beyond: $1.00
      sqliteRowsWritten: 150e6, // 100 M beyond: $100
      sqliteStoredGb: 15, // 10 GB-month beyond: $2.00
      r2StoredGb: 6_048, // 6,038 GB-month beyond: $90.57
      r2ClassA: 3e6, // 2 M beyond: $9.00
      r2ClassB: 12e6, // 2 M beyond: $0.72
    });
    expect(bill.total).toBeCloseTo(5 + 1 + 100 + 2 + 90.57 + 9 + 0.72, 10);
  });
});

describe("a run extrapolated to a month", () => {
  it("scales counts by the month over the run and by the workload's partitions over the run's", () => {
    const usage = monthlyUsage(
      { seconds: 10, workerRequests: 100, workerCpuMs: 50, objectRequests: 300, websocketMessages: 40, objectActiveMs: 30_000, sqliteRowsRead: 7, sqliteRowsWritten: 200 },
      { messagesPerSecond: 10_000, messageBytes: 1000, partitions: 24, replicationFactor: 3, retentionSeconds: 7 * 86_400, segmentBytes: 8 * 1024 * 1024 },
      { partitionScale: 8, storedBytesPerMessageByte: 1.05, r2ClassAPerSegment: 3, r2ClassBPerSegment: 1 },
    );
    const scale = (2_592_000 / 10) * 8;
    expect(usage.workerRequests).toBeCloseTo(100 * scale, 6);
    expect(usage.objectRequests).toBeCloseTo(300 * scale, 6);
    expect(usage.websocketMessages).toBeCloseTo(40 * scale, 6);
    expect(usage.activeObjectSeconds).toBeCloseTo(30 * scale, 6); // 3 objects active throughout, × 8
    expect(usage.sqliteRowsWritten).toBeCloseTo(200 * scale, 6);
    // 10.5 MB/s kept 7 days, once in R2; each replica's unsealed segment at most in SQLite.
    expect(usage.r2StoredGb).toBeCloseTo((10_500_000 * 604_800) / 1e9, 6); // 6,350.4 GB
    expect(usage.sqliteStoredGb).toBeCloseTo((24 * 3 * 8_388_608) / 1e9, 9);
    // 10.5 MB/s for 30 days in 8 MiB segments: 3,244.4 segments, 3 class A and 1 class B each.
    const segments = (10_500_000 * 2_592_000) / 8_388_608;
    expect(usage.r2ClassA).toBeCloseTo(3 * segments, 6);
    expect(usage.r2ClassB).toBeCloseTo(segments, 6);
  });
});
