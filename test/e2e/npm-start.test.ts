/**
 * `npm start -- --port <port>` works as the README says: `wrangler dev` through the npm
 * script, on 127.0.0.1 (the `[dev]` table of wrangler.toml), with arguments after `--` passed
 * through; and stopping its process group, or signalling npm alone (SIGTERM, SIGINT), leaves
 * nothing running. While it runs, a rebuild
 * (`npm run build`, which `npm pack` and the e2e layer run too) never leaves it without the
 * console (issue 31), and `npx tributary` in the repository rebuilds nothing.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { livingMembers, repositoryRoot, startDevServer, withoutLocalVariableFiles, type DevServer } from "./support/wrangler-dev.ts";

const run = promisify(execFile);

describe("npm start", () => {
  let server: DevServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the API on 127.0.0.1 at the port given after --, and stops with its process group", async () => {
    server = await startDevServer(
      (port, inspectorPort, persistTo) => ({
        command: "npm",
        args: ["start", "--", "--port", String(port), "--inspector-port", String(inspectorPort), "--persist-to", persistTo, ...withoutLocalVariableFiles.args],
      }),
      { env: withoutLocalVariableFiles.env },
    );
    expect(server.output()).toContain(`Ready on ${server.url}`);

    const health = await fetch(`${server.url}/v1/health`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: "ok" } });

    const topics = await fetch(`${server.url}/v1/topics`);
    expect(topics.status).toBe(200);
    expect(topics.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await topics.json()).toEqual({ topics: [] }); // a fresh --persist-to directory

    // A rebuild while it runs: the console stays served, during the build and after wrangler reloads.
    const consoleAnswers = async () => Promise.all(["/", "/assets/main.js"].map(async (path) => (await fetch(`${server!.url}${path}`)).status));
    expect(await consoleAnswers()).toEqual([200, 200]);
    let building = true;
    const seen = new Set<string>();
    const watching = (async () => {
      while (building) {
        seen.add(String(await consoleAnswers()));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await run("npm", ["run", "build"], { cwd: repositoryRoot, env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
    // wrangler reloads once it sees dist/ change; give it time to, then look again.
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      seen.add(String(await consoleAnswers()));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    building = false;
    await watching;
    expect([...seen]).toEqual(["200,200"]);

    const { processGroupId } = server;
    expect(livingMembers(processGroupId).some((line) => line.includes("workerd")), "workerd runs in the group").toBe(true);
    await server.stop();
    expect(livingMembers(processGroupId)).toEqual([]);
    await expect(fetch(`${server.url}/v1/health`)).rejects.toThrow();
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} to the npm process alone stops everything npm start started, and frees the port`, async () => {
      const started = await startDevServer(
        (port, inspectorPort, persistTo) => ({
          command: "npm",
          args: ["start", "--", "--port", String(port), "--inspector-port", String(inspectorPort), "--persist-to", persistTo, ...withoutLocalVariableFiles.args],
        }),
        { env: withoutLocalVariableFiles.env },
      );
      try {
        const npm = started.processGroupId; // npm leads the group it was started in
        process.kill(npm, signal);
        const until = Date.now() + 15_000;
        while (Date.now() < until && livingMembers(npm).length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        expect(livingMembers(npm)).toEqual([]);
        await expect(fetch(`${started.url}/v1/health`)).rejects.toThrow();
      } finally {
        await started.stop();
      }
    });
  }

  it("npx tributary in the repository runs the CLI as built, rebuilding nothing", async () => {
    const built = join(repositoryRoot, "dist", "cli", "main.js");
    const before = statSync(built).mtimeMs;
    // A fresh npm cache: npx installs this folder into it, which runs its `prepare`.
    const cache = mkdtempSync(join(tmpdir(), "tributary-npx-cache-"));
    try {
      const { stdout } = await run("npx", ["--yes", "tributary", "--version"], { cwd: repositoryRoot, env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: "false" } });
      expect(stdout).toMatch(/^tributary \d+\.\d+\.\d+$/m);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
    expect(statSync(built).mtimeMs).toBe(before);
  });
});
