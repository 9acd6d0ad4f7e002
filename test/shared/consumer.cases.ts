import { expect } from "vitest";
import { isTributaryError, Tributary, type Consumer, type ConsumedMessage, type ConsumerOptions, type TributaryConfig } from "../../src/client/index.ts";
import { ConsumerGroup } from "../../src/group/index.ts";
import { text } from "../unit/client/support/client.ts";
import { FakeServer } from "../unit/client/support/fake-server.ts";

/**
 * One suite that both of the group consumer's transports run (STYLE.md, as hono's
 * common.case.test.ts): group polls (test/unit/client/consumer.test.ts) and the partitions'
 * WebSocket streams (test/unit/client/consumer-websocket.test.ts), each against the fake server.
 * What a consumer promises is the same over either — every record at least once and in order per
 * partition, commits only after handlers, seek, pause and resume, retries, fencing — and each
 * case checks that the records really came the transport's way.
 */

export interface ConsumerSetup {
  server: FakeServer;
  client: Tributary;
  /** A consumer of group "g" over the transport, with `options` on top. */
  consumer(options?: Partial<ConsumerOptions>): Consumer;
}

export interface ConsumerTransport {
  /**
   * A client over a fresh fake server (heartbeat interval 40 ms, quick retries); `wrapFetch`
   * stands between the client and the server.
   */
  setup(options?: { config?: Partial<TributaryConfig>; wrapFetch?: (fetch: FakeServer["fetch"]) => FakeServer["fetch"] }): ConsumerSetup;
  /** Whether the consumer reads each of the first `partitions` partitions of "orders" now. */
  reading(server: FakeServer, partitions: number): boolean;
  /**
   * That the records came the transport's way: over group polls and no stream, or over streams
   * opened at exactly these partitions and offsets of "orders" (in any order) and no group poll.
   */
  expectReadBy(server: FakeServer, opened: [partition: number, offset: number][]): void;
  /** Partitions of "orders" the server is told are paused: listed with the last poll, or with no stream opened. */
  pausedAsServerSees(server: FakeServer, partitions: number): number[];
}

export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const committed = (server: FakeServer, partition: number, group = "g") => server.groups.get(group)?.committed.get(`orders/${partition}`);

/** The fake server's group polls. */
export const polls = (server: FakeServer) => server.requestsTo(/\/poll$/);

/** A client over a fake server whose topic "orders" has `partitions` partitions of `perPartition` records ("p<partition>-<i>"). */
export async function seeded(transport: ConsumerTransport, partitions: number, perPartition: number, config?: Partial<TributaryConfig>): Promise<ConsumerSetup> {
  const setup = transport.setup(config === undefined ? {} : { config });
  setup.server.createTopic("orders", partitions);
  for (let partition = 0; partition < partitions && perPartition > 0; partition++) {
    await setup.client.topic("orders").produce(Array.from({ length: perPartition }, (_, i) => ({ value: `p${partition}-${i}`, partition })));
  }
  return setup;
}

const heartbeatBodies = (server: FakeServer) => server.requestsTo(/\/heartbeat$/).map((request) => JSON.parse(new TextDecoder().decode(request.body)));

