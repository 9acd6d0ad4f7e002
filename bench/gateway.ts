/**
 * `npm run bench -- --gateway [--seconds S] [--gateway-soak MINUTES]`: the Kafka gateway
 * (issue 16) against Tributary's own client on the same workloads in the same run, one
 * partition, Tributary under wrangler dev and `tributary gateway` as its own process:
 *
 *   produce   batches of 100 records of 100 B, one in flight, acks=all: kafkajs through the
 *             gateway vs the client's producer (binary, direct HTTP), in turns of 250 ms;
 *             records/s (target ≥ 0.8×)
 *   produce   200,000 records of 218 B by the Java client with its defaults (idempotent, up to
 *   (Java)    5 requests in flight; Kafka's ProducerPerformance, gateway-java.ts) through the
 *             gateway vs the client's producer with its defaults, 3 times in turns; the median
 *             records/s (target ≥ 0.8×, issue 29; what a connection's requests handled in order
 *             cost, issue 34)
 *   consume   the same 100,000 records read from offset 0, five times each in turns after a
 *             warm-up read: kafkajs's group consumer through the gateway (a new group each
 *             time, timed from its first Fetch) vs the client's binary fetch; the median records/s
 *             (target ≥ 0.8×); beside it, informative, librdkafka's (kcat) read of the same
 *             records through the gateway (gateway-librdkafka.ts)
 *   consume   1,000,000 such records read from offset 0 by the Java client (Kafka's
 *   (Java)    ConsumerPerformance in a new group each round, gateway-java.ts) and by the
 *             client's binary fetch, 3 times in turns; the median records/s (target ≥ 0.8×,
 *             issue 29; ten times the window above, past a fresh JVM's warm-up)
 *   latency   one record per request, acks=all, one at a time: p50/p99 through the gateway and
 *             direct; the p99 the gateway adds (target ≤ 2 ms)
 *   memory    the gateway process's resident size, sampled through the run; with
 *             --gateway-soak MINUTES, produce and consume through it for that long and say
 *             whether it stays flat (last third's median within 20% of the first third's)
 *
 * Writes the "## Kafka gateway" section of bench/RESULTS.md (unless --no-write).
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel, type Producer as KafkaProducer } from "kafkajs";
import { Tributary } from "../src/client/index.ts";
import { buildCli } from "../test/e2e/support/cli.ts";
import { startGateway, type GatewayProcess } from "../test/e2e/support/gateway.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { javaConsumerRate, javaProducerRate, kafkaClasspath } from "./gateway-java.ts";
import { kcatConsume } from "./gateway-librdkafka.ts";
import { describeEnvironment, gatewayHeading, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";

const batchRecords = 100;
const valueBytes = 100;
/**
 * Three of the gateway's reads of Tributary (kafkajs's 4 MiB bound, ~37,000 records each): a
 * catch-up read's throughput, not the latency of its first Fetch. (20,000, two Fetches, ran
 * 30–60 ms a read, and its ratio swung from 0.4 to 3 between rounds on a shared machine.)
 */
const consumeRecords = 100_000;
const latencySamples = 300;
const memorySampleMs = 500;
const sliceMs = 250;
const consumeRounds = 5;
/** As in issue 34's report: the Java producer's default 16 KiB batches hold ~70 such records. */
const javaRecords = 200_000;
const javaRecordBytes = 218;
/** The Java producer row's rounds (each a JVM and 200,000 records), in turns with the client's; the median is reported. */
const javaRounds = 3;
/**
 * The Java consumer row's records, and its client baseline's: a fresh JVM reads its first
 * 100,000 in its warm-up (ConsumerPerformance against Kafka 4.4 itself here: 363,000 records/s
 * over 100,000, 1.14–1.37 M over 1,000,000; bench/RESULTS.md), so the row's window is ten times
 * the other consume rows'.
 */
