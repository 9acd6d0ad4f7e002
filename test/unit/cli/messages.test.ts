/**
 * What the CLI says: usage mistakes in its own words with the real bounds (src/limits.ts),
 * --version, plurals, client-side TTL checks, describe's storage and config sources, and a
 * closed output pipe (`| head`).
 */
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cli, FakeServer } from "./support.ts";

const usageError = (message: string) => `error: ${message}\nrun \`tributary --help\` for usage\n`;

describe("usage mistakes", () => {
  const cases: [argv: string[], message: string][] = [
    [["topics", "create", "t", "--partiton", "3"], "unknown option --partiton; did you mean --partitions?"],
    [["produce", "t", "--key-seperator", ":"], "unknown option --key-seperator; did you mean --key-separator?"],
    [["topics", "list", "--bogus"], "unknown option --bogus"],
    [["consume", "t", "--partitions", "3"], "consume takes no option --partitions; did you mean --partition?"],
    [["topics", "list", "-x"], "unknown option -x"],
    [["topics", "create", "t", "--partitions"], "--partitions needs a value"],
    [["topics", "create", "t", "--partitions", "--json"], "--partitions needs a value, got the option --json"],
    [["topics", "list", "--json=yes"], '--json takes no value, got "yes"'],
    [["topics", "create", "t", "--partitions", "-3"], '--partitions takes a whole number from 1 to 256, got "-3"'],
    [["topics", "create", "t", "--partitions", "abc"], '--partitions takes a whole number from 1 to 256, got "abc"'],
    [["topics", "create", "t", "--partitions", "257"], '--partitions takes a whole number from 1 to 256, got "257"'],
    [["topics", "create", "t", "--replication-factor", "6"], '--replication-factor takes a whole number from 1 to 5, got "6"'],
    [["consume", "t", "--group", "g", "--max", "0"], '--max takes a whole number of at least 1, got "0"'],
    [["consume", "t", "--partition", "0", "--wait-ms", "60000"], '--wait-ms takes a whole number from 0 to 30,000, got "60000"'],
    [["topics", "write-token", "t", "--ttl", "2h"], '--ttl is at most 1h (a write token\'s longest life), got "2h"'],
    [["topics", "write-token", "t", "--ttl", "0s"], '--ttl must be longer than zero, got "0s"'],
    [["topics", "write-token", "t", "--ttl", "soon"], '--ttl takes a duration such as 30s, 10m, 1h or 7d, got "soon"'],
    [["produce", "t", "--acks", "2"], '--acks takes 0, 1 or all, got "2"'],
    [["consume", "t", "--group", "g", "--transport", "sse"], '--transport takes poll or websocket, got "sse"'],
    [["consume", "t", "--partition", "0", "--transport", "poll"], "--transport is for --group (a partition or the whole topic streams with --follow)"],
    [["consume", "t", "--group", "g", "--transport", "websocket"], "--transport websocket needs --follow: a run that stops when caught up knows it only from a poll that found nothing"],
    [["consume", "t", "--partition", "0", "--isolation", "committed"], '--isolation takes read_committed or read_uncommitted, got "committed"'],
    [["transactions"], "transactions needs a subcommand: list, describe, abort, describe-producers"],
    [["transactions", "describe"], "name the transactional id"],
    [["transactions", "abort", "a", "b"], "unexpected arguments: b"],
  ];

  it.each(cases)("%j: %s", async (argv, message) => {
    const server = new FakeServer();
    const run = await cli(server, argv);
    expect(run).toMatchObject({ code: 2, stderr: usageError(message) });
    expect(server.requests).toHaveLength(0);
  });

  it("takes a value that starts with a dash where the option allows one", async () => {
    const server = new FakeServer();
    server.createTopic("t", 1);
    const run = await cli(server, ["produce", "t", "--key-separator", "->"], { stdin: "k->v\n" });
    expect(run.code).toBe(0);
    expect(Buffer.from(server.records("t", 0)[0]!.key!).toString()).toBe("k");
  });

  it("accepts a TTL up to the bound and sends it", async () => {
    const server = new FakeServer();
    server.createTopic("t", 1);
    const run = await cli(server, ["topics", "write-token", "t", "--ttl", "60m", "--quiet"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(new TextDecoder().decode(server.requestsTo(/write-tokens$/, "POST")[0]!.body))).toEqual({ ttlMs: 3_600_000 });
  });
});

describe("--version", () => {
  const version = JSON.parse(readFileSync(fileURLToPath(new URL("../../../package.json", import.meta.url).href), "utf8")).version;

  it("prints the package's version and exits 0, alone or with a command", async () => {
    for (const argv of [["--version"], ["topics", "list", "--version"]]) {
      const run = await cli(new FakeServer(), argv);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout.toString()).toBe(`tributary ${version}\n`);
    }
  });
});

