/**
 * Streams over SSE against the fake server: records exactly once and in order across clean
 * ends, broken connections and a server that is down for a while; Last-Event-ID on every
 * reconnect; typed errors for what retrying cannot fix.
 */
import { describe, expect, it } from "vitest";
import { TributaryError, type LogFields } from "../../../src/client/index.ts";
import { fakeClient, text } from "./support/client.ts";
import { openSse } from "../../../src/client/stream-sse.ts";
import { Transport } from "../../../src/client/transport.ts";
import { take } from "./support/streams.ts";

function recordingLogger() {
  const lines: { message: string; fields?: LogFields }[] = [];
  const push = (message: string, fields?: LogFields) => void lines.push({ message, fields });
  return { lines, logger: { debug: push, info: push, warn: push, error: push } };
}

/** The first `count` records of a stream (then it is ended). */

const produce = (client: ReturnType<typeof fakeClient>["client"], values: string[], partition = 0) =>
  client.topic("t").produce(values.map((value) => ({ value, partition })));

describe("partition streams over SSE", () => {
  it("hands out every record from earliest with its topic, partition and offset, bytes exact", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t", 2);
    await client.topic("t").produce([{ value: new Uint8Array([0xff, 0x00, 0xfe]), key: "k", headers: { h: "v" }, partition: 1 }]);
    await produce(client, ["a", "b"], 1);
    const records = await take(client.topic("t").partition(1).stream({ from: "earliest" }), 3);
    expect(records.map(({ topic, partition, offset }) => ({ topic, partition, offset }))).toEqual([0, 1, 2].map((offset) => ({ topic: "t", partition: 1, offset })));
    expect([...records[0]!.value!]).toEqual([0xff, 0x00, 0xfe]);
    expect(text(records[0]!.key)).toBe("k");
    expect(records[0]!.headers).toEqual({ h: "v" });
    expect(server.streams.sse.connections[0]).toMatchObject({ offset: "earliest", lastEventId: null });
  });

  it("delivers records produced after it started, and with utf8 encoding asks the server for text", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t");
    const stream = client.topic("t").partition(0).stream({ from: 0, encoding: "utf8" });
    const pending = take(stream, 4);
    await produce(client, ["a", "b"]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await produce(client, ["c", "d"]);
    expect((await pending).map((record) => text(record.value))).toEqual(["a", "b", "c", "d"]);
    expect(server.requestsTo(/records$/, "GET")[0]!.query.get("encoding")).toBe("utf8");
  });

  it("reconnects after each clean end with Last-Event-ID = the last id, nothing lost or repeated", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t");
    for (let i = 0; i < 5; i++) await produce(client, [`${i}a`, `${i}b`]);
    server.streams.sse.framesPerConnection = 2;
    const records = await take(client.topic("t").partition(0).stream({ from: "earliest" }), 10);
    expect(records.map((record) => record.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(server.streams.sse.connections.map((connection) => connection.lastEventId)).toEqual([null, "4", "8"]);
  });

  it("rides out broken connections and a server that is down, with the retry lines, and loses nothing produced meanwhile", async () => {
    const { lines, logger } = recordingLogger();
    const { server, client } = fakeClient({ logger, logLevel: "info" });
    server.createTopic("t");
    await produce(client, ["a", "b"]);
    await produce(client, ["c"]);
    server.streams.sse.breakAfterFrames = 1;
    const stream = client.topic("t").partition(0).stream({ from: "earliest" });
    const records = await take(stream, 6, async (_record, index) => {
      if (index !== 2) return;
      server.down = true;
      server.streams.sse.breakAfterFrames = Infinity;
      await produce(client, ["d", "e", "f"]).catch(() => {}); // refused: the server is down
      server.down = false;
      await produce(client, ["d", "e", "f"]);
    });
    expect(records.map((record) => text(record.value))).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(server.streams.sse.connections.map((connection) => connection.lastEventId)).toEqual([null, "2", "3"]);
    const retries = lines.filter((line) => line.message.startsWith("retrying GET /v1/topics/t/partitions/0/records after NETWORK_EXCEPTION"));
    expect(retries.length).toBeGreaterThanOrEqual(1);
  });

  it("from latest fixes the offset first: records produced before the first frame are not lost to a reconnect", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t");
    await produce(client, ["old"]);
    const stream = client.topic("t").partition(0).stream();
    server.failNext((request) => request.headers.get("accept") === "text/event-stream", { kind: "drop-before" });
    const pending = take(stream, 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await produce(client, ["new-1", "new-2"]);
    expect((await pending).map((record) => text(record.value))).toEqual(["new-1", "new-2"]);
    expect(server.streams.sse.connections.map((connection) => connection.offset)).toEqual(["1"]);
  });

  it("throws the server's error event as its typed error (retention passed the reader)", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t");
    server.streams.sse.errorEvent = { code: "OFFSET_OUT_OF_RANGE", message: "offset 0 is below the log start", logStartOffset: 40, highWatermark: 50 };
    const failure = await take(client.topic("t").partition(0).stream({ from: 0 }), 1).catch((error) => error);
    expect(failure).toBeInstanceOf(TributaryError);
    expect(failure).toMatchObject({ code: "OFFSET_OUT_OF_RANGE", data: { logStartOffset: 40, highWatermark: 50 } });
  });

  it("throws an answer that retrying cannot fix (an unknown partition, a refused token), without retrying", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t");
    await expect(take(client.topic("t").partition(3).stream({ from: 0 }), 1)).rejects.toMatchObject({ code: "UNKNOWN_TOPIC_OR_PARTITION" });
    server.token = "admin";
    await expect(take(client.topic("t").partition(0).stream({ from: 0 }), 1)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    expect(server.streams.sse.connections).toEqual([]);
  });

  it("ends when its signal aborts, with the signal's reason", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t");
    const stop = new AbortController();
    const pending = take(client.topic("t").partition(0).stream({ from: 0, signal: stop.signal }), 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort(new Error("enough"));
    await expect(pending).rejects.toThrow("enough");
  });

  it("takes a stream silent for too long (not even a keep-alive) for a dead connection: a retriable error", async () => {
    const { server } = fakeClient();
    server.createTopic("t");
    const transport = new Transport({ baseUrl: "http://tributary.test", server: "http://tributary.test", token: undefined, fetch: server.fetch, requestTimeoutMs: 1_000 });
    const connection = await openSse({
      transport,
      request: { method: "GET", path: "/v1/topics/t/partitions/0/records", query: { offset: 0 }, accept: "text/event-stream" },
      frame: () => ({ records: [], resumeId: "", positions: new Map() }),
      idleMs: 30,
    });
    await expect(connection.next()).rejects.toMatchObject({ code: "REQUEST_TIMED_OUT", retriable: true });
    connection.close();
  });

  it("checks its options when called", () => {
    const { client } = fakeClient();
    const partition = client.topic("t").partition(0);
    expect(() => partition.stream({ from: -1 })).toThrow(TypeError);
    expect(() => partition.stream({ encoding: "hex" as "utf8" })).toThrow(TypeError);
    // The client's fetch is a test double: a WebSocket would bypass it, so auto is SSE and websocket has none.
    expect(() => partition.stream({ transport: "websocket" })).toThrow(/no WebSocket/);
    expect(() => client.topic("t").stream({ from: 3 as unknown as "earliest" })).toThrow(TypeError);
  });
});

describe("topic streams (SSE over every partition)", () => {
  it("merges the partitions and resumes each exactly with the opaque Last-Event-ID", async () => {
    const { server, client } = fakeClient();
    server.createTopic("t", 3);
    for (let p = 0; p < 3; p++) await produce(client, [`${p}-0`, `${p}-1`], p);
    server.streams.sse.framesPerConnection = 1;
    const stream = client.topic("t").stream({ from: "earliest" });
    const pending = take(stream, 9);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let p = 0; p < 3; p++) await produce(client, [`${p}-2`], p);
    const records = await pending;
    for (let p = 0; p < 3; p++) {
      expect(records.filter((record) => record.partition === p).map((record) => text(record.value))).toEqual([`${p}-0`, `${p}-1`, `${p}-2`]);
    }
    expect(records.every((record) => record.topic === "t")).toBe(true);
    const ids = server.streams.sse.connections.map((connection) => connection.lastEventId);
    expect(ids[0]).toBeNull();
    expect(ids.slice(1).every((id) => /^\d+\.\d+\.\d+$/.test(id!))).toBe(true);
    expect(server.streams.sse.connections[0]).toMatchObject({ path: "/v1/topics/t/records", offset: "earliest" });
  });
});
