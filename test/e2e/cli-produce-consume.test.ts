/**
 * The `tributary` command against a real `wrangler dev`: 100,000 lines from a file, produced
 * through the CLI and consumed back through a consumer group, byte for byte and in order per
 * partition; a group member over WebSockets (--transport websocket); `topics alter`'s one line;
 * `topics delete-records`; a group consumer killed mid-batch that a new process resumes from the
 * group's last commit; and transactions: consume's --isolation, `transactions list|describe|abort`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { partitionForKey } from "../../src/protocol/partitioner.ts";
import { buildCli, runCli, spawnCli } from "./support/cli.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const lineCount = 100_000;
const partitions = 3;
const tab = 0x09;

/**
 * Line i: a key (97 distinct), a tab, then a payload with the line number and bytes a text
 * pipeline would damage: multi-byte UTF-8, a "\r", a byte that is not UTF-8 at all (0xff),
 * and every 1000th payload empty.
 */
function inputLine(i: number): Buffer {
  const payload = i % 1000 === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from(`payload ${i} ü€ 𝄞\r`), Buffer.from([0xff, 0x00, 0x80 + (i % 128)])]);
  return Buffer.concat([Buffer.from(`k${i % 97}`), Buffer.from([tab]), payload]);
}

function splitLines(output: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let at = output.indexOf(0x0a); at !== -1; at = output.indexOf(0x0a, start)) {
    lines.push(output.subarray(start, at));
    start = at + 1;
  }
  expect(start, "the output ends with a newline").toBe(output.length);
  return lines;
}

