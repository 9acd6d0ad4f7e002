import { describe, expect, it } from "vitest";
import { epochEndOffset } from "../../../src/log/epoch-end.ts";

const history = [
  { epoch: 0, startOffset: 0 },
  { epoch: 2, startOffset: 100 },
  { epoch: 5, startOffset: 160 },
];

describe("the end offset of a leader epoch (Kafka's OffsetForLeaderEpoch)", () => {
  it("answers the start of the next epoch, with the largest epoch not after the one asked", () => {
    expect(epochEndOffset(history, 0, 200)).toEqual({ leaderEpoch: 0, offset: 100 });
    expect(epochEndOffset(history, 1, 200)).toEqual({ leaderEpoch: 0, offset: 100 });
    expect(epochEndOffset(history, 2, 200)).toEqual({ leaderEpoch: 2, offset: 160 });
    expect(epochEndOffset(history, 4, 200)).toEqual({ leaderEpoch: 2, offset: 160 });
  });

  it("answers the log's end for the latest epoch", () => {
    expect(epochEndOffset(history, 5, 200)).toEqual({ leaderEpoch: 5, offset: 200 });
  });

  it("answers an epoch before the first kept with the first kept epoch's start, as Kafka does", () => {
    expect(epochEndOffset(history.slice(1), 0, 200)).toEqual({ leaderEpoch: 0, offset: 100 });
  });

  it("answers undefined (−1, −1) for an epoch after the latest, a negative one, or no history", () => {
    expect(epochEndOffset(history, 6, 200)).toEqual({ leaderEpoch: -1, offset: -1 });
    expect(epochEndOffset(history, -1, 200)).toEqual({ leaderEpoch: -1, offset: -1 });
    expect(epochEndOffset([], 0, 200)).toEqual({ leaderEpoch: -1, offset: -1 });
  });
});
