/**
 * bench/cost.ts: a row's cost in Cloudflare's billing units from the leaders' counters —
 * object requests (RPC calls, alarms, and WebSocket messages received, billed 20 to a
 * request) and rows written, with the describe call that reads them and the excluded
 * requests (a fan-out row's producer) taken off.
 */
import { describe, expect, it } from "vitest";
import { costBetween, costText, type LeaderCounters } from "../../../bench/cost.ts";

const counters = (requests: number, subscriberMessages = 0, alarms = 0, sqliteRowsWritten = 0, source: LeaderCounters["source"] = "leaders"): LeaderCounters => ({
  requests,
  alarms,
  subscriberMessages,
  sqliteRowsWritten,
  partitions: 1,
  source,
});

describe("a row's cost", () => {
  it("counts RPC calls and alarms, less the reading's own call and the excluded requests", () => {
    const cost = costBetween(counters(10, 0, 0, 0), counters(10 + 1 + 5 + 2, 0, 1, 7), 1_000, "1,000 records", 5)!;
    expect(cost).toEqual({ per: "1,000 records", objectRequests: 3, sqliteRowsWritten: 7, allObjects: false });
  });

  it("says the figure covers every object (followers too) only when both readings come from the billing meter", () => {
    expect(costBetween(counters(0, 0, 0, 0, "meter"), counters(2, 0, 0, 3, "meter"), 1_000, "1,000 records")!.allObjects).toBe(true);
    expect(costBetween(counters(0, 0, 0, 0, "leaders"), counters(2, 0, 0, 3, "meter"), 1_000, "1,000 records")!.allObjects).toBe(false);
  });

  it("counts subscribers' WebSocket messages as billed: 20 to a request", () => {
    // 100 subscribers each crediting one frame of 1,000 records: 100 messages for 100,000 records delivered.
    const cost = costBetween(counters(0, 40), counters(1 + 1, 140), 100_000, "1,000 records", 1)!;
    expect(cost.objectRequests).toBeCloseTo(100 / 20 / 100, 10); // 0.05 per 1,000 records
  });
});

describe("a cost as printed", () => {
  it("keeps four decimals below 0.1, so a figure near the 0.01 target can be read", () => {
    expect(costText(0.0056)).toBe("0.0056");
    expect(costText(0)).toBe("0.00");
    expect(costText(2.034)).toBe("2.03");
    expect(costText(12.4)).toBe("12");
  });
});
