/**
 * kafkajs 2.2.4 consumer groups through the gateway (issue 16): three consumers over six
 * partitions that rebalance as they come and go, every record processed exactly once while no
 * member dies, committed offsets visible through `GET /v1/groups/{g}/offsets`; kafkajs admin's
 * ListGroups, DescribeGroups and DeleteGroups; and a gateway SIGKILLed mid-stream, after which
 * the consumer carries on through a second gateway from its committed offsets, losing nothing.
 */
import { Kafka, logLevel, type Consumer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { Ledger, produceNumbered, waitUntil } from "./support/group-ledger.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("kafkajs consumer groups through the gateway", () => {
  let server: DevServer;
  let tributary: Tributary;
  const gateways: GatewayProcess[] = [];
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    tributary = new Tributary({ url: server.url });
    gateways.push(await startGateway(server.url), await startGateway(server.url));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(consumers.map((consumer) => consumer.disconnect().catch(() => {})));
    await Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL")));
    await server?.stop();
  });

  function kafka(brokers: string[], clientId: string): Kafka {
    return new Kafka({ brokers, clientId, logLevel: logLevel.NOTHING, retry: { initialRetryTime: 100, retries: 8 } });
  }

  /** A consumer that records every message it processes, a little slowly so rebalances land mid-stream. */
  async function startConsumer(name: string, groupId: string, topic: string, ledger: Ledger, brokers = [gateways[0]!.address]): Promise<Consumer> {
    const consumer = kafka(brokers, name).consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000 });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        ledger.record(name, partition, message.offset);
        await sleep(2);
      },
    });
    return consumer;
  }

  async function committedEverything(groupId: string, total: number): Promise<boolean> {
    const offsets = await tributary.admin().groups.offsets(groupId);
    return offsets.reduce((sum, { offset }) => sum + (offset ?? 0), 0) === total;
  }

  it("three consumers over six partitions: members come and go, every record processed exactly once, offsets committed", async () => {
    const topic = "kafkajs-group";
    const groupId = "kafkajs-three";
    await tributary.admin().topics.create({ name: topic, partitions: 6 });
    await produceNumbered(tributary, topic, 6, 100);
    const ledger = new Ledger();
    await startConsumer("c1", groupId, topic, ledger);
    await ledger.waitFor(100, 30_000, "c1 alone");
    const c2 = await startConsumer("c2", groupId, topic, ledger);
    await ledger.waitFor(250, 30_000, "c1 and c2");
    await startConsumer("c3", groupId, topic, ledger);
    await ledger.waitFor(600, 30_000, "the first 600");
    await produceNumbered(tributary, topic, 6, 50, 100);
    await ledger.waitFor(900, 30_000, "all three");
    await c2.disconnect();
    await produceNumbered(tributary, topic, 6, 50, 150);
    await ledger.waitFor(1_200, 30_000, "c1 and c3 after c2 left");
    expect(ledger.duplicates).toEqual([]);
    expect(ledger.consumers()).toEqual(new Set(["c1", "c2", "c3"]));
    await waitUntil(() => committedEverything(groupId, 1_200), 20_000, "every offset committed");
    expect(await tributary.admin().groups.offsets(groupId)).toEqual(
      [0, 1, 2, 3, 4, 5].map((partition) => ({ topic, partition, offset: 200, highWatermark: 200, lag: 0 })),
    );

    const admin = kafka([gateways[1]!.address], "admin").admin();
    await admin.connect();
    try {
      expect((await admin.listGroups()).groups).toContainEqual({ groupId, protocolType: "consumer" });
      const [described] = (await admin.describeGroups([groupId])).groups;
      expect(described).toMatchObject({ groupId, state: "Stable", protocolType: "consumer" });
      expect(described!.members.map(({ clientId }) => clientId).sort()).toEqual(["c1", "c3"]);
      await expect(admin.deleteGroups([groupId])).rejects.toMatchObject({ groups: [{ groupId, errorCode: 68 }] });
      for (const consumer of consumers.splice(0)) await consumer.disconnect();
      await admin.deleteGroups([groupId]);
      expect((await admin.listGroups()).groups.map((group) => group.groupId)).not.toContain(groupId);
    } finally {
      await admin.disconnect();
    }
  }, 150_000);

  it("a gateway SIGKILLed mid-stream: the consumer goes on through the second gateway from its committed offsets, nothing lost", async () => {
    const topic = "kafkajs-failover";
    const groupId = "kafkajs-failover";
    await tributary.admin().topics.create({ name: topic, partitions: 2 });
    await produceNumbered(tributary, topic, 2, 300);
    const ledger = new Ledger();
    const [doomed, survivor] = gateways as [GatewayProcess, GatewayProcess];
    await startConsumer("f1", groupId, topic, ledger, [doomed.address, survivor.address]);
    await ledger.waitFor(100, 30_000, "before the kill");
    await doomed.stop("SIGKILL");
    await produceNumbered(tributary, topic, 2, 100, 300);
    await ledger.waitFor(800, 60_000, "after the kill");
    const committed = await tributary.admin().groups.offsets(groupId);
    expect(committed.every(({ offset }) => offset !== null && offset <= 400)).toBe(true);
  }, 120_000);
});
