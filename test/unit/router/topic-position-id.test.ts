import { describe, expect, it } from "vitest";
import { decodeTopicPositions, encodeTopicPositions } from "../../../src/router/streams/topic-position-id.ts";

const topicId = "3f2a9c1b-0000-4000-8000-000000000000";

describe("the id of a whole-topic SSE event", () => {
  it("round-trips every partition's offset, compactly", () => {
    const offsets = [0, 35, 36, 2 ** 53 - 1, 1_000_000];
    const id = encodeTopicPositions(topicId, offsets);
    expect(id.length).toBeLessThan(9 + offsets.length * 12);
    expect(decodeTopicPositions(id, topicId, 8)).toEqual(offsets);
  });

  it("resumes a topic that has gained partitions: the id covers the first ones", () => {
    expect(decodeTopicPositions(encodeTopicPositions(topicId, [4, 5]), topicId, 4)).toEqual([4, 5]);
  });

  it.each([
    ["another topic's", encodeTopicPositions("00000000-0000-4000-8000-000000000000", [1])],
    ["more partitions than the topic has", encodeTopicPositions(topicId, [1, 2, 3])],
    ["no offsets", "3f2a9c1b"],
    ["an empty offset", "3f2a9c1b.1."],
    ["a leading zero", "3f2a9c1b.01"],
    ["a negative offset", "3f2a9c1b.-1"],
    ["upper case", "3f2a9c1b.A"],
    ["an offset past 2^53", `3f2a9c1b.${(2 ** 53).toString(36)}`],
    ["garbage", "hello"],
  ])("refuses %s with 400 INVALID_REQUEST", (_what, id) => {
    expect(() => decodeTopicPositions(id, topicId, 2)).toThrow(expect.objectContaining({ code: "INVALID_REQUEST" }));
  });
});
