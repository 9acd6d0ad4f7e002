import { execFile } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

it("wrangler deploy --dry-run builds the bundle", async () => {
  const outdir = await mkdtemp(join(tmpdir(), "tributary-dry-run-"));
  try {
    const { stdout } = await run("node_modules/.bin/wrangler", ["deploy", "--dry-run", "--outdir", outdir], {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    expect(stdout).toContain("--dry-run: exiting now.");
    expect(stdout).toContain("env.PARTITIONS (PartitionReplica)");
    expect(stdout).toContain("env.SEGMENTS (tributary-segments)");
    expect((await stat(join(outdir, "index.js"))).size).toBeGreaterThan(0);
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
});
