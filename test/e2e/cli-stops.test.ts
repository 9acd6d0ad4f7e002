/**
 * The `tributary` command stopped early, against a real `wrangler dev`: a bad line after
 * 50,000 good ones, Ctrl-C in the middle of a produce and of a group consume, and a reader
 * that closes the output pipe (`| head -2`). Each says what it did, and the topic holds
 * exactly what the command says was acknowledged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli, runCli, spawnCli } from "./support/cli.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const lines = (from: number, count: number) => Array.from({ length: count }, (_, i) => `key-${from + i}=value ${from + i}\n`).join("");

describe("tributary stopped early, against wrangler dev", () => {
  let server: DevServer;
  let client: Tributary;
  const recordsIn = async (topic: string) => (await client.admin().topics.describe(topic)).partitions.reduce((sum, p) => sum + p.highWatermark, 0);

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    client = new Tributary({ url: server.url });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("produces all 50,000 good lines before a line without the key separator, and says so", async () => {
    await client.admin().topics.create({ name: "bad-line", partitions: 3 });
    const input = Buffer.from(lines(0, 50_000) + "no separator on this line\n" + lines(50_000, 100));
    const run = await runCli(server.url, ["produce", "bad-line", "--key-separator", "="], { stdin: input });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "50,000 records were acknowledged before the failure: lines 1 to 50000; resume from line 50001\n" +
        'error: line 50001 has no key separator "="\n',
    );
    expect(await recordsIn("bad-line")).toBe(50_000);
  });

  it("on Ctrl-C in the middle of a produce, prints what was acknowledged — what the topic holds — and exits 130", async () => {
    await client.admin().topics.create({ name: "interrupted", partitions: 3 });
    const producer = spawnCli(server.url, ["produce", "interrupted", "--key-separator", "="], { stdin: "open" });
    const stdin = producer.child.stdin!;
    stdin.on("error", () => {}); // the CLI closes its end once interrupted
    let written = 0;
    let writing = true;
    const writer = (async () => {
      // The pipe may be gone before a write (the CLI closes its end once interrupted): a closed
      // stream emits "close" once, so a writer that waited for it afterwards would wait forever.
      while (writing && !stdin.destroyed) {
        // A full pipe: wait for room, or for the pipe to go.
        if (!stdin.write(lines(written, 1_000)) && !stdin.destroyed) await new Promise((resolve) => (stdin.once("drain", resolve), stdin.once("close", resolve)));
        written += 1_000;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    // Interrupt once records are in the topic, with more input still coming.
    while ((await recordsIn("interrupted")) === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    producer.child.kill("SIGINT");
    const run = await producer.done;
    writing = false;
    stdin.destroy();
    await writer;
    expect(run.code, run.stderr).toBe(130);
    const match = /^([\d,]+) records were acknowledged before the interruption: lines 1 to (\d+); resume from line (\d+)\n$/.exec(run.stderr);
    expect(match, run.stderr).not.toBeNull();
    const acknowledged = Number(match![1]!.replaceAll(",", ""));
    expect(Number(match![2])).toBe(acknowledged);
    expect(Number(match![3])).toBe(acknowledged + 1);
    expect(await recordsIn("interrupted")).toBe(acknowledged);
    expect(acknowledged).toBeLessThan(written + 1_000);
  });

  it("exits 0 quietly when the reader of its output goes away (`| head -2`)", async () => {
    await client.admin().topics.create({ name: "piped", partitions: 1 });
    await client.topic("piped").produce(Array.from({ length: 50_000 }, (_, i) => ({ value: `record ${i}` })));
    const consumer = spawnCli(server.url, ["consume", "piped", "--partition", "0", "--from-beginning"]);
    let seen = "";
    consumer.child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("latin1");
      // As `head -2` does: two lines read, then its end of the pipe closes.
      if (seen.split("\n").length > 2) consumer.child.stdout!.destroy();
    });
    const run = await consumer.done;
    expect(seen.startsWith("record 0\nrecord 1\n")).toBe(true);
    expect(run).toMatchObject({ code: 0, signal: null, stderr: "" });
  });

  it("on Ctrl-C, a group consume leaves the group and exits 0", async () => {
    await client.admin().topics.create({ name: "followed", partitions: 1 });
    await client.topic("followed").produce([{ value: "one" }, { value: "two" }]);
    const consumer = spawnCli(server.url, ["consume", "followed", "--group", "followers", "--from-beginning", "--follow", "--wait-ms", "1000"]);
    let seen = "";
    consumer.child.stdout!.on("data", (chunk: Buffer) => (seen += chunk.toString()));
    while (seen !== "one\ntwo\n") await new Promise((resolve) => setTimeout(resolve, 50));
    consumer.child.kill("SIGINT");
    const run = await consumer.done;
    expect(run).toMatchObject({ code: 0, signal: null, stderr: "" });
    expect((await client.admin().groups.describe("followers")).members).toEqual([]);
    expect((await client.admin().groups.offsets("followers")).find((entry) => entry.partition === 0)?.offset).toBe(2);
  });
});
