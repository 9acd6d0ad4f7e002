import { describe, expect, it } from "vitest";
import { isTributaryError, type ConsumedMessage } from "../../../src/client/index.ts";
import { fakeClient, text } from "./support/client.ts";
import type { FakeServer } from "./support/fake-server.ts";

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const committed = (server: FakeServer, group: string, topic: string, partition: number) =>
  server.groups.get(group)?.committed.get(`${topic}/${partition}`);

async function seeded(partitions: number, perPartition: number) {
  const setup = fakeClient();
  setup.server.createTopic("orders", partitions);
  const topic = setup.client.topic("orders");
  for (let partition = 0; partition < partitions; partition++) {
    await topic.produce(Array.from({ length: perPartition }, (_, i) => ({ value: `p${partition}-${i}`, partition })));
  }
  return setup;
}

describe("consumer.run({ eachMessage })", () => {
  it("delivers every record once, in order per partition, and commits after processing", async () => {
    const { server, client } = await seeded(3, 20);
    const consumer = client.consumer({ groupId: "g", maxRecords: 7 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: ConsumedMessage[] = [];
    const violations: string[] = [];
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        // At least once: nothing at or after the record being handled is committed yet.
        const done = committed(server, "g", "orders", partition) ?? 0;
        if (done > message.offset) violations.push(`offset ${message.offset} committed as ${done} before its handler finished`);
        seen.push(message);
      },
    });
    await until(() => seen.length === 60, "60 records");
    await consumer.disconnect();
    expect(violations).toEqual([]);
    for (let partition = 0; partition < 3; partition++) {
      const values = seen.filter((m) => m.partition === partition).map((m) => text(m.value));
      expect(values).toEqual(Array.from({ length: 20 }, (_, i) => `p${partition}-${i}`));
      expect(committed(server, "g", "orders", partition)).toBe(20);
    }
    expect(server.groups.get("g")!.core.isEmpty()).toBe(true); // left the group
  });

  it("without fromBeginning starts at the end (autoOffsetReset latest)", async () => {
    const { server, client } = await seeded(1, 5);
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topic: "orders" });
    const seen: number[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await until(() => server.requestsTo(/\/poll$/).length >= 2, "two polls");
    await client.topic("orders").produce([{ value: "new", partition: 0 }]);
    await until(() => seen.length === 1, "the new record");
    await consumer.disconnect();
    expect(seen).toEqual([5]);
  });

  it("delivers a record again after its handler failed, then goes on", async () => {
    const { server, client } = await seeded(1, 5);
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const attempts: number[] = [];
    let failed = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        attempts.push(message.offset);
        if (message.offset === 2 && !failed) {
          failed = true;
          throw new Error("handler failed once");
        }
      },
    });
    await until(() => attempts.filter((o) => o === 4).length === 1, "offset 4");
    await consumer.disconnect();
    expect(attempts).toEqual([0, 1, 2, 2, 3, 4]);
    expect(committed(server, "g", "orders", 0)).toBe(5);
  });

  it("crashes after retry.retries failures in a row: done() rejects, processed positions are committed", async () => {
    const { server, client } = await (async () => {
      const setup = fakeClient({ retry: { retries: 2, initialBackoffMs: 1, maxBackoffMs: 2 } });
      setup.server.createTopic("orders", 1);
      await setup.client.topic("orders").produce([{ value: "ok", partition: 0 }, { value: "poison", partition: 0 }]);
      return setup;
    })();
    const consumer = client.consumer({ groupId: "g" });
    const crashes: unknown[] = [];
    consumer.on("crash", ({ error }) => crashes.push(error));
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (text(message.value) === "poison") throw new Error("cannot handle poison");
      },
    });
    await expect(consumer.done()).rejects.toThrow("cannot handle poison");
    expect(crashes).toHaveLength(1);
    expect(committed(server, "g", "orders", 0)).toBe(1);
    expect(server.groups.get("g")!.core.isEmpty()).toBe(true);
  });

  it("disconnect inside a handler stops after that record and commits exactly up to it", async () => {
    const { server, client } = await seeded(1, 50);
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.offset);
        if (message.offset === 9) void consumer.disconnect();
      },
    });
    await consumer.done();
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(committed(server, "g", "orders", 0)).toBe(10);
  });

  it("seek moves the partition: records are delivered from the new offset", async () => {
    const { client } = await seeded(1, 6);
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    let sought = false;
    await consumer.run({
      eachMessage: async ({ message, topic, partition }) => {
        seen.push(message.offset);
        if (message.offset === 3 && !sought) {
          sought = true;
          consumer.seek({ topic, partition, offset: 1 });
        }
      },
    });
    await until(() => seen.filter((o) => o === 5).length === 1, "offset 5");
    await consumer.disconnect();
    expect(seen).toEqual([0, 1, 2, 3, 1, 2, 3, 4, 5]);
  });

  it("pause stops a partition's records (sent as paused with each poll) until resume", async () => {
    const { server, client } = await seeded(2, 3);
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    consumer.pause([{ topic: "orders", partitions: [1] }]);
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => seen.length === 3, "partition 0");
    await until(() => server.requestsTo(/\/poll$/).length >= 3, "more polls");
    expect(seen).toEqual(["p0-0", "p0-1", "p0-2"]);
    expect(consumer.paused()).toEqual([{ topic: "orders", partitions: [1] }]);
    const lastPoll = JSON.parse(new TextDecoder().decode(server.requestsTo(/\/poll$/).at(-1)!.body));
    expect(lastPoll.paused).toEqual([{ topic: "orders", partitions: [1] }]);
    consumer.resume([{ topic: "orders" }]);
    await until(() => seen.length === 6, "partition 1 after resume");
    await consumer.disconnect();
  });

  it("heartbeats on its own timer while a handler works, listing the partition it still works on", async () => {
    const { server, client } = await seeded(1, 1);
    server.heartbeatIntervalMs = 20;
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    let release!: () => void;
    const working = new Promise<void>((resolve) => (release = resolve));
    await consumer.run({ eachMessage: () => working });
    await until(() => server.requestsTo(/\/heartbeat$/).length >= 3, "three heartbeats during the handler");
    const heartbeat = JSON.parse(new TextDecoder().decode(server.requestsTo(/\/heartbeat$/).at(-1)!.body));
    expect(heartbeat.ownedPartitions).toEqual([{ topic: "orders", partitions: [0] }]);
    expect(committed(server, "g", "orders", 0)).toBeUndefined();
    release();
    await consumer.disconnect();
    expect(committed(server, "g", "orders", 0)).toBe(1);
  });

  it("rejoins with epoch 0 when fenced and re-reads from the committed offset", async () => {
    const { server, client } = await seeded(1, 4);
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    let fenced = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.offset);
        if (message.offset === 1 && !fenced) {
          fenced = true;
          server.failNext((r) => r.path.endsWith("/poll"), {
            kind: "error",
            status: 409,
            body: { error: { code: "FENCED_MEMBER_EPOCH", message: "fenced" } },
          });
        }
      },
    });
    await until(() => seen.length === 8, "the records again");
    await consumer.disconnect();
    const rejoin = server.requestsTo(/\/heartbeat$/).map((r) => JSON.parse(new TextDecoder().decode(r.body)));
    expect(rejoin).toContainEqual({ memberEpoch: 0, ownedPartitions: [] });
    // The positions were dropped with the fencing: records 0..3 came again from the committed offset (0).
    expect(seen).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
  });

  it("refuses a subscription to a topic that does not exist at run()", async () => {
    const { client } = fakeClient();
    const consumer = client.consumer({ groupId: "g" });
    await consumer.subscribe({ topics: ["missing"] });
    const error = await consumer.run({ eachMessage: async () => {} }).catch((e: unknown) => e);
    expect(isTributaryError(error, "UNKNOWN_TOPIC_OR_PARTITION")).toBe(true);
  });
});

describe("consumer.run({ eachBatch })", () => {
  it("commits only through the last resolved offset when a batch handler fails", async () => {
    const { server, client } = await seeded(1, 10);
    const consumer = client.consumer({ groupId: "g", maxRecords: 10 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const firstOffsets: (number | null)[] = [];
    await consumer.run({
      eachBatch: async ({ batch, resolveOffset }) => {
        firstOffsets.push(batch.firstOffset());
        if (firstOffsets.length === 1) {
          for (const message of batch.messages.slice(0, 4)) resolveOffset(message.offset);
          throw new Error("failed after four");
        }
      },
    });
    await until(() => firstOffsets.length === 2, "the batch again");
    await consumer.disconnect();
    expect(firstOffsets).toEqual([0, 4]);
    expect(committed(server, "g", "orders", 0)).toBe(10);
  });
});
