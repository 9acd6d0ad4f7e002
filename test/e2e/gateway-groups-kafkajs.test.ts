/**
 * kafkajs 2.2.4 consumer groups through the gateway (issue 16): three consumers over six
 * partitions that rebalance as they come and go, every record processed exactly once while no
 * member dies, committed offsets visible through `GET /v1/groups/{g}/offsets`; kafkajs admin's
 * ListGroups, DescribeGroups and DeleteGroups; a custom assignor with user data, whose leader
 * gets every member's metadata and whose members get exactly its bytes (issue 35: Kafka's
 * classic protocol); and a gateway SIGKILLed mid-stream, after which the consumer carries on
 * through a second gateway from its committed offsets, losing nothing.
 */
import { AssignerProtocol, Kafka, logLevel, type Consumer, type PartitionAssigner } from "kafkajs";
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

  it("a custom assignor with user data: members joining one after another, the leader gets each one's metadata as it sent it, each member the leader's bytes", async () => {
    const groupId = "kafkajs-labelled";
    /** Every label a member's protocol() put in its metadata, and what each assign() saw and gave. */
    const sent = new Map<string, string>();
    const seen: string[][] = [];
    const given = new Map<string, number[]>();
    const received: { userData: string; partitions: number[] }[] = [];
    const decode = AssignerProtocol.MemberAssignment.decode;
    // A spy on the very decoder kafkajs's members read SyncGroup's bytes with: it calls through.
    AssignerProtocol.MemberAssignment.decode = (buffer: Buffer) => {
      const decoded = decode(buffer);
      if (decoded !== null) received.push({ userData: decoded.userData.toString(), partitions: Object.values(decoded.assignment).flat() });
      return decoded;
    };
    const labelled = (name: string): PartitionAssigner => () => {
      let joins = 0;
      return {
        name: "labelled",
        version: 1,
        protocol({ topics }) {
          joins += 1;
          const label = `${name}#${joins}`;
          sent.set(name, label);
          return { name: "labelled", metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.from(label) }) };
        },
        async assign({ members, topics }) {
          const labels = members.map(({ memberId, memberMetadata }) => ({ memberId, label: AssignerProtocol.MemberMetadata.decode(memberMetadata)!.userData.toString() }));
          seen.push(labels.map(({ label }) => label));
          // A layout no server-side assignor makes: by label, last first, each a run of partitions; the first gets the rest.
          const ordered = [...labels].sort((a, b) => (a.label < b.label ? 1 : -1));
          const partitions = [0, 1, 2, 3, 4, 5];
          return ordered.map(({ memberId, label }, index) => {
            const mine = index === 0 ? partitions.slice(0, 6 - (ordered.length - 1)) : [6 - index];
            given.set(label, mine);
            const assignment = Object.fromEntries(topics.map((topic) => [topic, mine]));
            return { memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment, userData: Buffer.from(`for ${label}`) }) };
          });
        },
      };
    };
    const start = async (name: string, topic: string, ledger: Ledger) => {
      const consumer = kafka([gateways[0]!.address], name).consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, partitionAssigners: [labelled(name)] });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          ledger.record(name, partition, message.offset);
          await sleep(2);
        },
      });
      return { leave: () => consumer.disconnect() };
    };
    try {
      await threeMembersComeAndGo(tributary, ["l1", "l2", "l3"], start, "kafkajs-labelled", groupId);
    } finally {
      AssignerProtocol.MemberAssignment.decode = decode;
    }
    // Each rebalance's leader saw every member's label as that member sent it: three members at most, each once.
    expect(seen.length).toBeGreaterThanOrEqual(4);
    for (const labels of seen) expect(new Set(labels.map((label) => label.split("#")[0])).size).toBe(labels.length);
    expect(seen.flat().every((label) => /^l[123]#\d+$/.test(label))).toBe(true);
    expect(seen.at(-1)!.sort()).toEqual([sent.get("l1"), sent.get("l3")].sort());
    // Each member read exactly the bytes the leader wrote for its label: user data and the partitions with it.
    expect(received.length).toBeGreaterThanOrEqual(seen.length);
    for (const { userData, partitions } of received) expect(partitions).toEqual(given.get(userData.replace(/^for /, "")));
    expect((await tributary.admin().groups.describe(groupId)).classic).toMatchObject({ state: "Stable", protocolType: "consumer", protocolName: "labelled" });
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
