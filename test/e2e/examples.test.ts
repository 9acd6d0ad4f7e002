/**
 * The examples run locally as their READMEs say, with an admin token: each step below is a
 * line of examples/<name>/README.md (the test checks that it is there, word for word) and runs
 * as written, in a copy of the project (the steps write `.dev.vars` files), with
 * `sh -c`. What a developer's terminal would differ in is only where things listen: servers
 * get free ports and fresh state (the flags after the README's line), README URLs on
 * 127.0.0.1:<the example's port> go to the example's free port, the CLI is pointed at
 * Tributary's with TRIBUTARY_URL, and the two `wrangler dev` sessions share a dev registry of
 * their own, not the machine's.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "./support/cli.ts";
import { copyProject, type ProjectCopy } from "./support/project-copy.ts";
import { repositoryRoot, startDevServer, type DevServer } from "./support/wrangler-dev.ts";

/** A README line and where it runs: the repository's root or the example's folder. */
interface Step {
  line: string;
  at: "root" | "example";
}

interface Example {
  folder: string;
  /** The port of its wrangler.jsonc's `dev` block, as the README's URLs have it. */
  port: number;
  /** Once Tributary runs, before the example's Worker starts. */
  setUp: Step[];
  /** The example's `wrangler dev`. */
  serve: Step;
}

/** Steps both READMEs share: Tributary's admin token, Tributary, the CLI's token (its value: TRIBUTARY_TOKEN of every command). */
const adminTokenStep: Step = { line: "echo 'TRIBUTARY_ADMIN_TOKEN=change-me' > .dev.vars", at: "root" };
const tributaryStep: Step = { line: "npm start", at: "root" };
const exportTokenStep: Step = { line: "export TRIBUTARY_TOKEN=change-me", at: "example" };

const producer: Example = {
  folder: "examples/producer-worker",
  port: 8788,
  setUp: [
    { line: "npx tributary topics create requests --partitions 3", at: "example" },
    {
      line: `echo "TRIBUTARY_TOKEN=$(npx tributary tokens create --name producer-example --rule topic:requests:literal:write --quiet)" > .dev.vars`,
      at: "example",
    },
  ],
  serve: { line: "npx wrangler dev", at: "example" },
};

const cron: Example = {
  folder: "examples/cron-consumer",
  port: 8789,
  setUp: [
    { line: "npx tributary topics create requests --partitions 3", at: "example" },
    { line: "npx tributary topics create digests --partitions 1", at: "example" },
    { line: "printf 'one\\ntwo\\nthree\\n' | npx tributary produce requests", at: "example" },
    {
      line: `echo "TRIBUTARY_TOKEN=$(npx tributary tokens create --name cron-consumer-example --rule topic:requests:literal:read --rule group:digest:literal:read --rule topic:digests:literal:write --quiet)" > .dev.vars`,
      at: "example",
    },
  ],
  serve: { line: "npx wrangler dev --test-scheduled", at: "example" },
};

/** A command line runs this long at most (an `npx` start and one request, or a few). */
const stepTimeoutMs = 60_000;

let project: ProjectCopy | undefined;
beforeAll(() => {
  buildCli(); // the copy's `npx tributary` runs dist/
  project = copyProject();
});
afterAll(() => project?.remove());

