/**
 * `npm run bench -- --client --peers`: the same workload on two peers, on this machine, in the
 * same run as Tributary's client rows (bench/client-rows.ts) — bench only, never in CI:
 *
 *   Redis Streams   redis-server with AOF on, fsync every second (appendfsync everysec), no
 *                   RDB snapshots; ioredis. Produce: XADD of key and value as two fields,
 *                   pipelined 1,000 a round trip (one pipeline in flight). Consume: XRANGE,
 *                   10,000 entries a call, as bytes. Latency: one XADD awaited at a time.
 *   NATS JetStream  nats-server -js with a file-store stream; @nats-io/jetstream. Produce: async
 *                   publish (up to 1,000 publishes awaiting their acks at once) of key ‖ value
 *                   as one 216-byte payload (NATS messages have no key). Consume: an ordered
 *                   consumer, fetching up to 10,000 a pull. Latency: one publish awaited at a time.
 *
 * Both are Debian packages (`apt-get install -y redis-server nats-server`); each server is
 * started here on a free port with a temporary directory and stopped by its pid. A missing
 * server skips its row with the reason. Each run uses a fresh stream; rates are medians.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRecords } from "./payloads.ts";
import { clientCpuMs } from "./cpu.ts";
import { median, percentile } from "./measure.ts";

export interface PeerFigure {
  name: string;
  /** How it was measured (server settings, client). */
  how: string;
  skipped?: string;
  produce?: number;
  consume?: number;
  p50Ms?: number;
  p99Ms?: number;
  /** This process's CPU per 1,000 records produced: the peer's client library. */
  produceClientCpuMs?: number;
}

/** Redis: XADDs a pipeline carries; also the distinct records prepared. */
const pipelineRecords = 1_000;
const readRecords = 10_000;
/** NATS: publishes sent before their acks are awaited (at most pipelineRecords). */
const publishWindow = 1_000;
const latencySamples = 300;
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

async function sequentialLatency(send: () => Promise<unknown>): Promise<{ p50Ms: number; p99Ms: number }> {
  for (let i = 0; i < 30; i++) await send();
  const samples: number[] = [];
  for (let i = 0; i < latencySamples; i++) {
    const startedAt = performance.now();
    await send();
    samples.push(performance.now() - startedAt);
  }
  samples.sort((a, b) => a - b);
  return { p50Ms: percentile(samples, 0.5), p99Ms: percentile(samples, 0.99) };
}

/** Records per second of `work`, and this process's CPU per 1,000 records meanwhile. */
async function rateOf(records: number, work: () => Promise<void>): Promise<{ rate: number; cpuMs: number }> {
  const cpuBefore = clientCpuMs();
  const startedAt = performance.now();
  await work();
  return { rate: records / ((performance.now() - startedAt) / 1000), cpuMs: ((clientCpuMs() - cpuBefore) * 1000) / records };
}

function summary(name: string, how: string, produce: { rate: number; cpuMs: number }[], consume: { rate: number }[], latency: { p50Ms: number; p99Ms: number }[]): PeerFigure {
  return {
    name,
    how,
    produce: median(produce.map((pass) => pass.rate)),
    produceClientCpuMs: median(produce.map((pass) => pass.cpuMs)),
    consume: median(consume.map((pass) => pass.rate)),
    p50Ms: median(latency.map((figure) => figure.p50Ms)),
    p99Ms: median(latency.map((figure) => figure.p99Ms)),
  };
}

const redisHow = "redis-server, AOF appendfsync everysec, no RDB; ioredis: XADD pipelined 1,000 a round trip, XRANGE 10,000 a call (bytes)";

