/**
 * The group consumer over WebSocket streams (`transport: "websocket"`, src/client/stream-polls.ts)
 * against the fake server and its WebSocket double: records from the partitions' streams, no
 * group poll ever made, commits only after handlers (on the interval, before heartbeats, at
 * disconnect), revocation committed before the partition is let go, seek, pause and resume,
 * retries, fencing, and the read-ahead bounded by the stream's credit window.
 */
import { describe, expect, it } from "vitest";
import { Tributary, type ConsumedMessage, type ConsumerOptions } from "../../../src/client/index.ts";
import { ConsumerGroup } from "../../../src/group/index.ts";
import { streamWindowBytesMax } from "../../../src/limits.ts";
import { text } from "./support/client.ts";
import { FakeServer } from "./support/fake-server.ts";

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client of a fake server with its WebSocket double (none with `withSocket: false`); `wrapFetch` stands between them. */
function streamClient(setup: { withSocket?: boolean; wrapFetch?: (fetch: FakeServer["fetch"]) => FakeServer["fetch"] } = {}) {
  const server = new FakeServer();
  server.heartbeatIntervalMs = 40;
  const client = new Tributary({
    url: "http://tributary.test",
    fetch: setup.wrapFetch ? setup.wrapFetch(server.fetch) : server.fetch,
    ...(setup.withSocket === false ? {} : { webSocket: server.streams.WebSocket }),
    retry: { initialBackoffMs: 1, maxBackoffMs: 5 }, // the client's own backoff, short: a test waits for no real outage
    logLevel: "nothing",
  });
  const consumer = (options: Partial<ConsumerOptions> = {}) => client.consumer({ groupId: "g", transport: "websocket", ...options });
  return { server, client, consumer };
}

async function seeded(partitions: number, perPartition: number) {
  const setup = streamClient();
  setup.server.createTopic("orders", partitions);
  for (let partition = 0; partition < partitions && perPartition > 0; partition++) {
    await setup.client.topic("orders").produce(Array.from({ length: perPartition }, (_, i) => ({ value: `p${partition}-${i}`, partition })));
  }
  return setup;
}

const committed = (server: FakeServer, partition: number, group = "g") => server.groups.get(group)?.committed.get(`orders/${partition}`);
const polls = (server: FakeServer) => server.requestsTo(/\/poll$/);

