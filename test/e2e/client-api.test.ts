/**
 * The TypeScript client against a real `wrangler dev`: admin, the batching producer (whose
 * partitioner must agree with the router's), binary fetch, typed errors, and a group consumer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTributaryError, Tributary, type ConsumedMessage } from "../../src/client/index.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

describe("client against wrangler dev", () => {
  let server: DevServer;
  let client: Tributary;

  beforeAll(async () => {
    server = await startWranglerDev();
    client = new Tributary({ url: server.url });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("administers topics", async () => {
    const topics = client.admin().topics;
    const created = await topics.create({ name: "orders", partitions: 3, configs: { "retention.ms": "3600000" } });
    expect(created.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(created.configs["retention.ms"]).toBe("3600000");
    expect(await topics.list()).toEqual([{ name: "orders", partitions: 3, replicationFactor: 1 }]);
    expect((await topics.alterConfigs("orders", { "retention.ms": null })).configs["retention.ms"]).toBe("604800000");
    expect((await topics.createPartitions("orders", 4)).partitions).toHaveLength(4);
    const duplicate = await topics.create({ name: "orders" }).catch((e: unknown) => e);
    expect(isTributaryError(duplicate, "TOPIC_ALREADY_EXISTS")).toBe(true);
  });

  it("produces with the same partitioner as the router, and reads the exact bytes back", async () => {
    await client.admin().topics.create({ name: "users", partitions: 5 });
    const keys = Array.from({ length: 40 }, (_, i) => `user-${i}`);
    const producer = client.producer({ lingerMs: 20 });
    const mine = await producer.send({ topic: "users", messages: keys.map((key) => ({ key, value: `client ${key}` })) });
    // The router's own partitioner, through JSON produce, must choose the same partitions.
    const response = await fetch(`${server.url}/v1/topics/users/records`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ records: keys.map((key) => ({ key, value: `router ${key}` })) }),
    });
    const { offsets } = (await response.json()) as { offsets: { partition: number }[] };
    expect(mine.map((m) => m.partition)).toEqual(offsets.map((o) => o.partition));
    await producer.close();

    const bytes = new Uint8Array([0, 0xff, 0x0a, 0xc3, 0x28]);
    const [written] = await client.topic("users").produce([{ key: "bin", value: bytes, headers: { trace: "t-1" } }]);
    const fetched = await client.topic("users").fetch(written!.partition, written!.offset);
    expect(fetched.records[0]).toMatchObject({ offset: written!.offset, headers: { trace: "t-1" } });
    expect([...fetched.records[0]!.value!]).toEqual([...bytes]);
    expect(fetched.nextOffset).toBe(written!.offset + 1);
    expect(fetched.highWatermark).toBe(written!.offset + 1);
  });

  it("rebuilds errors with their data: OFFSET_OUT_OF_RANGE carries logStartOffset and highWatermark", async () => {
    await client.admin().topics.create({ name: "small", partitions: 1 });
    await client.topic("small").produce([{ value: "a" }, { value: "b" }]);
    const error = await client.topic("small").fetch(0, 99).catch((e: unknown) => e);
    if (!isTributaryError(error, "OFFSET_OUT_OF_RANGE")) throw error;
    expect({ status: error.status, retriable: error.retriable, logStartOffset: error.data.logStartOffset, highWatermark: error.data.highWatermark }).toEqual({
      status: 416,
      retriable: false,
      logStartOffset: 0,
      highWatermark: 2,
    });
    const missing = await client.producer().send({ topic: "nope", messages: [{ value: "x" }] }).catch((e: unknown) => e);
    expect(isTributaryError(missing, "UNKNOWN_TOPIC_OR_PARTITION")).toBe(true);
  });

  it("consumes through a group with eachMessage, commits after processing, and leaves on disconnect", async () => {
    await client.admin().topics.create({ name: "events", partitions: 2 });
    await client.topic("events").produce(Array.from({ length: 300 }, (_, i) => ({ key: `k${i % 7}`, value: `event ${i}` })));
    const consumer = client.consumer({ groupId: "auditors", maxWaitTimeInMs: 500 });
    await consumer.subscribe({ topics: ["events"], fromBeginning: true });
    const seen: ConsumedMessage[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message) });
    const deadline = Date.now() + 30_000;
    while (seen.length < 300) {
      expect(Date.now(), `300 records (got ${seen.length})`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const described = await client.admin().groups.describe("auditors");
    expect(described.members).toHaveLength(1);
    expect(described.members[0]!.assignment).toEqual([{ topic: "events", partitions: [0, 1] }]);
    await consumer.disconnect();
    expect(new Set(seen.map((m) => text(m.value))).size).toBe(300);
    const offsets = await client.admin().groups.offsets("auditors");
    expect(offsets.reduce((sum, o) => sum + (o.offset ?? 0), 0)).toBe(300);
    expect(offsets.every((o) => o.lag === 0)).toBe(true);
    expect(await client.admin().groups.list()).toEqual([{ group: "auditors", state: "Empty", members: 0 }]);
  });
});
