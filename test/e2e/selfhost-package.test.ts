/**
 * The package as a user gets it: `npm pack` in the repository, a scratch project in a temporary
 * folder (support/selfhost-scratch/) that installs the tarball, vitest and
 * @cloudflare/vitest-plugin from npm, and that project's own vitest running docs/testing.md's
 * two recipes: `startTributary()` from `tributary/testing` in Node (produce and consume through
 * the client, two instances at once isolated, dispose, persist, regions and vars), and a
 * Worker of the user's under the plugin with Tributary as an auxiliary Worker
 * (`tributaryWorker()`) on a service binding; then `node --test` runs the node:test recipe. The tarball holds the bin, dist (with the
 * Worker) and types, and nothing of the tests or the benchmark.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "./support/wrangler-dev.ts";

const run = promisify(execFile);
const projectBin = join(repositoryRoot, "node_modules", ".bin");

/** The environment of a user's shell: Node 22 first on PATH, none of this npm run's npm_* settings. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${projectBin}${delimiter}${process.env.PATH ?? ""}`, NO_COLOR: "1", CI: "1" };
  for (const name of Object.keys(env)) if (name.toLowerCase().startsWith("npm_")) delete env[name];
  return env;
}

/** The version this repository has installed, so that the scratch project's install comes from npm's cache. */
function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(repositoryRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

describe("the packed tarball in a user's project", () => {
  let scratch: string;
  let tarball: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "tributary-package-"));
    const packs = join(scratch, "packs");
    mkdirSync(packs);
    await run("npm", ["pack", "--pack-destination", packs], { cwd: repositoryRoot, env: userEnvironment(), maxBuffer: 16 << 20 });
    tarball = join(packs, readdirSync(packs).find((name) => name.endsWith(".tgz"))!);
  });

  afterAll(() => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it("holds the bin, the built Worker, the testing entry and types, and no tests or benchmark", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball], { maxBuffer: 16 << 20 });
    const files = stdout.split("\n").filter((line) => line !== "").map((line) => line.replace(/^package\//, ""));
    for (const expected of [
      "bin/tributary.js",
      "dist/worker/index.js",
      "dist/worker/worker-config.json",
      "dist/testing/index.js",
      "dist/testing/index.d.ts",
      "dist/client/index.d.ts",
      "dist/cli/serve.js",
      "README.md",
      "wrangler.toml",
    ]) {
      expect(files).toContain(expected);
    }
    expect(files.filter((file) => /^(test|bench|src|scripts|examples)\//.test(file))).toEqual([]);
  });

  it("installs into a scratch project whose vitest runs startTributary() and a Worker bound to Tributary under the plugin", async () => {
    const project = join(scratch, "project");
    cpSync(join(repositoryRoot, "test", "e2e", "support", "selfhost-scratch"), project, { recursive: true });
    const devDependencies = { tributary: `file:${tarball}`, vitest: installedVersion("vitest"), "@cloudflare/vitest-plugin": installedVersion("@cloudflare/vitest-plugin") };
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module", devDependencies }, null, 2));
    const env = userEnvironment();
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: project, env, maxBuffer: 16 << 20 });

    const help = await run(join(project, "node_modules", ".bin", "tributary"), ["--help"], { cwd: project, env });
    expect(help.stdout).toContain("serve --data DIR");

    const tests = await run(join(project, "node_modules", ".bin", "vitest"), ["run"], { cwd: project, env, maxBuffer: 16 << 20 }).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`the scratch project's vitest failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
      },
    );
    expect(tests.stdout).toMatch(/Tests\s+5 passed \(5\)/);

    const nodeTest = await run("node", ["--test", "test/node-test/*.test.js"], { cwd: project, env }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`node --test failed in the scratch project:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    expect(nodeTest.stdout).toMatch(/# pass 1\n/);
    expect(nodeTest.stdout).toMatch(/# fail 0\n/);
  });
});
