/**
 * Issue 34: a gateway connection's requests take effect in the order they were sent, so no
 * acknowledged record is lost and records keep their order. Through `tributary gateway` in
 * front of `wrangler dev`, with a proxy between the two (support/delaying-proxy.ts) that holds
 * back each producer's first produce for a while: whatever lets a later request of the same
 * connection overtake it shows in every run.
 *
 * - The Java client 4.4's default producer (idempotent, acks=all, up to 5 requests in flight),
 *   many short-lived ones writing numbered records: every acknowledged number is in the log
 *   exactly once, each producer's numbers in order. (Before: the second request was taken as
 *   an unknown producer's first append, and the first, answered DUPLICATE_SEQUENCE_NUMBER,
 *   was counted as written and lost.)
 * - librdkafka (kcat) without idempotence, up to a million requests in flight, acks all and
 *   acks 0: the log holds the lines in the order they were read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli } from "./support/cli.ts";
import { startDelayingProxy, type DelayingProxy } from "./support/delaying-proxy.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { runJava } from "./support/java-clients.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";
import { kcat } from "./support/kcat.ts";

/** How long a poll waits for what must come: the machine may be busy with other test runs. */
const patient = { timeout: 30_000, interval: 100 };
/** Long enough that, on any machine, the requests a producer sends meanwhile would reach the server first. */
const holdBackMs = 400;
const javaProducers = 24;
const javaRecordsEach = 2_500;
const javaAtOnce = 6;
/** As in the report: 218-byte values, so a 16 KiB batch holds ~70 and a producer sends ~35 requests. */
const javaValueBytes = 218;
const kcatLines = 3_000;

const text = new TextDecoder();

/** Every record value of partition 0, in offset order, once `count` are there. */
async function readAll(client: Tributary, topic: string, count: number): Promise<string[]> {
  await expect.poll(async () => (await client.topic(topic).offset(0, "latest")).offset, patient).toBeGreaterThanOrEqual(count);
  const values: string[] = [];
  for (let offset = 0; ; ) {
    const { records, nextOffset, highWatermark } = await client.topic(topic).fetch(0, offset, { maxRecords: 10_000, maxBytes: 8 * 1024 * 1024 });
    values.push(...records.map((record) => text.decode(record.value!)));
    offset = nextOffset;
    if (offset >= highWatermark) return values;
  }
}

describe("a gateway connection's requests take effect in the order they were sent", () => {
  let server: DevServer;
  let proxy: DelayingProxy;
  let gateway: GatewayProcess;
  let client: Tributary;
  /** The topic whose first produce of each producer the proxy holds back (each test its own). */
  const firstProduces = new Map<string, Set<number>>();

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    client = new Tributary({ url: server.url });
    proxy = await startDelayingProxy(server.url, {
      delayMs: holdBackMs,
      holdBack: (batch, path) => {
        const topic = [...firstProduces.keys()].find((name) => path.startsWith(`/v1/topics/${name}/`));
        const seen = topic === undefined ? undefined : firstProduces.get(topic)!;
        if (seen === undefined || seen.has(batch.producerId)) return false;
        seen.add(batch.producerId);
        return true;
      },
    });
    gateway = await startGateway(proxy.url);
  });

  afterAll(async () => {
    await gateway?.stop("SIGKILL");
    await proxy?.close();
    await server?.stop();
  });

  it("the Java client's default producers: every acknowledged record once, each producer's in order", async () => {
    const topic = "java-numbered";
    await client.admin().topics.create({ name: topic, partitions: 1 });
    firstProduces.set(topic, new Set());
    const run = await runJava("NumberedProducers", [gateway.address, topic, String(javaProducers), String(javaRecordsEach), String(javaAtOnce), String(javaValueBytes)], 240_000);
    expect(run.code, run.stderr).toBe(0);
    // Each producer's first produce was held back (an idempotent producer's first, per producer id).
    expect(firstProduces.get(topic)!.size).toBe(javaProducers);
    const reports = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { producer: number; acked: number[]; failed: number[]; errors: string[] });
    expect(reports).toHaveLength(javaProducers);
    for (const report of reports) expect({ producer: report.producer, failed: report.failed.length, errors: report.errors }).toEqual({ producer: report.producer, failed: 0, errors: [] });

    const acked = reports.reduce((sum, report) => sum + report.acked.length, 0);
    const values = await readAll(client, topic, acked);
    const inLog = new Map<number, number[]>();
    for (const value of values) {
      const [producer, number] = value.split(":").map(Number) as [number, number];
      if (!inLog.has(producer)) inLog.set(producer, []);
      inLog.get(producer)!.push(number);
    }
    for (const report of reports) {
      const numbers = inLog.get(report.producer) ?? [];
      const missing = report.acked.filter((number) => !numbers.includes(number));
      expect(missing, `producer ${report.producer}: acknowledged, not in the log`).toEqual([]);
      expect(numbers, `producer ${report.producer}: each number once, in order`).toEqual([...numbers].sort((a, b) => a - b).filter((n, i, all) => i === 0 || all[i - 1] !== n));
      expect(numbers).toHaveLength(report.acked.length);
    }
    expect(values).toHaveLength(acked);
  });

  for (const acks of ["all", "0"]) {
    it(`librdkafka without idempotence, a million requests in flight, acks ${acks}: records keep the order they were sent in`, async () => {
      const topic = `kcat-ordered-${acks}`;
      await client.admin().topics.create({ name: topic, partitions: 1 });
      firstProduces.set(topic, new Set());
      const lines = Array.from({ length: kcatLines }, (_, index) => `line-${String(index).padStart(5, "0")}`);
      // Small batches, sent at once: about 150 produce requests, many in flight on one connection.
      await kcat(
        ["-b", gateway.address, "-P", "-t", topic, "-X", "enable.idempotence=false", "-X", "max.in.flight=1000000", "-X", "linger.ms=0", "-X", "batch.num.messages=20", "-X", `acks=${acks === "all" ? -1 : 0}`],
        lines.map((line) => `${line}\n`).join(""),
      );
      expect(firstProduces.get(topic)!.size).toBe(1); // the first produce (no producer id) was held back
      expect(await readAll(client, topic, kcatLines)).toEqual(lines);
    });
  }
});
