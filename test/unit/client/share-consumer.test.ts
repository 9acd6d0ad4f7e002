import { describe, expect, it } from "vitest";
import { RejectRecord, type ShareConsumer, type ShareMessage } from "../../../src/client/index.ts";
import { fakeClient, text } from "./support/client.ts";
import type { FakeServer } from "./support/fake-server.ts";

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A client whose log lines are kept, over a topic of `count` records on `partitions` partitions, and a share group reading from the earliest. */
async function seeded(count: number, partitions = 1) {
  const lines: { level: string; message: string }[] = [];
  const keep = (level: string) => (message: string) => void lines.push({ level, message });
  const setup = fakeClient({ logger: { debug: keep("debug"), info: keep("info"), warn: keep("warn"), error: keep("error") }, logLevel: "debug" });
  setup.server.createTopic("jobs", partitions);
  await setup.client.topic("jobs").produce(Array.from({ length: count }, (_, i) => ({ value: `job-${i}`, partition: i % partitions })));
  await setup.client.admin().shareGroups.alterConfigs("workers", { "auto.offset.reset": "earliest" });
  return { ...setup, lines };
}

const shareFetches = (server: FakeServer) => server.requestsTo(/^\/v1\/share-groups\/workers\/fetch$/, "POST").map((r) => JSON.parse(new TextDecoder().decode(r.body)));
const acknowledgeCalls = (server: FakeServer) => server.requestsTo(/^\/v1\/share-groups\/workers\/acknowledge$/, "POST").map((r) => JSON.parse(new TextDecoder().decode(r.body)));
const applied = (server: FakeServer, type?: string) => server.shareGroups.applied.filter((ack) => type === undefined || ack.type === type);

