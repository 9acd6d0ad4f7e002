/**
 * Issue 35: the basics other projects' suites broke on, through `tributary gateway
 * --auto-create-topics --metrics` in front of `wrangler dev`, with real clients:
 *
 * - requests are read as Kafka reads them: confluent-kafka 2.16 (librdkafka ≥ 2.3 sends
 *   Metadata v12 with 3 bytes after its fields) lists topics, and the gateway counts such
 *   requests in its metrics;
 * - Fetch keeps to `fetch.max.bytes` over all partitions (librdkafka's protocol log gives each
 *   FetchResponse's size), and the Java client reads several partitions without an invalid
 *   fetch answer;
 * - Kafka's internal topics: `__consumer_offsets` is listed as internal (Java Admin), a topic
 *   beginning with "__" is neither created nor auto-created;
 * - the admin calls Kafka clients make (confluent-kafka's AdminClient): the broker's configs,
 *   the deployment's default partition count for CreateTopics with -1 and auto-created
 *   topics, explicit replica assignments naming the gateway's broker (and not others),
 *   IncrementalAlterConfigs APPEND and SUBTRACT on cleanup.policy;
 * - a batch larger than a partition takes is Kafka's MESSAGE_TOO_LARGE, and a record may carry
 *   any number of headers;
 * - the Java Admin's describeCluster, and the Java consumer's validation of its position with
 *   OffsetForLeaderEpoch;
 * - a transactional producer's initTransactions() succeeds (issue 28; the transactions
 *   themselves are test/e2e/gateway-transactions.test.ts's);
 * - issue 29's JUnit project (test/java/src/test/java): the Java Admin (topics with configs,
 *   describeCluster, ListOffsets by each spec, DeleteRecords, groups listed, described, their
 *   offsets altered and deleted, a share group described), the default producer with each
 *   compression codec, read back, a leader failover under a running consumer (nothing skipped,
 *   nothing read twice), KafkaShareConsumer with implicit acknowledgement.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { TributaryError } from "../../src/errors.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { runJava } from "./support/java-clients.ts";
import { failedChecks, runJUnit } from "./support/java-junit.ts";
import { runPython } from "./support/python-clients.ts";
import { freePort, startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";
import { kcat } from "./support/kcat.ts";

const fetchMaxBytes = 1_000_000;

/** One sample of the gateway's metrics text, 0 when absent. */
function sample(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

describe("the gateway as other projects' suites use it", () => {
  let server: DevServer;
  let gateway: GatewayProcess;
  let client: Tributary;
  let metricsUrl: string;

  beforeAll(async () => {
    buildCli();
    // Kafka's num.partitions: auto-created topics and CreateTopics with -1 take it.
    // Fault injection (TRIBUTARY_FAULTS) for the JUnit project's leader failover.
    server = await startWranglerDev({ vars: { TOPIC_DEFAULT_PARTITIONS: "3", TRIBUTARY_FAULTS: "1" } });
    client = new Tributary({ url: server.url });
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    gateway = await startGateway(server.url, { args: ["--auto-create-topics", "--metrics", `127.0.0.1:${metricsPort}`] });
  });

  afterAll(async () => {
    await gateway?.stop("SIGKILL");
    await server?.stop();
  });

  it("confluent-kafka 2.16 lists topics with Metadata v12 and its trailing bytes; the gateway counts them", async () => {
    await client.admin().topics.create({ name: "listed", partitions: 2 });
    const run = await runPython("list_topics.py", [gateway.address]);
    expect(run.code, run.stderr).toBe(0);
    const { topics } = JSON.parse(run.stdout) as { topics: Record<string, { partitions: number; error: string | null }> };
    expect(topics.listed).toEqual({ partitions: 2, error: null });
    const metrics = await (await fetch(metricsUrl)).text();
    expect(sample(metrics, "tributary_gateway_requests_trailing_bytes_total", '{api="Metadata"}')).toBeGreaterThan(0);
    expect(sample(metrics, "tributary_gateway_connections_failed_total")).toBe(0);
  });

  it("Fetch keeps to fetch.max.bytes over all partitions (librdkafka), and the Java client reads several partitions with no invalid answer", async () => {
    const topic = "bounded";
    await client.admin().topics.create({ name: topic, partitions: 3 });
    // 3 × 200 records of 5,000 B in batches of 20 (~100 KB): 3 MB, three times the bound.
    const value = new Uint8Array(5_000).fill(120);
    for (let partition = 0; partition < 3; partition++) {
      for (let sent = 0; sent < 200; sent += 20) {
        await client.topic(topic).produce(Array.from({ length: 20 }, () => ({ value, partition })));
      }
    }
    const consumed = await kcat([
      "-b", gateway.address, "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%p\n",
      "-X", `fetch.max.bytes=${fetchMaxBytes}`, "-X", "debug=protocol",
    ]);
    expect(consumed.stdout.trim().split("\n")).toHaveLength(600);
    const sizes = [...consumed.stderr.matchAll(/Received FetchResponse \(v\d+, (\d+) bytes/g)].map((match) => Number(match[1]));
    expect(sizes.length).toBeGreaterThan(0);
    // The records within the bound, and a few hundred bytes of the answer's own fields.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(fetchMaxBytes + 1_024);
    expect(Math.max(...sizes)).toBeGreaterThan(fetchMaxBytes / 2);

    const java = await runJava("GatewayBasics.java", ["consume", gateway.address, topic, "3", "600"]);
    expect(java.code, java.stderr).toBe(0);
    expect(JSON.parse(java.stdout)).toEqual({ read: 600 });
    expect(java.stderr).not.toMatch(/invalid.*fetch response|extraIds/i);
  });

  it("lists __consumer_offsets as Kafka's internal topic, and creates no topic beginning with __", async () => {
    const java = await runJava("GatewayBasics.java", ["topics", gateway.address, "__mine"]);
    expect(java.code, java.stderr).toBe(0);
    const answer = JSON.parse(java.stdout) as { topics: Record<string, boolean>; created: string };
    expect(answer.topics.__consumer_offsets).toBe(true);
    expect(answer.topics.listed).toBe(false);
    expect(answer.created).toMatch(/^InvalidTopicException: .*reserved for Kafka's internal topics/);
    // Nor over HTTP, nor by auto-creation (a producer to it through the gateway).
    await expect(client.admin().topics.create({ name: "__also" })).rejects.toSatisfy((error) => error instanceof TributaryError && error.code === "INVALID_TOPIC_EXCEPTION");
    await expect(kcat(["-b", gateway.address, "-P", "-t", "__auto", "-X", "message.timeout.ms=3000"], "x\n")).rejects.toThrow();
    expect((await client.admin().topics.list()).map((topic) => topic.name).filter((name) => name.startsWith("__"))).toEqual([]);
  });

  it("answers the admin calls Kafka clients make (confluent-kafka's AdminClient)", async () => {
    const run = await runPython("admin_calls.py", [gateway.address]);
    expect(run.code, run.stderr).toBe(0);
    const answers = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(answers).toMatchObject({
      broker: { "num.partitions": "3", "default.replication.factor": "1", "auto.create.topics.enable": "true", "log.retention.ms": "604800000" },
      defaulted: 3,
      assigned: 2,
      appended: "delete,compact",
      subtracted: "compact",
      auto: 3,
    });
    expect(answers.misassigned).toMatch(/^INVALID_REPLICA_ASSIGNMENT: .*broker 7 is not a broker here/);
  });

  it("answers ListOffsets v7+ and v8+ as the Java client asks them: the largest timestamp's record, the earliest local offset", async () => {
    const topic = "timed";
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const base = Date.now() - 60_000;
    await client.topic(topic).produce([0, 5_000, 1_000].map((delta) => ({ value: "v", partition: 0, timestamp: base + delta })));
    const java = await runJava("GatewayBasics.java", ["offsets", gateway.address, topic]);
    expect(java.code, java.stderr).toBe(0);
    expect(JSON.parse(java.stdout)).toEqual({ maxTimestamp: { offset: 1, timestamp: base + 5_000 }, earliestLocal: { offset: 0 } });
  });

  it("answers the Java Admin's describeCluster and the consumer's OffsetForLeaderEpoch (KIP-320) as Kafka 4.4 does", async () => {
    const cluster = await runJava("GatewayBasics.java", ["cluster", gateway.address]);
    expect(cluster.code, cluster.stderr).toBe(0);
    const { clusterId } = (await (await fetch(`${server.url}/v1/cluster`)).json()) as { clusterId: string };
    expect(JSON.parse(cluster.stdout)).toEqual({
      clusterId,
      controller: 0,
      nodes: [`0 ${gateway.address}`],
      // What Kafka 4.4 without an authorizer answers, as the deployment is open.
      operations: ["CREATE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE"],
    });
    const topic = "validated";
    await client.admin().topics.create({ name: topic, partitions: 1 });
    await client.topic(topic).produce(Array.from({ length: 10 }, (_, index) => ({ value: `v${index}`, partition: 0 })));
    const validate = async (offset: number, epoch: number) => {
      const run = await runJava("GatewayBasics.java", ["validate", gateway.address, topic, String(offset), String(epoch)]);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as unknown;
    };
    // A position within the log validates and reads on; one past its end is a truncation at
    // the end (Kafka 4.4: the same two answers). Without OffsetForLeaderEpoch the client would
    // not validate, and the second would be an OffsetOutOfRangeException instead.
    expect(await validate(5, 0)).toEqual({ first: 5, read: 5 });
    expect(await validate(100, 0)).toEqual({ truncated: 10 });
    // Records carry Tributary's own leader epochs, which may exceed the gateway's 0: they validate too.
    expect(await validate(5, 7)).toEqual({ first: 5, read: 5 });
  });

  it("answers a batch larger than a partition takes MESSAGE_TOO_LARGE, and takes a record with many headers (confluent-kafka)", async () => {
    const topic = "sized";
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const run = await runPython("produce_limits.py", [gateway.address, topic, String(1_500_000), "200"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ large: "MSG_SIZE_TOO_LARGE", headers: null });
    const { records } = await client.topic(topic).fetch(0, 0);
    expect(records.map((record) => Object.keys(record.headers).length)).toEqual([200]);
  });

  it("the Java client's transactional producer initializes (FindCoordinator for a transactional id, InitProducerId with it)", async () => {
    const java = await runJava("GatewayBasics.java", ["transactional", gateway.address]);
    expect(java.code, java.stderr).toBe(0);
    expect(JSON.parse(java.stdout)).toEqual({ error: null });
  });

  it("the Java Admin's describeProducers (DescribeProducers v0) shows a Java transactional producer's open transaction, then its commit", async () => {
    const topic = "described-producers";
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const java = await runJava("GatewayBasics.java", ["producers", gateway.address, topic]);
    expect(java.code, java.stderr).toBe(0);
    const answer = JSON.parse(java.stdout);
    expect(answer.open).toEqual([{ epoch: expect.any(Number), lastSequence: 0, coordinatorEpoch: -1, txnStart: answer.offset }]);
    // The commit's marker bumped the epoch (KIP-890's epoch at every end), with no sequence in it yet; nothing is open.
    // Kafka 4.4 answers the same but for the coordinator epoch, which it takes from the marker (Tributary keeps none).
    // The commit marker's coordinator epoch (0 for a new coordinator; each restart of its object bumps it), as Kafka 4.4 shows it.
    expect(answer.committed).toEqual([{ epoch: answer.open[0].epoch + 1, lastSequence: -1, coordinatorEpoch: expect.any(Number), txnStart: -1 }]);
    expect(answer.committed[0].coordinatorEpoch).toBeGreaterThanOrEqual(0);
  });

  it("the JUnit project's checks pass against the gateway: Admin, each codec, a leader failover under a consumer, implicit share acknowledgement (issue 29)", async () => {
    const classes = ["AdminTest", "CompressionTest", "FailoverTest", "ImplicitShareTest"].map((name) => `tributary.gateway.${name}`);
    const run = await runJUnit(classes, { bootstrap: gateway.address, http: server.url });
    expect(failedChecks(run), run.output).toEqual([]);
    // Every check ran and passed: 5 Admin checks, one per codec, the failover, implicit acknowledgement.
    expect(run.checks.map((check) => `${check.name} ${check.outcome}`), run.output).toEqual([
      "AdminTest.aShareGroupIsListedAsOneAndDescribedWithItsMemberAndAssignment() passed",
      "AdminTest.consumerGroupsAreListedDescribedAndTheirOffsetsAlteredAndDeleted() passed",
      "AdminTest.describeClusterNamesTheDeploymentsClusterIdAndTheGatewayAsItsOnlyBroker() passed",
      "AdminTest.listOffsetsAnswersEachSpecAndDeleteRecordsMovesTheEarliest() passed",
      "AdminTest.topicsAreCreatedWithConfigsWhichDescribeAndAlterReadBack() passed",
      ...[1, 2, 3, 4].map((index) => `CompressionTest.theDefaultProducerWritesWithTheCodecAndAConsumerReadsEveryRecordBack(String)[${index}] passed`),
      "FailoverTest.aConsumerReadsOnThroughALeaderChangeWithNothingSkipped() passed",
      "ImplicitShareTest.implicitAcknowledgementAcceptsEachRecordOnce() passed",
    ]);
    expect(run.code, run.output).toBe(0);
  });
});