const javaConsumeRecords = 1_000_000;
/** Its rounds (each a JVM), in turns with the client's read of the same records. */
const javaConsumeRounds = 5;

const value = Buffer.alloc(valueBytes, "x");
const messages = Array.from({ length: batchRecords }, () => ({ value }));

/** The gateway process's resident set size in bytes (Linux /proc), or undefined. */
function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Both ways in turns of `sliceMs` for `seconds` each, so that a machine whose load shifts weighs on both alike; records/s of each. */
async function alternating(seconds: number, first: () => Promise<number>, second: () => Promise<number>): Promise<[number, number]> {
  const records = [0, 0];
  const elapsed = [0, 0];
  const steps = [first, second];
  while (elapsed[0]! < seconds * 1000 || elapsed[1]! < seconds * 1000) {
    for (const side of [0, 1]) {
      const start = performance.now();
      while (performance.now() - start < sliceMs) records[side]! += await steps[side]!();
      elapsed[side]! += performance.now() - start;
    }
  }
  return [(records[0]! / elapsed[0]!) * 1000, (records[1]! / elapsed[1]!) * 1000];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * Alternates the two ways one request at a time, so that whatever else loads the machine
 * weighs on both alike; answers each way's p50/p99 and the p50/p99 of the paired differences.
 */
async function latencies(gatewaySend: () => Promise<unknown>, directSend: () => Promise<unknown>) {
  for (let i = 0; i < 20; i++) await Promise.all([gatewaySend(), directSend()]);
  const gateway: number[] = [];
  const direct: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < latencySamples; i++) {
    let start = performance.now();
    await gatewaySend();
    const throughGateway = performance.now() - start;
    start = performance.now();
    await directSend();
    const straight = performance.now() - start;
    gateway.push(throughGateway);
    direct.push(straight);
    added.push(throughGateway - straight);
  }
  const summary = (samples: number[]) => {
    samples.sort((a, b) => a - b);
    return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
  };
  return { gateway: summary(gateway), direct: summary(direct), added: summary(added) };
}

let consumeGroups = 0;

/**
 * Reads `total` records of partition 0 from offset 0 through the gateway with kafkajs's group
 * consumer (a new group each time, so it starts at offset 0); answers records/s, timed from
 * its first Fetch, as the client's read is: its join, and the OffsetFetch and ListOffsets a new
 * group's member makes to find where to start, are not what is measured (the client's read
 * knows its offset without asking), so the clock starts at FETCH_START and moves to the answer
 * of each OffsetFetch or ListOffsets that comes before the first Fetch's answer.
 */
