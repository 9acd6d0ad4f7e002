/**
 * Issue 28 through the gateway: Kafka's transactions with real clients, against one
 * `wrangler dev` and one `tributary gateway`:
 *
 * - kafkajs 2.2.4 (EndTxn v1: it keeps its epoch after each end, which the gateway translates
 *   to the one the coordinator bumped): a transactional producer commits and aborts, and runs a
 *   consume-transform-produce step with `sendOffsets`; a read_committed kafkajs consumer sees
 *   exactly the committed records, a read_uncommitted one the aborted ones too; the group's
 *   offsets move with the committed transaction only; a second instance with the same
 *   transactional id fences the first;
 * - confluent-kafka from Debian (librdkafka 2.0.2) commits and aborts, and reads read_committed;
 *   kcat reads with isolation.level read_committed and read_uncommitted;
 * - the same confluent-kafka as a consume-transform-produce loop (test/python/transactions_loop.py)
 *   SIGKILLed with a transaction's records written and not committed, restarted with the same
 *   transactional id: read_committed, the output holds every input record exactly once; the
 *   killed transaction's records are there read_uncommitted.
 */
import { join } from "node:path";
import { Kafka, logLevel, type Consumer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli } from "./support/cli.ts";
import { runToEnd } from "./support/child-run.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { kcat } from "./support/kcat.ts";
import { repositoryRoot, startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

/**
 * Every value a consumer of `topic` reads from the start, until it has read `count` or 10 s passed
 * without more since it joined its group (joining takes a few seconds, more on a loaded machine:
 * the clock starts at the join, bounded by 60 s).
 */
async function readValues(kafka: Kafka, topic: string, readUncommitted: boolean, count: number): Promise<string[]> {
  const consumer: Consumer = kafka.consumer({ groupId: `reader-${topic}-${readUncommitted}-${Date.now()}`, readUncommitted, maxWaitTimeInMs: 200 });
  const values: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const joinBy = Date.now() + 60_000;
    let idleSince = Number.POSITIVE_INFINITY;
    consumer.on(consumer.events.GROUP_JOIN, () => (idleSince = Math.min(idleSince, Date.now())));
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
        idleSince = Date.now();
      },
    });
    const idle = () => (idleSince === Number.POSITIVE_INFINITY ? (Date.now() < joinBy ? 0 : Number.POSITIVE_INFINITY) : Date.now() - idleSince);
    while (values.length < count + 1 && idle() < (values.length >= count ? 2_000 : 10_000)) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await consumer.disconnect();
  }
  return values.sort();
}

