import { describe, expect, it } from "vitest";
import { streamPathOf, streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import { checkTopicName, topicCollisionKey } from "../../../src/topics/topic-names.ts";

describe("stream paths as topic names", () => {
  it("keeps letters, digits and '-', escapes every other byte as _HH, under the ds. prefix", () => {
    expect(streamTopicName("chat/room-1")).toBe("ds.chat_2Froom-1");
    expect(streamTopicName("a.b_c")).toBe("ds.a_2Eb_5Fc");
    expect(streamTopicName("é")).toBe("ds._C3_A9");
  });

  it("is injective and decodable: distinct paths never share a topic, nor collide by Kafka's '.'/'_' rule", () => {
    const paths = ["a/b", "a_b", "a.b", "a_2Fb", "a/2Fb", "A/b", "a//b", "a/b/", "_", "__", "x y", "é/ü", "-"];
    const names = paths.map(streamTopicName);
    expect(new Set(names).size).toBe(paths.length);
    expect(new Set(names.map(topicCollisionKey)).size).toBe(paths.length);
    for (const [index, name] of names.entries()) {
      expect(checkTopicName(name)).toBe(name);
      expect(streamPathOf(name)).toBe(paths[index]);
    }
  });

  it("refuses an empty path and one whose topic name would pass 249 characters (400)", () => {
    expect(() => streamTopicName("")).toThrow(expect.objectContaining({ status: 400 }));
    expect(streamTopicName("a".repeat(246))).toHaveLength(249);
    expect(() => streamTopicName("a".repeat(247))).toThrow(expect.objectContaining({ status: 400 }));
  });

  it("decodes no topic that is not a stream's", () => {
    expect(streamPathOf("orders")).toBeUndefined();
    expect(streamPathOf("ds.a_ZZ")).toBeUndefined();
    expect(streamPathOf("ds.a.b")).toBeUndefined();
    expect(streamPathOf("ds._FF")).toBeUndefined(); // not UTF-8
  });
});
