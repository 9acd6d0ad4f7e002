/**
 * Partition streams over a WebSocket against the fake server's sockets: binary record batches,
 * credit returned only once the consumer has taken a frame's records, reconnects from the
 * next offset on 4429/4503/1000/1001/a broken connection, typed errors on 4404/4416/4400, and
 * a read token (never the client's own) in the URL.
 */
import { describe, expect, it, vi } from "vitest";
import { Tributary, TributaryError, type LogFields, type TributaryConfig } from "../../../src/client/index.ts";
import { recordBatchSubprotocol } from "../../../src/client/stream-websocket.ts";
import { streamCatchUpRecordsMin, streamWindowBytes, streamWindowBytesMax } from "../../../src/limits.ts";
import type { FakeSocket } from "./support/fake-streams.ts";
import { text } from "./support/client.ts";
import { take } from "./support/streams.ts";
import { FakeServer } from "./support/fake-server.ts";

function socketClient(config: Partial<TributaryConfig> = {}) {
  const lines: { message: string; fields?: LogFields }[] = [];
  const push = (message: string, fields?: LogFields) => void lines.push({ message, fields });
  const server = new FakeServer();
  const client = new Tributary({
    url: "http://tributary.test",
    fetch: server.fetch,
    webSocket: server.streams.WebSocket,
    retry: { initialBackoffMs: 1, maxBackoffMs: 5 },
    logger: { debug: push, info: push, warn: push, error: push },
    logLevel: "info",
    ...config,
  });
  server.createTopic("t");
  const produce = (values: string[]) => client.topic("t").produce(values.map((value) => ({ value, partition: 0 })));
  return { server, client, lines, produce };
}

const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));


async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await tick(2);
  expect(condition()).toBe(true);
}

