import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { followLogStart, moveLogStart } from "../../../src/log/log-start.ts";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { encodeRecordBatch, readBatchHeader } from "../../../src/protocol/record-batch.ts";

const utf8 = new TextEncoder();
const limits = { maxRecords: 100, maxBytes: 1 << 20 };

function batchOf(values: string[]): Uint8Array {
  return encodeRecordBatch(values.map((value, index) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: 1_000 + index })));
}

/** A leader's log of three-record batches, one per epoch given, committed. */
function leaderLog(epochs: number[]): PartitionLog {
  const log = new PartitionLog(new MemoryLogStore());
  for (const [index, epoch] of epochs.entries()) log.append([batchOf([`a${index}`, `b${index}`, `c${index}`])], epoch);
  log.advanceHighWatermark(log.logEndOffset);
  return log;
}

/** A follower holding the leader's batches from `from` up to `until`, with the high watermark it has heard. */
function followerOf(leader: PartitionLog, until: number, highWatermark: number): PartitionLog {
  const log = new PartitionLog(new MemoryLogStore());
  const batches = leader.read(0, limits, until).batches.map((batch) => batch.slice());
  log.appendReplicated(batches.filter((batch) => readBatchHeader(batch, 0).baseOffset < until));
  log.advanceHighWatermark(highWatermark);
  return log;
}

function baseOffsets(log: PartitionLog, from: number): number[] {
  return log.read(from, limits, log.logEndOffset).batches.map((batch) => readBatchHeader(batch, 0).baseOffset);
}

function outOfRange(log: PartitionLog, offset: number): boolean {
  try {
    log.read(offset, limits);
    return false;
  } catch (error) {
    return error instanceof TributaryError && error.code === "OFFSET_OUT_OF_RANGE";
  }
}

const leaderView = (log: PartitionLog) => ({ logStartOffset: log.logStartOffset, localStartOffset: log.localStartOffset, epochs: log.epochStarts() });

describe("moveLogStart", () => {
  it("drops the held batches wholly below the new start and keeps the one holding it whole", () => {
    const log = leaderLog([0, 0, 0]);
    moveLogStart(log, 4);
    expect(log.logStartOffset).toBe(4);
    expect(log.localStartOffset).toBe(3);
    expect(baseOffsets(log, 4)).toEqual([3, 6]);
    expect(outOfRange(log, 3)).toBe(true);
    moveLogStart(log, 2); // never back
    expect(log.logStartOffset).toBe(4);
    moveLogStart(log, 9); // to the log end: nothing is held
    expect(log.localStartOffset).toBe(9);
    expect(log.read(9, limits).batches).toEqual([]);
  });
});

describe("followLogStart", () => {
  it("below the follower's high watermark: moves as the leader's did", () => {
    const leader = leaderLog([0, 0, 0]);
    const follower = followerOf(leader, 9, 9);
    moveLogStart(leader, 4);
    followLogStart(follower, leaderView(leader));
    expect({ start: follower.logStartOffset, local: follower.localStartOffset, highWatermark: follower.highWatermark }).toEqual({ start: 4, local: 3, highWatermark: 9 });
  });

  it("past the follower's high watermark, over the same records: its high watermark moves there first", () => {
    const leader = leaderLog([0, 0, 1]);
    const follower = followerOf(leader, 9, 2);
    moveLogStart(leader, 9);
    followLogStart(follower, leaderView(leader));
    expect({ start: follower.logStartOffset, end: follower.logEndOffset, highWatermark: follower.highWatermark, local: follower.localStartOffset }).toEqual({
      start: 9,
      end: 9,
      highWatermark: 9,
      local: 9,
    });
  });

  it("past the follower's high watermark, over a diverging tail: starts over at the leader's first held batch, and catches up from there", () => {
    const leader = leaderLog([0, 2, 2]);
    const follower = new PartitionLog(new MemoryLogStore());
    follower.appendReplicated(leader.read(0, limits, 3).batches.map((batch) => batch.slice()));
    follower.append([batchOf(["x", "y", "z"])], 1); // its own tail of an older leadership, never committed
    follower.advanceHighWatermark(3);
    moveLogStart(leader, 5);
    followLogStart(follower, leaderView(leader));
    expect({ start: follower.logStartOffset, end: follower.logEndOffset }).toEqual({ start: 5, end: 3 });
    expect(outOfRange(follower, 5)).toBe(true); // until the leader's pushes reach it: the router reads from the leader
    follower.appendReplicated(leader.read(5, limits, leader.logEndOffset).batches.map((batch) => batch.slice())); // the push from its log end: the batch holding 5 on
    follower.advanceHighWatermark(leader.highWatermark);
    expect(baseOffsets(follower, 5)).toEqual([3, 6]);
    expect(follower.epochAt(4)).toBe(2);
  });

  it("past every record the follower holds: starts over at the leader's first held batch", () => {
    const leader = leaderLog([0, 0, 0]);
    const follower = followerOf(leader, 3, 3);
    moveLogStart(leader, 7);
    followLogStart(follower, leaderView(leader));
    expect({ start: follower.logStartOffset, end: follower.logEndOffset, local: follower.localStartOffset }).toEqual({ start: 7, end: 6, local: 6 });
  });
});