describe("tributary CLI against wrangler dev", () => {
  let server: DevServer;
  let directory: string;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    directory = mkdtempSync(join(tmpdir(), "tributary-cli-e2e-"));
  });

  afterAll(async () => {
    await server?.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("produces 100,000 lines from a file and consumes them back through a group, byte for byte", async () => {
    expect((await runCli(server.url, ["topics", "create", "lines", "--partitions", String(partitions)])).code).toBe(0);
    const input = Array.from({ length: lineCount }, (_, i) => inputLine(i));
    const file = join(directory, "lines.txt");
    writeFileSync(file, Buffer.concat(input.flatMap((line) => [line, Buffer.from("\n")])));

    const produced = await runCli(server.url, ["produce", "lines", "--file", file, "--key-separator", "\t"]);
    expect(produced.code, produced.stderr).toBe(0);
    expect(produced.stderr).toMatch(/^produced 100,000 records \(.+\) to lines in [\d.]+ s · [\d,]+ records\/s · partitions 0: [\d,]+, 1: [\d,]+, 2: [\d,]+\n$/);

    const consumed = await runCli(server.url, ["consume", "lines", "--group", "readers", "--from-beginning"]);
    expect(consumed.code, consumed.stderr).toBe(0);
    const values = splitLines(consumed.stdout);
    expect(values).toHaveLength(lineCount);

    // Byte for byte: every payload exactly once, and within each partition in file order.
    const expected = input.map((line) => line.subarray(line.indexOf(tab) + 1));
    const index = new Map(expected.map((payload, i) => [payload.toString("latin1"), i]));
    const seen = new Set<number>();
    const lastByPartition = new Map<number, number>();
    const problems: string[] = [];
    for (const value of values) {
      const i = index.get(value.toString("latin1"));
      if (i === undefined) problems.push(`an output line no input line has: ${JSON.stringify(value.toString("latin1"))}`);
      if (i === undefined || expected[i]!.length === 0) continue; // empty payloads are alike; counted below
      if (seen.has(i)) problems.push(`line ${i} came twice`);
      seen.add(i);
      const partition = partitionForKey(Buffer.from(`k${i % 97}`), partitions);
      if (i <= (lastByPartition.get(partition) ?? -1)) problems.push(`line ${i} came after line ${lastByPartition.get(partition)} in partition ${partition}`);
      lastByPartition.set(partition, i);
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(values.filter((value) => value.length === 0)).toHaveLength(lineCount / 1000);
    expect(seen.size + lineCount / 1000).toBe(lineCount);

    const lag = await runCli(server.url, ["groups", "lag", "readers", "--json"]);
    const report = JSON.parse(lag.stdout.toString());
    expect(report.totalLag).toBe(0);
    expect(report.offsets.map((entry: { offset: number }) => entry.offset).reduce((a: number, b: number) => a + b, 0)).toBe(lineCount);
  });

  it("consume --group --follow --transport websocket reads the group's partitions over WebSockets and commits what it printed", async () => {
    const client = new Tributary({ url: server.url });
    await client.admin().topics.create({ name: "sockets", partitions: 2 });
    await client.topic("sockets").produce(Array.from({ length: 300 }, (_, i) => ({ value: `s${i}`, partition: i % 2 })));
    const follower = spawnCli(server.url, ["consume", "sockets", "--group", "socket-readers", "--from-beginning", "--follow", "--transport", "websocket"]);
    let lines = 0;
    follower.child.stdout!.on("data", (chunk: Buffer) => (lines += chunk.toString().split("\n").length - 1));
    const deadline = Date.now() + 20_000;
    while (lines < 300) {
      expect(Date.now(), "300 lines printed").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.topic("sockets").produce([{ value: "late", partition: 1 }]); // a record pushed to an open socket
    while (lines < 301) {
      expect(Date.now(), "the late record printed").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    follower.child.kill("SIGINT");
    const run = await follower.done;
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout.toString().split("\n").filter(Boolean).sort()).toEqual([...Array.from({ length: 300 }, (_, i) => `s${i}`), "late"].sort());
    // It left the group having committed everything it printed.
    const offsets = await client.admin().groups.offsets("socket-readers");
    expect(offsets.map(({ partition, offset }) => [partition, offset])).toEqual([[0, 150], [1, 151]]);
  });

  it("topics alter prints one line of what changed, a deleted config with its default", async () => {
    expect((await runCli(server.url, ["topics", "create", "altered", "--config", "cleanup.policy=compact"])).code).toBe(0);
    const altered = await runCli(server.url, ["topics", "alter", "altered", "--config", "retention.ms=3600000", "--delete-config", "cleanup.policy", "--partitions", "2"]);
    expect({ code: altered.code, stdout: altered.stdout.toString(), stderr: altered.stderr }).toEqual({
      code: 0,
      stdout: "altered topic altered: retention.ms=3600000 cleanup.policy=delete (default) partitions=2\n",
      stderr: "",
    });
  });

  it("topics delete-records moves the partition's log start; an offset past the high watermark is refused and changes nothing", async () => {
    const client = new Tributary({ url: server.url });
    await client.admin().topics.create({ name: "purged", partitions: 1 });
    const produced = await fetch(`${server.url}/v1/topics/purged/records`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ records: ["a", "b", "c", "d", "e"].map((value) => ({ value })) }) });
    expect(produced.status).toBe(200);
    const deleted = await runCli(server.url, ["topics", "delete-records", "purged", "--partition", "0", "--offset", "3"]);
    expect({ code: deleted.code, stdout: deleted.stdout.toString(), stderr: deleted.stderr }).toEqual({
      code: 0,
      stdout: "deleted the records of purged partition 0 before offset 3: the log starts there\n",
      stderr: "",
    });
    const refused = await runCli(server.url, ["topics", "delete-records", "purged", "--partition", "0", "--offset", "9"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("OFFSET_OUT_OF_RANGE");
    expect((await client.admin().topics.describe("purged")).partitions[0]).toMatchObject({ logStartOffset: 3, highWatermark: 5 });
  });

  it("produce --compression zstd stores zstd batches; topics describe shows compression.type and the smaller stored bytes", async () => {
    const lines = Buffer.from(Array.from({ length: 2_000 }, (_, i) => `user-${i % 50}\t{"event":"page_view","path":"/products/${i % 30}","n":${i}}\n`).join(""));
    expect((await runCli(server.url, ["topics", "create", "plain-events"])).code).toBe(0);
    expect((await runCli(server.url, ["topics", "create", "packed-events", "--config", "compression.type=zstd"])).code).toBe(0);
    expect((await runCli(server.url, ["produce", "plain-events", "--quiet"], { stdin: lines })).code).toBe(0);
    const produced = await runCli(server.url, ["produce", "packed-events", "--compression", "zstd", "--quiet"], { stdin: lines });
    expect(produced, produced.stderr).toMatchObject({ code: 0 });
    const stored = (text: string) => {
      const [, amount, unit] = /^stored: ([\d.]+) (B|KiB|MiB) in SQLite/m.exec(text)!;
      return Number(amount) * { B: 1, KiB: 1024, MiB: 1024 * 1024 }[unit as "B" | "KiB" | "MiB"];
    };
    const plain = (await runCli(server.url, ["topics", "describe", "plain-events"])).stdout.toString();
    const packed = (await runCli(server.url, ["topics", "describe", "packed-events"])).stdout.toString();
    expect(plain).toMatch(/\ncompression\.type\s+producer\s+default\n/);
    expect(packed).toMatch(/\ncompression\.type\s+zstd\s+override\n/);
    expect(stored(packed)).toBeLessThan(stored(plain) / 3);
    // The stored batch carries zstd (4 in the attributes' low bits, bytes 21-22 of a batch).
    const fetched = await fetch(`${server.url}/v1/topics/packed-events/partitions/0/records?offset=0`, { headers: { accept: "application/vnd.tributary.record-batch" } });
    const batch = new Uint8Array(await fetched.arrayBuffer());
    expect(batch[22]! & 0x07).toBe(4);
  });

  it("consume --isolation reads committed or every record; transactions list, describe and abort a hanging one", async () => {
    const client = new Tributary({ url: server.url });
    await client.admin().topics.create({ name: "ledger", partitions: 1 });
    const producer = (id: string) => client.producer({ transactionalId: id, lingerMs: 0, requestsPerSecond: Infinity });
    const writer = producer("ledger-writer");
    const committed = await writer.transaction();
    await committed.send({ topic: "ledger", messages: [{ value: "c1" }, { value: "c2" }] });
    await committed.commit();
    const aborted = await writer.transaction();
    await aborted.send({ topic: "ledger", messages: [{ value: "a1" }] });
    await aborted.abort();
    const hanging = await producer("ledger-hanging").transaction();
    await hanging.send({ topic: "ledger", messages: [{ value: "h1" }] });
    await client.topic("ledger").produce([{ value: "plain" }]); // past the open transaction: not stable yet

    const values = async (args: string[]) => {
      const run = await runCli(server.url, ["consume", "ledger", ...args]);
      expect(run.code, run.stderr).toBe(0);
      return run.stdout.toString().split("\n").filter(Boolean);
    };
    expect(await values(["--partition", "0", "--from-beginning"])).toEqual(["c1", "c2"]);
    expect(await values(["--partition", "0", "--from-beginning", "--isolation", "read_uncommitted"])).toEqual(["c1", "c2", "a1", "h1", "plain"]);
    expect(await values(["--group", "ledger-readers", "--from-beginning", "--isolation", "read_uncommitted"])).toEqual(["c1", "c2", "a1", "h1", "plain"]);

    const listed = await runCli(server.url, ["transactions", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.toString()).toMatch(/^TRANSACTIONAL-ID\s+PRODUCER-ID\s+EPOCH\s+TIMEOUT\s+INITIALIZED\n/);
    expect(listed.stdout.toString()).toMatch(/\nledger-hanging\s+\d+\s+0\s+60 s\s+[\d.]+ s ago\n/);
    const described = await runCli(server.url, ["transactions", "describe", "ledger-hanging"]);
    expect(described.stdout.toString()).toMatch(/^transaction ledger-hanging {2}state Ongoing {2}producer \d+ epoch 0 {2}timeout 60 s\nstarted [\d.]+ s ago\npartitions: ledger:0\ngroups: none\n$/);
    const json = await runCli(server.url, ["transactions", "describe", "ledger-writer", "--json"]);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({ transactionalId: "ledger-writer", state: "CompleteAbort", producerEpoch: 2, partitions: [] });

    const abortedByOperator = await runCli(server.url, ["transactions", "abort", "ledger-hanging"]);
    expect({ code: abortedByOperator.code, stdout: abortedByOperator.stdout.toString(), stderr: abortedByOperator.stderr }).toEqual({
      code: 0,
      stdout: "aborted the open transaction of ledger-hanging (state CompleteAbort); its producer's commit will be refused\n",
      stderr: "",
    });
    expect(await values(["--partition", "0", "--from-beginning", "--isolation", "read_committed"])).toEqual(["c1", "c2", "plain"]);
    // A record at a time past c2: fetches of only a marker or an aborted record show nothing, and the read goes on past them.
    expect(await values(["--partition", "0", "--from-beginning", "--max", "3"])).toEqual(["c1", "c2", "plain"]);
    const again = await runCli(server.url, ["transactions", "abort", "ledger-hanging"]);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/^error: INVALID_TXN_STATE: /) });
  });

  it("a consumer killed mid-batch is resumed by a new process from the group's last commit", async () => {
    const client = new Tributary({ url: server.url });
    await client.admin().topics.create({ name: "jobs", partitions: 1 });
    const topic = client.topic("jobs");
    const payload = (i: number) => `job ${i} `.padEnd(200, "x");
    await topic.produce(Array.from({ length: 500 }, (_, i) => ({ value: payload(i) })));

    // The first process follows the topic; its next poll commits the 500 records it printed.
    const first = spawnCli(server.url, ["consume", "jobs", "--group", "workers", "--from-beginning", "--follow", "--json", "--session-timeout-ms", "6000", "--wait-ms", "2000"]);
    const committed = async () => (await client.admin().groups.offsets("workers")).find((entry) => entry.partition === 0)?.offset;
    const deadline = Date.now() + 20_000;
    while ((await committed().catch(() => undefined)) !== 500) {
      expect(Date.now(), "the first 500 records were committed").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // From now on its output pipe is not read: a batch larger than the pipe blocks it mid-batch.
    first.child.stdout!.pause();
    // ...then 20,000 more arrive: it prints a batch into a full pipe and blocks mid-batch.
    for (let start = 500; start < 20_500; start += 5_000) {
      await topic.produce(Array.from({ length: 5_000 }, (_, i) => ({ value: payload(start + i) })));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await committed(), "nothing past the first 500 is committed while the batch is unfinished").toBe(500);
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");

    // A new process: once the dead member's session expires, it starts at the last commit.
    const second = await runCli(server.url, ["consume", "jobs", "--group", "workers", "--json", "--session-timeout-ms", "6000", "--wait-ms", "1000"]);
    expect(second.code, second.stderr).toBe(0);
    const records = second.stdout.toString().trim().split("\n").map((line) => JSON.parse(line) as { offset: number; value: string });
    expect(records[0]!.offset).toBe(500);
    expect(records.map((record) => record.offset)).toEqual(Array.from({ length: 20_000 }, (_, i) => 500 + i));
    expect(records.every((record) => record.value === payload(record.offset))).toBe(true);
    expect(await committed()).toBe(20_500);
  });
});
