/**
 * @platformatic/kafka's classic group client through the gateway (issue 16): three consumers
 * over six partitions that rebalance as they come and go — its own JoinGroup, SyncGroup (its
 * leader assigns, issue 35), Heartbeat (rejoining on REBALANCE_IN_PROGRESS), OffsetFetch,
 * OffsetCommit and LeaveGroup — each processing records by committing past them, so every
 * record is processed; the committed offsets are the ones `GET /v1/groups/{g}/offsets` shows.
 *
 * At least once, not exactly once: this client rejoins from its heartbeat while the
 * application goes on, and retries a commit refused by the rebalance under its new generation,
 * which Kafka's classic coordinator takes (it never checks which partitions a commit names:
 * the leader's assignment is opaque to it). So a chunk being committed across a rebalance may
 * also be processed by the partition's new owner, as against Kafka.
 *
 * Records are read with the consumer's own Fetch (v13+: the topic named by its id, from
 * Metadata) at the positions its OffsetFetch answers, so that each chunk is committed before it
 * counts as processed; its `consume()` stream in a group is gateway-platformatic-stream.test.ts.
 */
import { Consumer, stringDeserializers } from "@platformatic/kafka";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { Ledger, threeMembersComeAndGo, waitUntil } from "./support/group-ledger.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Records processed per commit: the member commits past each chunk before it counts it processed. */
const chunkRecords = 10;

interface Member {
  consumer: Consumer<string, string, string, string>;
  /** Stops its loop and closes it (LeaveGroup). */
  close(): Promise<void>;
}

describe("@platformatic/kafka consumer groups through the gateway", () => {
  let server: DevServer;
  let tributary: Tributary;
  let gateway: GatewayProcess;
  const members: Member[] = [];

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    tributary = new Tributary({ url: server.url });
    gateway = await startGateway(server.url);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(members.map((member) => member.close().catch(() => {})));
    await gateway?.stop("SIGKILL");
    await server?.stop();
  });

  /**
   * A member that, for as long as its generation holds, reads its partitions from the group's
   * committed offsets and processes records by chunks, committing past each. A commit refused
   * (the member rejoined meanwhile) means the chunk is not its own to process: it starts over.
   */
  async function startMember(name: string, groupId: string, topic: string, ledger: Ledger): Promise<Member> {
    const consumer = new Consumer({
      clientId: name,
      groupId,
      bootstrapBrokers: [gateway.address],
      deserializers: stringDeserializers,
      sessionTimeout: 10_000,
      heartbeatInterval: 300,
      rebalanceTimeout: 10_000,
      retries: 10,
      retryDelay: 100,
    });
    consumer.topics.track(topic);
    await consumer.joinGroup({});
    const topicId = (await consumer.metadata({ topics: [topic] })).topics.get(topic)!.id;
    let running = true;
    const loop = (async () => {
      while (running) {
        const generation = consumer.generationId;
        const partitions = consumer.assignments?.find((assigned) => assigned.topic === topic)?.partitions ?? [];
        if (partitions.length === 0) {
          await sleep(100);
          continue;
        }
        try {
          const positions = (await consumer.listCommittedOffsets({ topics: [{ topic, partitions }] })).get(topic)!;
          const start = (partition: number) => (positions[partition]! < 0n ? 0n : positions[partition]!);
          const fetched = await consumer.fetch({
            node: 0,
            maxWaitTime: 100,
            topics: [{ topicId, partitions: partitions.map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: start(partition), lastFetchedEpoch: -1, partitionMaxBytes: 1_048_576 })) }],
          });
          for (const { partitionIndex, records } of fetched.responses[0]!.partitions) {
            const offsets = (records ?? [])
              .flatMap((batch) => batch.records.map((record) => batch.firstOffset + BigInt(record.offsetDelta)))
              .filter((offset) => offset >= start(partitionIndex));
            for (let at = 0; at < offsets.length; at += chunkRecords) {
              const chunk = offsets.slice(at, at + chunkRecords);
              if (!running || consumer.generationId !== generation) throw new Error("rebalanced");
              await sleep(20);
              await consumer.commit({ offsets: [{ topic, partition: partitionIndex, offset: chunk.at(-1)! + 1n, leaderEpoch: -1 }] });
              for (const offset of chunk) ledger.record(name, partitionIndex, offset);
            }
          }
        } catch {
          // Rebalanced (or a refused commit): start over from the committed offsets.
          await sleep(50);
        }
      }
    })();
    const member = {
      consumer,
      async close() {
        running = false;
        await loop;
        await consumer.close();
      },
    };
    members.push(member);
    return member;
  }

  it("three consumers over six partitions: members come and go, every record processed at least once, offsets committed", async () => {
    const groupId = "platformatic-three";
    const start = async (name: string, topic: string, ledger: Ledger) => {
      const member = await startMember(name, groupId, topic, ledger);
      return { leave: () => member.close() };
    };
    await threeMembersComeAndGo(tributary, ["p1", "p2", "p3"], start, "platformatic-group", groupId, { atLeastOnce: true });
    const described = await tributary.admin().groups.describe(groupId);
    expect(described.members.map(({ clientId }) => clientId).sort()).toEqual(["p1", "p3"]);
    await waitUntil(async () => (await tributary.admin().groups.describe(groupId)).state === "Stable", 20_000, "the group settles");
  }, 150_000);
});
