import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { effectiveTopicConfigs, mergeTopicConfigs, topicConfigRules } from "../../../src/topics/topic-configs.ts";

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return error.code;
    throw error;
  }
  return "no error";
}

describe("topic configs", () => {
  it("shows every config with its default", () => {
    const effective = effectiveTopicConfigs({});
    expect(Object.keys(effective).sort()).toEqual(Object.keys(topicConfigRules).sort());
    expect(effective["cleanup.policy"]).toBe("delete");
    expect(effective["max.message.bytes"]).toBe("1048576");
    expect(effective["message.timestamp.type"]).toBe("CreateTime");
  });

  it("merges changes; null restores the default", () => {
    const merged = mergeTopicConfigs({ "retention.ms": "1000" }, { "cleanup.policy": "compact", "retention.ms": null });
    expect(merged).toEqual({ "cleanup.policy": "compact" });
    expect(effectiveTopicConfigs(merged)["retention.ms"]).toBe("604800000");
  });

  it("accepts numbers and booleans as their strings", () => {
    expect(mergeTopicConfigs({}, { "segment.bytes": 65_536, "unclean.leader.election.enable": true })).toEqual({
      "segment.bytes": "65536",
      "unclean.leader.election.enable": "true",
    });
  });

  it.each([
    [{ "no.such.config": "1" }],
    [{ "segment.bytes": "65535" }],
    [{ "segment.bytes": "67108865" }],
    [{ "max.message.bytes": "0" }],
    [{ "max.message.bytes": "1048577" }],
    [{ "retention.ms": "-2" }],
    [{ "retention.ms": "1.5" }],
    [{ "retention.ms": "ten" }],
    [{ "cleanup.policy": "forever" }],
    [{ "message.timestamp.type": "createtime" }],
    [{ "min.insync.replicas": "0" }],
    [{ "retention.ms": { nested: 1 } }],
    [{ "confluent.key.schema.validation": "yes" }],
    [{ "confluent.value.schema.validation": "TRUE" }],
    [{ "confluent.value.subject.name.strategy": "TopicName" }],
    [{ "confluent.key.subject.name.strategy": "com.example.TopicNameStrategy" }],
  ])("refuses %j with INVALID_CONFIG, changing nothing", (changes) => {
    const current = { "retention.ms": "1000" };
    expect(codeOf(() => mergeTopicConfigs(current, JSON.parse(JSON.stringify(changes))))).toBe("INVALID_CONFIG");
    expect(current).toEqual({ "retention.ms": "1000" });
  });

  it("refuses a config named __proto__ (prototype pollution) as unknown", () => {
    const changes: unknown = JSON.parse('{"__proto__": "1"}');
    expect(codeOf(() => mergeTopicConfigs({}, changes))).toBe("INVALID_CONFIG");
  });

  it("refuses configs that are not an object", () => {
    expect(codeOf(() => mergeTopicConfigs({}, ["retention.ms"]))).toBe("INVALID_CONFIG");
    expect(codeOf(() => mergeTopicConfigs({}, "retention.ms=1"))).toBe("INVALID_CONFIG");
  });
});