describe("shareConsumer: implicit acknowledgement", () => {
  it("accepts each record its handler finished; the acknowledgements ride along on the next fetch", async () => {
    const { server, client } = await seeded(10);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], maxRecords: 4 });
    const seen: ShareMessage[] = [];
    await consumer.run({ eachMessage: ({ message }) => void seen.push(message) });
    await until(() => applied(server).length === 10, "10 acknowledgements");
    await consumer.stop();
    await consumer.done();
    expect(seen.map((m) => text(m.value))).toEqual(Array.from({ length: 10 }, (_, i) => `job-${i}`));
    expect(seen.every((m) => m.deliveryCount === 1 && m.topic === "jobs")).toBe(true);
    expect(applied(server).map((a) => [a.offset, a.type, a.via])).toEqual(Array.from({ length: 10 }, (_, i) => [i, "accept", "fetch"]));
    // The second fetch carries the first one's four accepts under the first lease.
    const [first, second] = shareFetches(server);
    expect(first.acknowledgements).toBeUndefined();
    expect(second.acknowledgements).toEqual([{ lease: "lease-1", topic: "jobs", partition: 0, offsets: [0, 1, 2, 3], type: "accept" }]);
    expect(acknowledgeCalls(server)).toEqual([]); // nothing was left to flush at stop
  });

  it("releases a record whose handler threw: it comes again with a higher deliveryCount", async () => {
    const { server, client, lines } = await seeded(3);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"] });
    const deliveries: [number, number][] = [];
    await consumer.run({
      eachMessage: ({ message }) => {
        deliveries.push([message.offset, message.deliveryCount]);
        if (message.offset === 1 && message.deliveryCount === 1) throw new Error("partner API down");
      },
    });
    await until(() => applied(server, "accept").length === 3, "3 accepts");
    await consumer.stop();
    expect(deliveries).toEqual([[0, 1], [1, 1], [2, 1], [1, 2]]);
    expect(applied(server, "release").map((a) => a.offset)).toEqual([1]);
    expect(lines).toContainEqual({ level: "warn", message: "the handler failed on jobs/0@1 (delivery 1): partner API down; released for redelivery" });
  });

  it("rejects a record whose handler threw a RejectRecord: it is not delivered again", async () => {
    const { server, client } = await seeded(3);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"] });
    const deliveries: number[] = [];
    await consumer.run({
      eachMessage: ({ message }) => {
        deliveries.push(message.offset);
        if (message.offset === 0) throw new RejectRecord("malformed job");
      },
    });
    await until(() => applied(server).length === 3, "3 acknowledgements");
    await until(() => shareFetches(server).length >= 4, "more fetches"); // time for a redelivery, were there one
    await consumer.stop();
    expect(deliveries).toEqual([0, 1, 2]);
    expect(applied(server).map((a) => [a.offset, a.type])).toEqual([[0, "reject"], [1, "accept"], [2, "accept"]]);
  });

  it("lets a handler acknowledge its record itself: that type wins over the handler's outcome", async () => {
    const { server, client } = await seeded(2);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"] });
    const deliveries: [number, number][] = [];
    await consumer.run({
      eachMessage: ({ message }) => {
        deliveries.push([message.offset, message.deliveryCount]);
        if (message.offset === 0 && message.deliveryCount === 1) consumer.acknowledge(message, "release");
        if (message.offset === 1) {
          consumer.acknowledge(message, "accept");
          throw new Error("after the acknowledgement");
        }
      },
    });
    await until(() => applied(server, "accept").length === 2, "2 accepts");
    await consumer.stop();
    expect(deliveries).toEqual([[0, 1], [1, 1], [0, 2]]);
    expect(applied(server).map((a) => [a.offset, a.type])).toEqual([[0, "release"], [1, "accept"], [0, "accept"]]);
  });

  it("on stop: finishes the handler at work, releases the records not handed out, and sends every acknowledgement", async () => {
    const { server, client } = await seeded(10);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], maxRecords: 10 });
    const seen: number[] = [];
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.offset);
        if (message.offset === 2) void consumer.stop();
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    });
    await consumer.done();
    expect(seen).toEqual([0, 1, 2]);
    expect(shareFetches(server)).toHaveLength(1);
    expect(acknowledgeCalls(server)).toEqual([
      {
        lease: "lease-1",
        acknowledgements: [
          { topic: "jobs", partition: 0, offsets: [0, 1, 2], type: "accept" },
          { topic: "jobs", partition: 0, offsets: [3, 4, 5, 6, 7, 8, 9], type: "release" },
        ],
      },
    ]);
    const [partition] = (await client.admin().shareGroups.describe("workers")).partitions;
    expect(partition).toMatchObject({ startOffset: 3, endOffset: 10, available: 7, acquired: 0, archived: 0 });
  });

  it.each([
    { stopAt: 2, handled: [0, 1], expected: [[0, "accept", "fetch"], [1, "accept", "fetch"], [2, "release", "acknowledge"], [3, "release", "acknowledge"]] },
    { stopAt: 1, handled: [], expected: [[0, "release", "acknowledge"], [1, "release", "acknowledge"]] }, // run()'s own fetch
  ])("on stop during fetch $stopAt: lets the fetch finish, and stop() resolves once what it acquired was released, unhandled", async ({ stopAt, handled, expected }) => {
    let consumer: ShareConsumer | undefined;
    let stopping: Promise<void> | undefined;
    let fetches = 0;
    const setup = fakeClient({
      fetch: async (request) => {
        // The consumer is told to stop while this fetch is on its way (a tick after it left).
        if (request.url.endsWith("/share-groups/workers/fetch") && ++fetches === stopAt) {
          await new Promise<void>((resolve) => setTimeout(() => resolve(void (stopping = consumer!.stop()))));
        }
        return setup.server.fetch(request);
      },
    });
    const { server, client } = setup;
    server.createTopic("jobs", 1);
    await client.topic("jobs").produce(Array.from({ length: 4 }, (_, i) => ({ value: `job-${i}`, partition: 0 })));
    await client.admin().shareGroups.alterConfigs("workers", { "auto.offset.reset": "earliest" });
    consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], maxRecords: 2 });
    const seen: number[] = [];
    await consumer.run({ eachMessage: ({ message }) => void seen.push(message.offset) });
    await until(() => stopping !== undefined, "the stop");
    await stopping;
    expect(seen).toEqual(handled);
    expect(applied(server).map((a) => [a.offset, a.type, a.via])).toEqual(expected);
  });

  it("logs an acknowledgement refused because its lease expired, does not throw, and the record comes again", async () => {
    const { server, client, lines } = await seeded(1);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"] });
    const deliveries: number[] = [];
    await consumer.run({
      eachMessage: ({ message }) => {
        deliveries.push(message.deliveryCount);
        if (message.deliveryCount === 1) server.shareGroups.expireLeases(); // a handler slower than the lock
      },
    });
    await until(() => applied(server, "accept").length === 1, "the second delivery accepted");
    await consumer.stop();
    await expect(consumer.done()).resolves.toBeUndefined();
    expect(deliveries).toEqual([1, 2]);
    expect(lines.filter((line) => line.message.includes("INVALID_RECORD_STATE"))).toEqual([
      {
        level: "warn",
        message:
          "acknowledgements of 1 record(s) of jobs/0 were refused: INVALID_RECORD_STATE: the records are not held by that lease (their lease expired or they are no longer held; the server delivers them again)",
      },
    ]);
  });

  it("handles the records of one fetch with bounded parallelism", async () => {
    const { server, client } = await seeded(12);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], maxRecords: 12, concurrency: 3 });
    let working = 0;
    let most = 0;
    await consumer.run({
      eachMessage: async () => {
        most = Math.max(most, ++working);
        await new Promise((resolve) => setTimeout(resolve, 2));
        working--;
      },
    });
    await until(() => applied(server).length === 12, "12 acknowledgements");
    await consumer.stop();
    expect(most).toBe(3);
    expect(new Set(applied(server).map((a) => a.offset)).size).toBe(12);
  });

  it("when every record of a fetch failed, sends the releases at once and backs off before fetching again", async () => {
    const { server, client, lines } = await seeded(2);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"] });
    let calls = 0;
    await consumer.run({
      eachMessage: () => {
        calls++;
        throw new Error("database unreachable");
      },
    });
    await until(() => calls >= 4, "two rounds of failures");
    await consumer.stop();
    const [first] = acknowledgeCalls(server);
    expect(first).toEqual({ lease: "lease-1", acknowledgements: [{ topic: "jobs", partition: 0, offsets: [0, 1], type: "release" }] });
    expect(lines.some((line) => line.level === "warn" && /^every record of the last fetch failed in its handler; fetching again in \d+ ms$/.test(line.message))).toBe(true);
  });
});

