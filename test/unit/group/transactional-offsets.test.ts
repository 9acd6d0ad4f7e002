import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import {
  applyGroupMarker,
  dropPendingOffsets,
  emptyTransactionalOffsets,
  hasPendingOffsets,
  stageOffsets,
} from "../../../src/group/transactional-offsets.ts";

const offset = (value: number) => ({ topic: "in", partition: 0, offset: value, metadata: "" });

describe("a group's transactional offsets", () => {
  it("holds them until the commit marker, then hands them over to be committed", () => {
    const staged = stageOffsets(emptyTransactionalOffsets(), { producerId: 1, producerEpoch: 0, offsets: [offset(5)] });
    expect(hasPendingOffsets(staged, "in", 0)).toBe(true);
    expect(hasPendingOffsets(staged, "in", 1)).toBe(false);
    const marked = applyGroupMarker(staged, { producerId: 1, producerEpoch: 1, result: "commit" });
    expect(marked.commit).toEqual([offset(5)]);
    expect(hasPendingOffsets(marked.state, "in", 0)).toBe(false);
    // A retried marker commits nothing twice.
    expect(applyGroupMarker(marked.state, { producerId: 1, producerEpoch: 1, result: "commit" }).commit).toEqual([]);
  });

  it("drops them at an abort", () => {
    const staged = stageOffsets(emptyTransactionalOffsets(), { producerId: 1, producerEpoch: 0, offsets: [offset(5)] });
    const marked = applyGroupMarker(staged, { producerId: 1, producerEpoch: 1, result: "abort" });
    expect(marked.commit).toEqual([]);
    expect(marked.state.pending).toEqual([]);
  });

  it("refuses a commit delayed past its transaction's end (its epoch is below the marker's)", () => {
    const marked = applyGroupMarker(emptyTransactionalOffsets(), { producerId: 1, producerEpoch: 1, result: "commit" }).state;
    expect(() => stageOffsets(marked, { producerId: 1, producerEpoch: 0, offsets: [offset(9)] })).toThrow(TributaryError);
    // The next transaction runs at the marker's epoch.
    expect(stageOffsets(marked, { producerId: 1, producerEpoch: 1, offsets: [offset(9)] }).pending).toHaveLength(1);
  });

  it("keeps a newer transaction's offsets when an older marker is retried", () => {
    let state = applyGroupMarker(emptyTransactionalOffsets(), { producerId: 1, producerEpoch: 1, result: "commit" }).state;
    state = stageOffsets(state, { producerId: 1, producerEpoch: 1, offsets: [offset(9)] });
    const retried = applyGroupMarker(state, { producerId: 1, producerEpoch: 1, result: "commit" });
    expect(retried.commit).toEqual([]);
    expect(hasPendingOffsets(retried.state, "in", 0)).toBe(true);
  });

  it("replaces an earlier commit of the same partition within a transaction", () => {
    let state = stageOffsets(emptyTransactionalOffsets(), { producerId: 1, producerEpoch: 0, offsets: [offset(5)] });
    state = stageOffsets(state, { producerId: 1, producerEpoch: 0, offsets: [offset(7), { ...offset(2), partition: 1 }] });
    expect(applyGroupMarker(state, { producerId: 1, producerEpoch: 1, result: "commit" }).commit).toEqual([offset(7), { ...offset(2), partition: 1 }]);
  });

  it("drops a transaction's pending offsets of deleted partitions (OffsetDelete), so its commit marker does not bring them back; its epoch still fences", () => {
    const other = { topic: "in", partition: 1, offset: 7, metadata: "" };
    const staged = stageOffsets(emptyTransactionalOffsets(), { producerId: 1, producerEpoch: 3, offsets: [offset(5), other] });
    const dropped = dropPendingOffsets(staged, [{ topic: "in", partition: 0 }]);
    expect(hasPendingOffsets(dropped, "in", 0)).toBe(false);
    expect(hasPendingOffsets(dropped, "in", 1)).toBe(true);
    expect(applyGroupMarker(dropped, { producerId: 1, producerEpoch: 4, result: "commit" }).commit).toEqual([other]);
    const none = dropPendingOffsets(dropped, [{ topic: "in", partition: 1 }]);
    expect(() => stageOffsets(none, { producerId: 1, producerEpoch: 2, offsets: [offset(9)] })).toThrow(TributaryError);
  });
});
