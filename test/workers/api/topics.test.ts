/**
 * Topic admin over HTTP (API.md, Topics): create, list, describe, alter configs, add
 * partitions, delete, and every error those routes answer with.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { partitionsPerTopicMax } from "../../../src/limits.ts";
import { api, createTopic, describeTopic, expectError, uniqueTopic, type Topic } from "../support/http.ts";
import { registry } from "../registry/support.ts";

/** The effective configs of a topic created without any (API.md's list, Kafka's names). */
const defaultConfigs = {
  "retention.ms": "604800000",
  "retention.bytes": "-1",
  "cleanup.policy": "delete",
  "delete.retention.ms": "86400000",
  "segment.bytes": "8388608",
  "segment.ms": "604800000",
  "max.message.bytes": "1048576",
  "min.insync.replicas": "1",
  "replica.lag.time.max.ms": "30000",
  "unclean.leader.election.enable": "false",
  "message.timestamp.type": "CreateTime",
  "message.timestamp.before.max.ms": "9223372036854775807",
  "message.timestamp.after.max.ms": "9223372036854775807",
  "compression.type": "producer",
  "confluent.key.schema.validation": "false",
  "confluent.value.schema.validation": "false",
  "confluent.key.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicNameStrategy",
  "confluent.value.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicNameStrategy",
  "tributary.key.schema.validation": "false",
  "tributary.value.schema.validation": "false",
};

const regions = env.REGIONS.split(",");
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectPartitionShape(topic: Topic, count: number) {
  expect(topic.partitions.map((partition) => partition.partition)).toEqual([...Array(count).keys()]);
  for (const partition of topic.partitions) {
    expect(Object.keys(partition).sort()).toEqual(["highWatermark", "isr", "lastStableOffset", "leader", "leaderEpoch", "logStartOffset", "partition", "replicas", "storage"]);
    expect(regions).toContain(partition.leader);
    expect(partition.replicas).toEqual([partition.leader]);
    expect(partition.isr).toEqual([partition.leader]);
  }
}

async function topicNames(): Promise<string[]> {
  const response = await api("GET", "/v1/topics");
  expect(response.status).toBe(200);
  return response.body.topics.map((topic: { name: string }) => topic.name);
}

