import { describe, expect, it } from "vitest";
import { metricsHistoryMinutes, metricsPersistIntervalMs } from "../../../src/limits.ts";
import { PartitionTraffic, recordsFrom } from "../../../src/metrics/partition-traffic.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";

const minute = 60_000;
const start = 1_764_673_200_000; // a minute boundary

describe("PartitionTraffic", () => {
  it("derives records appended from the log end and a base, which a truncation lowers so the counter never falls", () => {
    const traffic = new PartitionTraffic(PartitionTraffic.fresh(10), start);
    expect(traffic.recordsAppended(10)).toBe(0);
    traffic.appended(5, 500, 15, start);
    expect(traffic.recordsAppended(15)).toBe(5);
    traffic.observeLogEnd(12); // a follower truncated 3 uncommitted records
    expect(traffic.recordsAppended(12)).toBe(5);
    traffic.appended(2, 200, 14, start);
    expect(traffic.recordsAppended(14)).toBe(7);
    expect(traffic.bytesAppended).toBe(700);
  });

  it("is due for a write only when something changed and the last write is metricsPersistIntervalMs old", () => {
    const traffic = new PartitionTraffic(PartitionTraffic.fresh(0), start);
    expect(traffic.due(start + metricsPersistIntervalMs)).toBeUndefined(); // nothing changed
    traffic.fetched(3, start + 1);
    expect(traffic.due(start + metricsPersistIntervalMs - 1)).toBeUndefined();
    const due = traffic.due(start + metricsPersistIntervalMs);
    expect(due).toMatchObject({ fetches: 1, recordsFetched: 3 });
    traffic.persisted(start + metricsPersistIntervalMs);
    expect(traffic.due(start + 10 * metricsPersistIntervalMs)).toBeUndefined();
  });

  it("restores what was written: counters and history", () => {
    const traffic = new PartitionTraffic(PartitionTraffic.fresh(0), start);
    traffic.appended(4, 40, 4, start + 5);
    traffic.fetched(2, start + minute + 5);
    const restored = new PartitionTraffic(traffic.snapshot(), start + 2 * minute);
    expect([restored.recordsAppended(4), restored.bytesAppended, restored.fetches, restored.recordsFetched]).toEqual([4, 40, 1, 2]);
    expect(restored.history(start + minute + 10)).toEqual(traffic.history(start + minute + 10));
  });

  it("keeps the last metricsHistoryMinutes one-minute buckets, dense and oldest first", () => {
    const traffic = new PartitionTraffic(PartitionTraffic.fresh(0), start);
    let logEnd = 0;
    for (let index = 0; index < 20; index++) {
      logEnd += index + 1;
      traffic.appended(index + 1, 0, logEnd, start + index * minute + 30_000);
    }
    traffic.fetched(7, start + 19 * minute);
    const now = start + 19 * minute + 59_999;
    const history = traffic.history(now);
    expect(history.minuteStartMs).toEqual(Array.from({ length: metricsHistoryMinutes }, (_, index) => start + (5 + index) * minute));
    expect(history.recordsIn).toEqual(Array.from({ length: metricsHistoryMinutes }, (_, index) => 6 + index));
    expect(history.recordsOut).toEqual([...new Array(metricsHistoryMinutes - 1).fill(0), 7]);
    expect(traffic.snapshot().history.length).toBeLessThanOrEqual(metricsHistoryMinutes);
    // Minutes with nothing show as zeros, and old buckets fall out of the window.
    expect(traffic.history(now + 30 * minute).recordsIn).toEqual(new Array(metricsHistoryMinutes).fill(0));
  });
});

describe("recordsFrom", () => {
  it("counts the records a fetch answer carries from the offset asked for, reading only the headers", () => {
    const batch = (baseOffset: number, count: number) => {
      const bytes = encodeRecordBatch(Array.from({ length: count }, () => ({ key: null, value: new Uint8Array([1]), headers: [], timestamp: 0 })));
      new DataView(bytes.buffer, bytes.byteOffset).setBigInt64(0, BigInt(baseOffset));
      return bytes;
    };
    const joined = new Uint8Array([...batch(5, 2), ...batch(7, 4)]); // two batches in one array, as a sealed segment's range read gives
    expect(recordsFrom(3, [batch(0, 5)])).toBe(2);
    expect(recordsFrom(6, [joined])).toBe(5);
    expect(recordsFrom(0, [])).toBe(0);
  });
});
