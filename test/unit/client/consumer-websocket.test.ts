/**
 * The group consumer over WebSocket streams (`transport: "websocket"`, src/client/stream-polls.ts)
 * against the fake server and its WebSocket double: the consumer suite both transports run
 * (test/shared/consumer.cases.ts), then what only streams do — commits on the interval and
 * before heartbeats, a commit refused as fenced, a deleted topic's stream closed, the read-ahead
 * bounded by the stream's credit window, and which transport a consumer takes.
 */
import { describe, expect, it } from "vitest";
import { Tributary } from "../../../src/client/index.ts";
import { streamWindowBytesMax } from "../../../src/limits.ts";
import { committed, consumerCases, polls, seeded, tick, transportSetup, until, type ConsumerTransport } from "../../shared/consumer.cases.ts";
import { text } from "./support/client.ts";
import { FakeServer } from "./support/fake-server.ts";

/** Partition and offset of each stream of "orders" opened, in partition and offset order. */
const streamsOpened = (server: FakeServer) =>
  server.streams.sockets
    .filter((socket) => socket.url.pathname.startsWith("/v1/topics/orders/partitions/"))
    .map((socket) => [Number(socket.url.pathname.split("/")[5]), Number(socket.url.searchParams.get("offset"))] as [number, number])
    .sort(([a, b], [c, d]) => a - c || b - d);

const webSocketTransport: ConsumerTransport = {
  setup: transportSetup("websocket", true),
  reading: (server, partitions) => Array.from({ length: partitions }, (_, p) => p).every((p) => streamsOpened(server).some(([partition]) => partition === p)),
  expectReadBy(server, opened) {
    expect(polls(server)).toEqual([]);
    expect(streamsOpened(server)).toEqual([...opened].sort(([a, b], [c, d]) => a - c || b - d));
  },
  pausedAsServerSees: (server, partitions) => Array.from({ length: partitions }, (_, p) => p).filter((p) => !streamsOpened(server).some(([partition]) => partition === p)),
};

describe("consumer({ transport: 'websocket' })", () => {
  for (const [name, run] of Object.entries(consumerCases)) it(name, () => run(webSocketTransport));


  it("commits processed positions on the interval while running, and nothing when idle: idle costs a heartbeat per interval", async () => {
    const { server, client, consumer: make } = await seeded(webSocketTransport, 1, 3);
    server.heartbeatIntervalMs = 60_000; // only the commit interval can explain a commit
    const consumer = make({ autoCommitIntervalMs: 20 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await client.topic("orders").produce([{ value: "later", partition: 0 }]);
    await until(() => committed(server, 0) === 4, "a commit of all four while running");
    expect(seen).toEqual([0, 1, 2, 3]);
    await consumer.disconnect();

    const idle = await seeded(webSocketTransport, 1, 0);
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

  it("a commit refused as fenced rejoins at once (epoch 0), without waiting for the heartbeat interval", async () => {
    const { server, client, consumer: make } = await seeded(webSocketTransport, 1, 2);
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
    const { server, client, consumer: make } = await seeded(webSocketTransport, 1, 2);
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
    const { server, client, consumer: make } = await seeded(webSocketTransport, 1, 0);
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
      const server = new FakeServer();
      server.heartbeatIntervalMs = 40;
      const client = new Tributary({
        url: "http://tributary.test",
        fetch: server.fetch,
        ...(withSocket ? { webSocket: server.streams.WebSocket } : {}),
        retry: { initialBackoffMs: 1, maxBackoffMs: 5 },
        logLevel: "nothing",
      });
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
