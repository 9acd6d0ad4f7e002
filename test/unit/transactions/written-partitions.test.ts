import { describe, expect, it } from "vitest";
import { writtenPartitions } from "../../../src/objects/transaction-marker-writes.ts";

const a0 = { topic: "a", partition: 0 };
const a1 = { topic: "a", partition: 1 };
const b0 = { topic: "b", partition: 0 };

describe("the partitions a round of markers wrote", () => {
  it("all on ok; those not named as failed otherwise; a fenced refusal counts as done", () => {
    expect(writtenPartitions([a0, a1], { ok: true, value: undefined })).toEqual([a0, a1]);
    const failed = [{ ...a1, code: "LEADER_NOT_AVAILABLE" }, { ...b0, code: "INVALID_PRODUCER_EPOCH" }];
    expect(writtenPartitions([a0, a1, b0], { ok: false, error: { code: "LEADER_NOT_AVAILABLE", message: "x", data: { failed } } })).toEqual([a0, b0]);
  });

  it("none when the error names no partition", () => {
    expect(writtenPartitions([a0], { ok: false, error: { code: "REQUEST_TIMED_OUT", message: "x" } })).toEqual([]);
  });
});
