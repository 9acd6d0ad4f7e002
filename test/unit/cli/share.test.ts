/**
 * `tributary share consume` and `tributary share-groups …` in-process against the fake server:
 * what is printed, what is acknowledged and when, and the usage mistakes in the CLI's words.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Tributary } from "../../../src/client/index.ts";
import { cli, FakeServer } from "./support.ts";

const usageError = (message: string) => `error: ${message}\nrun \`tributary --help\` for usage\n`;

async function seeded(count: number, partitions = 1, configs: Record<string, string> = { "auto.offset.reset": "earliest" }) {
  const server = new FakeServer();
  server.createTopic("jobs", partitions);
  const client = new Tributary({ url: "http://tributary.test", fetch: server.fetch });
  await client.topic("jobs").produce(Array.from({ length: count }, (_, i) => ({ value: `job-${i}`, partition: i % partitions })));
  await client.admin().shareGroups.alterConfigs("workers", configs);
  return server;
}

const applied = (server: FakeServer) => server.shareGroups.applied.map((ack) => `${ack.partition}@${ack.offset}:${ack.type}`).sort();

describe("tributary share consume", () => {
  it("prints every available record, accepts each once printed, and stops when a fetch finds nothing", async () => {
    const server = await seeded(6, 2);
    const run = await cli(server, ["share", "consume", "workers", "--topic", "jobs", "--wait-ms", "0"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout.toString().split("\n").filter(Boolean).sort()).toEqual(["job-0", "job-1", "job-2", "job-3", "job-4", "job-5"]);
    expect(applied(server)).toEqual(["0@0:accept", "0@1:accept", "0@2:accept", "1@0:accept", "1@1:accept", "1@2:accept"]);
    const described = JSON.parse((await cli(server, ["--json", "share-groups", "describe", "workers"])).stdout.toString());
    expect(described.partitions).toMatchObject([
      { partition: 0, startOffset: 3, endOffset: 3, available: 0, acquired: 0 },
      { partition: 1, startOffset: 3, endOffset: 3, available: 0, acquired: 0 },
    ]);
  });

  it("--max N: fetches at most N, prints them with their delivery count (--json) and accepts them", async () => {
    const server = await seeded(5);
    const run = await cli(server, ["share", "consume", "workers", "--topic", "jobs", "--max", "2", "--json"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.toString().trim().split("\n").map((line) => JSON.parse(line));
    expect(lines).toMatchObject([
      { topic: "jobs", partition: 0, offset: 0, value: "job-0", deliveryCount: 1 },
      { topic: "jobs", partition: 0, offset: 1, value: "job-1", deliveryCount: 1 },
    ]);
    expect(applied(server)).toEqual(["0@0:accept", "0@1:accept"]);
    const fetches = server.requestsTo(/\/share-groups\/workers\/fetch$/).map((r) => JSON.parse(new TextDecoder().decode(r.body)));
    expect(fetches[0]).toMatchObject({ topics: ["jobs"], maxRecords: 2, encoding: "base64" });
  });

  it("--ack release prints without consuming: the records stay available, their deliveries counted", async () => {
    const server = await seeded(2);
    const first = await cli(server, ["share", "consume", "workers", "--topic", "jobs", "--ack", "release", "--max", "2", "--json"]);
    expect(first.stdout.toString().trim().split("\n").map((line) => JSON.parse(line).deliveryCount)).toEqual([1, 1]);
    const second = await cli(server, ["share", "consume", "workers", "--topic", "jobs", "--ack", "reject", "--json"]);
    expect(second.stdout.toString().trim().split("\n").map((line) => JSON.parse(line).deliveryCount)).toEqual([2, 2]);
    expect(applied(server)).toEqual(["0@0:reject", "0@0:release", "0@1:reject", "0@1:release"]);
  });

  it("on Ctrl-C with --follow: accepts what was printed, releases the rest, exits 0", async () => {
    const server = await seeded(3);
    let interrupt: (() => void) | undefined;
    const stdout = new PassThrough();
    const printed: string[] = [];
    stdout.on("data", (chunk: Buffer) => {
      printed.push(chunk.toString());
      if (printed.length === 1) interrupt!();
    });
    const run = await cli(server, ["share", "consume", "workers", "--topic", "jobs", "--follow"], { stdout, onInterrupt: (handler) => (interrupt = handler) });
    expect(run.code).toBe(0);
    expect(printed.join("")).toBe("job-0\n");
    expect(applied(server)).toEqual(["0@0:accept", "0@1:release", "0@2:release"]);
  });

  it("says why a new group's first fetch found nothing (auto.offset.reset=latest) and the commands that change it, once", async () => {
    const server = new FakeServer();
    server.createTopic("jobs", 1);
    await new Tributary({ url: "http://tributary.test", fetch: server.fetch }).topic("jobs").produce([{ value: "old", partition: 0 }]);
    const first = await cli(server, ["share", "consume", "fresh", "--topic", "jobs", "--wait-ms", "0"]);
    expect({ code: first.code, stdout: first.stdout.toString() }).toEqual({ code: 0, stdout: "" });
    expect(first.stderr).toBe(
      "nothing to consume: share group fresh started jobs at the end (auto.offset.reset=latest, Kafka's default), after the records already there\n" +
        "  to consume those: tributary share-groups reset fresh --topic jobs --to earliest --execute\n" +
        "  to start topics it has not fetched yet at their beginning: tributary share-groups alter fresh --config auto.offset.reset=earliest\n",
    );
    // Not its first fetch any more: nothing is said when nothing new came.
    expect(await cli(server, ["share", "consume", "fresh", "--topic", "jobs", "--wait-ms", "0"])).toMatchObject({ code: 0, stderr: "" });
    // The command it gave does what it says.
    expect((await cli(server, ["share-groups", "reset", "fresh", "--topic", "jobs", "--to", "earliest", "--execute"])).code).toBe(0);
    const again = await cli(server, ["share", "consume", "fresh", "--topic", "jobs", "--wait-ms", "0"]);
    expect({ code: again.code, stdout: again.stdout.toString(), stderr: again.stderr }).toEqual({ code: 0, stdout: "old\n", stderr: "" });
  });

  it("says nothing of where a group starts when it starts at the earliest record (its first fetch may find nothing too)", async () => {
    const server = new FakeServer();
    server.createTopic("empty", 1);
    const client = new Tributary({ url: "http://tributary.test", fetch: server.fetch });
    await client.admin().shareGroups.alterConfigs("workers", { "auto.offset.reset": "earliest" });
    expect(await cli(server, ["share", "consume", "workers", "--topic", "empty", "--wait-ms", "0"])).toMatchObject({ code: 0, stderr: "" });
  });

  it("stops quietly when the output closes, releasing the record it could not print", async () => {
    const server = await seeded(2);
    const stdout = new PassThrough();
    stdout.destroy();
    const run = await cli(server, ["share", "consume", "workers", "--topic", "jobs"], { stdout });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(applied(server)).toEqual(["0@0:release", "0@1:release"]);
  });

  it("refuses mistakes before any request, in the CLI's words", async () => {
    const server = new FakeServer();
    const cases: [string[], string][] = [
      [["share"], "share needs a subcommand: consume"],
      [["share", "consume", "--topic", "jobs"], "name the share group: tributary share consume <group>"],
      [["share", "consume", "workers"], "share consume needs --topic (one topic, or several separated by commas)"],
      [["share", "consume", "workers", "--topic", "a,,b"], '--topic takes topic names separated by commas, got "a,,b"'],
      [["share", "consume", "workers", "--topic", "jobs", "--ack", "ok"], '--ack takes accept, release or reject, got "ok"'],
      [["share", "consume", "workers", "--topic", "jobs", "--max", "0"], '--max takes a whole number of at least 1, got "0"'],
      [["share", "consume", "workers", "--topic", "jobs", "--group", "g"], "share consume takes no option --group"],
      [["share-groups", "reset", "workers", "--to", "earliest"], "share-groups reset needs --topic"],
      [["share-groups", "alter", "workers"], "share-groups alter needs --config name=value or --delete-config name"],
      [["share-groups", "describe"], "name the share group: tributary share-groups describe <group>"],
      [["share-groups", "purge", "workers"], "unknown command: share-groups purge"],
    ];
    for (const [argv, message] of cases) {
      const run = await cli(server, argv);
      expect({ argv, code: run.code, stderr: run.stderr }).toEqual({ argv, code: 2, stderr: usageError(message) });
    }
    expect(server.requests).toHaveLength(0);
    expect((await cli(server, ["--help"])).stdout.toString()).toContain("share consume <group> --topic T");
  });
});

describe("tributary share-groups", () => {
  it("lists, describes and alters share groups", async () => {
    const server = await seeded(4);
    await cli(server, ["share", "consume", "workers", "--topic", "jobs", "--max", "1"]);
    expect((await cli(server, ["share-groups", "list"])).stdout.toString()).toBe("SHARE-GROUP\nworkers\n");
    const altered = await cli(server, ["share-groups", "alter", "workers", "--config", "delivery.count.limit=3", "--delete-config", "auto.offset.reset"]);
    expect(altered.stdout.toString()).toBe("altered share group workers: delivery.count.limit=3 auto.offset.reset=latest\n");
    const described = (await cli(server, ["share-groups", "describe", "workers"])).stdout.toString();
    expect(described).toMatch(/^share group workers\n\nCONFIG\s+VALUE\n/);
    expect(described).toMatch(/delivery\.count\.limit\s+3\n/);
    // One of four records consumed: the in-flight window is empty at 1, and the three up to the high watermark are available.
    expect(described).toMatch(/TOPIC\s+PARTITION\s+IN-FLIGHT-START\s+IN-FLIGHT-END\s+HIGH-WATERMARK\s+AVAILABLE\s+ACQUIRED\s+DONE\s+ARCHIVED\njobs\s+0\s+1\s+1\s+4\s+3\s+0\s+0\s+0\n$/);
  });

  it("reset shows the plan unless --execute, then moves the start; delete removes the group", async () => {
    const server = await seeded(4);
    const plan = await cli(server, ["share-groups", "reset", "workers", "--topic", "jobs", "--to", "latest"]);
    expect(plan.stdout.toString()).toMatch(/^SHARE-GROUP\s+TOPIC\s+PARTITION\s+NEW-START-OFFSET\nworkers\s+jobs\s+0\s+4\ndry run: nothing changed; add --execute to reset \(no record of the group may be acquired\)\n$/);
    expect(JSON.parse(new TextDecoder().decode(server.requestsTo(/offsets\/reset$/)[0]!.body))).toEqual({ topic: "jobs", to: "latest", dryRun: true });
    const executed = await cli(server, ["--json", "share-groups", "reset", "workers", "--topic", "jobs", "--to", "2", "--execute"]);
    expect(JSON.parse(executed.stdout.toString())).toEqual({ group: "workers", executed: true, offsets: [{ topic: "jobs", partition: 0, offset: 2 }] });
    expect((await cli(server, ["share", "consume", "workers", "--topic", "jobs"])).stdout.toString()).toBe("job-2\njob-3\n");
    const said = await cli(server, ["share-groups", "reset", "workers", "--topic", "jobs", "--to", "earliest", "--execute"]);
    expect(said.stdout.toString()).toMatch(/\nreset: share group workers now starts 1 partition of jobs at the offsets above \(nothing in flight\)\n$/);
    expect((await cli(server, ["share-groups", "delete", "workers"])).stdout.toString()).toBe("deleted share group workers\n");
    expect((await cli(server, ["share-groups", "list"])).stdout.toString()).toBe("no share groups\n");
  });

  it("says NON_EMPTY_GROUP in the error's words while records are acquired", async () => {
    const server = await seeded(2);
    const client = new Tributary({ url: "http://tributary.test", fetch: server.fetch });
    const consumer = client.shareConsumer({ group: "workers", topics: ["jobs"], acknowledgement: "explicit" });
    await consumer.run({ eachMessage: () => {} });
    const run = await cli(server, ["share-groups", "delete", "workers"]);
    expect(run).toMatchObject({ code: 1, stderr: "error: NON_EMPTY_GROUP: records are acquired\n" });
    await consumer.stop();
    expect((await cli(server, ["share-groups", "delete", "workers"])).code).toBe(0);
  });
});
