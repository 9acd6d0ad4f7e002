/**
 * `tributary serve --data DIR` (docs/self-hosting.md): state kept under DIR across restarts;
 * SIGKILL loses no acknowledged record at replication factor 1 or 3 and leaves no process
 * behind (its reaper ends workerd); SIGTERM and SIGINT stop it and its children with exit 0.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { startServe, type ServeProcess } from "./support/selfhost-serve.ts";
import { repositoryRoot } from "./support/wrangler-dev.ts";

/** The bound for a stop signal; a kill is immediate. */
const stopBoundMs = 15_000;
const decoder = new TextDecoder();

describe("tributary serve", () => {
  const directories: string[] = [];
  const started: ServeProcess[] = [];
  const dataDirectory = () => {
    const directory = mkdtempSync(join(tmpdir(), "tributary-serve-"));
    directories.push(directory);
    return directory;
  };
  const serve = async (directory: string) => {
    const server = await startServe(directory);
    started.push(server);
    return server;
  };

  beforeAll(() => {
    // What `npm install` builds: the CLI and the Worker bundle it runs (dist/worker).
    execFileSync("npm", ["run", "build"], { cwd: repositoryRoot, stdio: "pipe" });
  });

  afterAll(async () => {
    for (const server of started) {
      server.signal("SIGKILL");
      await server.waitUntilGone(5_000);
    }
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it("keeps every acknowledged record across SIGKILL and a restart on the same DIR, at replication factor 1 and 3", async () => {
    const directory = dataDirectory();
    const first = await serve(directory);
    // No retries: a request cut by the kill fails at once and is simply not acknowledged.
    const client = new Tributary({ url: first.url, retry: { retries: 0 } });
    await client.admin().topics.create({ name: "rf1", partitions: 2, replicationFactor: 1 });
    await client.admin().topics.create({ name: "rf3", partitions: 2, replicationFactor: 3 });

    const acknowledged = new Map<string, string>(); // "topic/partition/offset" → value
    let sent = 0;
    const produceUntilKilled = async (topic: string, acks: 1 | "all") => {
      for (;;) {
        const value = `${topic}-${acks}-${sent++}`;
        const [result] = await client.topic(topic).produce([{ key: value, value }], { acks });
        acknowledged.set(`${topic}/${result!.partition}/${result!.offset}`, value);
      }
    };
    const loops = [produceUntilKilled("rf1", 1), produceUntilKilled("rf1", "all"), produceUntilKilled("rf3", 1), produceUntilKilled("rf3", "all")];
    while (acknowledged.size < 200) await new Promise((resolve) => setTimeout(resolve, 10));
    first.signal("SIGKILL"); // while the four loops still write
    const outcomes = await Promise.allSettled(loops);
    expect(outcomes.every((outcome) => outcome.status === "rejected")).toBe(true);
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(await first.waitUntilGone(stopBoundMs), "workerd and the reaper end with serve").toEqual([]);

    const second = await serve(directory);
    const reader = new Tributary({ url: second.url });
    const stored = new Map<string, string>();
    for (const topic of ["rf1", "rf3"]) {
      for (const partition of [0, 1]) {
        for (let offset = 0; ; ) {
          const { records, nextOffset } = await reader.topic(topic).fetch(partition, offset, { maxRecords: 500 });
          if (records.length === 0) break;
          for (const record of records) stored.set(`${topic}/${partition}/${record.offset}`, decoder.decode(record.value!));
          offset = nextOffset;
        }
      }
    }
    const missing = [...acknowledged].filter(([where, value]) => stored.get(where) !== value);
    expect(missing).toEqual([]);
    expect(acknowledged.size).toBeGreaterThanOrEqual(200);
    second.signal("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });

  it.each(["SIGTERM", "SIGINT"] as const)("%s stops it and every child with exit 0, and the state is there after a restart", async (signal) => {
    const directory = dataDirectory();
    const first = await serve(directory);
    const client = new Tributary({ url: first.url });
    await client.admin().topics.create({ name: "kept", partitions: 1 });
    await client.topic("kept").produce([{ value: "before the stop" }]);

    first.signal(signal);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await first.waitUntilGone(stopBoundMs)).toEqual([]);
    expect(first.output()).toContain(`${signal}: stopping`);
    expect(existsSync(join(directory, "tributary-serve.pid")), "the lock is released").toBe(false);
    await expect(fetch(`${first.url}/v1/health`)).rejects.toThrow();

    const second = await serve(directory);
    const { records } = await new Tributary({ url: second.url }).topic("kept").fetch(0, 0);
    expect(records.map((record) => decoder.decode(record.value!))).toEqual(["before the stop"]);
    second.signal("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });

  it("refuses a DIR another serve is using, and needs --data", async () => {
    const directory = dataDirectory();
    const first = await serve(directory);
    await expect(startServe(directory)).rejects.toThrow(/is in use by another tributary serve \(pid \d+\)/);
    first.signal("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });
    const usage = execFileSyncStatus(["serve"]);
    expect(usage).toMatchObject({ status: 2, stderr: expect.stringContaining("serve needs --data DIR") });
  });
});

function execFileSyncStatus(args: string[]): { status: number | null; stderr: string } {
  try {
    execFileSync(join(repositoryRoot, "node_modules", ".bin", "node"), [join(repositoryRoot, "bin", "tributary.js"), ...args], { stdio: "pipe" });
    return { status: 0, stderr: "" };
  } catch (error) {
    const failed = error as { status: number | null; stderr: Buffer };
    return { status: failed.status, stderr: failed.stderr.toString("utf8") };
  }
}
