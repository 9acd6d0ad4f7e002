/**
 * Issue 16: unchanged Kafka clients (kafkajs 2.2.4, @platformatic/kafka) through
 * `tributary gateway` in front of a real `wrangler dev`: admin create/list/delete, deleting
 * records (kafkajs's deleteTopicRecords: Kafka's DeleteRecords), keyed
 * records landing where Kafka's partitioner puts them (checked through Tributary's own client),
 * reading from the beginning without a group (@platformatic/kafka's fetch), and an idempotent
 * kafkajs producer whose first attempt is stored but its answer lost (crash-after-write):
 * its retry writes no duplicate. Consumer groups: test/e2e/gateway-groups*.test.ts.
 */
import { Admin, compatibilityPartitioner, Consumer, Producer, stringDeserializers, stringSerializers } from "@platformatic/kafka";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { partitionForKey } from "../../src/protocol/partitioner.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";
const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));
const keyBytes = (key: string) => new TextEncoder().encode(key);
const keys = Array.from({ length: 24 }, (_, i) => `customer-${i}`);

describe("Kafka clients through tributary gateway", () => {
  let server: DevServer;
  let gateway: GatewayProcess;
  let client: Tributary;
  let kafka: Kafka;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev({ vars: { TRIBUTARY_FAULTS: "1" } });
    gateway = await startGateway(server.url);
    client = new Tributary({ url: server.url, retry: { initialBackoffMs: 50 } });
    kafka = new Kafka({ brokers: [gateway.address], clientId: "e2e", logLevel: logLevel.NOTHING, retry: { initialRetryTime: 50, retries: 8 } });
  });

  afterAll(async () => {
    const code = await gateway?.stop();
    await server?.stop();
    expect(code).toBe(0);
  });

  /** Every record of every partition, as "partition:key=value", from Tributary itself. */
  async function recordsOf(topic: string, partitions: number): Promise<string[]> {
    const all: string[] = [];
    for (let partition = 0; partition < partitions; partition++) {
      const { records } = await client.topic(topic).fetch(partition, 0, { maxRecords: 1000 });
      all.push(...records.map((record) => `${partition}:${text(record.key)}=${text(record.value)}`));
    }
    return all;
  }

  it("kafkajs: admin creates, lists and deletes topics; keyed records land on Kafka's partition", async () => {
    const admin = kafka.admin();
    await admin.connect();
    expect(await admin.createTopics({ topics: [{ topic: "js-orders", numPartitions: 4 }, { topic: "js-scratch" }] })).toBe(true);
    expect((await admin.listTopics()).sort()).toEqual(expect.arrayContaining(["js-orders", "js-scratch"]));
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: "js-orders", acks: -1, messages: keys.map((key, i) => ({ key, value: `v${i}` })) });
    await producer.disconnect();
    const stored = await recordsOf("js-orders", 4);
    expect(stored.sort()).toEqual(keys.map((key, i) => `${partitionForKey(keyBytes(key), 4)}:${key}=v${i}`).sort());
    // ListOffsets: earliest 0, latest = what each partition holds.
    const offsets = await admin.fetchTopicOffsets("js-orders");
    for (const { partition, high, low } of offsets) {
      expect(low).toBe("0");
      expect(Number(high)).toBe(stored.filter((line) => line.startsWith(`${partition}:`)).length);
    }
    await admin.deleteTopics({ topics: ["js-scratch"] });
    expect(await admin.listTopics()).not.toContain("js-scratch");
    expect((await client.admin().topics.list()).map((topic) => topic.name)).not.toContain("js-scratch");
    await admin.disconnect();
  });

  it("kafkajs: topic configs are described and altered through the gateway", async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: "js-configs", configEntries: [{ name: "retention.ms", value: "3600000" }] }] });
    const described = await admin.describeConfigs({ resources: [{ type: 2, name: "js-configs", configNames: ["retention.ms", "cleanup.policy"] }], includeSynonyms: false });
    const entries = Object.fromEntries(described.resources[0]!.configEntries.map((entry) => [entry.configName, entry]));
    expect(entries["retention.ms"]).toMatchObject({ configValue: "3600000", isDefault: false });
    expect(entries["cleanup.policy"]).toMatchObject({ configValue: "delete", isDefault: true });
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: "js-configs", configEntries: [{ name: "cleanup.policy", value: "compact" }] }] });
    const topic = await client.admin().topics.describe("js-configs");
    // AlterConfigs replaces the whole set: retention.ms, not named, is back to its default.
    expect(topic.configs).toMatchObject({ "cleanup.policy": "compact", "retention.ms": "604800000" });
    await admin.createPartitions({ topicPartitions: [{ topic: "js-configs", count: 3 }] });
    expect((await client.admin().topics.describe("js-configs")).partitions).toHaveLength(3);
    // validateOnly: the server checks the change and writes nothing.
    await expect(admin.alterConfigs({ validateOnly: true, resources: [{ type: 2, name: "js-configs", configEntries: [{ name: "retention.ms", value: "soon" }] }] })).rejects.toMatchObject({ type: "INVALID_CONFIG" });
    await admin.alterConfigs({ validateOnly: true, resources: [{ type: 2, name: "js-configs", configEntries: [{ name: "cleanup.policy", value: "delete" }] }] });
    expect((await client.admin().topics.describe("js-configs")).configs["cleanup.policy"]).toBe("compact");
    await expect(admin.createTopics({ validateOnly: true, topics: [{ topic: "js-never", configEntries: [{ name: "segment.bytes", value: "-1" }] }] })).rejects.toMatchObject({ errors: [expect.objectContaining({ type: "INVALID_CONFIG" })] });
    expect(await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: "js-never", numPartitions: 2 }] })).toBe(true);
    expect(await admin.listTopics()).not.toContain("js-never");
    await admin.disconnect();
  });

  it("kafkajs: deleteTopicRecords moves each partition's log start (-1: the high watermark); an offset past it is OFFSET_OUT_OF_RANGE", async () => {
    await client.admin().topics.create({ name: "js-purged", partitions: 2 });
    for (const partition of [0, 1]) await client.topic("js-purged").produce(Array.from({ length: 5 }, (_, i) => ({ value: `v${i}`, partition })));
    const admin = kafka.admin();
    await admin.connect();
    // kafkajs's deleteTopicRecords finds the leaders in metadata it has already loaded, against any broker.
    await admin.fetchTopicMetadata({ topics: ["js-purged"] });
    await admin.deleteTopicRecords({ topic: "js-purged", partitions: [{ partition: 0, offset: "3" }, { partition: 1, offset: "-1" }] });
    const offsets = (await admin.fetchTopicOffsets("js-purged")).sort((a, b) => a.partition - b.partition);
    expect(offsets.map(({ partition, low, high }) => [partition, low, high])).toEqual([[0, "3", "5"], [1, "5", "5"]]);
    // Not retriable: kafkajs's retrier gives it up at once, the partition's error as the cause.
    await expect(admin.deleteTopicRecords({ topic: "js-purged", partitions: [{ partition: 0, offset: "9" }] })).rejects.toMatchObject({
      name: "KafkaJSNonRetriableError",
      cause: { name: "KafkaJSDeleteTopicRecordsError", partitions: [{ partition: 0, error: expect.objectContaining({ type: "OFFSET_OUT_OF_RANGE" }) }] },
    });
    expect((await client.admin().topics.describe("js-purged")).partitions.map((partition) => partition.logStartOffset)).toEqual([3, 5]);
    await admin.disconnect();
  });

  it("kafkajs: an idempotent producer's retry after crash-after-write writes no duplicate", async () => {
    await client.admin().topics.create({ name: "js-payments", partitions: 1 });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    await producer.send({ topic: "js-payments", messages: [{ key: "k", value: "before" }] });
    const leader = (await client.admin().topics.describe("js-payments")).partitions[0]!.leader;
    const fault = await fetch(`${server.url}/v1/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ topic: "js-payments", partition: 0, replica: leader, fault: "crash-after-write" }),
    });
    expect(fault.status).toBe(204);
    const [result] = await producer.send({ topic: "js-payments", messages: [{ key: "k", value: "charged once" }] });
    expect(result).toMatchObject({ partition: 0, baseOffset: "1" });
    await producer.send({ topic: "js-payments", messages: [{ key: "k", value: "after" }] });
    await producer.disconnect();
    expect(await recordsOf("js-payments", 1)).toEqual(["0:k=before", "0:k=charged once", "0:k=after"]);
  });

  it("@platformatic/kafka: admin, keyed produce on flexible versions, and a fetch from the beginning without a group", async () => {
    const bootstrapBrokers = [gateway.address];
    const admin = new Admin({ clientId: "e2e-admin", bootstrapBrokers });
    // Its default partitioner is its own; compatibilityPartitioner is Kafka's (murmur2 & 0x7fffffff).
    const producer = new Producer({ clientId: "e2e-producer", bootstrapBrokers, serializers: stringSerializers, partitioner: compatibilityPartitioner });
    const consumer = new Consumer({ groupId: "unused", clientId: "e2e-consumer", bootstrapBrokers, deserializers: stringDeserializers });
    try {
      await admin.createTopics({ topics: ["plt-events"], partitions: 3, replicas: 1 });
      expect(await admin.listTopics()).toContain("plt-events");
      await producer.send({ messages: keys.map((key, i) => ({ topic: "plt-events", key, value: `v${i}` })) });
      const stored = await recordsOf("plt-events", 3);
      expect(stored.sort()).toEqual(keys.map((key, i) => `${partitionForKey(keyBytes(key), 3)}:${key}=v${i}`).sort());

      // Fetch v13+ names the topic by its id, from Metadata (the topic's Tributary UUID).
      const topicId = (await consumer.metadata({ topics: ["plt-events"] })).topics.get("plt-events")!.id;
      expect(topicId).toBe((await client.admin().topics.describe("plt-events")).topicId);
      const fetched = await consumer.fetch({
        node: 0,
        maxWaitTime: 100,
        topics: [
          {
            topicId,
            partitions: [0, 1, 2].map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, partitionMaxBytes: 1_048_576 })),
          },
        ],
      });
      const read: string[] = [];
      for (const { partitions } of fetched.responses) {
        for (const partition of partitions) {
          expect(partition.errorCode).toBe(0);
          for (const batch of partition.records ?? []) {
            for (const record of batch.records) read.push(`${partition.partitionIndex}:${text(record.key)}=${text(record.value)}`);
          }
        }
      }
      expect(read.sort()).toEqual(stored.sort());
      await admin.deleteTopics({ topics: ["plt-events"] });
      expect(await admin.listTopics()).not.toContain("plt-events");
    } finally {
      await consumer.close();
      await producer.close();
      await admin.close();
    }
  });

  it("@platformatic/kafka: deleteConsumerGroupOffsets (OffsetDelete) and describeLogDirs (one log dir: each partition's stored bytes)", async () => {
    const admin = new Admin({ clientId: "e2e-admin-offsets", bootstrapBrokers: [gateway.address] });
    try {
      await client.admin().topics.create({ name: "plt-stored", partitions: 2 });
      await client.topic("plt-stored").produce([{ value: "x".repeat(1_000), partition: 1 }]);
      await client.admin().groups.commitOffsets("plt-readers", [
        { topic: "plt-stored", partition: 0, offset: 0 },
        { topic: "plt-stored", partition: 1, offset: 1 },
      ]);
      await admin.deleteConsumerGroupOffsets({ groupId: "plt-readers", topics: [{ name: "plt-stored", partitionIndexes: [1] }] });
      const committed = async () => (await client.admin().groups.offsets("plt-readers")).map(({ partition, offset }) => [partition, offset]);
      expect(await committed()).toEqual([[0, 0], [1, null]]);
      // With a member subscribed to the topic, its partitions are refused (GROUP_SUBSCRIBED_TO_TOPIC) and keep their offsets.
      const joined = await fetch(`${server.url}/v1/groups/plt-readers/members`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ topics: ["plt-stored"] }) });
      expect(joined.status).toBe(201);
      await expect(admin.deleteConsumerGroupOffsets({ groupId: "plt-readers", topics: [{ name: "plt-stored", partitionIndexes: [0] }] })).rejects.toThrow();
      expect(await committed()).toEqual([[0, 0], [1, null]]);

      const [broker] = await admin.describeLogDirs({ topics: [{ name: "plt-stored", partitions: [0, 1] }] });
      const [dir] = broker!.results;
      expect(dir).toMatchObject({ logDir: "tributary", totalBytes: -1n, usableBytes: -1n });
      const sizes = dir!.topics.find((topic) => topic.name === "plt-stored")!.partitions.map(({ partitionIndex, partitionSize }) => [partitionIndex, partitionSize]);
      const stored = (await client.admin().topics.describe("plt-stored")).partitions.map(({ partition, storage }) => [partition, BigInt(storage!.sqliteBytes + storage!.r2Bytes)]);
      expect(sizes).toEqual(stored);
      expect(stored[1]![1]).toBeGreaterThan(1_000n);
    } finally {
      await admin.close();
    }
  });
});