async function kafkaConsume(kafka: Kafka, topic: string, total: number): Promise<{ rate: number; how: string }> {
  const consumer = kafka.consumer({ groupId: `bench-${topic}-${++consumeGroups}`, maxBytes: 4 * 1024 * 1024, maxBytesPerPartition: 4 * 1024 * 1024 });
  let start = 0;
  let fetched = false;
  consumer.on(consumer.events.FETCH_START, () => (start ||= performance.now()));
  consumer.on(consumer.events.REQUEST, ({ payload }) => {
    if (start === 0 || fetched) return;
    if (payload.apiName === "Fetch") fetched = true;
    else if (payload.apiName === "OffsetFetch" || payload.apiName === "ListOffsets") start = performance.now();
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let read = 0;
  let done = 0;
  await new Promise<void>((resolve) => {
    void consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        read += batch.messages.length;
        if (read >= total && done === 0) {
          done = performance.now();
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return { rate: read / ((done - start) / 1000), how: "kafkajs group consumer, timed from its first Fetch" };
}

/** Records/s of the client's producer with its defaults writing `total` records of `recordBytes`, all sent at once, until every one is acknowledged. */
async function clientBulkProduce(client: Tributary, topic: string, total: number, recordBytes: number): Promise<number> {
  const producer = client.producer();
  const record = { value: Buffer.alloc(recordBytes, "x") };
  const start = performance.now();
  const sends: Promise<unknown>[] = [];
  for (let sent = 0; sent < total; sent += 1_000) sends.push(producer.send({ topic, messages: Array.from({ length: Math.min(1_000, total - sent) }, () => record) }));
  await Promise.all(sends);
  const rate = total / ((performance.now() - start) / 1000);
  await producer.close();
  return rate;
}

async function clientConsume(client: Tributary, topic: string, total: number): Promise<number> {
  const start = performance.now();
  let offset = 0;
  let read = 0;
  while (read < total) {
    const answer = await client.topic(topic).fetch(0, offset, { maxRecords: 10_000, maxBytes: 4 * 1024 * 1024 });
    read += answer.records.length;
    offset = answer.nextOffset;
  }
  return read / ((performance.now() - start) / 1000);
}

export interface GatewayBenchOptions {
  seconds: number;
  soakMinutes?: number;
  write: boolean;
  wranglerDefaults: boolean;
  progress(line: string): void;
}

export async function gatewayBench(options: GatewayBenchOptions): Promise<void> {
  const { progress } = options;
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";
  progress("building the CLI and starting Tributary under wrangler dev");
  buildCli();
  const server = await startServer("tributary", options.wranglerDefaults);
  let gateway: GatewayProcess | undefined;
  const memory: number[] = [];
  let sampler: NodeJS.Timeout | undefined;
  try {
    gateway = await startGateway(server.url);
    sampler = setInterval(() => {
      const bytes = residentBytes(gateway?.child.pid);
      if (bytes !== undefined) memory.push(bytes);
    }, memorySampleMs);
    progress(`gateway on ${gateway.address} for ${server.url}`);
    const client = new Tributary({ url: server.url });
    const kafka = new Kafka({ brokers: [gateway.address], clientId: "bench", logLevel: logLevel.NOTHING });
    for (const name of ["gw-produce-kafka", "gw-produce-client", "gw-produce-java", "gw-produce-java-client", "gw-consume", "gw-consume-java", "gw-latency"]) await client.admin().topics.create({ name, partitions: 1 });
    const producer: KafkaProducer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    // Both sides plain (not idempotent), acks=all: the same work per batch.
    // Unpaced (requestsPerSecond Infinity), as kafkajs: each awaited send is its own request on both sides.
    const clientProducer = client.producer({ lingerMs: 0, idempotent: false, requestsPerSecond: Infinity });

    progress(`produce: ${options.seconds} s each, in turns`);
    const [kafkaProduce, directProduce] = await alternating(
      options.seconds,
      async () => {
        await producer.send({ topic: "gw-produce-kafka", acks: -1, messages });
        return batchRecords;
      },
      async () => {
        await clientProducer.send({ topic: "gw-produce-client", messages });
        return batchRecords;
      },
    );

    progress(`produce: ${javaRecords.toLocaleString("en")} records by the Java client's ProducerPerformance, then by the client, ${javaRounds} times in turns`);
    const javaProduces: number[] = [];
    const bulkProduces: number[] = [];
    for (let round = 0; round < javaRounds; round++) {
      const rate = await javaProducerRate(gateway.address, "gw-produce-java", javaRecords, javaRecordBytes);
      if (rate === undefined) break;
      javaProduces.push(rate);
      bulkProduces.push(await clientBulkProduce(client, "gw-produce-java-client", javaRecords, javaRecordBytes));
    }

    progress(`consume: ${consumeRecords} records each`);
    for (let sent = 0; sent < consumeRecords; sent += 1_000) {
      await clientProducer.send({ topic: "gw-consume", messages: Array.from({ length: 1_000 }, () => ({ value })) });
    }
    // One untimed read each first: the decoders' code is cold on the first.
    await kafkaConsume(kafka, "gw-consume", consumeRecords);
    await clientConsume(client, "gw-consume", consumeRecords);
    const kafkaRates: number[] = [];
    const directRates: number[] = [];
    const kcatRates: number[] = [];
    const javaRates: number[] = [];
    const javaDirectRates: number[] = [];
    let how = "";
    for (let round = 0; round < consumeRounds; round++) {
      const read = await kafkaConsume(kafka, "gw-consume", consumeRecords);
      kafkaRates.push(read.rate);
      how = read.how;
      directRates.push(await clientConsume(client, "gw-consume", consumeRecords));
      const kcat = await kcatConsume(gateway.address, "gw-consume", consumeRecords);
      if (kcat !== undefined) kcatRates.push(kcat);
    }
    if ((await kafkaClasspath()) !== undefined) {
      progress(`consume (Java): ${javaConsumeRecords.toLocaleString("en")} records, by the Java client and the client in turns`);
      for (let sent = 0; sent < javaConsumeRecords; sent += 1_000) {
        await clientProducer.send({ topic: "gw-consume-java", messages: Array.from({ length: 1_000 }, () => ({ value })) });
      }
      await clientConsume(client, "gw-consume-java", javaConsumeRecords);
      for (let round = 0; round < javaConsumeRounds; round++) {
        javaDirectRates.push(await clientConsume(client, "gw-consume-java", javaConsumeRecords));
        const java = await javaConsumerRate(gateway.address, "gw-consume-java", javaConsumeRecords, `gw-consume-java-${round}`);
        if (java !== undefined) javaRates.push(java);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const javaProduce = javaProduces.length === 0 ? undefined : median(javaProduces);
    const bulkProduce = median(bulkProduces);
    const javaRead = javaRates.length === 0 ? undefined : median(javaRates);
    const javaDirectRead = median(javaDirectRates);
    const kafkaRead = { rate: median(kafkaRates), how };
    const directRead = median(directRates);
    const kcatRead = kcatRates.length === 0 ? undefined : median(kcatRates);

    progress(`latency: ${latencySamples} single-record produces each`);
    const one = [{ value }];
    const latency = await latencies(
      () => producer.send({ topic: "gw-latency", acks: -1, messages: one }),
      () => client.topic("gw-latency").produce(one),
    );

    let soakLine = "";
    if (options.soakMinutes !== undefined) {
      progress(`soak: produce and consume through the gateway for ${options.soakMinutes} min`);
      memory.length = 0;
      const end = performance.now() + options.soakMinutes * 60_000;
      await client.admin().topics.create({ name: "gw-soak", partitions: 1 });
      let rounds = 0;
      while (performance.now() < end) {
        await producer.send({ topic: "gw-soak", acks: -1, messages });
        await kafkaConsume(kafka, "gw-consume", batchRecords * 10);
        rounds += 1;
      }
      const third = Math.floor(memory.length / 3);
      const warm = Math.floor(memory.length * 0.2);
      const first = median(memory.slice(warm, warm + third));
      const last = median(memory.slice(-third));
      const flat = last <= first * 1.2;
      soakLine = `Soak: ${options.soakMinutes} min, ${rounds} rounds of a 100-record produce and a 1,000-record read through the gateway; resident size median ${mib(first)} (first third after warm-up) → ${mib(last)} (last third): ${flat ? "flat" : "GROWING"}.`;
    }
    await producer.disconnect();
    await clientProducer.close();

    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    const rows = [
      `| row | through the gateway | Tributary's client | ratio | target |`,
      `|---|---:|---:|---:|---|`,
      `| produce, records/s (batches of ${batchRecords} × ${valueBytes} B, 1 in flight, acks=all, in turns; kafkajs) | ${Math.round(kafkaProduce).toLocaleString("en")} | ${Math.round(directProduce).toLocaleString("en")} | ${ratio(kafkaProduce, directProduce)} | ≥ 0.8 |`,
      javaProduce === undefined
        ? `| produce through the gateway with the Java client | skipped: ../shared/kafka/kafka.sh or java is not there | | | informative |`
        : `| produce, records/s (${javaRecords.toLocaleString("en")} records of ${javaRecordBytes} B, all at once, median of ${javaProduces.length} in turns; the Java client 4.4's defaults — idempotent, acks=all, 5 in flight — by Kafka's ProducerPerformance vs the client's producer with its defaults) | ${Math.round(javaProduce).toLocaleString("en")} | ${Math.round(bulkProduce).toLocaleString("en")} | ${ratio(javaProduce, bulkProduce)} | ≥ 0.8 |`,
      `| consume, records/s (${consumeRecords.toLocaleString("en")} records from offset 0, median of ${consumeRounds} in turns; ${kafkaRead.how}) | ${Math.round(kafkaRead.rate).toLocaleString("en")} | ${Math.round(directRead).toLocaleString("en")} | ${ratio(kafkaRead.rate, directRead)} | ≥ 0.8 |`,
      kcatRead === undefined
        ? `| consume through the gateway with librdkafka (kcat) | skipped: /usr/bin/kcat is not installed | | | informative |`
        : `| consume, records/s (the same reads by librdkafka: kcat -C -o beginning, timed from its first Fetch, median of ${consumeRounds}) | ${Math.round(kcatRead).toLocaleString("en")} | ${Math.round(directRead).toLocaleString("en")} | ${ratio(kcatRead, directRead)} | informative |`,
      javaRead === undefined
        ? `| consume through the gateway with the Java client | skipped: ../shared/kafka/kafka.sh or java is not there | | | ≥ 0.8 |`
        : `| consume, records/s (${javaConsumeRecords.toLocaleString("en")} records of ${valueBytes} B from offset 0 by the Java client 4.4's defaults — Kafka's ConsumerPerformance in a new classic group, its fetch.nMsg.sec, timed from after the join — and by the client, median of ${javaRates.length} in turns) | ${Math.round(javaRead).toLocaleString("en")} | ${Math.round(javaDirectRead).toLocaleString("en")} | ${ratio(javaRead, javaDirectRead)} | ≥ 0.8 |`,
      `| single-record produce latency p50 / p99, ms (kafkajs acks=all vs the client's topic.produce, alternating) | ${latency.gateway.p50.toFixed(2)} / ${latency.gateway.p99.toFixed(2)} | ${latency.direct.p50.toFixed(2)} / ${latency.direct.p99.toFixed(2)} | added p99 ${(latency.gateway.p99 - latency.direct.p99).toFixed(2)} ms (paired differences p50 ${latency.added.p50.toFixed(2)}, p99 ${latency.added.p99.toFixed(2)}) | ≤ 2 ms added |`,
    ];
    const load = `Machine load average while it ran: ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores (other work on the machine weighs on every figure; the turns keep the ratios fair).`;
    const memoryLine = memory.length === 0 ? "Gateway memory: not sampled (no /proc)." : `Gateway resident size over the run: ${mib(Math.min(...memory))} – ${mib(Math.max(...memory))} (${memory.length} samples).`;
    const environment = describeEnvironment();
    const section = [
      gatewayHeading,
      "",
      `\`npm run bench -- --gateway --seconds ${options.seconds}${options.soakMinutes === undefined ? "" : ` --gateway-soak ${options.soakMinutes}`}\` on ${environment.date} (commit ${environment.commit}): Tributary under wrangler dev, \`tributary gateway\` as its own process, clients in the bench process, one partition (bench/gateway.ts).`,
      "",
      ...rows,
      "",
      memoryLine,
      "",
      load,
      ...(soakLine ? ["", soakLine] : []),
    ].join("\n");
    console.log(`\n${section}\n`);
    if (options.write) {
      const path = join(repositoryRoot, "bench", "RESULTS.md");
      writeSection(path, gatewayHeading, section);
      progress(`wrote the gateway section of ${path}`);
    }
  } finally {
    clearInterval(sampler);
    await gateway?.stop();
    await server.stop();
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
