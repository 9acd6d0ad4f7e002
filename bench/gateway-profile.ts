/**
 * `node --experimental-strip-types bench/gateway-profile.ts [--rounds N] [--cpu-prof DIR]`:
 * where the Kafka gateway's own CPU goes while kafkajs consumes through it (issue 16's consume
 * row, bench/gateway.ts). Starts Tributary under wrangler dev and `tributary gateway`, stores
 * 100,000 records of 100 B, then reads them from offset 0 `rounds` times with kafkajs through
 * the gateway and with Tributary's client, in turns, and prints per read: records/s and the CPU
 * (user + system, from /proc) of the gateway process, of this process (kafkajs or the client)
 * and of the Worker's runtime — per 100,000 records, which is steadier than records/s on a
 * shared machine. With --cpu-prof DIR, the gateway runs under V8's sampling profiler (node
 * --cpu-prof) and its functions with the most self time are printed at the end.
 *
 * Run under the benchmark lock: flock /work/bench.lock node --experimental-strip-types bench/gateway-profile.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Kafka, logLevel } from "kafkajs";
import { Tributary } from "../src/client/index.ts";
import { buildCli } from "../test/e2e/support/cli.ts";
import { startGateway } from "../test/e2e/support/gateway.ts";
import { clientCpuMs, cpuBetween, serverCpu } from "./cpu.ts";
import { startServer } from "./servers.ts";

const records = 100_000;
const value = Buffer.alloc(100, "x");
const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, "cpu-prof": { type: "string" } } });
const rounds = Number(values.rounds);

/** CPU time one process's threads ran so far, ms, to the nanosecond (Linux: each thread's /proc/PID/task/TID/schedstat; /proc/PID/stat counts 10 ms ticks). */
function processCpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

