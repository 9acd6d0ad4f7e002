import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { parseRegions, placePartitions } from "../../../src/topics/placement.ts";
import { checkNewTopicName, checkTopicName, collidingTopic, topicCollisionKey } from "../../../src/topics/topic-names.ts";

describe("topic names", () => {
  it.each(["a", "orders", "Orders.v2_x-y", "x".repeat(249), "..."])("accepts %s", (name) => {
    expect(checkTopicName(name)).toBe(name);
  });

  it.each(["", ".", "..", "x".repeat(250), "a b", "a/b", "ä", 7, null])("refuses %j", (name) => {
    expect(() => checkTopicName(name)).toThrow(TributaryError);
  });
});

describe("names for new topics", () => {
  it("may not begin with __, which Kafka keeps for its internal topics; other names are Kafka's rules", () => {
    for (const name of ["__consumer_offsets", "__transaction_state", "__mine"]) {
      expect(() => checkNewTopicName(name)).toThrow(/reserved for Kafka's internal topics/);
    }
    expect(checkNewTopicName("_one_underscore")).toBe("_one_underscore");
    expect(checkNewTopicName("a__b")).toBe("a__b");
    expect(() => checkNewTopicName("bad name")).toThrow(TributaryError);
  });
});

describe("topic name collisions (Kafka: '.' and '_' collide)", () => {
  it("reads every '.' as '_'", () => {
    expect(topicCollisionKey("my.topic.v2")).toBe("my_topic_v2");
    expect(topicCollisionKey("my_topic")).toBe("my_topic");
  });

  it("finds the existing topic a name collides with, never the name itself", () => {
    expect(collidingTopic("my_topic", ["orders", "my.topic"])).toBe("my.topic");
    expect(collidingTopic("my.topic", ["my_topic"])).toBe("my_topic");
    expect(collidingTopic("a.b_c", ["a_b.c"])).toBe("a_b.c");
    expect(collidingTopic("my.topic", ["my.topic"])).toBeUndefined();
    expect(collidingTopic("my-topic", ["my.topic", "my_topic", "mytopic"])).toBeUndefined();
  });
});

describe("placement", () => {
  it("uses the default regions when REGIONS is unset, and refuses unknown or repeated ones", () => {
    expect(parseRegions(undefined)).toEqual(["wnam", "enam", "weur", "apac", "oc"]);
    expect(parseRegions(" weur, apac ")).toEqual(["weur", "apac"]);
    expect(() => parseRegions("weur,mars")).toThrow(TributaryError);
    expect(() => parseRegions("weur,weur")).toThrow(TributaryError);
  });

  it("places replicas in distinct regions and spreads leaders", () => {
    const regions = ["wnam", "enam", "weur", "apac", "oc"];
    const placements = placePartitions("topic-id", 0, 10, 3, regions);
    expect(placements.map((placement) => placement.partition)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const placement of placements) {
      expect(new Set(placement.replicas).size).toBe(3);
      expect(placement.leader).toBe(placement.replicas[0]);
      expect(placement.isr).toEqual(placement.replicas);
    }
    const leaders = placements.map((placement) => placement.leader);
    for (const region of regions) expect(leaders.filter((leader) => leader === region)).toHaveLength(2);
  });

  it("refuses a replication factor larger than the region count", () => {
    expect(() => placePartitions("t", 0, 1, 3, ["weur", "apac"])).toThrow(TributaryError);
  });
});
