/**
 * Keyless lines spread over every partition (issue 12, item 10): 100,000 short lines through
 * `tributary produce` land on all three partitions of a topic — the client's sticky
 * partitioner moves on every ≈16 KiB, not every 1 MiB request — so three group consumers
 * would each have work.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli, runCli } from "./support/cli.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const lineCount = 100_000;

describe("keyless lines through the CLI against wrangler dev", () => {
  let server: DevServer;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("100,000 short lines reach every partition of a 3-partition topic", async () => {
    expect((await runCli(server.url, ["topics", "create", "spread", "--partitions", "3"])).code).toBe(0);
    const input = Buffer.from(Array.from({ length: lineCount }, (_, i) => `line ${i}\n`).join(""));
    const produced = await runCli(server.url, ["produce", "spread"], { stdin: input });
    expect(produced.code, produced.stderr).toBe(0);
    expect(produced.stderr).toMatch(/ · partitions 0: [\d,]+, 1: [\d,]+, 2: [\d,]+\n$/);

    const client = new Tributary({ url: server.url });
    const topic = await client.topic("spread").describe();
    const counts = topic.partitions.map((partition) => partition.highWatermark);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(lineCount);
    // About 200 chunks of 16 KiB, each on a partition drawn at random: a third each, give or take.
    for (const count of counts) expect(count, `records per partition: ${counts.join(", ")}`).toBeGreaterThan(lineCount / 10);

    // Each partition holds runs of consecutive lines: the chunks it got, each ≈16 KiB of records
    // (24 bytes of framing each, as the client counts them), whatever the requests carried.
    const runs: { partition: number; first: number; lines: number; bytes: number }[] = [];
    for (const { partition, highWatermark } of topic.partitions) {
      for (let offset = 0; offset < highWatermark; ) {
        const fetched = await client.topic("spread").fetch(partition, offset, { maxRecords: 10_000, maxBytes: 8 * 1024 * 1024 });
        for (const record of fetched.records) {
          const line = Number(new TextDecoder().decode(record.value!).slice("line ".length));
          const run = runs.at(-1);
          const bytes = 24 + `line ${line}`.length;
          if (run !== undefined && run.partition === partition && run.first + run.lines === line) {
            run.lines += 1;
            run.bytes += bytes;
          } else runs.push({ partition, first: line, lines: 1, bytes });
        }
        offset = fetched.nextOffset;
      }
    }
    expect(runs.length).toBeGreaterThan(100);
    const last = Math.max(...runs.map((run) => run.first));
    for (const run of runs) {
      if (run.first !== last) expect(run.bytes, `the chunk from line ${run.first}`).toBeGreaterThanOrEqual(16_384);
      expect(run.bytes, `the chunk from line ${run.first}`).toBeLessThan(16_384 + 40);
    }
  });
});
