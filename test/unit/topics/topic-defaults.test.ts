/**
 * A new topic's defaults (src/topics/topic-defaults.ts): the deployment's
 * TOPIC_DEFAULT_PARTITIONS and TOPIC_DEFAULT_REPLICATION_FACTOR (Kafka's num.partitions and
 * default.replication.factor), 1 when unset, bounded as topic creation bounds them; and every
 * topic config's default by name.
 */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { partitionsPerTopicMax } from "../../../src/limits.ts";
import { defaultTopicConfigs, topicDefaults } from "../../../src/topics/topic-defaults.ts";

describe("topic defaults", () => {
  it("are 1 and 1 unset or empty, and the deployment's numbers otherwise", () => {
    expect(topicDefaults({}, 5)).toEqual({ partitions: 1, replicationFactor: 1 });
    expect(topicDefaults({ TOPIC_DEFAULT_PARTITIONS: "", TOPIC_DEFAULT_REPLICATION_FACTOR: " " }, 5)).toEqual({ partitions: 1, replicationFactor: 1 });
    expect(topicDefaults({ TOPIC_DEFAULT_PARTITIONS: "6", TOPIC_DEFAULT_REPLICATION_FACTOR: "3" }, 5)).toEqual({ partitions: 6, replicationFactor: 3 });
  });

  it("refuse what topic creation would refuse, naming the variable", () => {
    for (const [env, name] of [
      [{ TOPIC_DEFAULT_PARTITIONS: "0" }, "TOPIC_DEFAULT_PARTITIONS"],
      [{ TOPIC_DEFAULT_PARTITIONS: String(partitionsPerTopicMax + 1) }, "TOPIC_DEFAULT_PARTITIONS"],
      [{ TOPIC_DEFAULT_PARTITIONS: "two" }, "TOPIC_DEFAULT_PARTITIONS"],
      [{ TOPIC_DEFAULT_REPLICATION_FACTOR: "4" }, "TOPIC_DEFAULT_REPLICATION_FACTOR"], // 3 regions
    ] as const) {
      expect(() => topicDefaults(env, 3)).toThrow(TributaryError);
      expect(() => topicDefaults(env, 3)).toThrow(name);
    }
  });

  it("list every topic config's default under its Kafka name", () => {
    expect(defaultTopicConfigs()).toMatchObject({ "retention.ms": "604800000", "cleanup.policy": "delete", "min.insync.replicas": "1" });
  });
});
