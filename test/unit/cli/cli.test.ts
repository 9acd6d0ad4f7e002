import { describe, expect, it } from "vitest";
import { Tributary } from "../../../src/client/index.ts";
import { partitionForKey } from "../../../src/protocol/partitioner.ts";
import { cli, FakeServer } from "./support.ts";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString());

describe("tributary topics", () => {
  it("creates, lists (table and --json), describes, alters and deletes", async () => {
    const server = new FakeServer();
    const created = await cli(server, ["topics", "create", "orders", "--partitions", "3", "--config", "retention.ms=1000"]);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    expect(created.stdout.toString()).toContain("created topic orders with 3 partitions\n");
    const list = await cli(server, ["topics", "list"]);
    expect(list.stdout.toString()).toBe("TOPIC   PARTITIONS  REPLICATION\norders  3           1\n");
    const json = await cli(server, ["--json", "topics", "list"]);
    expect(JSON.parse(json.stdout.toString())).toEqual({ topics: [{ name: "orders", partitions: 3, replicationFactor: 1 }] });
    const described = await cli(server, ["topics", "describe", "orders"]);
    expect(described.stdout.toString()).toMatch(/PARTITION\s+LEADER\s+REPLICAS\s+ISR\s+LOG-START\s+HIGH-WATERMARK\n0\s+weur/);
    expect(described.stdout.toString()).toMatch(/retention\.ms\s+1000/);
    const altered = await cli(server, ["topics", "alter", "orders", "--partitions", "4", "--json"]);
    expect(JSON.parse(altered.stdout.toString()).partitions).toHaveLength(4);
    // One line, not the whole description.
    const configured = await cli(server, ["topics", "alter", "orders", "--config", "retention.ms=3600000", "--partitions", "5"]);
    expect(configured).toMatchObject({ code: 0, stderr: "" });
    expect(configured.stdout.toString()).toBe("altered topic orders: retention.ms=3600000 partitions=5\n");
    expect((await cli(server, ["topics", "delete", "orders"])).code).toBe(0);
    expect(server.topics.size).toBe(0);
  });

  it("reports an API error as code and message on stderr, exit code 1", async () => {
    const server = new FakeServer();
    const run = await cli(server, ["topics", "describe", "missing"]);
    expect(run).toMatchObject({ code: 1, stderr: "error: UNKNOWN_TOPIC_OR_PARTITION: no topic missing\n" });
    const json = await cli(server, ["topics", "describe", "missing", "--json"]);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: "UNKNOWN_TOPIC_OR_PARTITION", message: "no topic missing" } });
  });

  it("exits 2 with usage on bad usage", async () => {
    const server = new FakeServer();
    for (const argv of [["topics"], ["topics", "explode"], ["nope"], ["topics", "list", "--bogus"], ["topics", "create"], ["topics", "create", "t", "--partitions", "x"]]) {
      const run = await cli(server, argv);
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(run.stderr).toMatch(/^error: .+\nrun `tributary --help` for usage\n$/);
    }
    expect(server.requests).toHaveLength(0);
    expect((await cli(server, ["--help"])).stdout.toString()).toContain("usage: tributary");
  });

  it("takes --url and --token over TRIBUTARY_URL and TRIBUTARY_TOKEN", async () => {
    const server = new FakeServer();
    server.token = "secret-token";
    const refused = await cli(server, ["topics", "list"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("UNAUTHENTICATED");
    expect((await cli(server, ["topics", "list"], { env: { TRIBUTARY_TOKEN: "secret-token" } })).code).toBe(0);
    expect((await cli(server, ["topics", "list", "--token", "secret-token", "--url", "http://other.test"])).code).toBe(0);
    expect(server.requests.at(-1)!.headers.get("authorization")).toBe("Bearer secret-token");
  });
});

