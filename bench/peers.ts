/**
 * `npm run bench -- --client --peers`: the same workload on two peers, on this machine, in the
 * same run as Tributary's client rows and in turns with them (bench/client-rows.ts) — bench
 * only, never in CI:
 *
 *   Redis Streams   redis-server with AOF on, fsync every second (appendfsync everysec), no
 *                   RDB snapshots; ioredis. Produce: XADD of key and value as two fields,
 *                   pipelined 1,000 a round trip (one pipeline in flight). Consume: XRANGE,
 *                   10,000 entries a call, as bytes. Latency: one XADD awaited at a time.
 *   NATS JetStream  nats-server -js with a file-store stream; @nats-io/jetstream. Produce: async
 *                   publish, 1,000 publishes at a time, their acks then awaited together, of
 *                   key ‖ value as one 216-byte payload (NATS messages have no key). Consume: an
 *                   ordered consumer, fetching up to 10,000 a pull. Latency: one publish awaited
 *                   at a time.
 *
 * Both are Debian packages (`apt-get install -y redis-server nats-server`); each server is
 * started here on a free port with a temporary directory and stopped by its pid. A missing
 * server skips its row with the reason. Each run uses a fresh stream.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRecords } from "./payloads.ts";

/** Redis: XADDs a pipeline carries; also the distinct records prepared. */
const pipelineRecords = 1_000;
const readRecords = 10_000;
/** NATS: publishes sent before their acks are awaited (at most pipelineRecords). */
const publishWindow = 1_000;
const startTimeoutMs = 15_000;

const encoder = new TextEncoder();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function installed(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).error === undefined;
}

interface Started {
  port: number;
  stop(): Promise<void>;
}

