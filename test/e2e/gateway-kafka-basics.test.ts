/**
 * Issue 35: the basics other projects' suites broke on, through `tributary gateway
 * --auto-create-topics --metrics` in front of `wrangler dev`, with real clients:
 *
 * - requests are read as Kafka reads them: confluent-kafka 2.16 (librdkafka ≥ 2.3 sends
 *   newest Metadata request, with 3 bytes after its fields) lists topics, and the gateway counts such
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
 * - the JUnit project of test/java (src/test/java, issue 29), one JVM: `GatewayBasicsTest` (the
 *   Java consumer's validation of its position with OffsetForLeaderEpoch; a transactional
 *   producer's initTransactions() — issue 28, the transactions themselves are
 *   test/e2e/gateway-transactions.test.ts's —; describeProducers of an open, then committed,
 *   transaction), `AdminTest` (topics with configs, describeCluster with its operations,
 *   ListOffsets by each spec with v7+'s largest timestamp and v8+'s earliest local,
 *   DeleteRecords, groups listed, described, their offsets altered and deleted, a share group
 *   described), `CompressionTest` (the default producer with each codec, read back),
 *   `FailoverTest` (a leader failover under a running consumer: nothing skipped, nothing read
 *   twice), `ImplicitShareTest` (KafkaShareConsumer with implicit acknowledgement).
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

  it("confluent-kafka 2.16 lists topics with its newest Metadata request, bytes after its fields included; the gateway counts them", async () => {
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

    const java = await runJava("GatewayBasics", ["consume", gateway.address, topic, "3", "600"]);
    expect(java.code, java.stderr).toBe(0);
    expect(JSON.parse(java.stdout)).toEqual({ read: 600 });
    expect(java.stderr).not.toMatch(/invalid.*fetch response|extraIds/i);
  });

  it("lists __consumer_offsets as Kafka's internal topic, and creates no topic beginning with __", async () => {
    const java = await runJava("GatewayBasics", ["topics", gateway.address, "__mine"]);
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

  it("answers a batch larger than a partition takes MESSAGE_TOO_LARGE, and takes a record with many headers (confluent-kafka)", async () => {
    const topic = "sized";
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const run = await runPython("produce_limits.py", [gateway.address, topic, String(1_500_000), "200"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ large: "MSG_SIZE_TOO_LARGE", headers: null });
    const { records } = await client.topic(topic).fetch(0, 0);
    expect(records.map((record) => Object.keys(record.headers).length)).toEqual([200]);
  });

  it("the JUnit project's checks pass against the gateway: Admin, each codec, a leader failover under a consumer, OffsetForLeaderEpoch's validations, transactional producers (transaction version 2), implicit share acknowledgement (issues 29, 35)", async () => {
    const classes = ["AdminTest", "CompressionTest", "FailoverTest", "GatewayBasicsTest", "ImplicitShareTest", "TransactionsV2Test"].map((name) => `tributary.gateway.${name}`);
    const run = await runJUnit(classes, { bootstrap: gateway.address, http: server.url });
    expect(failedChecks(run), run.output).toEqual([]);
    // Every check ran and passed.
    expect(run.checks.map((check) => `${check.name} ${check.outcome}`), run.output).toEqual([
      "AdminTest.aShareGroupIsListedAsOneAndDescribedWithItsMemberAndAssignment() passed",
      "AdminTest.consumerGroupsAreListedDescribedAndTheirOffsetsAlteredAndDeleted() passed",
      "AdminTest.describeClusterNamesTheDeploymentsClusterIdAndTheGatewayAsItsOnlyBroker() passed",
      "AdminTest.listOffsetsAnswersEachSpecAndDeleteRecordsMovesTheEarliest() passed",
      "AdminTest.listTransactionsFiltersByAPatternTheWholeIdMustMatch() passed",
      "AdminTest.theAnchorTopicsAreListedAsInternalAndTheirDeletionIsRefused() passed",
      "AdminTest.topicsAreCreatedWithConfigsWhichDescribeAndAlterReadBack() passed",
      ...[1, 2, 3, 4].map((index) => `CompressionTest.theDefaultProducerWritesWithTheCodecAndAConsumerReadsEveryRecordBack(String)[${index}] passed`),
      "FailoverTest.aConsumerReadsOnThroughALeaderChangeWithNothingSkipped() passed",
      "GatewayBasicsTest.aCommittedOffsetKeepsItsLeaderEpoch() passed",
      "GatewayBasicsTest.anEpochThePartitionNeverHadIsATruncationWithNoOffsetToGoBackTo() passed",
      "GatewayBasicsTest.aPositionPastTheEndIsATruncationAtTheEnd() passed",
      "GatewayBasicsTest.aPositionWithinTheLogValidatesAndReadsOn() passed",
      "GatewayBasicsTest.aTransactionalProducerInitializes() passed",
      "GatewayBasicsTest.describeProducersShowsAnOpenTransactionThenItsCommit() passed",
      "ImplicitShareTest.implicitAcknowledgementAcceptsEachRecordOnce() passed",
      "TransactionsV2Test.aNewInstanceFencesTheOlderOne() passed",
      "TransactionsV2Test.commitsAndAbortsWithVersion2TheEpochBumpedAtEveryEnd() passed",
    ]);
    expect(run.code, run.output).toBe(0);
  }, 160_000);
});