describe("consumer({ transport: 'websocket' })", () => {
  it("delivers every record in order from the partitions' streams, commits only after handlers, and never polls", async () => {
    const { server, consumer: make } = await seeded(3, 20);
    const consumer = make({ maxRecords: 7 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: ConsumedMessage[] = [];
    const violations: string[] = [];
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        const done = committed(server, partition) ?? 0;
        if (done > message.offset) violations.push(`offset ${message.offset} committed as ${done} before its handler finished`);
        seen.push(message);
      },
    });
    await until(() => seen.length === 60, "60 records");
    await consumer.disconnect();
    expect(violations).toEqual([]);
    for (let partition = 0; partition < 3; partition++) {
      expect(seen.filter((m) => m.partition === partition).map((m) => text(m.value))).toEqual(Array.from({ length: 20 }, (_, i) => `p${partition}-${i}`));
      expect(committed(server, partition)).toBe(20);
    }
    expect(polls(server)).toEqual([]);
    expect(server.streams.sockets.map((socket) => socket.url.pathname).sort()).toEqual([0, 1, 2].map((p) => `/v1/topics/orders/partitions/${p}/records`));
    expect(server.groups.get("g")!.core.isEmpty()).toBe(true);
  });

  it("hands a frame's records over in one batch, not one record per poll", async () => {
    const { consumer: make } = await seeded(1, 300); // one produce: one batch, one frame
    const consumer = make();
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const sizes: number[] = [];
    await consumer.run({ eachBatch: async ({ batch }) => void sizes.push(batch.messages.length) });
    await until(() => sizes.reduce((sum, size) => sum + size, 0) === 300, "300 records");
    await consumer.disconnect();
    expect(sizes).toEqual([300]);
  });

  it("starts each partition at the group's committed offset, else at the end without fromBeginning", async () => {
    const { server, client, consumer: make } = await seeded(2, 5);
    const core = new ConsumerGroup({ generateMemberId: () => crypto.randomUUID() });
    server.groups.set("g", { core, committed: new Map([["orders/0", 3]]), autoOffsetReset: new Map() });
    const consumer = make();
    await consumer.subscribe({ topic: "orders" });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => server.streams.sockets.length === 2, "two streams");
    await client.topic("orders").produce([{ value: "new", partition: 1 }]);
    await until(() => seen.length === 3, "3 records");
    await consumer.disconnect();
    expect(seen.sort()).toEqual(["new", "p0-3", "p0-4"]);
    expect(committed(server, 1)).toBe(6);
  });

  it("commits processed positions on the interval while running, and nothing when idle: idle costs a heartbeat per interval", async () => {
    const { server, client, consumer: make } = await seeded(1, 3);
    server.heartbeatIntervalMs = 60_000; // only the commit interval can explain a commit
    const consumer = make({ autoCommitIntervalMs: 20 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await client.topic("orders").produce([{ value: "later", partition: 0 }]);
    await until(() => committed(server, 0) === 4, "a commit of all four while running");
    expect(seen).toEqual([0, 1, 2, 3]);
    await consumer.disconnect();

    const idle = await seeded(1, 0);
    const quiet = idle.consumer();
    await quiet.subscribe({ topics: ["orders"] });
    await quiet.run({ eachMessage: async () => {} });
    await until(() => committed(idle.server, 0) === 0, "the stream's start position committed once");
    const before = idle.server.requests.length;
    await tick(400); // ten heartbeat intervals
    const during = idle.server.requests.slice(before).map((request) => `${request.method} ${request.path.replace(/members\/[^/]+/, "members/m")}`);
    await quiet.disconnect();
    expect(new Set(during)).toEqual(new Set(["POST /v1/groups/g/members/m/heartbeat"]));
    expect(during.length).toBeGreaterThanOrEqual(3);
  });

  it("a revoked partition: positions processed are committed before it is let go, so the next owner repeats nothing", async () => {
    const { server, client, consumer: make } = await seeded(2, 10);
    const seen: string[] = [];
    const first = make();
    await first.subscribe({ topics: ["orders"], fromBeginning: true });
    await first.run({ eachMessage: async ({ message }) => void seen.push(`a:${text(message.value)}`) });
    await until(() => seen.length === 20, "the first member's records");
    const second = make();
    await second.subscribe({ topics: ["orders"], fromBeginning: true });
    await second.run({ eachMessage: async ({ message }) => void seen.push(`b:${text(message.value)}`) });
    await until(() => server.groups.get("g")!.core.describe().members.every((member) => member.assignment.length === 1 && member.assignment[0]!.partitions.length === 1), "one partition each");
    const moved = server.groups.get("g")!.core.describe().members.find((member) => member.memberId !== undefined && member.assignment[0]!.partitions.length === 1)!;
    expect(moved).toBeDefined();
    for (let partition = 0; partition < 2; partition++) await client.topic("orders").produce([{ value: `p${partition}-new`, partition }]);
    await until(() => seen.length === 22, "the new records");
    await Promise.all([first.disconnect(), second.disconnect()]);
    const values = seen.map((entry) => entry.slice(2));
    expect(values.length).toBe(new Set(values).size); // exactly once
    expect(seen.filter((entry) => entry.startsWith("b:"))).toHaveLength(1); // only the new record of its partition
    expect([committed(server, 0), committed(server, 1)]).toEqual([11, 11]);
    const release = server.requestsTo(/\/heartbeat$/).map((r) => JSON.parse(new TextDecoder().decode(r.body)).ownedPartitions);
    expect(release).toContainEqual([{ topic: "orders", partitions: [0, 1] }]);
  });

  it("seek reopens the partition's stream at the offset", async () => {
    const { server, consumer: make } = await seeded(1, 6);
    const consumer = make();
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
    expect(server.streams.sockets.map((socket) => socket.url.searchParams.get("offset"))).toEqual(["0", "1"]);
    expect(committed(server, 0)).toBe(6);
  });

  it("pause closes a partition's stream; resume reopens it where processing stopped", async () => {
    const { server, client, consumer: make } = await seeded(2, 3);
    const consumer = make();
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    consumer.pause([{ topic: "orders", partitions: [1] }]);
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => seen.length === 3, "partition 0");
    await client.topic("orders").produce([{ value: "p1-3", partition: 1 }]);
    await tick(100);
    expect(seen).toEqual(["p0-0", "p0-1", "p0-2"]);
    expect(server.streams.sockets.map((socket) => socket.url.pathname)).toEqual(["/v1/topics/orders/partitions/0/records"]);
    consumer.resume([{ topic: "orders" }]);
    await until(() => seen.length === 7, "partition 1 after resume");
    await consumer.disconnect();
    expect(seen.slice(3)).toEqual(["p1-0", "p1-1", "p1-2", "p1-3"]);
    expect(polls(server)).toEqual([]);
  });

  it("delivers a record again after its handler failed, then goes on", async () => {
    const { server, consumer: make } = await seeded(1, 5);
    const consumer = make();
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
    await until(() => attempts.includes(4), "offset 4");
    await consumer.disconnect();
    expect(attempts).toEqual([0, 1, 2, 2, 3, 4]);
    expect(committed(server, 0)).toBe(5);
  });

  it("with autoCommit false commits nothing itself; commitOffsets does", async () => {
    const { server, consumer: make } = await seeded(1, 4);
    const consumer = make({ autoCommitIntervalMs: 0 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    await consumer.run({ autoCommit: false, eachMessage: async ({ message }) => void seen.push(message.offset) });
    await until(() => seen.length === 4, "4 records");
    await tick(100);
    expect(committed(server, 0)).toBeUndefined();
    await consumer.commitOffsets([{ topic: "orders", partition: 0, offset: 2 }]);
    await consumer.disconnect();
    expect(committed(server, 0)).toBe(2);
  });

  it("rejoins when the server forgot the member and continues from the committed offsets", async () => {
    const { server, client, consumer: make } = await seeded(1, 3);
    const consumer = make();
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await until(() => committed(server, 0) === 3, "a commit of the three");
    server.forgetMembers();
    await until(() => server.groups.get("g")!.core.describe().members.length === 1, "the member back");
    await client.topic("orders").produce([{ value: "after", partition: 0 }]);
    await until(() => seen.length === 4, "the new record");
    await consumer.disconnect();
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(committed(server, 0)).toBe(4);
  });

  it("out of touch with the coordinator (an outage), hands out nothing until a heartbeat gets through: a session that ran out meanwhile repeats nothing", async () => {
    let groupCallsRefused = false;
    const { server, client } = streamClient({
      wrapFetch: (fetch) => async (request) => {
        if (groupCallsRefused && new URL(request.url).pathname.startsWith("/v1/groups/")) {
          throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
        }
        return fetch(request);
      },
    });
    server.createTopic("orders", 1);
    await client.topic("orders").produce([{ value: "a", partition: 0 }, { value: "b", partition: 0 }]);
    const consumer = client.consumer({ groupId: "g", transport: "websocket", autoCommitIntervalMs: 60_000 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => committed(server, 0) === 2, "a and b committed");
    groupCallsRefused = true; // the coordinator unreachable: heartbeats and commits fail
    await tick(150);
    server.forgetMembers(); // the session ran out during the outage
    await client.topic("orders").produce([{ value: "x", partition: 0 }]); // the partition's stream still delivers
    await tick(150);
    expect(seen).toEqual(["a", "b"]); // x waits: the member does not know whether it still owns the partition
    groupCallsRefused = false;
    await until(() => seen.length === 3, "x after the rejoin");
    await until(() => committed(server, 0) === 3, "x committed");
    await consumer.disconnect();
    expect(seen).toEqual(["a", "b", "x"]);
  });

  it("a commit refused as fenced rejoins at once (epoch 0), without waiting for the heartbeat interval", async () => {
    const { server, client, consumer: make } = await seeded(1, 2);
    server.heartbeatIntervalMs = 60_000;
    const consumer = make({ autoCommitIntervalMs: 10 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await until(() => committed(server, 0) === 2, "the first commit");
    server.failNext((r) => r.path.endsWith("/offsets") && r.method === "POST", {
      kind: "error",
      status: 409,
      body: { error: { code: "FENCED_MEMBER_EPOCH", message: "fenced" } },
    });
    // The coordinator fenced the member: its next heartbeat is refused too.
    server.failNext((r) => r.path.endsWith("/heartbeat"), { kind: "error", status: 409, body: { error: { code: "FENCED_MEMBER_EPOCH", message: "fenced" } } });
    await client.topic("orders").produce([{ value: "third", partition: 0 }]);
    const rejoined = () => server.requestsTo(/\/heartbeat$/).some((r) => JSON.parse(new TextDecoder().decode(r.body)).memberEpoch === 0);
    await until(rejoined, "a heartbeat rejoining with epoch 0");
    await until(() => committed(server, 0) === 3, "the third record committed after the rejoin");
    await consumer.disconnect();
    expect(seen.slice(0, 3)).toEqual([0, 1, 2]);
  });

  it("a deleted topic's partitions are let go at the next heartbeat; the consumer goes on with the others", async () => {
    const { server, client, consumer: make } = await seeded(1, 2);
    server.createTopic("audit", 1);
    await client.topic("audit").produce([{ value: "a0", partition: 0 }]);
    const consumer = make();
    await consumer.subscribe({ topics: ["orders", "audit"], fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => seen.length === 3, "both topics' records");
    await client.admin().topics.delete("audit");
    for (const socket of server.streams.sockets) if (socket.url.pathname.includes("/audit/")) socket.serverClose(4404, "deleted", { code: "UNKNOWN_TOPIC_OR_PARTITION", message: "no topic audit" });
    await until(() => server.groups.get("g")!.core.describe().members[0]!.assignment.every((entry) => entry.topic !== "audit"), "audit out of the assignment");
    await client.topic("orders").produce([{ value: "after", partition: 0 }]);
    await until(() => seen.includes("after"), "the next record of orders");
    const crashed = await Promise.race([consumer.done().then(() => false, () => true), tick(50).then(() => false)]);
    await consumer.disconnect();
    expect(crashed).toBe(false);
    expect(seen.sort()).toEqual(["a0", "after", "p0-0", "p0-1"]);
  });

  it("reads ahead only within bounds: a stuck handler holds the server to the stream's credit window", async () => {
    const { server, client, consumer: make } = await seeded(1, 0);
    const large = "x".repeat(300 * 1024);
    for (let i = 0; i < 24; i++) await client.topic("orders").produce([{ value: large, partition: 0 }]); // ~7 MiB
    const consumer = make({ maxRecords: 2 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    await consumer.run({ eachMessage: () => stuck });
    await until(() => server.streams.sockets.length === 1 && server.streams.sockets[0]!.sent.length > 0, "the stream");
    await tick(200);
    const sent = server.streams.sockets[0]!.sent.reduce((sum, bytes) => sum + bytes, 0);
    expect(sent).toBeLessThanOrEqual(streamWindowBytesMax);
    release();
    await consumer.disconnect();
  });

  it("without a WebSocket (calls through a fetch of the user's, none given) is a TypeError at consumer()", () => {
    const server = new FakeServer();
    const client = new Tributary({ url: "http://tributary.test", fetch: server.fetch });
    expect(() => client.consumer({ groupId: "g", transport: "websocket" })).toThrow(TypeError);
    expect(() => client.consumer({ groupId: "g", transport: "carrier-pigeon" as never })).toThrow(TypeError);
    expect(() => client.consumer({ groupId: "g" })).not.toThrow();
  });

  it("is the default (transport auto) where the client has a WebSocket; without one the default polls", async () => {
    for (const withSocket of [true, false]) {
      const { server, client } = streamClient({ withSocket });
      server.createTopic("orders", 2);
      await client.topic("orders").produce([{ value: "a", partition: 0 }, { value: "b", partition: 1 }]);
      const consumer = client.consumer({ groupId: `g-${withSocket}` });
      await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
      const seen: string[] = [];
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
      await until(() => seen.length === 2, "both records");
      await consumer.disconnect();
      expect(seen.sort()).toEqual(["a", "b"]);
      expect(polls(server).length > 0).toBe(!withSocket);
    }
  });
});