describe("transactions through the gateway", () => {
  let server: DevServer;
  let gateway: GatewayProcess;
  let client: Tributary;
  let kafka: Kafka;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    client = new Tributary({ url: server.url });
    gateway = await startGateway(server.url);
    kafka = new Kafka({ brokers: [gateway.address], clientId: "txn-e2e", logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
  });

  afterAll(async () => {
    await gateway?.stop("SIGKILL");
    await server?.stop();
  });

  it("kafkajs 2.2.4: commit, abort and consume-transform-produce with sendOffsets; read_committed readers see exactly the committed records", async () => {
    await client.admin().topics.create({ name: "txn-in", partitions: 1 });
    await client.admin().topics.create({ name: "txn-out", partitions: 2 });
    await client.topic("txn-in").produce(["a", "b", "c", "d"].map((value) => ({ value, partition: 0 })));

    const producer = kafka.producer({ transactionalId: "kjs-producer", idempotent: true, maxInFlightRequests: 1, transactionTimeout: 30_000 });
    await producer.connect();
    const committed1 = await producer.transaction();
    await committed1.send({ topic: "txn-out", messages: [{ value: "c1-p0", partition: 0 }, { value: "c1-p1", partition: 1 }] });
    await committed1.send({ topic: "txn-out", messages: [{ value: "c1-p0-b", partition: 0 }] });
    await committed1.commit();

    const aborted = await producer.transaction();
    await aborted.send({ topic: "txn-out", messages: [{ value: "x1-p0", partition: 0 }, { value: "x1-p1", partition: 1 }] });
    await aborted.abort();

    // The same epoch again (kafkajs keeps it): the gateway sends the bumped one, sequences from 0.
    const committed2 = await producer.transaction();
    await committed2.send({ topic: "txn-out", messages: [{ value: "c2-p1", partition: 1 }, { value: "c2-p0", partition: 0 }] });
    await committed2.commit();

    // Consume-transform-produce: the input's records out, the group's offset in the same transaction.
    const group = "ctp-group";
    const transform = async (commit: boolean, expected: string[]) => {
      const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 200 });
      await consumer.connect();
      await consumer.subscribe({ topic: "txn-in", fromBeginning: true });
      const seen: string[] = [];
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              const transaction = await producer.transaction();
              try {
                await transaction.send({ topic: "txn-out", messages: batch.messages.map((message) => ({ value: `t-${commit ? "c" : "x"}-${message.value!.toString()}`, partition: 0 })) });
                await transaction.sendOffsets({ consumerGroupId: group, topics: [{ topic: "txn-in", partitions: [{ partition: 0, offset: String(Number(batch.lastOffset()) + 1) }] }] });
                if (commit) await transaction.commit();
                else await transaction.abort();
              } catch (error) {
                reject(error);
                return;
              }
              seen.push(...batch.messages.map((message) => message.value!.toString()));
              if (seen.length >= expected.length) resolve();
            },
          })
          .catch(reject);
      });
      await consumer.disconnect();
      expect(seen).toEqual(expected);
    };
    // Aborted first: the offsets stay uncommitted, so the committed run reads the input again.
    await transform(false, ["a", "b", "c", "d"]);
    await expect(client.admin().groups.offsets(group)).resolves.toEqual([]);
    await client.topic("txn-in").produce([{ value: "e", partition: 0 }]);
    await transform(true, ["a", "b", "c", "d", "e"]);
    const offsets = await client.admin().groups.offsets(group);
    expect(offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset }))).toEqual([{ topic: "txn-in", partition: 0, offset: 5 }]);

    const committedValues = ["c1-p0", "c1-p0-b", "c1-p1", "c2-p0", "c2-p1", "t-c-a", "t-c-b", "t-c-c", "t-c-d", "t-c-e"].sort();
    const abortedValues = ["x1-p0", "x1-p1", "t-x-a", "t-x-b", "t-x-c", "t-x-d"];
    expect(await readValues(kafka, "txn-out", false, committedValues.length)).toEqual(committedValues);
    expect(await readValues(kafka, "txn-out", true, committedValues.length + abortedValues.length)).toEqual([...committedValues, ...abortedValues].sort());

    // Every end bumped the epoch on the server: init at 0, then 5 ends (kafkajs itself still sends 0).
    const described = (await (await fetch(`${server.url}/v1/transactions/kjs-producer`)).json()) as { state: string; producerEpoch: number };
    expect(described.state).toBe("CompleteCommit");
    expect(described.producerEpoch).toBe(5);

    // A second instance with the same transactional id fences the first: its open transaction is
    // aborted by the second's init, and its commit refused.
    const zombie = await producer.transaction();
    await zombie.send({ topic: "txn-out", messages: [{ value: "zombie", partition: 0 }] });
    const second = kafka.producer({ transactionalId: "kjs-producer", idempotent: true, maxInFlightRequests: 1 });
    await second.connect();
    const successor = await second.transaction();
    const fenced = await zombie.commit().then(
      () => null,
      (error: Error) => error,
    );
    expect(fenced?.message ?? "no error").toMatch(/fenced|epoch/i);
    await successor.send({ topic: "txn-out", messages: [{ value: "successor", partition: 1 }] });
    await successor.commit();
    await second.disconnect();
    await producer.disconnect().catch(() => {});
    expect(await readValues(kafka, "txn-out", false, committedValues.length + 1)).toEqual([...committedValues, "successor"].sort());
  });

  it("confluent-kafka from Debian (librdkafka 2.0.2) commits and aborts and reads read_committed; kcat reads either isolation level", async () => {
    const topic = "txn-py";
    await client.admin().topics.create({ name: topic, partitions: 2 });
    const program = join(repositoryRoot, "test", "python", "transactions_produce_read.py");
    const run = await runToEnd("/usr/bin/python3", [program, gateway.address, topic, "py-producer"], "python3 transactions_produce_read.py", 90_000);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ values: ["py-c1", "py-c2", "py-c3"], error: null });
    const described = (await (await fetch(`${server.url}/v1/transactions/py-producer`)).json()) as { state: string; producerEpoch: number };
    expect(described).toMatchObject({ state: "CompleteCommit", producerEpoch: 3 });

    const read = async (isolation: string) => {
      const { stdout } = await kcat(["-b", gateway.address, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%s\n", "-X", `isolation.level=${isolation}`]);
      return stdout.split("\n").filter((line) => line !== "").sort();
    };
    expect(await read("read_committed")).toEqual(["py-c1", "py-c2", "py-c3"]);
    expect(await read("read_uncommitted")).toEqual(["py-c1", "py-c2", "py-c3", "py-x1", "py-x2"]);
  });

  it("confluent-kafka from Debian: a consume-transform-produce loop SIGKILLed mid-transaction and restarted with its transactional id: read_committed, its output holds every input record exactly once", async () => {
    const [input, output] = ["ctp-py-in", "ctp-py-out"];
    await client.admin().topics.create({ name: input, partitions: 2 });
    await client.admin().topics.create({ name: output, partitions: 2 });
    const values = Array.from({ length: 300 }, (_, n) => `v${n}`);
    await client.topic(input).produce(values.map((value, n) => ({ key: `k${n}`, value })));
    const program = join(repositoryRoot, "test", "python", "transactions_loop.py");
    const loop = (killIn: number) =>
      runToEnd("/usr/bin/python3", [program, gateway.address, input, output, "ctp-py", "ctp-py-loop", String(killIn)], "python3 transactions_loop.py", 120_000, { killAt: killIn > 0 ? '"kill-me"' : undefined });
    // Killed once its third transaction's records are written, before the commit.
    const killed = await loop(3);
    expect(killed.stdout.trim().split("\n").map((line) => JSON.parse(line) as { event: string }), killed.stderr).toEqual([{ event: "kill-me", records: 20 }]);
    expect(killed.code).toBe(null);
    // The restart's init fences the killed instance and aborts its transaction; the loop goes on from the committed offsets.
    const restarted = await loop(0);
    expect(restarted.code, `${restarted.stdout}\n${restarted.stderr}`).toBe(0);
    expect(JSON.parse(restarted.stdout)).toMatchObject({ event: "done" });

    const read = async (isolation: string) => {
      const { stdout } = await kcat(["-b", gateway.address, "-C", "-t", output, "-o", "beginning", "-e", "-q", "-f", "%s\n", "-X", `isolation.level=${isolation}`]);
      return stdout.split("\n").filter((line) => line !== "");
    };
    expect((await read("read_committed")).sort()).toEqual(values.map((value) => `t-${value}`).sort());
    // The killed transaction's 20 records are in the log, aborted.
    expect(await read("read_uncommitted")).toHaveLength(320);
    // The group's offsets: each input partition's end.
    const ends = (await client.admin().topics.describe(input)).partitions.map(({ partition, highWatermark }) => [partition, highWatermark]);
    const offsets = await client.admin().groups.offsets("ctp-py");
    expect(offsets.map(({ partition, offset }) => [partition, offset]).sort()).toEqual(ends.sort());
  });
});
