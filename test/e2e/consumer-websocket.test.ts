/**
 * The group consumer over WebSocket streams (`consumer({ groupId, transport: "websocket" })`)
 * against a real `wrangler dev` (Node 22's global WebSocket): a group of stream consumers over
 * a 6-partition topic while records are produced, members joining and leaving (none dying),
 * with a poll consumer in the same group — every record processed exactly once, and the
 * group's committed offsets equal to the high watermarks at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary, type Consumer } from "../../src/client/index.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const topic = "ws-group";
const group = "ws-group-consumers";
const partitions = 6;

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("group consumers over WebSocket streams, against wrangler dev", () => {
  let server: DevServer;
  let client: Tributary;

  beforeAll(async () => {
    server = await startWranglerDev();
    client = new Tributary({ url: server.url, retry: { initialBackoffMs: 50, maxBackoffMs: 500 }, logLevel: "nothing" });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("members join and leave while records are produced: each record processed exactly once, committed offsets at the high watermarks", async () => {
    await client.admin().topics.create({ name: topic, partitions });
    const seen = new Map<string, number>();
    const byMember = new Map<string, number>();
    const members: Consumer[] = [];
    // A session of 6 s: the coordinator asks for a heartbeat every 2 s, so rebalances settle quickly.
    const start = async (name: string, transport: "websocket" | "poll") => {
      const consumer = client.consumer({ groupId: group, transport, sessionTimeoutMs: 6_000, maxWaitTimeInMs: 1_000 });
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const value = new TextDecoder().decode(message.value!);
          seen.set(value, (seen.get(value) ?? 0) + 1);
          byMember.set(name, (byMember.get(name) ?? 0) + 1);
        },
      });
      members.push(consumer);
      return consumer;
    };
    const settled = (count: number) => async () => {
      const described = await client.admin().groups.describe(group);
      return described.state === "Stable" && described.members.length === count && described.members.every((member) => member.assignment.length > 0);
    };

    let produced = 0;
    const produce = async (rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        await client.topic(topic).produce(Array.from({ length: 30 }, (_, i) => ({ partition: (produced + i) % partitions, value: `r${produced + i}` })));
        produced += 30;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    const a = await start("a", "websocket");
    await produce(5);
    await start("b", "websocket");
    const producing = produce(20);
    await until(settled(2), "two members sharing the partitions", 20_000);
    await start("c", "websocket");
    await start("poll", "poll");
    await until(settled(4), "four members sharing the partitions", 20_000);
    await producing;
    await produce(5); // every partition, each owned by one of the four
    await until(() => seen.size === produced, `${produced} records (got ${seen.size})`, 20_000);
    await a.disconnect(); // leaves: its partitions move to the others
    await produce(5);
    await until(settled(3), "three members sharing the partitions", 20_000);
    await until(() => seen.size === produced, `${produced} records (got ${seen.size})`, 20_000);
    await Promise.all(members.map((member) => member.disconnect()));

    const repeated = [...seen].filter(([, count]) => count !== 1);
    expect(repeated).toEqual([]);
    expect(seen.size).toBe(produced);
    for (const name of ["a", "b", "c", "poll"]) expect(byMember.get(name), `records processed by ${name}`).toBeGreaterThan(0);
    const offsets = await client.admin().groups.offsets(group);
    expect(offsets).toHaveLength(partitions);
    for (const entry of offsets) expect(entry.offset, `partition ${entry.partition}`).toBe(entry.highWatermark);
    expect(offsets.reduce((sum, entry) => sum + entry.highWatermark, 0)).toBe(produced);
  });
});
