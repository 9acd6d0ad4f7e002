/**
 * Issue 27 through `tributary gateway` with real clients: kcat (Debian's librdkafka 2.0.2),
 * confluent-kafka from PyPI (librdkafka 2.16) and from Debian (librdkafka 2.0.2) and @platformatic/kafka produce compressed
 * batches; Tributary's JSON fetch shows exactly their records and the stored batches carry the
 * codec each client really sent (librdkafka < 2.10 sends gzip, snappy and lz4 uncompressed to a
 * broker without Produce v0: docs/gateway.md). Tributary's client produces in each codec and
 * kcat, kafkajs (gzip) and confluent-kafka read it back.
 */
import { CompressionTypes, Kafka, logLevel } from "kafkajs";
import { compatibilityPartitioner, Producer as PlatformaticProducer, stringSerializers } from "@platformatic/kafka";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary, type CompressionCodec } from "../../src/client/index.ts";
import { recordBatchContentType } from "../../src/protocol/content-types.ts";
import { splitBatches } from "../../src/protocol/record-batch.ts";
import { batchCodec } from "../../src/protocol/record-batch-compression.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { runPython } from "./support/python-clients.ts";
import { runToEnd } from "./support/child-run.ts";
import { repositoryRoot, startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";
import { kcat } from "./support/kcat.ts";

describe("compressed batches through tributary gateway", () => {
  let server: DevServer;
  let gateway: GatewayProcess;
  let client: Tributary;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    gateway = await startGateway(server.url);
    client = new Tributary({ url: server.url, retry: { initialBackoffMs: 50 } });
  });

  afterAll(async () => {
    const code = await gateway?.stop();
    await server?.stop();
    expect(code).toBe(0);
  });

  /** Partition 0's values through Tributary's JSON fetch. */
  async function jsonValues(topic: string): Promise<string[]> {
    const response = await fetch(`${server.url}/v1/topics/${topic}/partitions/0/records?offset=0&maxRecords=10000`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { records: { value: string }[] }).records.map((record) => record.value);
  }

  /** The codec of each batch partition 0 stores, from the binary fetch. */
  async function storedCodecs(topic: string): Promise<(CompressionCodec | undefined)[]> {
    const response = await fetch(`${server.url}/v1/topics/${topic}/partitions/0/records?offset=0&maxBytes=8388608`, { headers: { accept: recordBatchContentType } });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return [...splitBatches(bytes)].map(({ header }) => batchCodec(header));
  }

  const lines = (codec: string, count: number) => Array.from({ length: count }, (_, i) => `${codec} line ${i} ${"payload ".repeat(6)}`);

  it.each([
    ["zstd", "zstd"],
    ["gzip", "none"],
    ["snappy", "none"],
    ["lz4", "none"],
  ])("kcat -z %s: its records, stored as librdkafka 2.0.2 really sent them (%s)", async (codec, stored) => {
    const topic = `kcat-${codec}`;
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const input = lines(codec, 40);
    await kcat(["-b", gateway.address, "-P", "-t", topic, "-p", "0", "-z", codec, "-X", "linger.ms=100"], input.join("\n") + "\n");
    expect(await jsonValues(topic)).toEqual(input);
    expect(new Set(await storedCodecs(topic))).toEqual(new Set([stored]));
  });

  it.each(["gzip", "snappy", "lz4", "zstd"])("confluent-kafka (librdkafka from PyPI) with compression.type %s", async (codec) => {
    const topic = `py-${codec}`;
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const run = await runPython("produce_compressed.py", [gateway.address, topic, codec, "30"]);
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout) as { delivered: number; errors: string[] };
    expect(answer).toMatchObject({ delivered: 30, errors: [] });
    expect(await jsonValues(topic)).toEqual(Array.from({ length: 30 }, (_, i) => `${codec} record ${i} ${"payload ".repeat(8)}`));
    expect(new Set(await storedCodecs(topic))).toEqual(new Set([codec]));
  });

  it("confluent-kafka from Debian (python3-confluent-kafka 1.7.0, librdkafka 2.0.2): its records, stored as it really sent them", async () => {
    // Debian's Python and its package (scripts/test-setup.sh installs it), not the PyPI environment.
    for (const [codec, stored] of [["zstd", "zstd"], ["gzip", "none"], ["snappy", "none"], ["lz4", "none"]] as const) {
      const topic = `debian-py-${codec}`;
      await client.admin().topics.create({ name: topic, partitions: 1 });
      const run = await runToEnd("/usr/bin/python3", [join(repositoryRoot, "test", "python", "produce_compressed.py"), gateway.address, topic, codec, "20"], "python3 produce_compressed.py", 60_000);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ delivered: 20, errors: [], librdkafka: "2.0.2" });
      expect(await jsonValues(topic)).toEqual(Array.from({ length: 20 }, (_, i) => `${codec} record ${i} ${"payload ".repeat(8)}`));
      expect({ codec, stored: new Set(await storedCodecs(topic)) }).toEqual({ codec, stored: new Set([stored]) });
    }
  });

  it.each(["snappy", "lz4", "zstd"] as const)("@platformatic/kafka with compression %s", async (codec) => {
    const topic = `plt-${codec}`;
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const producer = new PlatformaticProducer({ clientId: "e2e", bootstrapBrokers: [gateway.address], serializers: stringSerializers, partitioner: compatibilityPartitioner, compression: codec });
    try {
      const values = lines(codec, 25);
      await producer.send({ messages: values.map((value) => ({ topic, value, partition: 0 })) });
      expect(await jsonValues(topic)).toEqual(values);
      expect(new Set(await storedCodecs(topic))).toEqual(new Set([codec]));
    } finally {
      await producer.close();
    }
  });

  it("Tributary's client produces in each codec; kcat, kafkajs (gzip) and confluent-kafka read it back", async () => {
    const codecs: CompressionCodec[] = ["gzip", "snappy", "lz4", "zstd"];
    for (const codec of codecs) {
      const topic = `client-${codec}`;
      await client.admin().topics.create({ name: topic, partitions: 1 });
      const producer = client.producer({ compression: codec, lingerMs: 20 });
      const values = lines(codec, 50);
      await producer.send({ topic, messages: values.map((value) => ({ value, partition: 0 })) });
      await producer.close();
      expect(new Set(await storedCodecs(topic))).toEqual(new Set([codec]));
      const consumed = await kcat(["-b", gateway.address, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-c", "50", "-e", "-q"]);
      expect(consumed.stdout.replace(/\n$/, "").split("\n")).toEqual(values);
      const python = await runPython("consume_values.py", [gateway.address, topic, "50"]);
      expect(python.code, python.stderr).toBe(0);
      expect((JSON.parse(python.stdout) as { values: string[] }).values).toEqual(values);
    }
    const kafka = new Kafka({ brokers: [gateway.address], clientId: "e2e", logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: "js-gzip-reader" });
    await consumer.connect();
    await consumer.subscribe({ topic: "client-gzip", fromBeginning: true });
    const read: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) });
    await expect.poll(() => read.length, { timeout: 30_000 }).toBe(50);
    await consumer.disconnect();
    expect(read).toEqual(lines("gzip", 50));
    expect(CompressionTypes.GZIP).toBe(1);
  });
});