buildCli();
process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";
const server = await startServer("tributary", false);
const profileDirectory = values["cpu-prof"];
const savedOptions = process.env.NODE_OPTIONS;
if (profileDirectory !== undefined) process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${profileDirectory} --cpu-prof-interval=250`;
const gateway = await startGateway(server.url);
if (savedOptions === undefined) delete process.env.NODE_OPTIONS;
else process.env.NODE_OPTIONS = savedOptions;
const gatewayPid = gateway.child.pid!;
try {
  const client = new Tributary({ url: server.url });
  await client.admin().topics.create({ name: "gw-profile", partitions: 1 });
  const producer = client.producer({ lingerMs: 0, idempotent: false, requestsPerSecond: Infinity });
  for (let sent = 0; sent < records; sent += 1_000) await producer.send({ topic: "gw-profile", messages: Array.from({ length: 1_000 }, () => ({ value })) });
  await producer.close();
  const kafka = new Kafka({ brokers: [gateway.address], clientId: "profile", logLevel: logLevel.NOTHING });
  let groups = 0;

  const kafkaRead = async () => {
    const consumer = kafka.consumer({ groupId: `profile-${++groups}`, maxBytes: 4 * 1024 * 1024, maxBytesPerPartition: 4 * 1024 * 1024 });
    await consumer.connect();
    await consumer.subscribe({ topic: "gw-profile", fromBeginning: true });
    let read = 0;
    let start = 0;
    let gatewayStart = 0;
    let selfStart = 0;
    let serverStart: ReturnType<typeof serverCpu>;
    // kafkajs's own timing of each Fetch: from its write to the whole answer read (the gateway's share of the wall time).
    let fetches = 0;
    let fetchMs = 0;
    consumer.on(consumer.events.REQUEST, ({ payload }) => {
      if (payload.apiName !== "Fetch" || start === 0 || read >= records) return;
      fetches += 1;
      fetchMs += payload.duration;
      if (process.env.GW_PROFILE_FETCHES) console.log(`  Fetch ${payload.duration} ms, ${payload.size} B, pending ${payload.pendingDuration} ms`);
    });
    consumer.on(consumer.events.FETCH_START, () => {
      if (start !== 0) return;
      start = performance.now();
      gatewayStart = processCpuMs(gatewayPid);
      selfStart = clientCpuMs();
      serverStart = serverCpu(server.processGroupId);
    });
    const measured = await new Promise<{ ms: number; gatewayMs: number; selfMs: number; runtimeMs: number; fetches: number; fetchMs: number }>((resolve) => {
      void consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          read += batch.messages.length;
          if (read === records) {
            resolve({
              ms: performance.now() - start,
              gatewayMs: processCpuMs(gatewayPid) - gatewayStart,
              selfMs: clientCpuMs() - selfStart,
              runtimeMs: cpuBetween(serverStart, serverCpu(server.processGroupId))?.runtimeMs ?? NaN,
              fetches,
              fetchMs,
            });
          }
        },
      });
    });
    await consumer.disconnect();
    return measured;
  };

  const clientRead = async () => {
    const start = performance.now();
    const selfStart = clientCpuMs();
    const serverStart = serverCpu(server.processGroupId);
    let offset = 0;
    let read = 0;
    while (read < records) {
      const answer = await client.topic("gw-profile").fetch(0, offset, { maxRecords: 10_000, maxBytes: 4 * 1024 * 1024 });
      read += answer.records.length;
      offset = answer.nextOffset;
    }
    return { ms: performance.now() - start, gatewayMs: 0, fetches: 0, fetchMs: 0, selfMs: clientCpuMs() - selfStart, runtimeMs: cpuBetween(serverStart, serverCpu(server.processGroupId))?.runtimeMs ?? NaN };
  };

  await kafkaRead();
  await clientRead();
  const line = (name: string, m: { ms: number; gatewayMs: number; selfMs: number; runtimeMs: number; fetches: number; fetchMs: number }) =>
    `${name.padEnd(8)} ${Math.round((records / m.ms) * 1000).toLocaleString("en").padStart(8)} records/s  ${m.ms.toFixed(0).padStart(4)} ms   CPU: gateway ${m.gatewayMs.toFixed(0).padStart(4)} ms   reader ${m.selfMs.toFixed(0).padStart(4)} ms   worker ${String(m.runtimeMs).padStart(4)} ms${m.fetches === 0 ? "" : `   ${m.fetches} Fetches waited ${m.fetchMs} ms`}`;
  const gatewayCpu: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const kafkajs = await kafkaRead();
    const direct = await clientRead();
    gatewayCpu.push(kafkajs.gatewayMs);
    ratios.push(direct.ms / kafkajs.ms);
    console.log(line("kafkajs", kafkajs));
    console.log(line("client", direct));
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  console.log(`median: gateway CPU ${median(gatewayCpu).toFixed(0)} ms per ${records.toLocaleString("en")} records; kafkajs/client records/s ${median(ratios).toFixed(2)}`);
  if (process.env.GW_DEBUG) console.log(gateway.stderr().split("\n").slice(-60).join("\n"));
} finally {
  await gateway.stop();
  await server.stop();
}

if (profileDirectory !== undefined) {
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }
  const file = readdirSync(profileDirectory).filter((name) => name.endsWith(".cpuprofile")).sort().at(-1)!;
  const profile = JSON.parse(readFileSync(join(profileDirectory, file), "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byNode = new Map<number, number>();
  profile.samples.forEach((node, i) => byNode.set(node, (byNode.get(node) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byLabel = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const ms = (byNode.get(node.id) ?? 0) / 1000;
    const short = url.replace(/^.*\/(dist|node_modules)\//, "$1/").replace(/^node:internal\//, "internal/");
    const label = `${functionName || "(anonymous)"} ${short}:${lineNumber + 1}`;
    byLabel.set(label, (byLabel.get(label) ?? 0) + ms);
    const area = functionName.startsWith("(") ? functionName : url.includes("/dist/gateway/") ? "gateway" : url.includes("/dist/") ? "dist (client, protocol)" : url.includes("undici") ? "undici" : url.includes("webstreams") ? "web streams" : url.startsWith("node:") ? `node: ${url.split("/").slice(-1)[0]}` : url || "(native)";
    byArea.set(area, (byArea.get(area) ?? 0) + ms);
  }
  const total = [...byLabel.values()].reduce((a, b) => a + b, 0);
  console.log(`\nprofile ${file}: ${total.toFixed(0)} ms sampled\nby area:`);
  for (const [area, ms] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${ms.toFixed(1).padStart(9)} ms  ${area}`);
  console.log("top functions (self time):");
  for (const [label, ms] of [...byLabel].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${ms.toFixed(1).padStart(9)} ms  ${label}`);
}
