/**
 * The connection loop (src/gateway/connection.ts) over a real loopback socket, with handlers
 * written for the test (no Tributary is called): a connection's requests are handled one at a
 * time in the order they were sent, and answered in that order; past gatewayInFlightRequestsMax
 * unanswered requests no further one is read until an answer goes; a handler that fails closes
 * only its own connection, with a line; a request after the connection's SASL session ended
 * closes it, unless the client authenticated again (KIP-368).
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayConnection } from "../../../src/gateway/connection.ts";
import type { GatewayHandlers, GatewayRequestContext } from "../../../src/gateway/handler-types.ts";
import { saslAnswer } from "../../../src/gateway/handlers/sasl-answer.ts";
import { gatewayInFlightRequestsMax } from "../../../src/limits.ts";
import { readResponse, writeRequest } from "../../../src/gateway/protocol/messages.ts";
import { GatewayStats } from "../../../src/gateway/gateway-stats.ts";
import { Sessions } from "../../../src/gateway/session.ts";

/** How long a poll waits for what must come: the machine may be busy with other test runs. */
const patient = { timeout: 15_000, interval: 10 };
const broker = { nodeId: 0 as const, host: "127.0.0.1", port: 9092, clusterId: "test-cluster", autoCreateTopics: false };
let server: Server | undefined;
const clients: Socket[] = [];
/** The server's side of each connection, in the order they came. */
const connections: GatewayConnection[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  connections.length = 0;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

let stats = new GatewayStats();

async function serve(handlers: GatewayHandlers, log: string[]): Promise<number> {
  stats = new GatewayStats();
  const sessions = new Sessions({ url: "http://127.0.0.1:1", requestTimeoutMs: 1000 });
  let id = 0;
  server = createServer((socket) => {
    connections.push(new GatewayConnection(socket, ++id, { handlers, broker, sessions, token: undefined, maxFrameBytes: 1 << 20, log: (line) => log.push(line), checkToken: async () => 0, stats, maxReauthMs: 0 }));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** A client that collects answers (correlation ids of FindCoordinator v0 answers; SaslAuthenticate v2's error codes). */
async function client(port: number) {
  const socket = connect(port, "127.0.0.1");
  clients.push(socket);
  await new Promise((resolve) => socket.once("connect", resolve));
  let buffer = Buffer.alloc(0);
  const answers: { correlationId: number; host: string }[] = [];
  socket.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 4 && buffer.length >= 4 + buffer.readInt32BE(0)) {
      const frame = buffer.subarray(4, 4 + buffer.readInt32BE(0));
      buffer = buffer.subarray(4 + frame.length);
      const correlationId = frame.readInt32BE(0);
      const sasl = saslRequests.has(correlationId);
      const read = sasl ? readResponse(new Uint8Array(frame), 36, 2) : readResponse(new Uint8Array(frame), 10, 0);
      if (!read.ok) throw new Error(read.error);
      answers.push(sasl ? { correlationId, host: `sasl ${read.value.body.errorCode as number}` } : { correlationId, host: read.value.body.host as string });
    }
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  const ask = (correlationId: number, key: string) => socket.write(writeRequest({ apiKey: 10, apiVersion: 0, correlationId, clientId: "t" }, { key }));
  const saslRequests = new Set<number>();
  const authenticate = (correlationId: number) => {
    saslRequests.add(correlationId);
    return socket.write(writeRequest({ apiKey: 36, apiVersion: 2, correlationId, clientId: "t" }, { authBytes: new Uint8Array(0) }));
  };
  return { answers, ask, authenticate, closed, socket };
}

const answer = (host: string) => ({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 0, host, port: 9092 });

describe("the connection loop", { timeout: 30_000 }, () => {
  it("handles a connection's requests one at a time in the order they were sent, each once the one before it has finished", async () => {
    const release = new Map<string, () => void>();
    const handlers: GatewayHandlers = {
      10: (async (request: { key: string }) => {
        await new Promise<void>((resolve) => release.set(request.key, resolve));
        return answer(request.key);
      }) as never,
    };
    const c = await client(await serve(handlers, []));
    for (const [i, key] of ["a", "b", "c"].entries()) c.ask(i + 1, key);
    await expect.poll(() => connections[0]?.inFlight, patient).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([...release.keys()]).toEqual(["a"]);
    release.get("a")!();
    await expect.poll(() => [...release.keys()], patient).toEqual(["a", "b"]);
    await expect.poll(() => c.answers, patient).toEqual([{ correlationId: 1, host: "a" }]);
    release.get("b")!();
    await expect.poll(() => release.size, patient).toBe(3);
    release.get("c")!();
    await expect.poll(() => c.answers.length, patient).toBe(3);
    expect(c.answers).toEqual([
      { correlationId: 1, host: "a" },
      { correlationId: 2, host: "b" },
      { correlationId: 3, host: "c" },
    ]);
  });

  it(`reads no request past ${gatewayInFlightRequestsMax} unanswered ones until an answer goes`, async () => {
    const waiting: (() => void)[] = [];
    let started = 0;
    const handlers: GatewayHandlers = {
      10: (async (request: { key: string }) => {
        started += 1;
        await new Promise<void>((resolve) => waiting.push(resolve));
        return answer(request.key);
      }) as never,
    };
    const c = await client(await serve(handlers, []));
    // All in one write: even frames that came in one chunk wait for room.
    c.socket.cork();
    for (let i = 1; i <= gatewayInFlightRequestsMax + 8; i++) c.ask(i, `k${i}`);
    c.socket.uncork();
    const connection = () => connections[0]!;
    await expect.poll(() => connection()?.inFlight, patient).toBe(gatewayInFlightRequestsMax);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([connection().inFlight, started]).toEqual([gatewayInFlightRequestsMax, 1]);
    waiting.shift()!();
    await expect.poll(() => started, patient).toBe(2);
    expect(connection().inFlight).toBeLessThanOrEqual(gatewayInFlightRequestsMax);
    // Answering every request lets the rest in, a free place at a time.
    let most = 0;
    await expect
      .poll(() => {
        most = Math.max(most, connection().inFlight);
        while (waiting.length > 0) waiting.shift()!();
        return c.answers.length;
      }, patient)
      .toBe(gatewayInFlightRequestsMax + 8);
    expect(most).toBeLessThanOrEqual(gatewayInFlightRequestsMax);
    expect(c.answers.map((a) => a.correlationId)).toEqual(Array.from({ length: gatewayInFlightRequestsMax + 8 }, (_, i) => i + 1));
  });

  it("handles every request read before the client closed, in order (a producer with acks=0 closes right after its last)", async () => {
    const handled: string[] = [];
    const handlers: GatewayHandlers = {
      10: (async (request: { key: string }) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        handled.push(request.key);
        return answer(request.key);
      }) as never,
    };
    const c = await client(await serve(handlers, []));
    const keys = Array.from({ length: gatewayInFlightRequestsMax + 8 }, (_, i) => `k${i}`);
    c.socket.cork();
    keys.forEach((key, i) => c.ask(i + 1, key));
    c.socket.uncork();
    c.socket.end();
    await c.closed;
    await expect.poll(() => handled.length, patient).toBe(keys.length);
    expect(handled).toEqual(keys);
  });

  it("answers a request with bytes after its last field, as Kafka's broker does, and counts it", async () => {
    const handlers: GatewayHandlers = { 10: (async (request: { key: string }) => answer(request.key)) as never };
    const c = await client(await serve(handlers, []));
    // librdkafka ≥ 2.3's Metadata v12 carries 3 bytes after its fields; the same on FindCoordinator v0 here.
    const frame = Buffer.from(writeRequest({ apiKey: 10, apiVersion: 0, correlationId: 1, clientId: "t" }, { key: "k" }));
    const longer = Buffer.concat([frame, Buffer.from([0, 0, 0])]);
    longer.writeInt32BE(longer.length - 4, 0);
    c.socket.write(longer);
    c.ask(2, "next");
    await expect.poll(() => c.answers, patient).toEqual([
      { correlationId: 1, host: "k" },
      { correlationId: 2, host: "next" },
    ]);
    expect([stats.requests("FindCoordinator"), stats.requestsWithTrailingBytes("FindCoordinator"), stats.connectionsClosedForErrors]).toEqual([2, 1, 0]);
  });

  it("a failing handler closes only its own connection, with one line", async () => {
    const log: string[] = [];
    const handlers: GatewayHandlers = {
      10: (async (request: { key: string }) => {
        if (request.key === "boom") throw new Error("the handler failed");
        return answer(request.key);
      }) as never,
    };
    const port = await serve(handlers, log);
    const failing = await client(port);
    const other = await client(port);
    failing.ask(1, "boom");
    await failing.closed;
    expect(log).toEqual([expect.stringMatching(/^connection 1 from 127\.0\.0\.1:\d+ closed: FindCoordinator v0 failed: the handler failed$/)]);
    other.ask(7, "fine");
    await expect.poll(() => other.answers, patient).toEqual([{ correlationId: 7, host: "fine" }]);
  });

  it("a request after the connection's SASL session ended closes it with a line (KIP-368); until then requests are answered", async () => {
    const log: string[] = [];
    const handlers: GatewayHandlers = {
      10: (async (request: { key: string }) => answer(request.key)) as never,
      36: (async (_request: unknown, context: GatewayRequestContext) => saslAnswer(await context.sasl.authenticate(undefined, 1_000), null)) as never,
    };
    const c = await client(await serve(handlers, log));
    c.authenticate(1);
    c.ask(2, "within");
    await expect.poll(() => c.answers, patient).toEqual([{ correlationId: 1, host: "sasl 0" }, { correlationId: 2, host: "within" }]);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    c.ask(3, "after");
    c.ask(4, "after that");
    await c.closed;
    expect(c.answers).toHaveLength(2);
    expect(log).toEqual([expect.stringMatching(/^connection 1 from .* closed: FindCoordinator v0 failed: its SASL session ended and the client did not authenticate again \(KIP-368/)]);
  });

  it("authenticating again renews the session, also once it ended (SaslAuthenticate is what a session's end leaves open)", async () => {
    const log: string[] = [];
    const lifetimes = [1_000, 1_000, undefined];
    const handlers: GatewayHandlers = {
      10: (async (request: { key: string }) => answer(request.key)) as never,
      36: (async (_request: unknown, context: GatewayRequestContext) => saslAnswer(await context.sasl.authenticate(undefined, lifetimes.shift()), null)) as never,
    };
    const c = await client(await serve(handlers, log));
    c.authenticate(1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    c.authenticate(2); // before the end: a new second
    await new Promise((resolve) => setTimeout(resolve, 600)); // past the first session's end
    c.ask(3, "renewed");
    await expect.poll(() => c.answers.length, patient).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    c.authenticate(4); // after the end: a session without one
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    c.ask(5, "unbounded");
    await expect.poll(() => c.answers.map((a) => a.host), patient).toEqual(["sasl 0", "sasl 0", "renewed", "sasl 0", "unbounded"]);
    expect(log).toEqual([]);
  });

  it("an API without a handler closes the connection, as Kafka does", async () => {
    const log: string[] = [];
    const c = await client(await serve({}, log));
    c.ask(1, "x");
    await c.closed;
    expect(log).toEqual([expect.stringContaining("unsupported request: FindCoordinator v0")]);
  });

  it("answers ApiVersions v5 naming this cluster and node with the versions, another cluster or node REBOOTSTRAP_REQUIRED, one named without the other INVALID_REQUEST (KIP-1242)", async () => {
    const port = await serve({}, []);
    const ask = async (clusterId: string | null, nodeId: number) => {
      const socket = connect(port, "127.0.0.1");
      clients.push(socket);
      const frame = new Promise<Buffer>((resolve) => {
        let buffer = Buffer.alloc(0);
        socket.on("data", (chunk) => {
          buffer = Buffer.concat([buffer, chunk]);
          if (buffer.length >= 4 && buffer.length >= 4 + buffer.readInt32BE(0)) resolve(buffer.subarray(4, 4 + buffer.readInt32BE(0)));
        });
      });
      socket.write(writeRequest({ apiKey: 18, apiVersion: 5, correlationId: 1, clientId: "t" }, { clientSoftwareName: "test", clientSoftwareVersion: "1.0", clusterId, nodeId }));
      const read = readResponse(new Uint8Array(await frame), 18, 5);
      if (!read.ok) throw new Error(read.error);
      const { errorCode, apiKeys } = read.value.body as { errorCode: number; apiKeys: unknown[] };
      return [errorCode, apiKeys.length > 0];
    };
    expect(await ask(null, -1)).toEqual([0, true]);
    expect(await ask(broker.clusterId, broker.nodeId)).toEqual([0, true]);
    expect(await ask("another-cluster", broker.nodeId)).toEqual([129, false]);
    expect(await ask(broker.clusterId, 7)).toEqual([129, false]);
    expect(await ask(broker.clusterId, -1)).toEqual([42, false]);
    expect(await ask(null, 0)).toEqual([42, false]);
  });
});