describe("plurals", () => {
  it("says 1 record and 1 partition", async () => {
    const server = new FakeServer();
    expect((await cli(server, ["topics", "create", "one"])).stdout.toString()).toBe("created topic one with 1 partition\n");
    const run = await cli(server, ["produce", "one"], { stdin: "only\n" });
    expect(run.stderr).toMatch(/^produced 1 record \(4 B\) to one in /);
  });
});

describe("topics describe", () => {
  it("shows each partition's storage, the totals, and which configs are set on the topic", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 2, { "retention.ms": "1000" });
    const storage = [
      { sqliteBatches: 3, sqliteBytes: 2048, r2Segments: 2, r2Bytes: 3 * 1024 * 1024 },
      { sqliteBatches: 1, sqliteBytes: 100, r2Segments: 0, r2Bytes: 0 },
    ];
    // The fake's answer with the server's additions (docs/api.md): storage and configOverrides.
    const fetch = async (request: Request) => {
      const response = await server.fetch(request);
      const topic = (await response.json()) as { partitions: Record<string, unknown>[] };
      topic.partitions.forEach((partition, i) => (partition.storage = storage[i]));
      return Response.json({ ...topic, configOverrides: ["retention.ms"] });
    };
    const run = await cli(server, ["topics", "describe", "orders"], { fetch });
    const out = run.stdout.toString();
    expect(out).toMatch(/PARTITION\s+LEADER\s+REPLICAS\s+ISR\s+LOG-START\s+HIGH-WATERMARK\s+SQLITE\s+R2\n0\s+weur\s+weur\s+weur\s+0\s+0\s+2\.0 KiB\s+3\.0 MiB \(2 segments\)\n1\s.*100 B\s+0 B \(0 segments\)\n/);
    expect(out).toContain("stored: 2.1 KiB in SQLite, 3.0 MiB in R2 (2 segments)\n");
    expect(out).toMatch(/CONFIG\s+VALUE\s+SOURCE\n/);
    expect(out).toMatch(/cleanup\.policy\s+delete\s+default\n/);
    expect(out).toMatch(/retention\.ms\s+1000\s+override\n/);
  });
});

/** A stdout whose reader went away after `bytes` bytes: writes then fail with EPIPE, as a pipe's do. */
function closingPipe(bytes: number): Writable & { taken: number } {
  const pipe = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (pipe.taken >= bytes) return callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      pipe.taken += chunk.length;
      callback();
    },
  }) as Writable & { taken: number };
  pipe.taken = 0;
  pipe.on("error", () => {}); // bin/tributary.js listens too
  return pipe;
}

describe("a closed output pipe (`| head`)", () => {
  it("ends a partition consume quietly with exit 0", async () => {
    const server = new FakeServer();
    server.createTopic("t", 1);
    await cli(server, ["produce", "t", "--partition", "0"], { stdin: "a\nb\n" });
    const run = await cli(server, ["consume", "t", "--partition", "0", "--from-beginning"], { stdout: closingPipe(0) });
    expect(run).toMatchObject({ code: 0, stderr: "" });
  });

  it("ends a group consume quietly with exit 0, leaving the group without committing the batch it could not print", async () => {
    const server = new FakeServer();
    server.createTopic("t", 1);
    await cli(server, ["produce", "t"], { stdin: "a\nb\nc\n" });
    const run = await cli(server, ["consume", "t", "--group", "g", "--from-beginning", "--follow", "--wait-ms", "10"], { stdout: closingPipe(0) });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(server.groups.get("g")!.core.isEmpty()).toBe(true);
    expect(server.groups.get("g")!.committed.get("t/0") ?? 0).toBe(0);
  });

  it("ends any other command quietly with exit 0", async () => {
    const server = new FakeServer();
    server.createTopic("t", 1);
    expect(await cli(server, ["topics", "list"], { stdout: closingPipe(0) })).toMatchObject({ code: 0, stderr: "" });
  });
});