export const consumerCases: Record<string, (transport: ConsumerTransport) => Promise<void>> = {
  async "delivers every record once, in order per partition, commits only after handlers, and leaves the group"(transport) {
    const { server, consumer: make } = await seeded(transport, 3, 20);
    const consumer = make({ maxRecords: 7 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: ConsumedMessage[] = [];
    const violations: string[] = [];
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        // At least once: nothing at or after the record being handled is committed yet.
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
    transport.expectReadBy(server, [[0, 0], [1, 0], [2, 0]]);
    expect(server.groups.get("g")!.core.isEmpty()).toBe(true); // left the group
  },

  async "hands the records of one stored batch over in one batch, not one record at a time"(transport) {
    const { consumer: make } = await seeded(transport, 1, 300); // one produce: one stored batch
    const consumer = make();
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const sizes: number[] = [];
    await consumer.run({ eachBatch: async ({ batch }) => void sizes.push(batch.messages.length) });
    await until(() => sizes.reduce((sum, size) => sum + size, 0) === 300, "300 records");
    await consumer.disconnect();
    expect(sizes).toEqual([300]);
  },

  async "starts each partition at the group's committed offset, else at the end without fromBeginning"(transport) {
    const { server, client, consumer: make } = await seeded(transport, 2, 5);
    const core = new ConsumerGroup({ generateMemberId: () => crypto.randomUUID() });
    server.groups.set("g", { core, committed: new Map([["orders/0", 3]]), autoOffsetReset: new Map() });
    const consumer = make();
    await consumer.subscribe({ topic: "orders" });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => transport.reading(server, 2), "both partitions read");
    await client.topic("orders").produce([{ value: "new", partition: 1 }]);
    await until(() => seen.length === 3, "3 records");
    await consumer.disconnect();
    expect(seen.sort()).toEqual(["new", "p0-3", "p0-4"]);
    expect(committed(server, 1)).toBe(6);
  },

  async "delivers a record again after its handler failed, then goes on"(transport) {
    const { server, consumer: make } = await seeded(transport, 1, 5);
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
  },

  async "crashes after retry.retries failures in a row: done() rejects, processed positions are committed"(transport) {
    const { server, client, consumer: make } = transport.setup({ config: { retry: { retries: 2, initialBackoffMs: 1, maxBackoffMs: 2 } } });
    server.createTopic("orders", 1);
    await client.topic("orders").produce([{ value: "ok", partition: 0 }, { value: "poison", partition: 0 }]);
    const consumer = make();
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
    expect(committed(server, 0)).toBe(1);
    expect(server.groups.get("g")!.core.isEmpty()).toBe(true);
  },

  async "disconnect inside a handler stops after that record and commits exactly up to it"(transport) {
    const { server, consumer: make } = await seeded(transport, 1, 50);
    const consumer = make();
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
    expect(committed(server, 0)).toBe(10);
  },

  async "seek moves the partition: records are delivered from the new offset"(transport) {
    const { server, consumer: make } = await seeded(transport, 1, 6);
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
    transport.expectReadBy(server, [[0, 0], [0, 1]]); // over streams: reopened at the offset
    expect(committed(server, 0)).toBe(6);
  },

  async "pause stops a partition's records until resume, which goes on where processing stopped"(transport) {
    const { server, client, consumer: make } = await seeded(transport, 2, 3);
    const consumer = make();
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    consumer.pause([{ topic: "orders", partitions: [1] }]);
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => seen.length === 3, "partition 0");
    await client.topic("orders").produce([{ value: "p1-3", partition: 1 }]);
    await until(() => transport.reading(server, 1), "reading partition 0");
    await tick(100);
    expect(seen).toEqual(["p0-0", "p0-1", "p0-2"]);
    expect(consumer.paused()).toEqual([{ topic: "orders", partitions: [1] }]);
    expect(transport.pausedAsServerSees(server, 2)).toEqual([1]);
    consumer.resume([{ topic: "orders" }]);
    await until(() => seen.length === 7, "partition 1 after resume");
    await consumer.disconnect();
    expect(seen.slice(3)).toEqual(["p1-0", "p1-1", "p1-2", "p1-3"]);
  },

  async "heartbeats on its own timer while a handler works, listing the partition it still works on"(transport) {
    const { server, consumer: make } = await seeded(transport, 1, 1);
    server.heartbeatIntervalMs = 20;
    const consumer = make();
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    let release!: () => void;
    const working = new Promise<void>((resolve) => (release = resolve));
    await consumer.run({ eachMessage: () => working });
    await until(() => server.requestsTo(/\/heartbeat$/).length >= 3, "three heartbeats during the handler");
    expect(heartbeatBodies(server).at(-1).ownedPartitions).toEqual([{ topic: "orders", partitions: [0] }]);
    expect(committed(server, 0)).toBeUndefined();
    release();
    await consumer.disconnect();
    expect(committed(server, 0)).toBe(1);
  },

  async "with autoCommit false commits nothing itself; commitOffsets does"(transport) {
    const { server, consumer: make } = await seeded(transport, 1, 4);
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
  },

  async "rejoins when the server forgot the member and continues from the committed offsets"(transport) {
    const { server, client, consumer: make } = await seeded(transport, 1, 3);
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
  },

  async "a revoked partition: positions processed are committed before it is let go, so the next owner repeats nothing"(transport) {
    const { server, client, consumer: make } = await seeded(transport, 2, 10);
    const seen: string[] = [];
    const first = make();
    await first.subscribe({ topics: ["orders"], fromBeginning: true });
    await first.run({ eachMessage: async ({ message }) => void seen.push(`a:${text(message.value)}`) });
    await until(() => seen.length === 20, "the first member's records");
    const second = make();
    await second.subscribe({ topics: ["orders"], fromBeginning: true });
    await second.run({ eachMessage: async ({ message }) => void seen.push(`b:${text(message.value)}`) });
    await until(() => server.groups.get("g")!.core.describe().members.every((member) => member.assignment.length === 1 && member.assignment[0]!.partitions.length === 1), "one partition each");
    for (let partition = 0; partition < 2; partition++) await client.topic("orders").produce([{ value: `p${partition}-new`, partition }]);
    await until(() => seen.length === 22, "the new records");
    await Promise.all([first.disconnect(), second.disconnect()]);
    const values = seen.map((entry) => entry.slice(2));
    expect(values.length).toBe(new Set(values).size); // exactly once
    expect(seen.filter((entry) => entry.startsWith("b:"))).toHaveLength(1); // only the new record of its partition
    expect([committed(server, 0), committed(server, 1)]).toEqual([11, 11]);
  },

  async "out of touch with the coordinator (an outage), hands out nothing until a heartbeat gets through: a session that ran out meanwhile repeats nothing"(transport) {
    let groupCallsRefused = false;
    const { server, client, consumer: make } = transport.setup({
      wrapFetch: (fetch) => async (request) => {
        if (groupCallsRefused && new URL(request.url).pathname.startsWith("/v1/groups/")) {
          throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
        }
        return fetch(request);
      },
    });
    server.createTopic("orders", 1);
    await client.topic("orders").produce([{ value: "a", partition: 0 }, { value: "b", partition: 0 }]);
    const consumer = make({ autoCommitIntervalMs: 60_000 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(text(message.value)!) });
    await until(() => committed(server, 0) === 2, "a and b committed");
    groupCallsRefused = true; // the coordinator unreachable: heartbeats and commits fail
    await tick(150);
    server.forgetMembers(); // the session ran out during the outage
    await client.topic("orders").produce([{ value: "x", partition: 0 }]); // a stream would still deliver it
    await tick(150);
    expect(seen).toEqual(["a", "b"]); // x waits: the member does not know whether it still owns the partition
    groupCallsRefused = false;
    await until(() => seen.length === 3, "x after the rejoin");
    await until(() => committed(server, 0) === 3, "x committed");
    await consumer.disconnect();
    expect(seen).toEqual(["a", "b", "x"]);
  },

  async "refuses a subscription to a topic that does not exist at run()"(transport) {
    const { consumer: make } = transport.setup();
    const consumer = make();
    await consumer.subscribe({ topics: ["missing"] });
    const error = await consumer.run({ eachMessage: async () => {} }).catch((e: unknown) => e);
    expect(isTributaryError(error, "UNKNOWN_TOPIC_OR_PARTITION")).toBe(true);
  },

  async "eachBatch: commits only through the last resolved offset when a batch handler fails"(transport) {
    const { server, consumer: make } = await seeded(transport, 1, 10);
    const consumer = make({ maxRecords: 10 });
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
    expect(committed(server, 0)).toBe(10);
  },
};

/** A transport's setup: the fake server, and a client whose consumers use `transport`. */
export function transportSetup(
  transport: ConsumerOptions["transport"],
  withSocket: boolean,
): ConsumerTransport["setup"] {
  return ({ config = {}, wrapFetch } = {}) => {
    const server = new FakeServer();
    server.heartbeatIntervalMs = 40;
    const client = new Tributary({
      url: "http://tributary.test",
      fetch: wrapFetch ? wrapFetch(server.fetch) : server.fetch,
      ...(withSocket ? { webSocket: server.streams.WebSocket } : {}),
      logLevel: "nothing",
      ...config,
      retry: { initialBackoffMs: 1, maxBackoffMs: 5, ...config.retry }, // the client's own backoff, short: a test waits for no real outage
    });
    const consumer = (options: Partial<ConsumerOptions> = {}) => client.consumer({ groupId: "g", transport, ...options });
    return { server, client, consumer };
  };
}