describe("shareConsumer: explicit acknowledgement", () => {
  it("acknowledges only what acknowledge() names, and fetches again once every record held is acknowledged", async () => {
    const { server, client } = await seeded(4);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], maxRecords: 2, acknowledgement: "explicit" });
    const held: ShareMessage[] = [];
    await consumer.run({ eachMessage: ({ message }) => void held.push(message) });
    await until(() => held.length === 2, "the first fetch's records");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(shareFetches(server)).toHaveLength(1); // waiting for acknowledgements
    consumer.acknowledge(held[0]!, "accept");
    expect(() => consumer.acknowledge(held[0]!, "reject")).toThrow("acknowledge: jobs/0@0 was already acknowledged (accept)");
    expect(() => consumer.acknowledge({ topic: "jobs", partition: 0, offset: 3 }, "accept")).toThrow("acknowledge: jobs/0@3 is not held by this consumer");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(shareFetches(server)).toHaveLength(1);
    consumer.acknowledge(held[1]!, "reject");
    await until(() => held.length === 4, "the second fetch's records");
    expect(shareFetches(server)[1].acknowledgements).toEqual([
      { lease: "lease-1", topic: "jobs", partition: 0, offsets: [0], type: "accept" },
      { lease: "lease-1", topic: "jobs", partition: 0, offsets: [1], type: "reject" },
    ]);
    consumer.acknowledge(held[2]!, "accept");
    await consumer.stop(); // held[3] never acknowledged: released
    expect(acknowledgeCalls(server)).toEqual([
      {
        lease: "lease-2",
        acknowledgements: [
          { topic: "jobs", partition: 0, offsets: [2], type: "accept" },
          { topic: "jobs", partition: 0, offsets: [3], type: "release" },
        ],
      },
    ]);
  });
});

describe("shareConsumer: explicit acknowledgement, leases", () => {
  it("fetches again once the lease of records never acknowledged expired, and gets them again", async () => {
    const { server, client, lines } = await seeded(2);
    await client.admin().shareGroups.alterConfigs("workers", { "record.lock.duration.ms": "40" }); // the fake takes any lock
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], acknowledgement: "explicit" });
    const deliveries: [number, number][] = [];
    await consumer.run({ eachMessage: ({ message }) => void deliveries.push([message.offset, message.deliveryCount]) });
    await until(() => deliveries.length === 4, "the records again");
    await consumer.stop();
    expect(deliveries).toEqual([[0, 1], [1, 1], [0, 2], [1, 2]]);
    expect(lines).toContainEqual({ level: "warn", message: "the lease of 2 record(s) expired before they were acknowledged; the server delivers them again" });
    expect(shareFetches(server)[1].acknowledgements).toBeUndefined();
  });
});

describe("shareConsumer: failures", () => {
  it("retries a fetch that failed with a retriable error, logging the retry", async () => {
    const { server, client, lines } = await seeded(1);
    server.failNext((request) => request.path.endsWith("/fetch"), { kind: "error", status: 503, body: { error: { code: "NOT_LEADER_OR_FOLLOWER", message: "electing" } } });
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"] });
    const seen: number[] = [];
    await consumer.run({ eachMessage: ({ message }) => void seen.push(message.offset) });
    await until(() => applied(server).length === 1, "the record accepted");
    await consumer.stop();
    expect(seen).toEqual([0]);
    expect(lines.some((line) => line.message.startsWith("retrying POST /v1/share-groups/workers/fetch after NOT_LEADER_OR_FOLLOWER"))).toBe(true);
  });

  it("run() rejects when the first fetch is refused (an unknown topic), and checks its options", async () => {
    const { client } = await seeded(1);
    await expect(client.shareConsumer({ group: "workers", topics: ["nope"] }).run({ eachMessage: () => {} })).rejects.toMatchObject({ code: "UNKNOWN_TOPIC_OR_PARTITION" });
    expect(() => client.shareConsumer({ group: "", topics: ["jobs"] })).toThrow("shareConsumer: group is required");
    expect(() => client.shareConsumer({ group: "g", topics: [] })).toThrow("shareConsumer: topics is a non-empty list of topic names");
    expect(() => client.shareConsumer({ group: "g", topics: ["jobs"], concurrency: 0 })).toThrow("concurrency must be an integer >= 1, got 0");
  });

  it("stop() rejects done() when the final acknowledgements cannot be sent, after trying", async () => {
    const { server, client } = await seeded(2);
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], maxRecords: 2 });
    await consumer.run({
      eachMessage: ({ message }) => {
        if (message.offset === 1) {
          server.down = true;
          void consumer.stop();
        }
      },
    });
    await expect(consumer.done()).rejects.toMatchObject({ code: "NETWORK_EXCEPTION" });
    expect(server.refused.filter((request) => request === "POST /v1/share-groups/workers/acknowledge").length).toBeGreaterThan(1);
  });
});
