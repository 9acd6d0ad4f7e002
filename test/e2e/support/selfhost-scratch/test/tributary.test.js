// A user's test file: copied into a scratch project that installed Tributary's packed tarball
// (test/e2e/selfhost-package.test.ts), and run there by that project's own vitest.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTributary } from "tributary/testing";

const text = (bytes) => new TextDecoder().decode(bytes);

/** workerd processes this test process started and that still run (zombies aside). */
function ownWorkerd() {
  return execFileSync("ps", ["-A", "-o", "pid=,ppid=,stat=,comm="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, ppid, stat, command]) => ppid === String(process.pid) && !stat?.startsWith("Z") && command?.includes("workerd"));
}

describe("two Tributaries at once", () => {
  let first;
  let second;
  beforeAll(async () => {
    [first, second] = await Promise.all([startTributary(), startTributary()]);
  });
  afterAll(async () => {
    await Promise.all([first?.dispose(), second?.dispose()]);
  });

  it("produces and consumes through the client, and neither sees the other's topics", async () => {
    expect(first.url).not.toBe(second.url);
    await first.client.admin().topics.create({ name: "orders", partitions: 1 });
    const producer = first.client.producer();
    await producer.send({ topic: "orders", messages: [{ key: "k1", value: "hello" }, { key: "k2", value: "world" }] });
    await producer.close();
    const { records } = await first.client.topic("orders").fetch(0, 0);
    expect(records.map((record) => text(record.value))).toEqual(["hello", "world"]);

    expect(await second.client.admin().topics.list()).toEqual([]);
    const listed = await second.fetch("/v1/topics");
    expect(await listed.json()).toEqual({ topics: [] });
  });
});

it("after dispose() nothing answers at its url and no workerd is left", async () => {
  const tributary = await startTributary();
  expect((await tributary.fetch("/v1/health")).status).toBe(200);
  expect(ownWorkerd().length).toBeGreaterThan(0);
  await tributary.dispose();
  await expect(fetch(`${tributary.url}/v1/health`)).rejects.toThrow();
  expect(ownWorkerd()).toEqual([]);
});

it("persist: a directory keeps the state for the next instance", async () => {
  const directory = mkdtempSync(join(tmpdir(), "tributary-persist-"));
  try {
    const writer = await startTributary({ persist: directory });
    await writer.client.admin().topics.create({ name: "kept", partitions: 1 });
    await writer.client.topic("kept").produce([{ value: "still here" }]);
    await writer.dispose();
    const reader = await startTributary({ persist: directory });
    const { records } = await reader.client.topic("kept").fetch(0, 0);
    expect(records.map((record) => text(record.value))).toEqual(["still here"]);
    await reader.dispose();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

it("regions and vars: replicas in the given regions, the admin token required and used by the client", async () => {
  const tributary = await startTributary({ regions: ["weur", "eeur", "me"], vars: { TRIBUTARY_ADMIN_TOKEN: "s3cret-admin-token" } });
  try {
    expect((await tributary.fetch("/v1/topics")).status).toBe(401);
    const topic = await tributary.client.admin().topics.create({ name: "spread", partitions: 2, replicationFactor: 3 });
    for (const partition of topic.partitions) expect([...partition.replicas].sort()).toEqual(["eeur", "me", "weur"]);
  } finally {
    await tributary.dispose();
  }
});