describe("POST /v1/topics", () => {
  it("creates a topic with 1 partition, replication factor 1 and every effective config", async () => {
    const name = uniqueTopic("defaults");
    const response = await api("POST", "/v1/topics", { name });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const topic = response.body as Topic;
    expect(Object.keys(topic).sort()).toEqual(["configOverrides", "configs", "name", "partitions", "replicationFactor", "topicId"]);
    expect(topic.name).toBe(name);
    expect(topic.topicId).toMatch(uuidPattern);
    expect(topic.replicationFactor).toBe(1);
    expect(topic.configs).toEqual(defaultConfigs);
    expect(topic.configOverrides).toEqual([]);
    expectPartitionShape(topic, 1);
    expect(topic.partitions[0]).toMatchObject({ partition: 0, logStartOffset: 0, highWatermark: 0 });
    expect(await describeTopic(name)).toEqual(topic);
  });

  it("creates several partitions, spreading their leaders over the regions, with explicit configs", async () => {
    const name = uniqueTopic("spread");
    const topic = await createTopic(name, { partitions: regions.length, configs: { "cleanup.policy": "compact", "retention.ms": "1000" } });
    expectPartitionShape(topic, regions.length);
    expect(new Set(topic.partitions.map((partition) => partition.leader)).size).toBe(regions.length);
    expect(topic.configs).toEqual({ ...defaultConfigs, "cleanup.policy": "compact", "retention.ms": "1000" });
    expect(topic.configOverrides).toEqual(["cleanup.policy", "retention.ms"]);
    expect(topic.partitions.every((partition) => partition.highWatermark === 0 && partition.logStartOffset === 0)).toBe(true);
  });

  it("accepts the edges of every range: 249-character names, the partition maximum, segment.bytes and max.message.bytes bounds", async () => {
    const longName = `${uniqueTopic("l")}-`.padEnd(249, "x");
    expect((await createTopic(longName)).name).toBe(longName);
    const legal = uniqueTopic("Legal.name_with-ALL.kinds_09");
    await createTopic(legal);
    const wide = await createTopic(uniqueTopic("max-partitions"), { partitions: partitionsPerTopicMax });
    expect(wide.partitions).toHaveLength(partitionsPerTopicMax);
    for (const configs of [
      { "segment.bytes": "65536", "max.message.bytes": "1" },
      { "segment.bytes": "67108864", "max.message.bytes": "1048576" },
    ]) {
      expect((await createTopic(uniqueTopic("bounds"), { configs })).configs).toMatchObject(configs);
    }
  });

  it("refuses a name that exists with 409 TOPIC_ALREADY_EXISTS and keeps the first topic", async () => {
    const name = uniqueTopic("dup");
    const first = await createTopic(name, { partitions: 2 });
    const error = expectError(await api("POST", "/v1/topics", { name, partitions: 3 }), 409, "TOPIC_ALREADY_EXISTS");
    expect(error.message).toContain(name);
    const after = await describeTopic(name);
    expect(after.topicId).toBe(first.topicId);
    expect(after.partitions).toHaveLength(2);
  });

  it("refuses a name that collides with an existing one on '.' versus '_' with 400 INVALID_TOPIC_EXCEPTION, as Kafka", async () => {
    const base = uniqueTopic("collide");
    const dotted = `${base}.orders.v1`;
    const first = await createTopic(dotted);
    for (const name of [`${base}_orders_v1`, `${base}.orders_v1`]) {
      const error = expectError(await api("POST", "/v1/topics", { name }), 400, "INVALID_TOPIC_EXCEPTION");
      expect(error.message).toContain(dotted);
      expect(error.collidesWith).toBe(dotted);
    }
    expect((await topicNames()).filter((name) => name.startsWith(base))).toEqual([dotted]);
    expect((await describeTopic(dotted)).topicId).toBe(first.topicId);
    // Once the topic is deleted, the colliding name is free.
    expect((await api("DELETE", `/v1/topics/${dotted}`)).status).toBe(204);
    expect((await createTopic(`${base}_orders_v1`)).name).toBe(`${base}_orders_v1`);
  });

  it.each([
    ["empty", ""],
    ["a dot", "."],
    ["two dots", ".."],
    ["250 characters", "x".repeat(250)],
    ["a space", "a b"],
    ["a slash", "a/b"],
    ["a star", "a*"],
    ["non-ASCII", "café"],
    ["a colon", "a:b"],
  ])("refuses a topic name with %s: 400 INVALID_TOPIC_EXCEPTION, nothing created", async (_what, name) => {
    const before = await topicNames();
    expectError(await api("POST", "/v1/topics", { name }), 400, "INVALID_TOPIC_EXCEPTION");
    expect(await topicNames()).toEqual(before);
  });

  it.each([0, -1, 1.5, partitionsPerTopicMax + 1, 1_000_000])("refuses partitions %s with 400 INVALID_PARTITIONS", async (partitions) => {
    const name = uniqueTopic("bad-partitions");
    expectError(await api("POST", "/v1/topics", { name, partitions }), 400, "INVALID_PARTITIONS");
    expectError(await api("GET", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("places replication factor 3 in three distinct regions, all in sync", async () => {
    const name = uniqueTopic("rf3");
    const created = await api("POST", "/v1/topics", { name, partitions: 4, replicationFactor: 3 });
    expect(created.status).toBe(201);
    expect(created.body.replicationFactor).toBe(3);
    for (const partition of created.body.partitions) {
      expect(new Set(partition.replicas).size).toBe(3);
      expect(partition.leader).toBe(partition.replicas[0]);
      expect(partition.isr).toEqual(partition.replicas);
    }
  });

  it.each([0, -1, 1.5, 6])("refuses replication factor %s with 400 INVALID_REPLICATION_FACTOR", async (replicationFactor) => {
    const name = uniqueTopic("bad-rf");
    expectError(await api("POST", "/v1/topics", { name, replicationFactor }), 400, "INVALID_REPLICATION_FACTOR");
    expectError(await api("GET", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it.each([
    ["an unknown name", { "retention.foo": "1" }],
    ["a Kafka config Tributary does not have", { "flush.ms": "1000" }],
    ["a compression.type that is not Kafka's", { "compression.type": "brotli" }],
    ["a non-integer", { "retention.ms": "soon" }],
    ["a decimal", { "retention.ms": "1.5" }],
    ["retention.ms below -1", { "retention.ms": "-2" }],
    ["segment.bytes below 65536", { "segment.bytes": "65535" }],
    ["segment.bytes above 67108864", { "segment.bytes": "67108865" }],
    ["max.message.bytes 0", { "max.message.bytes": "0" }],
    ["max.message.bytes above 1048576", { "max.message.bytes": "1048577" }],
    ["a bad cleanup.policy", { "cleanup.policy": "forever" }],
    ["a bad message.timestamp.type", { "message.timestamp.type": "NoTimestampType" }],
    ["a bad boolean", { "unclean.leader.election.enable": "yes" }],
    ["a bad schema validation flag", { "confluent.value.schema.validation": "on" }],
    ["a subject name strategy Confluent does not have", { "confluent.value.subject.name.strategy": "io.confluent.kafka.serializers.subject.OtherStrategy" }],
    ["an object value", { "retention.ms": { value: "1" } }],
    ["one bad entry among good ones", { "retention.ms": "1000", "cleanup.policy": "compact", "segment.ms": "0" }],
  ])("refuses %s with 400 INVALID_CONFIG and creates nothing", async (_what, configs) => {
    const name = uniqueTopic("bad-config");
    expectError(await api("POST", "/v1/topics", { name, configs }), 400, "INVALID_CONFIG");
    expectError(await api("GET", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(await topicNames()).not.toContain(name);
  });

  it("refuses a config named __proto__ with 400 INVALID_CONFIG", async () => {
    const name = uniqueTopic("proto-config");
    const response = await api("POST", "/v1/topics", `{"name": "${name}", "configs": {"__proto__": "1"}}`);
    expectError(response, 400, "INVALID_CONFIG");
    expectError(await api("GET", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it.each([
    ["malformed JSON", '{"name": "x",'],
    ["a JSON array", "[]"],
    ["a JSON string", '"topic"'],
    ["an empty body", ""],
    ["a missing name", { partitions: 1 }],
    ["a numeric name", { name: 42 }],
    ["partitions as a string", { name: "typed", partitions: "3" }],
    ["replicationFactor as a string", { name: "typed", replicationFactor: "1" }],
    ["configs as an array", { name: "typed", configs: ["retention.ms"] }],
  ])("answers %s with 400 INVALID_REQUEST", async (_what, body) => {
    const error = expectError(await api("POST", "/v1/topics", body), 400, "INVALID_REQUEST");
    expect(Object.keys(error).sort()).toEqual(["code", "message"]);
    expectError(await api("GET", "/v1/topics/typed"), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("refuses an admin body over 256 KiB with 400 INVALID_REQUEST", async () => {
    const name = uniqueTopic("huge-body");
    const body = { name, padding: "x".repeat(300 * 1024) };
    expectError(await api("POST", "/v1/topics", body), 400, "INVALID_REQUEST");
    expectError(await api("GET", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });
});

describe("GET /v1/topics", () => {
  it("lists every topic as {name, partitions, replicationFactor}, sorted by name", async () => {
    const prefix = uniqueTopic("list");
    const names = [`${prefix}-b`, `${prefix}-A`, `${prefix}-a`, `${prefix}-_`, `${prefix}-0`, `${prefix}-a.b`];
    for (const [index, name] of names.entries()) await createTopic(name, { partitions: index + 1 });
    const response = await api("GET", "/v1/topics");
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["topics"]);
    const all: { name: string }[] = response.body.topics;
    const allNames = all.map((topic) => topic.name);
    expect(allNames).toEqual([...allNames].sort());
    expect(all.filter((topic) => topic.name.startsWith(`${prefix}-`))).toEqual([
      { name: `${prefix}-0`, partitions: 5, replicationFactor: 1 },
      { name: `${prefix}-A`, partitions: 2, replicationFactor: 1 },
      { name: `${prefix}-_`, partitions: 4, replicationFactor: 1 },
      { name: `${prefix}-a`, partitions: 3, replicationFactor: 1 },
      { name: `${prefix}-a.b`, partitions: 6, replicationFactor: 1 },
      { name: `${prefix}-b`, partitions: 1, replicationFactor: 1 },
    ]);
  });
});

describe("GET /v1/topics/{topic}", () => {
  it("describes a topic with its partitions' offsets", async () => {
    const name = uniqueTopic("describe");
    const created = await createTopic(name, { partitions: 3 });
    const produced = await api("POST", `/v1/topics/${name}/records`, {
      records: [{ value: "a", partition: 1 }, { value: "b", partition: 1 }, { value: "c", partition: 2 }],
    });
    expect(produced.status).toBe(200);
    const topic = await describeTopic(name);
    expect(topic).toEqual({
      ...created,
      partitions: created.partitions.map((partition, index) => ({
        ...partition,
        highWatermark: [0, 2, 1][index],
        lastStableOffset: [0, 2, 1][index],
        storage: { sqliteBatches: [0, 1, 1][index], sqliteBytes: expect.any(Number), r2Segments: 0, r2Bytes: 0 },
      })),
    });
    expect(topic.partitions[1]!.storage.sqliteBytes).toBeGreaterThan(61);
  });

  it("answers an unknown topic with 404 UNKNOWN_TOPIC_OR_PARTITION", async () => {
    const error = expectError(await api("GET", "/v1/topics/no-such-topic"), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(error.message).toContain("no-such-topic");
  });
});

describe("PATCH /v1/topics/{topic}/configs", () => {
  it("merges configs into the current ones, and null restores a default", async () => {
    const name = uniqueTopic("alter");
    await createTopic(name, { configs: { "retention.ms": "1000", "segment.bytes": "65536" } });
    const merged = await api("PATCH", `/v1/topics/${name}/configs`, { configs: { "cleanup.policy": "compact", "retention.ms": "2000" } });
    expect(merged.status).toBe(200);
    expect(merged.body.configs).toEqual({
      ...defaultConfigs,
      "retention.ms": "2000",
      "segment.bytes": "65536",
      "cleanup.policy": "compact",
    });
    expect(merged.body.configOverrides).toEqual(["cleanup.policy", "retention.ms", "segment.bytes"]);
    const restored = await api("PATCH", `/v1/topics/${name}/configs`, { configs: { "retention.ms": null, "segment.bytes": null } });
    expect(restored.status).toBe(200);
    expect(restored.body.configs).toEqual({ ...defaultConfigs, "cleanup.policy": "compact" });
    // Restored to its default, a config is no longer an override.
    expect(restored.body.configOverrides).toEqual(["cleanup.policy"]);
    expect((await describeTopic(name)).configs).toEqual(restored.body.configs);
    expect(restored.body.partitions).toHaveLength(1);
    expect(restored.body.name).toBe(name);
  });

  it("changes nothing when one config of the request is bad", async () => {
    const name = uniqueTopic("alter-bad");
    await createTopic(name, { configs: { "retention.ms": "1000" } });
    for (const configs of [
      { "retention.ms": "5000", "segment.bytes": "1" },
      { "retention.ms": "5000", "not.a.config": "1" },
      { "retention.ms": null, "max.message.bytes": "2000000" },
      { "message.timestamp.type": "Create" },
    ]) {
      expectError(await api("PATCH", `/v1/topics/${name}/configs`, { configs }), 400, "INVALID_CONFIG");
    }
    expect((await describeTopic(name)).configs).toEqual({ ...defaultConfigs, "retention.ms": "1000" });
  });

  it("answers an unknown topic with 404 and a bad body with 400 INVALID_REQUEST", async () => {
    expectError(await api("PATCH", "/v1/topics/no-such-topic/configs", { configs: {} }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    const name = uniqueTopic("alter-shape");
    await createTopic(name);
    expectError(await api("PATCH", `/v1/topics/${name}/configs`, {}), 400, "INVALID_REQUEST");
    expectError(await api("PATCH", `/v1/topics/${name}/configs`, "{configs"), 400, "INVALID_REQUEST");
    expectError(await api("PATCH", `/v1/topics/${name}/configs`, { configs: "retention.ms=1" }), 400, "INVALID_REQUEST");
  });
});

describe("validateOnly=true (Kafka's validateOnly)", () => {
  it("on create: every check, nothing created; 200 with the topic as it would be", async () => {
    const name = uniqueTopic("validate-create");
    const validated = await api("POST", "/v1/topics?validateOnly=true", { name, partitions: 3, configs: { "retention.ms": "5000" } });
    expect(validated.status, validated.text).toBe(200);
    expect(validated.body).toMatchObject({ name, replicationFactor: 1, configs: { ...defaultConfigs, "retention.ms": "5000" }, configOverrides: ["retention.ms"] });
    expectPartitionShape(validated.body, 3);
    expect(await topicNames()).not.toContain(name);
    expectError(await api("GET", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await api("POST", "/v1/topics?validateOnly=true", { name, configs: { "retention.ms": "soon" } }), 400, "INVALID_CONFIG");
    expectError(await api("POST", "/v1/topics?validateOnly=true", { name, partitions: partitionsPerTopicMax + 1 }), 400, "INVALID_PARTITIONS");
    expectError(await api("POST", "/v1/topics?validateOnly=true", { name, replicationFactor: regions.length + 1 }), 400, "INVALID_REPLICATION_FACTOR");
    expectError(await api("POST", "/v1/topics?validateOnly=true", { name: "bad name!" }), 400, "INVALID_TOPIC_EXCEPTION");
    expectError(await api("POST", "/v1/topics?validateOnly=maybe", { name }), 400, "INVALID_REQUEST");
    const existing = uniqueTopic("validate-exists");
    await createTopic(existing);
    expectError(await api("POST", "/v1/topics?validateOnly=true", { name: existing }), 409, "TOPIC_ALREADY_EXISTS");
    // false is the plain create.
    expect((await api("POST", "/v1/topics?validateOnly=false", { name })).status).toBe(201);
  });

  it("on configs: every check, nothing changed; 200 with the topic as it would be", async () => {
    const name = uniqueTopic("validate-alter");
    await createTopic(name, { configs: { "retention.ms": "1000" } });
    const validated = await api("PATCH", `/v1/topics/${name}/configs?validateOnly=true`, { configs: { "cleanup.policy": "compact", "retention.ms": null } });
    expect(validated.status, validated.text).toBe(200);
    expect(validated.body.configs).toEqual({ ...defaultConfigs, "cleanup.policy": "compact" });
    expect(validated.body.configOverrides).toEqual(["cleanup.policy"]);
    expectError(await api("PATCH", `/v1/topics/${name}/configs?validateOnly=true`, { configs: { "segment.bytes": "1" } }), 400, "INVALID_CONFIG");
    expectError(await api("PATCH", "/v1/topics/no-such-topic/configs?validateOnly=true", { configs: {} }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect((await describeTopic(name)).configs).toEqual({ ...defaultConfigs, "retention.ms": "1000" });
  });
});

describe("POST /v1/topics/{topic}/partitions", () => {
  it("adds partitions up to a larger total", async () => {
    const name = uniqueTopic("grow");
    const created = await createTopic(name, { partitions: 2 });
    const response = await api("POST", `/v1/topics/${name}/partitions`, { count: 5 });
    expect(response.status).toBe(200);
    const grown = response.body as Topic;
    expect(grown.topicId).toBe(created.topicId);
    expectPartitionShape(grown, 5);
    expect(grown.partitions.slice(0, 2)).toEqual(created.partitions);
    expect(grown.partitions.every((partition) => partition.highWatermark === 0)).toBe(true);
    expect(await describeTopic(name)).toEqual(grown);
    const listed = (await api("GET", "/v1/topics")).body.topics.find((topic: { name: string }) => topic.name === name);
    expect(listed).toEqual({ name, partitions: 5, replicationFactor: 1 });
  });

  it.each([
    ["the same count", 3],
    ["fewer", 2],
    ["zero", 0],
    ["a fraction", 3.5],
    ["more than the maximum", partitionsPerTopicMax + 1],
  ])("refuses %s with 400 INVALID_PARTITIONS and keeps the partitions", async (_what, count) => {
    const name = uniqueTopic("grow-bad");
    await createTopic(name, { partitions: 3 });
    expectError(await api("POST", `/v1/topics/${name}/partitions`, { count }), 400, "INVALID_PARTITIONS");
    expect((await describeTopic(name)).partitions).toHaveLength(3);
  });

  it("answers an unknown topic with 404 and a bad body with 400 INVALID_REQUEST", async () => {
    expectError(await api("POST", "/v1/topics/no-such-topic/partitions", { count: 2 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    const name = uniqueTopic("grow-shape");
    await createTopic(name);
    expectError(await api("POST", `/v1/topics/${name}/partitions`, { count: "2" }), 400, "INVALID_REQUEST");
    expectError(await api("POST", `/v1/topics/${name}/partitions`, {}), 400, "INVALID_REQUEST");
    expect((await describeTopic(name)).partitions).toHaveLength(1);
  });
});

describe("DELETE /v1/topics/{topic}", () => {
  it("answers 204 with no body; the topic is then gone", async () => {
    const name = uniqueTopic("delete");
    await createTopic(name, { partitions: 2 });
    const response = await api("DELETE", `/v1/topics/${name}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expectError(await api("GET", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(await topicNames()).not.toContain(name);
    expectError(await api("DELETE", `/v1/topics/${name}`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await api("PATCH", `/v1/topics/${name}/configs`, { configs: {} }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await api("POST", `/v1/topics/${name}/partitions`, { count: 3 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("refuses deleting an internal topic (the registry's and the transaction coordinators' anchors) with 400 INVALID_REQUEST; the state it anchors stays", async () => {
    const id = `delete-anchor-${crypto.randomUUID()}`;
    const initialized = await api("POST", `/v1/transactions/${id}/init`);
    expect(initialized.status, initialized.text).toBe(200);
    const subject = `delete-anchor-${crypto.randomUUID()}`;
    const registered = await registry("POST", `/subjects/${subject}/versions`, { schema: JSON.stringify({ type: "string" }) });
    expect(registered.status).toBe(200);
    for (const anchor of ["_transaction_state", "_schemas"]) {
      expect(expectError(await api("DELETE", `/v1/topics/${anchor}`), 400, "INVALID_REQUEST").message).toMatch(/is internal/);
      expect((await api("GET", `/v1/topics/${anchor}`)).status).toBe(200);
    }
    expect((await api("GET", `/v1/transactions/${id}`)).body).toMatchObject({ transactionalId: id, producerId: (initialized.body as { producerId: number }).producerId });
    expect((await registry("GET", `/subjects/${subject}/versions/1`)).status).toBe(200);
  });
});

describe("unknown routes", () => {
  it.each([
    ["GET", "/v1/nothing-here"],
    ["GET", "/"],
    ["GET", "/v2/topics"],
    ["GET", "/v1/topics/a/b/c/d"],
    ["PUT", "/v1/topics/a/b/c/d"],
  ])("answers %s %s with a JSON 404 NOT_FOUND", async (method, path) => {
    const error = expectError(await api(method, path), 404, "NOT_FOUND");
    expect(Object.keys(error).sort()).toEqual(["code", "message"]);
  });

  it.each([
    ["PUT", "/v1/topics"],
    ["DELETE", "/v1/topics"],
  ])("answers %s %s, a path served with other methods, with 405 METHOD_NOT_ALLOWED and Allow", async (method, path) => {
    const response = await api(method, path);
    expectError(response, 405, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
  });
});
