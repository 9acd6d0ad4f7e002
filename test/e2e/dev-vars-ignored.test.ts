/**
 * A developer's `.dev.vars` — wrangler's way to give `wrangler dev` a secret, the README's way
 * to run Tributary locally with an admin token — or `.env` changes no test: every layer runs on
 * the variables its test sets. Each case writes such a file, with a value for every variable
 * the Worker reads, into a copy of the project (never into the repository), then runs there
 * the workers and examples layers' checks of their variables, and a `wrangler dev` as the e2e
 * layer starts it.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyProject, type ProjectCopy } from "./support/project-copy.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

/** What a developer might have for `npm start`: every variable the Worker reads, none of them the tests'. */
const localVariables = [
  "TRIBUTARY_ADMIN_TOKEN=a-local-admin-token",
  "TRIBUTARY_FAULTS=1",
  "TRIBUTARY_DEBUG_STATS=1",
  "REGIONS=weur,eeur",
  "CORS_ORIGINS=https://local.example",
].join("\n");

/** The layers' own checks of their variables (they fail when a local file reaches them). */
const variableChecks = ["test/workers/hardening/worker-variables.test.ts", "test/examples/worker-variables.test.ts"];
/** One workerd per project, a cold bundle each. */
const vitestTimeoutMs = 110_000;

describe.each([".dev.vars", ".env"])("a developer's %s beside the wrangler config", (fileName) => {
  let project: ProjectCopy | undefined;
  let server: DevServer | undefined;
  beforeAll(() => {
    project = copyProject();
    writeFileSync(join(project.directory, fileName), `${localVariables}\n`);
  });
  afterAll(async () => {
    await server?.stop();
    project?.remove();
  });

  it("reaches neither the workers nor the examples layer", async () => {
    const vitest = join(project!.directory, "node_modules", ".bin", "vitest");
    const run = await promisify(execFile)(vitest, ["run", "--project", "workers", "--project", "examples", ...variableChecks], {
      cwd: project!.directory,
      env: { ...withoutVitestWorkerState(process.env), NO_COLOR: "1" },
      timeout: vitestTimeoutMs,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`vitest failed in the copy beside ${fileName}:\n${error.stdout ?? ""}\n${error.stderr ?? error.message}`);
    });
    expect(run.stdout).toMatch(/Tests\s+2 passed \(2\)/);
  }, vitestTimeoutMs + 10_000);

  it("reaches no wrangler dev that the e2e layer starts", async () => {
    server = await startWranglerDev({ cwd: project!.directory });
    expect(server.output()).not.toContain("a-local-admin-token");
    const created = await fetch(`${server.url}/v1/topics`, { // no admin token: open
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "three-regions", replicationFactor: 3 }), // wrangler.toml's five REGIONS, not two
    });
    expect(created.status, await created.text()).toBe(201);
    const preflight = await fetch(`${server.url}/v1/topics`, {
      method: "OPTIONS",
      headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*"); // wrangler.toml's CORS_ORIGINS
    const faults = await fetch(`${server.url}/v1/faults`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(faults.status).toBe(404); // TRIBUTARY_FAULTS unset: no fault injection
    await server.stop();

    server = await startWranglerDev({ cwd: project!.directory, vars: { TRIBUTARY_ADMIN_TOKEN: "the-test-token" } });
    const withLocalToken = await fetch(`${server.url}/v1/topics`, { headers: { authorization: "Bearer a-local-admin-token" } });
    expect(withLocalToken.status).toBe(401);
    const withTestToken = await fetch(`${server.url}/v1/topics`, { headers: { authorization: "Bearer the-test-token" } });
    expect(withTestToken.status).toBe(200);
  });
});

/** The environment of this run, without what tells a vitest process it is one of this run's workers. */
function withoutVitestWorkerState(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...environment };
  for (const name of Object.keys(copy)) {
    if (name.startsWith("VITEST") || ["TEST", "NODE_ENV", "FORCE_COLOR"].includes(name)) delete copy[name];
  }
  return copy;
}