/** One example's run: Tributary by `npm start`, the example's Worker, their shared registry; `command` runs a README line to its end. */
function exampleSession(example: Example) {
  const readme = readFileSync(join(repositoryRoot, example.folder, "README.md"), "utf8");
  let registry = "";
  let tributary: DevServer | undefined;
  let worker: DevServer | undefined;
  const where = (step: Step) => join(project!.directory, step.at === "root" ? "." : example.folder);
  const environment = () => ({
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_REGISTRY_PATH: registry,
    NO_COLOR: "1",
    TRIBUTARY_URL: tributary?.url ?? "",
    TRIBUTARY_TOKEN: tokenOf(exportTokenStep),
  });
  const inReadme = (step: Step) => expect(readme, `${example.folder}/README.md`).toContain(step.line);

  async function command(step: Step): Promise<string> {
    inReadme(step);
    const line = worker === undefined ? step.line : step.line.replaceAll(`127.0.0.1:${example.port}`, worker.url.slice("http://".length));
    const { stdout } = await promisify(execFile)("sh", ["-c", line], { cwd: where(step), env: environment(), timeout: stepTimeoutMs });
    return stdout;
  }

  async function serve(step: Step, options: { npmArguments: boolean; readyWhen?: (output: string) => boolean }): Promise<DevServer> {
    inReadme(step);
    const separator = options.npmArguments ? " --" : "";
    return startDevServer(
      (port, inspectorPort, persistTo) => ({
        command: "sh",
        args: ["-c", `${step.line}${separator} --port ${port} --inspector-port ${inspectorPort} --persist-to ${persistTo}`],
      }),
      { cwd: where(step), env: { WRANGLER_REGISTRY_PATH: registry }, readyWhen: options.readyWhen },
    );
  }

  return {
    command,
    async start(): Promise<void> {
      registry = mkdtempSync(join(tmpdir(), "tributary-registry-"));
      await command(adminTokenStep);
      inReadme(exportTokenStep);
      tributary = await serve(tributaryStep, { npmArguments: true });
      for (const step of example.setUp) await command(step);
      worker = await serve(example.serve, { npmArguments: false, readyWhen: listeningAndConnected });
    },
    async stop(): Promise<void> {
      await worker?.stop();
      await tributary?.stop();
      if (registry !== "") rmSync(registry, { recursive: true, force: true });
    },
    /** Tributary, for checks beyond the README (with the admin token). */
    tributary: () => tributary!,
  };
}

/** The Worker listens, and its TRIBUTARY binding reaches Tributary's session through the registry. */
function listeningAndConnected(output: string): boolean {
  return output.includes("Ready on http://") && /tributary#TributaryService\)[^\n]*\[connected\]/.test(output);
}

function tokenOf(step: Step): string {
  const [, token] = /^export TRIBUTARY_TOKEN=(\S+)$/.exec(step.line) ?? [];
  if (token === undefined) throw new Error(`not an export of TRIBUTARY_TOKEN: ${step.line}`);
  return token;
}

describe("examples/producer-worker, as its README runs it", () => {
  const session = exampleSession(producer);
  beforeAll(() => session.start());
  afterAll(() => session.stop());

  it("produces one record per request, keyed by its path, with its scoped token", async () => {
    const unauthenticated = await fetch(`${session.tributary().url}/v1/topics`);
    expect(unauthenticated.status, "Tributary runs with the admin token of the root's .dev.vars").toBe(401);
    const answer = JSON.parse(await session.command({ line: "curl -s http://127.0.0.1:8788/hello", at: "example" }));
    expect(answer).toEqual({ offsets: [{ partition: expect.any(Number), offset: 0, timestamp: expect.any(Number) }] });

    const consumed = await session.command({ line: "npx tributary consume requests --group readme --from-beginning --json", at: "example" });
    const records = consumed.trim().split("\n").map((line) => JSON.parse(line));
    expect(records).toEqual([expect.objectContaining({ topic: "requests", partition: answer.offsets[0].partition, offset: 0, key: "/hello" })]);
    expect(JSON.parse(records[0].value)).toMatchObject({ method: "GET", path: "/hello" });
  });
});

describe("examples/cron-consumer, as its README runs it", () => {
  const session = exampleSession(cron);
  beforeAll(() => session.start());
  afterAll(() => session.stop());

  it("digests the records on its cron trigger, fired by --test-scheduled's /__scheduled, with its scoped token", async () => {
    const fired = await session.command({ line: "curl -s 'http://127.0.0.1:8789/__scheduled?cron=*/5+*+*+*+*'", at: "example" });
    expect(fired).toBe("Ran scheduled event");

    const consumed = await session.command({ line: "npx tributary consume digests --partition 0 --from-beginning --json", at: "example" });
    const digests = consumed.trim().split("\n").map((line) => JSON.parse(line));
    expect(digests).toHaveLength(1);
    expect(digests[0]).toMatchObject({ topic: "digests", offset: 0, key: "digest" });
    expect(JSON.parse(digests[0].value)).toMatchObject({ records: 3, byKey: { "(no key)": 3 } });
  });
});