describe("partition streams over a WebSocket", () => {
  it("asks for the binary subprotocol and decodes its record batches, skipping records below the offset", async () => {
    const { server, client, produce } = socketClient();
    await produce(["a", "b", "c"]); // one batch, offsets 0-2
    await produce(["d"]);
    const records = await take(client.topic("t").partition(0).stream({ from: 1 }), 3);
    expect(records.map((record) => [record.offset, text(record.value)])).toEqual([[1, "b"], [2, "c"], [3, "d"]]);
    expect(records[0]).toMatchObject({ topic: "t", partition: 0 });
    const socket = server.streams.sockets[0]!;
    expect(socket.protocol).toBe(recordBatchSubprotocol);
    expect(socket.url.protocol).toBe("ws:");
    expect(socket.url.searchParams.get("offset")).toBe("1");
    expect(server.streams.sse.connections).toEqual([]);
    expect(server.requestsTo(/\/records$/, "GET")).toEqual([]); // 4 records behind: no catch-up fetch
  });

  it("streamBatches hands over the records that arrived together at once; stream() the same records one at a time", async () => {
    const { client, produce } = socketClient();
    await produce(["a", "b", "c"]); // one batch, one frame
    await produce(["d"]);
    const batches: string[][] = [];
    for await (const batch of client.topic("t").partition(0).streamBatches({ from: 0 })) {
      batches.push(batch.map((record) => text(record.value)!));
      if (batches.flat().length === 4) break;
    }
    expect(batches).toEqual([["a", "b", "c"], ["d"]]);
    const records = await take(client.topic("t").partition(0).stream({ from: 0 }), 4);
    expect(records.map((record) => text(record.value))).toEqual(["a", "b", "c", "d"]);
  });

  it("reads history over fetches, one ahead of the consumer, when it opens streamCatchUpRecordsMin or more behind; then opens its socket where they stopped", async () => {
    const { server, client, produce } = socketClient();
    const behind = 2 * streamCatchUpRecordsMin + 500;
    for (let at = 0; at < behind; at += 500) {
      await client.topic("t").produce(Array.from({ length: Math.min(500, behind - at) }, (_, i) => ({ value: `v${at + i}`, partition: 0 })));
    }
    const fetches = () => server.requestsTo(/\/partitions\/0\/records$/, "GET").length;
    const records = await take(client.topic("t").partition(0).stream({ from: 0 }), behind + 1, async (_record, index) => {
      if (index === 0) expect(fetches()).toBe(2); // the next fetch was asked before the first one's records were taken
      if (index === behind - 1) await produce(["after"]);
    });
    expect(records.map((record) => record.offset)).toEqual(Array.from({ length: behind + 1 }, (_, i) => i));
    expect(records.map((record) => text(record.value))).toEqual([...Array.from({ length: behind }, (_, i) => `v${i}`), "after"]);
    expect(fetches()).toBeGreaterThanOrEqual(2);
    const [socket, ...others] = server.streams.sockets;
    expect(others).toEqual([]);
    const socketFrom = Number(socket!.url.searchParams.get("offset"));
    expect(socketFrom).toBeGreaterThan(streamCatchUpRecordsMin);
    expect(behind - socketFrom).toBeLessThan(streamCatchUpRecordsMin);
  });

  it("grants the largest window at opening, then returns frames' bytes once those processed reach half of it, only after their records were taken", async () => {
    const { server, client, produce } = socketClient();
    const large = "x".repeat(300 * 1024);
    for (let i = 0; i < 8; i++) await produce([large, `b${i}`]); // 8 frames of ~300 KiB, two records each
    let socket: FakeSocket | undefined;
    const seen: number[][] = [];
    await take(client.topic("t").partition(0).stream({ from: "earliest" }), 15, async () => {
      socket = server.streams.sockets[0]!;
      await tick(); // time for a credit to arrive, had it been sent on receipt
      seen.push([...socket.credits]);
    });
    const opening = streamWindowBytesMax - streamWindowBytes;
    // Frames 0–6 make 2.1 MiB, at least half the largest window (6 make 1.8): returned in one
    // message once the last record of frame 6 (index 13) was taken, and not before.
    expect(seen.slice(0, 14)).toEqual(Array.from({ length: 14 }, () => [opening]));
    expect(seen[14]).toEqual([opening, socket!.sent.slice(0, 7).reduce((sum, bytes) => sum + bytes, 0)]);
  });

  it("holds the server to its window: frames past the largest window wait for the consumer", async () => {
    const { server, client, produce } = socketClient();
    const large = "x".repeat(300 * 1024);
    for (let i = 0; i < 20; i++) await produce([large]); // 20 frames of ~300 KiB
    const sentWhileTaking: number[] = [];
    await take(client.topic("t").partition(0).stream({ from: 0 }), 20, async () => {
      await tick();
      sentWhileTaking.push(server.streams.sockets[0]!.sent.length);
    });
    // 13 frames (3.9 MiB) fit the window the client grew to 4 MiB at opening; the 7 others came
    // with the credit for the first 7 (2.1 MiB) — after the consumer took the 7th record.
    expect(sentWhileTaking.slice(0, 7)).toEqual(Array.from({ length: 7 }, () => 13));
    expect(sentWhileTaking[7]).toBe(20);
    expect(server.streams.sockets).toHaveLength(1);
  });

  for (const code of [4429, 4503, 1000, 1001, 1006]) {
    it(`reconnects from the next offset after a close with ${code}, nothing lost or repeated`, async () => {
      const { server, client, lines, produce } = socketClient();
      await produce(["a", "b"]);
      const records = await take(client.topic("t").partition(0).stream({ from: 0 }), 4, async (_record, index) => {
        if (index !== 1) return;
        server.streams.sockets[0]!.serverClose(code, "test");
        await tick();
        await produce(["c", "d"]);
      });
      expect(records.map((record) => text(record.value))).toEqual(["a", "b", "c", "d"]);
      expect(server.streams.sockets.map((socket) => socket.url.searchParams.get("offset"))).toEqual(["0", "2"]);
      const retried = lines.some((line) => line.message.startsWith("retrying GET /v1/topics/t/partitions/0/records after"));
      expect(retried).toBe(code === 4503 || code === 1006);
    });
  }

  for (const [code, errorCode, data] of [
    [4404, "UNKNOWN_TOPIC_OR_PARTITION", {}],
    [4416, "OFFSET_OUT_OF_RANGE", { logStartOffset: 10, highWatermark: 12 }],
    [4400, "INVALID_REQUEST", {}],
  ] as const) {
    it(`throws ${errorCode} on a close with ${code}, with the error frame's data`, async () => {
      const { server, client, produce } = socketClient();
      await produce(["a"]);
      const failure = await take(client.topic("t").partition(0).stream({ from: 0 }), 2, async () => {
        if (code === 4404) server.topics.delete("t");
        server.streams.sockets[0]!.serverClose(code, "", { code: errorCode, message: "said the server", ...data });
      }).catch((error) => error);
      expect(failure).toBeInstanceOf(TributaryError);
      expect(failure).toMatchObject({ code: errorCode, data });
      expect(server.streams.sockets).toHaveLength(1);
    });
  }

  it("throws the typed error even without an error frame", async () => {
    const { server, client, produce } = socketClient();
    await produce(["a"]);
    const failure = take(client.topic("t").partition(0).stream({ from: 0 }), 2, () => {
      server.topics.delete("t"); // 4404: the topic was deleted (a fresh look at the metadata agrees)
      server.streams.sockets[0]!.serverClose(4404);
    });
    await expect(failure).rejects.toMatchObject({ code: "UNKNOWN_TOPIC_OR_PARTITION" });
  });

  it("learns why a refused handshake was refused from the same URL over HTTP", async () => {
    const { server, client } = socketClient();
    // From "earliest" no offset is asked first (a catch-up needs a number): the handshake is the first call.
    await expect(take(client.topic("t").partition(5).stream({ from: "earliest" }), 1)).rejects.toMatchObject({ code: "UNKNOWN_TOPIC_OR_PARTITION" });
    expect(server.streams.sockets).toHaveLength(1);
  });

  it("retries a handshake that failed with an error alone (no close event, as Node's WebSocket does)", async () => {
    const { server, client, lines, produce } = socketClient();
    await produce(["a"]);
    server.streams.refuseSockets = "error only";
    const pending = take(client.topic("t").partition(0).stream({ from: 0 }), 1);
    await until(() => server.streams.sockets.length >= 2);
    server.streams.refuseSockets = false;
    expect((await pending).map((record) => text(record.value))).toEqual(["a"]);
    expect(lines.some((line) => line.message.includes("the WebSocket handshake failed"))).toBe(true);
  });

  it("puts a minted read token in the URL, never the client's own, and mints one per stream while it lives", async () => {
    const { server, client, produce } = socketClient({ token: "admin-secret" });
    server.token = "admin-secret";
    await produce(["a"]);
    await take(client.topic("t").partition(0).stream({ from: 0 }), 2, async (_record, index) => {
      if (index !== 0) return;
      server.streams.sockets[0]!.serverClose(1001);
      await produce(["b"]); // after the close: the second socket delivers it
    });
    const tokens = server.streams.sockets.map((socket) => socket.url.searchParams.get("access_token"));
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toMatch(/^trr_/);
    expect(tokens[1]).toBe(tokens[0]);
    expect(server.requestsTo(/read-tokens$/, "POST")).toHaveLength(1);
    expect(server.streams.sockets.every((socket) => !socket.url.toString().includes("admin-secret"))).toBe(true);
  });

  it("auto takes the runtime's global WebSocket when the client calls its URL with the global fetch", async () => {
    const { server, produce } = socketClient();
    await produce(["a"]);
    vi.stubGlobal("WebSocket", server.streams.WebSocket);
    vi.stubGlobal("fetch", server.fetch); // the global fetch, which the stream's offset call goes through
    try {
      const plain = new Tributary({ url: "http://tributary.test", logLevel: "nothing" });
      const records = await take(plain.topic("t").partition(0).stream({ from: 0 }), 1);
      expect(records.map((record) => text(record.value))).toEqual(["a"]);
      expect(server.streams.sockets).toHaveLength(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("auto uses the configured WebSocket; sse keeps to SSE", async () => {
    const { server, client, produce } = socketClient();
    await produce(["a"]);
    await take(client.topic("t").partition(0).stream({ from: 0, transport: "sse" }), 1);
    expect(server.streams.sockets).toHaveLength(0);
    await take(client.topic("t").partition(0).stream({ from: 0 }), 1);
    await until(() => server.streams.sockets.length === 1);
  });
});
