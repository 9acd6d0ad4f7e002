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
import { Ledger, produceNumbered, threeMembersComeAndGo } from "./support/group-ledger.ts";
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

  it("three consumers over six partitions: members come and go, every record processed exactly once, offsets committed", async () => {
    const groupId = "kafkajs-three";
    const start = async (name: string, topic: string, ledger: Ledger) => {
      const consumer = await startConsumer(name, groupId, topic, ledger);
      return { leave: () => consumer.disconnect() };
    };
    await threeMembersComeAndGo(tributary, ["c1", "c2", "c3"], start, "kafkajs-group", groupId);

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
    // kafkajs commits after each batch: the last commits may land just after the last record was processed.
    let committed = await tributary.admin().groups.offsets(groupId);
    for (const deadline = Date.now() + 30_000; !committed.every(({ offset }) => offset === 400) && Date.now() < deadline; ) {
      await sleep(100);
      committed = await tributary.admin().groups.offsets(groupId);
    }
    expect(committed.map(({ partition, offset }) => [partition, offset]).sort()).toEqual([[0, 400], [1, 400]]);
  }, 120_000);
});