async function redisFigure(runs: number, total: number, progress: (line: string) => void): Promise<PeerFigure> {
  if (!installed("redis-server")) return { name: "Redis Streams", how: redisHow, skipped: "redis-server is not installed (apt-get install -y redis-server)" };
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
    const records = makeRecords(pipelineRecords);
    const produce: { rate: number; cpuMs: number }[] = [];
    const consume: { rate: number; cpuMs: number }[] = [];
    const latency: { p50Ms: number; p99Ms: number }[] = [];
    for (let run = 0; run <= runs; run++) {
      const stream = `bench-${run}`;
      const produced = await rateOf(total, async () => {
        for (let sent = 0; sent < total; sent += pipelineRecords) {
          const pipeline = redis.pipeline();
          for (const record of records) pipeline.xadd(stream, "*", "k", record.key, "v", record.value);
          const answers = await pipeline.exec();
          if (answers?.some(([error]) => error)) throw new Error(`XADD failed: ${answers.find(([error]) => error)![0]}`);
        }
      });
      const consumed = await rateOf(total, async () => {
        let start = "-";
        let read = 0;
        while (read < total) {
          const entries = await redis.xrangeBuffer(stream, start, "+", "COUNT", readRecords);
          if (entries.length === 0) throw new Error(`XRANGE: ${read} of ${total} entries`);
          read += entries.length;
          start = `(${entries.at(-1)![0].toString()}`;
        }
      });
      if (run === 0) continue; // the first run warms both up
      produce.push(produced);
      consume.push(consumed);
      latency.push(await sequentialLatency(() => redis.xadd(`bench-latency`, "*", "k", records[0]!.key, "v", records[0]!.value)));
      progress(`Redis Streams run ${run}/${runs}: produce ${Math.round(produced.rate)} rec/s (client CPU ${produced.cpuMs.toFixed(1)} ms per 1,000), consume ${Math.round(consumed.rate)} rec/s, latency p99 ${latency.at(-1)!.p99Ms.toFixed(2)} ms`);
      await redis.del(stream);
    }
    return summary("Redis Streams", redisHow, produce, consume, latency);
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

const natsHow = "nats-server -js, file-store stream; @nats-io/jetstream: async publish, 1,000 at a time, acks awaited together, ordered consumer fetching ≤ 10,000 a pull";

async function natsFigure(runs: number, total: number, progress: (line: string) => void): Promise<PeerFigure> {
  if (!installed("nats-server")) return { name: "NATS JetStream", how: natsHow, skipped: "nats-server is not installed (apt-get install -y nats-server)" };
  const { connect } = await import("@nats-io/transport-node");
  const { jetstream, jetstreamManager } = await import("@nats-io/jetstream");
  const server = await startPeer("nats-server", (port, directory) => ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", directory]);
  const connection = await retryUntil("nats-server", () => connect({ servers: `127.0.0.1:${server.port}` }));
  try {
    const manager = await jetstreamManager(connection);
    const js = jetstream(connection);
    const payloads = makeRecords(pipelineRecords).map((record) => encoder.encode(record.key + record.value));
    const produce: { rate: number; cpuMs: number }[] = [];
    const consume: { rate: number; cpuMs: number }[] = [];
    const latency: { p50Ms: number; p99Ms: number }[] = [];
    for (let run = 0; run <= runs; run++) {
      const stream = `bench-${run}`;
      await manager.streams.add({ name: stream, subjects: [`${stream}.records`], storage: "file" });
      const produced = await rateOf(total, async () => {
        for (let sent = 0; sent < total; sent += publishWindow) {
          await Promise.all(payloads.slice(0, publishWindow).map((payload) => js.publish(`${stream}.records`, payload)));
        }
      });
      const consumed = await rateOf(total, async () => {
        const consumer = await js.consumers.get(stream);
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
      });
      if (run > 0) {
        produce.push(produced);
        consume.push(consumed);
        latency.push(await sequentialLatency(() => js.publish(`${stream}.records`, payloads[0]!)));
        progress(`NATS JetStream run ${run}/${runs}: produce ${Math.round(produced.rate)} rec/s (client CPU ${produced.cpuMs.toFixed(1)} ms per 1,000), consume ${Math.round(consumed.rate)} rec/s, latency p99 ${latency.at(-1)!.p99Ms.toFixed(2)} ms`);
      }
      await manager.streams.delete(stream);
    }
    return summary("NATS JetStream", natsHow, produce, consume, latency);
  } finally {
    await connection.close();
    await server.stop();
  }
}

/** Both peers, one after the other, each with a warm-up run and then `runs` measured runs. */
export async function measurePeers(runs: number, total: number, progress: (line: string) => void): Promise<PeerFigure[]> {
  const figures: PeerFigure[] = [];
  for (const measure of [redisFigure, natsFigure]) {
    const figure = await measure(runs, total, progress);
    if (figure.skipped) progress(`${figure.name}: skipped (${figure.skipped})`);
    figures.push(figure);
  }
  return figures;
}
