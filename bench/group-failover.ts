/**
 * Issue 29's group failover row (`npm run bench -- --group-failover [--runs N] [--no-write]`):
 * a Java client 4.4 group of three members (bench/java/GroupMember.java, run with Java's source
 * launcher on kafka.sh's classpath) consuming a six-partition topic through the gateway while a
 * producer writes to every partition every 50 ms; one member is killed with SIGKILL, and the
 * row is the time from the kill until every partition it owned has been read again by a
 * survivor — with `group.protocol=consumer` (KIP-848: the server assigns, the member's session
 * ends at the coordinator's group.consumer.session.timeout.ms) against `classic` (JoinGroup and
 * SyncGroup; its session.timeout.ms). Both at the clients' and the coordinator's defaults (45 s
 * sessions, as Kafka's), so most of each figure is the session timeout: the row says what
 * follows it (rebalance, assignment, the first fetch), and that the two protocols agree.
 * Without kafka.sh or java, the row is skipped.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Tributary } from "../src/client/index.ts";
import { buildCli } from "../test/e2e/support/cli.ts";
import { startGateway, type GatewayProcess } from "../test/e2e/support/gateway.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { kafkaClasspath } from "./gateway-java.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";

export const groupFailoverHeading = "## Kafka gateway: a group member killed, KIP-848 against classic (issue 29)";

const partitions = 6;
const members = 3;
const produceEveryMs = 50;
/** The longest a group may take to settle, or a killed member's partitions to be read again. */
const waitMs = 120_000;

type Protocol = "consumer" | "classic";

interface Member {
  child: ChildProcess;
  owns: Set<number>;
  /** Per partition, the last time (epoch ms) this member read from it. */
  lastRead: Map<number, number>;
  reads: { atMs: number; partitions: number[] }[];
}

function startMember(classpath: string, bootstrap: string, topic: string, group: string, protocol: Protocol): Member {
  const child = spawn("java", ["-Xmx256m", "-cp", classpath, join(repositoryRoot, "bench", "java", "GroupMember.java"), bootstrap, topic, group, protocol], { stdio: ["ignore", "pipe", "ignore"] });
  const member: Member = { child, owns: new Set(), lastRead: new Map(), reads: [] };
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      const [kind, first, second] = line.trim().split(" ");
      if (kind === "owns") member.owns = new Set(first ? first.split(",").map(Number) : []);
      if (kind === "read" && first !== undefined && second !== undefined) {
        const read = { atMs: Number(first), partitions: second.split(",").map(Number) };
        member.reads.push(read);
        for (const partition of read.partitions) member.lastRead.set(partition, read.atMs);
      }
    }
  });
  return member;
}

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Milliseconds from one member's SIGKILL until each partition it owned was read by a survivor. */
async function failoverMs(client: Tributary, classpath: string, bootstrap: string, protocol: Protocol, log: (line: string) => void): Promise<number> {
  const topic = `gf-${protocol}-${Date.now().toString(36)}`;
  await client.admin().topics.create({ name: topic, partitions });
  const producer = client.producer({ lingerMs: 0 });
  let producing = true;
  const writes = (async () => {
    while (producing) {
      await producer.send({ topic, messages: Array.from({ length: partitions }, (_, partition) => ({ partition, value: "x" })) });
      await new Promise((resolve) => setTimeout(resolve, produceEveryMs));
    }
  })();
  const group = `${topic}-group`;
  const started = Array.from({ length: members }, () => startMember(classpath, bootstrap, topic, group, protocol));
  try {
    const owners = () => started.reduce((count, member) => count + (member.owns.size > 0 ? 1 : 0), 0);
    const covered = () => new Set(started.flatMap((member) => [...member.owns])).size === partitions;
    await until(`three members of a ${protocol} group owning every partition`, () => owners() === members && covered() && started.every((member) => member.reads.length > 0));
    const victim = started[0]!;
    const lost = [...victim.owns];
    const killedAt = Date.now();
    victim.child.kill("SIGKILL");
    const survivors = started.slice(1);
    const readAgain = (partition: number) => survivors.some((member) => (member.lastRead.get(partition) ?? 0) > killedAt);
    await until(`partitions ${lost.join(",")} read again after the kill`, () => lost.every(readAgain));
    const firsts = lost.map((partition) => Math.min(...survivors.flatMap((member) => member.reads.filter((read) => read.atMs > killedAt && read.partitions.includes(partition)).map((read) => read.atMs))));
    const took = Math.max(...firsts) - killedAt;
    log(`${protocol}: partitions ${lost.join(",")} of the killed member read again after ${(took / 1000).toFixed(2)} s`);
    return took;
  } finally {
    producing = false;
    await writes.catch(() => undefined);
    await producer.close();
    for (const member of started) member.child.kill("SIGKILL");
  }
}

export async function groupFailoverBench(options: { runs: number; write: boolean; log: (line: string) => void }): Promise<void> {
  const classpath = await kafkaClasspath();
  if (classpath === undefined) {
    options.log("skipped: no kafka.sh or no java");
    return;
  }
  buildCli();
  const environment = describeEnvironment();
  const server = await startServer("tributary", false);
  let gateway: GatewayProcess | undefined;
  const figures: Record<Protocol, number[]> = { consumer: [], classic: [] };
  try {
    gateway = await startGateway(server.url);
    const client = new Tributary({ url: server.url });
    for (let run = 0; run < options.runs; run++) {
      for (const protocol of ["consumer", "classic"] as const) figures[protocol].push(await failoverMs(client, classpath, gateway.address, protocol, options.log));
    }
  } finally {
    await gateway?.stop();
    await server.stop();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const section = [
    groupFailoverHeading,
    "",
    `\`npm run bench -- --group-failover\` (bench/group-failover.ts), ${environment.date}, ${environment.machine}, commit ${environment.commit}; ${options.runs} run(s) of each, in turns; one \`wrangler dev\` and \`tributary gateway\`; a group of ${members} Java 4.4 members (defaults: 45 s sessions) on a ${partitions}-partition topic written every ${produceEveryMs} ms; one member killed with SIGKILL.`,
    "",
    "| row | time until the killed member's partitions are read again (median) | runs |",
    "|---|---|---|",
    `| \`group.protocol=consumer\` (KIP-848) | ${seconds(median(figures.consumer))} | ${figures.consumer.map(seconds).join(", ")} |`,
    `| \`group.protocol=classic\` | ${seconds(median(figures.classic))} | ${figures.classic.map(seconds).join(", ")} |`,
    `| KIP-848 ÷ classic | ${(median(figures.consumer) / median(figures.classic)).toFixed(2)} × | |`,
    "",
  ].join("\n");
  console.log(section);
  if (options.write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, groupFailoverHeading, section);
    options.log(`wrote ${groupFailoverHeading} in ${path}`);
  }
}