/** Starts `command` with the args for a port and a directory; stopped by its pid, directory removed. */
async function startPeer(command: string, args: (port: number, directory: string) => string[]): Promise<Started> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), `tributary-bench-${command}-`));
  const child: ChildProcess = spawn(command, args(port, directory), { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = () => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, "SIGTERM");
  process.once("exit", kill);
  return {
    port,
    stop: async () => {
      kill();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function retryUntil<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + startTimeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (performance.now() > deadline) throw new Error(`${what} did not start within ${startTimeoutMs} ms`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * A peer started and ready: `produce` writes `total` records into a fresh stream of run `run`,
 * `consume` reads them back, `single` writes one record and waits for its acknowledgement.
 * Skipped peers carry the reason and nothing else.
 */
export interface Peer {
  name: string;
  how: string;
  skipped?: string;
  produce(run: number, total: number): Promise<void>;
  consume(run: number, total: number): Promise<void>;
  single(): Promise<unknown>;
  stop(): Promise<void>;
}

function skippedPeer(name: string, how: string, skipped: string): Peer {
  const none = async () => {};
  return { name, how, skipped, produce: none, consume: none, single: none, stop: none };
}

const redisHow = "redis-server, AOF appendfsync everysec, no RDB; ioredis: XADD pipelined 1,000 a round trip, XRANGE 10,000 a call (bytes)";

async function startRedis(): Promise<Peer> {
  if (!installed("redis-server")) return skippedPeer("Redis Streams", redisHow, "redis-server is not installed (apt-get install -y redis-server)");
  const { Redis } = await import("ioredis");
  const server = await startPeer("redis-server", (port, directory) => [
    "--port", String(port), "--bind", "127.0.0.1", "--dir", directory,
    "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--daemonize", "no", "--protected-mode", "no",
  ]);
  const redis = new Redis({ port: server.port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0 });
  redis.on("error", () => {}); // connection errors while redis-server starts; a command's own error still rejects it
  try {
    await retryUntil("redis-server", async () => {
      await redis.connect().catch(() => {});
      return redis.ping();
    });
  } catch (error) {
    redis.disconnect();
    await server.stop();
    throw error;
  }
  const records = makeRecords(pipelineRecords);
  return {
    name: "Redis Streams",
    how: redisHow,
    async produce(run, total) {
      for (let sent = 0; sent < total; sent += pipelineRecords) {
        const pipeline = redis.pipeline();
        for (const record of records) pipeline.xadd(`bench-${run}`, "*", "k", record.key, "v", record.value);
        const answers = await pipeline.exec();
        const failed = answers?.find(([error]) => error);
        if (failed) throw new Error(`XADD failed: ${failed[0]}`);
      }
    },
    async consume(run, total) {
      let start = "-";
      let read = 0;
      while (read < total) {
        const entries = await redis.xrangeBuffer(`bench-${run}`, start, "+", "COUNT", readRecords);
        if (entries.length === 0) throw new Error(`XRANGE: ${read} of ${total} entries`);
        read += entries.length;
        start = `(${entries.at(-1)![0].toString()}`;
      }
      await redis.del(`bench-${run}`);
    },
    single: () => redis.xadd("bench-latency", "*", "k", records[0]!.key, "v", records[0]!.value),
    async stop() {
      redis.disconnect();
      await server.stop();
    },
  };
}

const natsHow = "nats-server -js, file-store stream; @nats-io/jetstream: async publish, 1,000 at a time, acks awaited together, ordered consumer fetching ≤ 10,000 a pull";

async function startNats(): Promise<Peer> {
  if (!installed("nats-server")) return skippedPeer("NATS JetStream", natsHow, "nats-server is not installed (apt-get install -y nats-server)");
  const { connect } = await import("@nats-io/transport-node");
  const { jetstream, jetstreamManager } = await import("@nats-io/jetstream");
  const server = await startPeer("nats-server", (port, directory) => ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", directory]);
  let connection;
  try {
    connection = await retryUntil("nats-server", () => connect({ servers: `127.0.0.1:${server.port}` }));
  } catch (error) {
    await server.stop();
    throw error;
  }
  const open = connection;
  const manager = await jetstreamManager(open);
  const js = jetstream(open);
  const payloads = makeRecords(pipelineRecords).map((record) => encoder.encode(record.key + record.value));
  await manager.streams.add({ name: "bench-latency", subjects: ["bench-latency.records"], storage: "file" });
  return {
    name: "NATS JetStream",
    how: natsHow,
    async produce(run, total) {
      await manager.streams.add({ name: `bench-${run}`, subjects: [`bench-${run}.records`], storage: "file" });
      for (let sent = 0; sent < total; sent += publishWindow) {
        await Promise.all(payloads.slice(0, publishWindow).map((payload) => js.publish(`bench-${run}.records`, payload)));
      }
    },
    async consume(run, total) {
      const consumer = await js.consumers.get(`bench-${run}`);
      let read = 0;
      while (read < total) {
        const messages = await consumer.fetch({ max_messages: Math.min(readRecords, total - read), expires: 5_000 });
        let batch = 0;
        for await (const message of messages) {
          if (message.data.length !== 216) throw new Error(`NATS: a ${message.data.length}-byte message`);
          batch += 1;
        }
        if (batch === 0) throw new Error(`NATS fetch: ${read} of ${total} messages`);
        read += batch;
      }
      await manager.streams.delete(`bench-${run}`);
    },
    single: () => js.publish("bench-latency.records", payloads[0]!),
    async stop() {
      await open.close();
      await server.stop();
    },
  };
}

/** Both peers, started (or skipped with the reason); the caller stops them. */
export async function startPeers(progress: (line: string) => void): Promise<Peer[]> {
  const peers: Peer[] = [];
  try {
    for (const start of [startRedis, startNats]) {
      const peer = await start();
      if (peer.skipped) progress(`${peer.name}: skipped (${peer.skipped})`);
      peers.push(peer);
    }
  } catch (error) {
    await Promise.all(peers.map((peer) => peer.stop()));
    throw error;
  }
  return peers;
}
