/**
 * The package as a user gets it: `npm pack` in the repository, a scratch project in a temporary
 * folder that installs the tarball (and vitest) from npm, and that project's own vitest running
 * a test file (support/selfhost-scratch.test.js) that uses `startTributary()` from
 * `tributary/testing`: produce and consume through the client, two instances at once isolated,
 * dispose, persist, regions and vars. The tarball holds the bin, dist (with the Worker) and
 * types, and nothing of the tests or the benchmark.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

  it("installs into a scratch project whose vitest runs startTributary()", async () => {
    const project = join(scratch, "project");
    mkdirSync(join(project, "test"), { recursive: true });
    const vitestVersion = (JSON.parse(readFileSync(join(repositoryRoot, "node_modules", "vitest", "package.json"), "utf8")) as { version: string }).version;
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "scratch", private: true, type: "module", devDependencies: { tributary: `file:${tarball}`, vitest: vitestVersion } }, null, 2),
    );
    copyFileSync(join(repositoryRoot, "test", "e2e", "support", "selfhost-scratch.test.js"), join(project, "test", "tributary.test.js"));
    const env = userEnvironment();
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: project, env, maxBuffer: 16 << 20 });

    const help = await run(join(project, "node_modules", ".bin", "tributary"), ["--help"], { cwd: project, env });
    expect(help.stdout).toContain("serve --data DIR");

    const tests = await run(join(project, "node_modules", ".bin", "vitest"), ["run"], { cwd: project, env, maxBuffer: 16 << 20 }).catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`the scratch project's vitest failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
      },
    );
    expect(tests.stdout).toMatch(/Tests\s+4 passed \(4\)/);
  });
});