describe("tributary produce", () => {
  it("produces one record per line, keys by --key-separator on Kafka's partitions, and sums up", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 3);
    const run = await cli(server, ["produce", "orders", "--key-separator", ":"], { stdin: "user-1:hello\nuser-2:world\nuser-1:a:b\n" });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^produced 3 records \(\d+ B\) to orders in [\d.]+ s · [\d,]+ records\/s · partitions /);
    const p1 = partitionForKey(Buffer.from("user-1"), 3);
    expect(server.records("orders", p1).filter((r) => text(r.key) === "user-1").map((r) => text(r.value))).toEqual(["hello", "a:b"]);
  });

  it("sends every line to --partition, with --acks, and prints a JSON summary with --json", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 3);
    const run = await cli(server, ["produce", "orders", "--partition", "1", "--acks", "1", "--json"], { stdin: "a\nb\n" });
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ topic: "orders", records: 2, partitions: { 1: 2 } });
    expect(server.requestsTo(/records$/, "POST")[0]!.query.get("acks")).toBe("1");
  });

  it("fails on a line without the key separator, with its number", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 1);
    const run = await cli(server, ["produce", "orders", "--key-separator", "="], { stdin: "a=1\nno separator\n" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: line 2 has no key separator");
  });

  it("fails with the server's code and says how many records were acknowledged", async () => {
    const server = new FakeServer();
    const run = await cli(server, ["produce", "missing"], { stdin: "a\n" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("0 records were acknowledged before the failure");
    expect(run.stderr).toContain("error: UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("draws a progress line with records/s on a terminal for a long input", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 1);
    async function* slowInput() {
      for (let i = 0; i < 10; i++) {
        yield Buffer.from(`line ${i}\n`);
        await new Promise((resolve) => setTimeout(resolve, 100)); // a second in all: past the progress line's quiet 0.5 s
      }
    }
    const run = await cli(server, ["produce", "orders", "--linger-ms", "0"], { stdin: slowInput(), stderrIsTTY: true });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\r\x1b\[Kproduced [\d,]+ records \(.*\) · [\d,]+ records\/s/);
    expect(run.stderr).toMatch(/\r\x1b\[Kproduced 10 records .* to orders in/); // the line is cleared before the summary
    const quiet = await cli(server, ["produce", "orders", "--quiet"], { stdin: slowInput(), stderrIsTTY: true });
    expect(quiet.stderr).not.toContain("\r");
  });
});

describe("tributary consume", () => {
  async function seeded() {
    const server = new FakeServer();
    server.createTopic("orders", 2);
    await cli(server, ["produce", "orders", "--partition", "0", "--key-separator", "="], { stdin: "k1=v1\nk2=v2\nk3=v3\n" });
    return server;
  }

  it("prints values of one partition from --offset, and stops at the end", async () => {
    const server = await seeded();
    const run = await cli(server, ["consume", "orders", "--partition", "0", "--offset", "1"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout.toString()).toBe("v2\nv3\n");
    const none = await cli(server, ["consume", "orders", "--partition", "0"]); // latest: nothing new
    expect(none.stdout.toString()).toBe("");
  });

  it("prints JSON lines with key, headers, partition and offset; --max stops early", async () => {
    const server = await seeded();
    const run = await cli(server, ["consume", "orders", "--partition", "0", "--from-beginning", "--json", "--max", "2"]);
    const lines = run.stdout.toString().trim().split("\n").map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { topic: "orders", partition: 0, offset: 0, timestamp: expect.any(Number), key: "k1", value: "v1", headers: {} },
      { topic: "orders", partition: 0, offset: 1, timestamp: expect.any(Number), key: "k2", value: "v2", headers: {} },
    ]);
  });

  it("consumes through a group, commits what it printed and leaves; --max commits exactly that far", async () => {
    const server = await seeded();
    const first = await cli(server, ["consume", "orders", "--group", "g", "--from-beginning", "--max", "2", "--wait-ms", "10"]);
    expect(first.stdout.toString()).toBe("v1\nv2\n");
    expect(server.groups.get("g")!.committed.get("orders/0")).toBe(2);
    const rest = await cli(server, ["consume", "orders", "--group", "g", "--wait-ms", "10"]);
    expect(rest.stdout.toString()).toBe("v3\n");
    expect(server.groups.get("g")!.core.isEmpty()).toBe(true);
  });

  it("needs exactly one of --group and --partition", async () => {
    const server = await seeded();
    expect((await cli(server, ["consume", "orders"])).code).toBe(2);
    expect((await cli(server, ["consume", "orders", "--group", "g", "--partition", "0"])).code).toBe(2);
  });
});

describe("tributary groups", () => {
  it("lists, describes, shows lag, resets and deletes", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 1);
    await cli(server, ["produce", "orders"], { stdin: "a\nb\nc\n" });
    await cli(server, ["consume", "orders", "--group", "g", "--from-beginning", "--max", "1", "--wait-ms", "10"]);
    expect((await cli(server, ["groups", "list"])).stdout.toString()).toBe("GROUP  STATE  MEMBERS\ng      Empty  0\n");
    expect((await cli(server, ["groups", "describe", "g"])).stdout.toString()).toContain("no members");
    const lag = await cli(server, ["groups", "lag", "g"]);
    expect(lag.stdout.toString()).toMatch(/orders\s+0\s+1\s+3\s+2\ntotal lag 2\n/);
    const lagJson = JSON.parse((await cli(server, ["groups", "lag", "g", "--json"])).stdout.toString());
    expect(lagJson.totalLag).toBe(2);
    expect((await cli(server, ["groups", "reset", "g", "--topic", "orders", "--to", "nowhere"])).code).toBe(2);
    expect((await cli(server, ["groups", "delete", "g"])).code).toBe(0);
    expect(server.groups.size).toBe(0);
  });

  it("describes each member's client id, host, last heartbeat and session timeout", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 2);
    const consumer = new Tributary({ url: "http://tributary.test", fetch: server.fetch }).consumer({ groupId: "g", clientId: "billing-7", sessionTimeoutMs: 30_000 });
    await consumer.subscribe({ topics: ["orders"] });
    await consumer.run({ eachMessage: async () => {} });
    try {
      while (server.groups.get("g")?.core.isEmpty() !== false) await new Promise((resolve) => setTimeout(resolve, 5));
      const described = (await cli(server, ["groups", "describe", "g"])).stdout.toString();
      expect(described).toMatch(/MEMBER\s+CLIENT-ID\s+HOST\s+EPOCH\s+LAST-HEARTBEAT\s+SESSION\s+ASSIGNMENT\n/);
      expect(described).toMatch(/\n\S+\s+billing-7\s+-\s+\d+\s+\d+\.\d s ago\s+30 s\s+orders:0,1\n/);
      const json = JSON.parse((await cli(server, ["groups", "describe", "g", "--json"])).stdout.toString());
      expect(json.members[0]).toMatchObject({ clientId: "billing-7", host: null, sessionTimeoutMs: 30_000, lastHeartbeatAt: expect.any(Number) });
    } finally {
      await consumer.disconnect();
    }
  });

  it("resets offsets only with --execute (a plan otherwise), and only the --partitions given", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 3);
    await cli(server, ["produce", "orders", "--partition", "1"], { stdin: "a\nb\nc\n" });
    await cli(server, ["produce", "orders", "--partition", "0"], { stdin: "d\n" });
    await cli(server, ["consume", "orders", "--group", "g", "--max", "1", "--wait-ms", "10"]);
    const committed = () => Object.fromEntries(server.groups.get("g")!.committed);
    const all = await cli(server, ["groups", "reset", "g", "--topic", "orders", "--to", "latest", "--execute"]);
    expect(all.code, all.stderr).toBe(0);
    // --execute says what it did, under the offsets.
    expect(all.stdout.toString()).toBe(
      "GROUP  TOPIC   PARTITION  NEW-OFFSET\ng      orders  0          1\ng      orders  1          3\ng      orders  2          0\n" +
        "reset: group g now starts 3 partitions of orders at the offsets above (its committed offsets)\n",
    );
    expect(committed()).toEqual({ "orders/0": 1, "orders/1": 3, "orders/2": 0 });

    const plan = await cli(server, ["groups", "reset", "g", "--topic", "orders", "--to", "earliest", "--partitions", "1,2"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.toString()).toBe(
      "GROUP  TOPIC   PARTITION  NEW-OFFSET\ng      orders  1          0\ng      orders  2          0\ndry run: nothing changed; add --execute to reset (the group must have no members)\n",
    );
    expect(JSON.parse(Buffer.from(server.requests.at(-1)!.body).toString())).toMatchObject({ partitions: [1, 2], dryRun: true });
    expect(committed()).toEqual({ "orders/0": 1, "orders/1": 3, "orders/2": 0 });

    const executed = await cli(server, ["groups", "reset", "g", "--topic", "orders", "--to", "earliest", "--partitions", "1", "--execute", "--json"]);
    expect(JSON.parse(executed.stdout.toString())).toEqual({ group: "g", executed: true, offsets: [{ topic: "orders", partition: 1, offset: 0 }] });
    expect(committed()).toEqual({ "orders/0": 1, "orders/1": 0, "orders/2": 0 });

    for (const partitions of ["x", "1,1", "1,", "-1"]) {
      expect((await cli(server, ["groups", "reset", "g", "--topic", "orders", "--to", "latest", "--partitions", partitions])).code).toBe(2);
    }
  });

  it("delete-offsets deletes an empty group's offsets of a topic's partitions (all, or --partitions), and fails on a refused partition", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 3);
    server.createTopic("audit", 1);
    await cli(server, ["produce", "orders", "--partition", "1"], { stdin: "a\nb\n" });
    const committed = () => Object.fromEntries(server.groups.get("g")!.committed);
    await cli(server, ["consume", "orders", "--group", "g", "--from-beginning", "--max", "2", "--wait-ms", "10"]);
    expect(await cli(server, ["groups", "reset", "g", "--topic", "orders", "--to", "latest", "--execute"])).toMatchObject({ code: 0 });
    const some = await cli(server, ["groups", "delete-offsets", "g", "--topic", "orders", "--partitions", "0,2"]);
    expect(some.code, some.stderr).toBe(0);
    expect(some.stdout.toString()).toBe("GROUP  TOPIC   PARTITION  RESULT\ng      orders  0          deleted\ng      orders  2          deleted\n");
    expect(committed()).toEqual({ "orders/1": 2 });
    const all = await cli(server, ["groups", "delete-offsets", "g", "--topic", "orders", "--json"]);
    expect(JSON.parse(all.stdout.toString()).partitions.map((p: { partition: number }) => p.partition)).toEqual([0, 1, 2]);
    expect(committed()).toEqual({});

    // A member subscribed to the topic: each partition refused, the command fails.
    await cli(server, ["groups", "reset", "g", "--topic", "audit", "--to", "latest", "--execute"]);
    await cli(server, ["produce", "audit"], { stdin: "x\n" });
    server.groups.get("g")!.core.join({ topics: ["audit"] }, { audit: { partitions: 1 } }, Date.now());
    const refused = await cli(server, ["groups", "delete-offsets", "g", "--topic", "audit"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout.toString()).toContain("GROUP_SUBSCRIBED_TO_TOPIC");
    expect(refused.stderr).toContain("error: GROUP_SUBSCRIBED_TO_TOPIC: 1 partition kept its offset");
    expect(committed()).toEqual({ "audit/0": 0 });
    expect((await cli(server, ["groups", "delete-offsets", "g"])).code).toBe(2);
  });
});
