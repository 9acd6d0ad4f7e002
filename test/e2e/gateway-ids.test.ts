/**
 * Issue 16, ids: @platformatic/kafka's own `consume()` stream in a group through the gateway —
 * it names topics by id (Metadata v10+, Fetch v13+); a topic id no topic has answers
 * UNKNOWN_TOPIC_ID; and the cluster id is the deployment's: two gateways given different URLs
 * of the same wrangler dev report the same one (kafkajs describeCluster), `GET /v1/cluster`'s.
 */
import { randomUUID } from "node:crypto";
import { Consumer, stringDeserializers, type MessagesStream } from "@platformatic/kafka";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { produceNumbered, waitUntil } from "./support/group-ledger.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

type StringConsumer = Consumer<string, string, string, string>;

describe("the gateway's topic ids and cluster id", () => {
  let server: DevServer;
  let tributary: Tributary;
  let gateway: GatewayProcess;
  let other: GatewayProcess;
  const consumers: StringConsumer[] = [];
  const streams: MessagesStream<string, string, string, string>[] = [];

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    tributary = new Tributary({ url: server.url });
    gateway = await startGateway(server.url);
    // The same deployment by another name.
    other = await startGateway(server.url.replace("127.0.0.1", "localhost"));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(streams.map((stream) => new Promise<void>((resolve) => stream.close(() => resolve()))));
    await Promise.all(consumers.map((consumer) => consumer.close().catch(() => {})));
    await gateway?.stop("SIGKILL");
    await other?.stop("SIGKILL");
    await server?.stop();
  });

  const consumer = (clientId: string, groupId: string, retries = 10): StringConsumer => {
    const created = new Consumer({
      clientId,
      groupId,
      bootstrapBrokers: [gateway.address],
      deserializers: stringDeserializers,
      sessionTimeout: 10_000,
      heartbeatInterval: 300,
      rebalanceTimeout: 10_000,
      retries,
      retryDelay: 100,
    });
    consumers.push(created);
    return created;
  };

  it("two gateways on different URLs of one deployment report its cluster id", async () => {
    const expected = (await (await fetch(`${server.url}/v1/cluster`)).json()) as { clusterId: string };
    expect(expected.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const one of [gateway, other]) {
      const admin = new Kafka({ clientId: "ids", brokers: [one.address], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      expect((await admin.describeCluster()).clusterId).toBe(expected.clusterId);
      await admin.disconnect();
    }
  });

  it("platformatic's consume() stream in a group of two reads every record and commits", async () => {
    const topic = "plt-stream";
    const groupId = "plt-stream-group";
    await tributary.admin().topics.create({ name: topic, partitions: 4 });
    await produceNumbered(tributary, topic, 4, 10);
    const seen = new Set<string>();
    for (const name of ["s1", "s2"]) {
      const stream = await consumer(name, groupId).consume({ topics: [topic], mode: "committed", fallbackMode: "earliest", autocommit: 100, maxWaitTime: 200 });
      streams.push(stream);
      stream.on("data", (message) => seen.add(`${message.partition}:${message.offset}=${message.value}`));
    }
    await waitUntil(() => seen.size === 40, 60_000, "every record is read");
    for (let partition = 0; partition < 4; partition++) {
      for (let n = 0; n < 10; n++) expect(seen).toContain(`${partition}:${n}=p${partition}-${n}`);
    }
    await waitUntil(
      async () => (await tributary.admin().groups.offsets(groupId)).every(({ offset }) => offset === 10),
      30_000,
      "the stream commits past every record",
    );
    expect((await tributary.admin().groups.offsets(groupId)).map(({ partition }) => partition).sort()).toEqual([0, 1, 2, 3]);
  }, 90_000);

  it("a fetch naming a topic id no topic has answers UNKNOWN_TOPIC_ID", async () => {
    const fetching = consumer("unknown-id", "plt-unknown-id", 0);
    const answer = await fetching
      .fetch({ node: 0, maxWaitTime: 10, topics: [{ topicId: randomUUID(), partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, partitionMaxBytes: 1024 }] }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(JSON.stringify(answer, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value))).toContain('"errorCode":100');
  });
});
