/**
 * Share groups (issue 15) through the client and the CLI against a real `wrangler dev`: three
 * share consumers in this process and a `tributary share consume` process work one group over
 * two partitions and handle each of 2,000 records exactly once while none dies; a handler
 * that throws gets its record again with a higher deliveryCount, a rejected record never
 * comes back; `share-groups describe / reset / delete` through the CLI, and what a new group's
 * first consume says when it starts at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RejectRecord, Tributary, type ShareConsumer } from "../../src/client/index.ts";
import { buildCli, runCli, spawnCli, type CliProcess } from "./support/cli.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const recordCount = 2_000;

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("share groups against wrangler dev", () => {
  let server: DevServer;
  let client: Tributary;
  const started: CliProcess[] = [];

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    client = new Tributary({ url: server.url, logLevel: "error" });
  });

  afterAll(async () => {
    for (const cli of started) if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
    await server?.stop();
  });

  it("3 share consumers and a CLI share consume over 2 partitions handle each of 2,000 records exactly once", async () => {
    const admin = client.admin();
    await admin.topics.create({ name: "jobs", partitions: 2 });
    await admin.shareGroups.alterConfigs("workers", { "auto.offset.reset": "earliest" });
    const producer = client.producer({ lingerMs: 5 });
    await producer.send({ topic: "jobs", messages: Array.from({ length: recordCount }, (_, i) => ({ value: `job-${i}`, partition: i % 2 })) });
    await producer.close();

    // Each consumer's first fetch holds records while its handler waits for the CLI to print one:
    // all four then hold records of the group at once, and each handles some.
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const handled = new Map<string, number>(); // "partition@offset" → handler runs in this process
    const perConsumer = [0, 0, 0];
    const consumers: ShareConsumer[] = [];
    for (let index = 0; index < 3; index++) {
      const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], maxRecords: 100, concurrency: index + 1, maxWaitTimeInMs: 1_000 });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          await gate;
          const id = `${partition}@${message.offset}`;
          handled.set(id, (handled.get(id) ?? 0) + 1);
          perConsumer[index]!++;
        },
      });
      consumers.push(consumer);
    }
    const cli = spawnCli(server.url, ["share", "consume", "workers", "--topic", "jobs", "--follow", "--json"]);
    started.push(cli);
    let cliOutput = "";
    cli.child.stdout!.on("data", (chunk: Buffer) => (cliOutput += chunk.toString()));
    const cliRecords = () => cliOutput.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { partition: number; offset: number; value: string });
    await until(() => cliRecords().length > 0, "the CLI's first record");
    openGate();
    await until(() => handled.size + cliRecords().length >= recordCount, `${recordCount} records handled`);
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    await Promise.all(consumers.map((consumer) => consumer.done()));
    cli.child.kill("SIGINT");
    const exited = await cli.done;
    expect(exited.code, exited.stderr).toBe(0);

    const fromCli = cliRecords();
    const all = [...[...handled.entries()].flatMap(([id, runs]) => Array<string>(runs).fill(id)), ...fromCli.map((record) => `${record.partition}@${record.offset}`)];
    const expected = Array.from({ length: recordCount }, (_, i) => `${i % 2}@${Math.floor(i / 2)}`);
    expect(all.sort()).toEqual(expected.sort()); // every record, none twice
    expect(fromCli.every((record) => record.value === `job-${record.offset * 2 + record.partition}`)).toBe(true);
    expect(fromCli.length).toBeGreaterThan(0);
    expect(perConsumer.every((count) => count > 0), `records per consumer: ${perConsumer.join(", ")}`).toBe(true);
    const described = await admin.shareGroups.describe("workers");
    // All accepted: nothing available, acquired or archived, and each start past its last record.
    expect(described.partitions).toMatchObject([0, 1].map((partition) => ({
      topic: "jobs",
      partition,
      startOffset: recordCount / 2,
      endOffset: recordCount / 2,
      available: 0,
      acquired: 0,
      archived: 0,
    })));
  });

  it("delivers a record whose handler threw again with a higher deliveryCount, and a rejected one never again", async () => {
    const admin = client.admin();
    await admin.topics.create({ name: "tasks", partitions: 1 });
    await admin.shareGroups.alterConfigs("retries", { "auto.offset.reset": "earliest" });
    await client.topic("tasks").produce(Array.from({ length: 10 }, (_, i) => ({ value: `task-${i}`, partition: 0 })));
    const deliveries: [offset: number, deliveryCount: number][] = [];
    const consumer = client.shareConsumer({ group: "retries", topics: ["tasks"], maxWaitTimeInMs: 100 });
    let fetchesAfterDone = 0;
    consumer.on("fetch", () => {
      if (deliveries.some(([offset, count]) => offset === 3 && count === 2)) fetchesAfterDone++;
    });
    await consumer.run({
      eachMessage: ({ message }) => {
        deliveries.push([message.offset, message.deliveryCount]);
        if (message.offset === 3 && message.deliveryCount === 1) throw new Error("partner API down");
        if (message.offset === 5) throw new RejectRecord("malformed task");
      },
    });
    // A few fetches after the redelivery: a rejected record that came back would show by then.
    await until(() => fetchesAfterDone >= 3, "the redelivery and three more fetches");
    await consumer.stop();
    await consumer.done();
    expect(deliveries.filter(([offset]) => offset === 3)).toEqual([[3, 1], [3, 2]]);
    expect(deliveries.filter(([offset]) => offset === 5)).toEqual([[5, 1]]);
    expect(deliveries.filter(([offset]) => offset !== 3 && offset !== 5).every(([, count]) => count === 1)).toBe(true);
    expect(new Set(deliveries.map(([offset]) => offset)).size).toBe(10);
    const [partition] = (await admin.shareGroups.describe("retries")).partitions;
    expect(partition).toMatchObject({ startOffset: 10, endOffset: 10, available: 0, acquired: 0, archived: 1 }); // the rejected one
  });

  it("a new group's first consume (auto.offset.reset latest) says why it printed nothing; describe's columns add up after 8 of 20", async () => {
    await client.admin().topics.create({ name: "mail", partitions: 1 });
    await client.topic("mail").produce(Array.from({ length: 20 }, (_, i) => ({ value: `mail-${i}`, partition: 0 })));
    const first = await runCli(server.url, ["share", "consume", "mailers", "--topic", "mail"]);
    expect({ code: first.code, stdout: first.stdout.toString() }).toEqual({ code: 0, stdout: "" });
    expect(first.stderr).toContain("nothing to consume: share group mailers started mail at the end (auto.offset.reset=latest, Kafka's default)");
    expect(first.stderr).toContain("  to consume those: tributary share-groups reset mailers --topic mail --to earliest --execute\n");

    expect((await runCli(server.url, ["share-groups", "reset", "mailers", "--topic", "mail", "--to", "earliest", "--execute"])).code).toBe(0);
    const consumed = await runCli(server.url, ["share", "consume", "mailers", "--topic", "mail", "--max", "8"]);
    expect({ code: consumed.code, stderr: consumed.stderr, lines: consumed.stdout.toString().split("\n").filter(Boolean).length }).toEqual({ code: 0, stderr: "", lines: 8 });
    const described = await runCli(server.url, ["share-groups", "describe", "mailers"]);
    // 20 − 8 = 12 available + 0 acquired + 0 done.
    expect(described.stdout.toString()).toMatch(/IN-FLIGHT-START\s+IN-FLIGHT-END\s+HIGH-WATERMARK\s+AVAILABLE\s+ACQUIRED\s+DONE\s+ARCHIVED\nmail\s+0\s+8\s+8\s+20\s+12\s+0\s+0\s+0\n$/);
  });

  it("share-groups describe, reset (the plan, then --execute) and delete through the CLI", async () => {
    const described = await runCli(server.url, ["share-groups", "describe", "workers"]);
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout.toString()).toMatch(/^share group workers\n/);
    expect(described.stdout.toString()).toMatch(/auto\.offset\.reset\s+earliest\n/);
    expect(described.stdout.toString()).toMatch(
      /TOPIC\s+PARTITION\s+IN-FLIGHT-START\s+IN-FLIGHT-END\s+HIGH-WATERMARK\s+AVAILABLE\s+ACQUIRED\s+DONE\s+ARCHIVED\njobs\s+0\s+1000\s+1000\s+1000\s+0\s+0\s+0\s+0\njobs\s+1\s+1000\s+1000\s+1000\s+0\s+0\s+0\s+0\n$/,
    );

    const plan = await runCli(server.url, ["share-groups", "reset", "workers", "--topic", "jobs", "--to", String(recordCount / 2 - 5)]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.toString()).toContain("dry run: nothing changed; add --execute to reset");
    expect((await client.admin().shareGroups.describe("workers")).partitions.every((p) => p.available === 0)).toBe(true);
    const executed = await runCli(server.url, ["share-groups", "reset", "workers", "--topic", "jobs", "--to", String(recordCount / 2 - 5), "--execute"]);
    expect(executed.code, executed.stderr).toBe(0);
    const again = await runCli(server.url, ["share", "consume", "workers", "--topic", "jobs", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const offsets = again.stdout.toString().trim().split("\n").map((line) => JSON.parse(line) as { partition: number; offset: number });
    expect(offsets.map((r) => `${r.partition}@${r.offset}`).sort()).toEqual([0, 1].flatMap((p) => [995, 996, 997, 998, 999].map((o) => `${p}@${o}`)).sort());

    // While a consumer holds records, delete is refused; once it stopped, it goes.
    await client.topic("jobs").produce([{ value: "held", partition: 0 }]);
    const holder = client.shareConsumer({ group: "workers", topics: ["jobs"], acknowledgement: "explicit" });
    let held = 0;
    await holder.run({ eachMessage: () => void held++ });
    await until(() => held === 1, "the held record");
    const refused = await runCli(server.url, ["share-groups", "delete", "workers"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("NON_EMPTY_GROUP");
    await holder.stop();
    const deleted = await runCli(server.url, ["share-groups", "delete", "workers"]);
    expect(deleted).toMatchObject({ code: 0, stdout: Buffer.from("deleted share group workers\n") });
    const listed = await runCli(server.url, ["share-groups", "list"]);
    expect(listed.stdout.toString()).not.toMatch(/^workers$/m);
  });
});
