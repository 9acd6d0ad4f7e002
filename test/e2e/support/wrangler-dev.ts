/**
 * A real `wrangler dev` for the e2e layer: its own free ports, a fresh `--persist-to`
 * directory, and its own process group, so `stop()` ends wrangler, esbuild and both workerd
 * processes together and a test run never leaves a server behind:
 *
 *   spawn (detached: pgid = pid) ──► poll GET /v1/health until 200 (bounded) ──► { url, stop }
 *         (another Worker: poll its output until it says it is ready)
 *   stop: SIGTERM the group ──► grace ──► SIGKILL the group ──► wait until no member lives ──► rm dir
 *
 * `halt()` and `resume()` take the server away and bring it back on the same port and state
 * directory (a `wrangler dev` restart), for tests of clients that must ride out an outage.
 *
 * Every server started here is also killed when the test process exits or is interrupted,
 * in case `afterAll` never runs.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";
import { forget, remember } from "./leftovers.ts";

export const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url).href);
/** The project's own bin folder first, as npm scripts have it: wrangler then runs on the `node` dev dependency (Node 22). */
const projectBinDirectory = join(repositoryRoot, "node_modules", ".bin");

/** wrangler dev is ready in about 2 s here; a cold bundle on a slow CI machine takes longer. */
const healthDeadlineMs = 60_000;
const healthPollIntervalMs = 200;
const healthRequestTimeoutMs = 2_000;
/** Time for wrangler to shut workerd down itself after SIGTERM before the group gets SIGKILL. */
const stopGraceMs = 5_000;
/** After SIGKILL the kernel ends the group at once; waiting longer means something escaped it. */
const stopAfterKillMs = 5_000;
/** The tail of the server's output kept for failure messages. */
const outputTailChars = 16_384;

export interface DevServer {
  /** Origin of the server, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** Process group id (= pid of the spawned process; a new one after `resume()`). */
  readonly processGroupId: number;
  /** Everything the server printed so far (the last 16 KiB). */
  output(): string;
  /** Ends the whole process group (SIGTERM, then SIGKILL) and removes the persistence directory. */
  stop(): Promise<void>;
  /** Ends the process group as `stop()` does, but keeps the port free for it and the state directory. */
  halt(): Promise<void>;
  /** After `halt()`: the same command on the same port and state directory, resolved once healthy. */
  resume(): Promise<void>;
}

/** A free TCP port on 127.0.0.1: listen on port 0, read the port the kernel chose, close. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP address for a listening socket");
  return address.port;
}

/** Two distinct free ports: the HTTP port and the inspector port. */
async function twoFreePorts(): Promise<[number, number]> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const [first, second] = [await freePort(), await freePort()];
    if (first !== second) return [first, second];
  }
  throw new Error("the kernel handed out the same free port ten times");
}

/**
 * What keeps a developer's own files out of a test's server. `wrangler dev` adds a `.dev.vars`
 * beside the wrangler config (or, without one, `.env` and `.env.local`) to the Worker's
 * bindings — the README's way to run Tributary locally with an admin token — and reads `.env`
 * into its own environment. Given `--env-file`, it reads none of them, and /dev/null holds
 * nothing; nor are the shell's variables made bindings. A server then has the variables of the
 * wrangler config and of its test, nothing else (test/e2e/dev-vars-ignored.test.ts).
 */
export const withoutLocalVariableFiles = {
  args: ["--env-file", "/dev/null"],
  env: { CLOUDFLARE_INCLUDE_PROCESS_ENV: "false" },
} as const;

/**
 * `wrangler dev` on free ports, a fresh state directory, no metrics and no interactive session.
 * `vars` are Worker variables for this server only (`--var NAME:value`), e.g.
 * `{ TRIBUTARY_FAULTS: "1" }` for fault injection, which wrangler.toml never enables; a
 * developer's `.dev.vars` or `.env` adds none (withoutLocalVariableFiles). `cwd`: the project
 * to serve, the repository by default.
 */
export async function startWranglerDev(options: { vars?: Record<string, string>; cwd?: string } = {}): Promise<DevServer> {
  const vars = Object.entries(options.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const command = (port: number, inspectorPort: number, persistTo: string) => ({
    command: join(projectBinDirectory, "wrangler"),
    args: [
      "dev",
      "--ip", "127.0.0.1",
      "--port", String(port),
      "--inspector-port", String(inspectorPort),
      "--persist-to", persistTo,
      "--show-interactive-dev-session=false",
      ...withoutLocalVariableFiles.args,
      ...vars,
    ],
  });
  return startDevServer(command, { cwd: options.cwd, env: withoutLocalVariableFiles.env });
}

export interface ServerCommand {
  command: string;
  args: string[];
}

export interface DevServerOptions {
  /** The working directory: the repository's root by default. */
  cwd?: string;
  /** Environment variables for the process, beyond the test's own. */
  env?: Record<string, string>;
  /**
   * When the server is ready, given everything it printed: by default once it answers
   * `GET /v1/health` with 200 (Tributary); a Worker without that route says it by its output.
   */
  readyWhen?: (output: string) => boolean;
}

/**
 * Spawns `command(port, inspectorPort, persistTo)` in its own process group (from the
 * repository root unless `options.cwd`) and waits until it is ready: it answers
 * `GET /v1/health` with 200 on 127.0.0.1:port, or `options.readyWhen` holds. If it never
 * is, the group is stopped and the error carries the server's output.
 */
export async function startDevServer(
  command: (port: number, inspectorPort: number, persistTo: string) => ServerCommand,
  options: DevServerOptions = {},
): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(command, options);
    } catch (error) {
      // A free port is free only until someone binds it: another process on the machine (a
      // second test run, a benchmark) may take it between freePort() and workerd's bind.
      // That race is the machine's, not Tributary's; new ports settle it.
      if (attempt >= portAttemptsMax || !(error instanceof PortTakenError)) throw error;
    }
  }
}

/** Starts with fresh ports this many times at most when a port was taken meanwhile. */
const portAttemptsMax = 3;

class PortTakenError extends Error {}

async function startOnFreePorts(
  command: (port: number, inspectorPort: number, persistTo: string) => ServerCommand,
  options: DevServerOptions,
): Promise<DevServer> {
  const [port, inspectorPort] = await twoFreePorts();
  const persistTo = mkdtempSync(join(tmpdir(), "tributary-e2e-"));
  const { command: file, args } = command(port, inspectorPort, persistTo);
  const spawnServer = () => spawn(file, args, {
    cwd: options.cwd ?? repositoryRoot,
    detached: true, // its own process group, so one kill reaches workerd too
    stdio: ["ignore", "pipe", "pipe"], // no TTY on stdin: nothing interactive, nothing waits for a key
    env: {
      ...process.env,
      PATH: `${projectBinDirectory}${delimiter}${process.env.PATH ?? ""}`,
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: "1",
      npm_config_update_notifier: "false",
      ...options.env,
    },
  });
  const readyWhen = options.readyWhen;
  const ready = (server: DevServer, child: ChildProcess) =>
    readyWhen === undefined ? waitForHealth(server, child) : waitForOutput(server, child, readyWhen);
  const server = track(spawnServer, ready, port, persistTo);
  try {
    await server.resume();
  } catch (error) {
    await server.stop();
    if (/Address already in use/.test(server.output())) throw new PortTakenError((error as Error).message);
    throw error;
  }
  return server;
}

/** Servers not yet stopped, with their persistence directories and their process group while one runs. */
const running = new Map<DevServer, { persistTo: string; processGroup: () => number | undefined }>();

function track(
  spawnServer: () => ChildProcess,
  ready: (server: DevServer, child: ChildProcess) => Promise<void>,
  port: number,
  persistTo: string,
): DevServer {
  let output = "";
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-outputTailChars);
  };
  let child: ChildProcess | undefined;
  let stopping: Promise<void> | undefined;
  const start = (): ChildProcess => {
    const started = spawnServer();
    started.on("error", (error) => append(Buffer.from(`\n[spawn error] ${error.message}\n`)));
    if (started.pid === undefined) throw new Error(`could not spawn ${started.spawnfile}`);
    remember(started.pid, { what: `${started.spawnfile} on port ${port}`, group: true });
    started.stdout?.on("data", append);
    started.stderr?.on("data", append);
    return started;
  };
  const halt = async () => {
    if (child?.pid !== undefined) {
      await stopGroup(child.pid);
      forget(child.pid);
    }
    child = undefined;
  };
  const server: DevServer = {
    url: `http://127.0.0.1:${port}`,
    get processGroupId() {
      if (child?.pid === undefined) throw new Error("the dev server is not running");
      return child.pid;
    },
    output: () => output,
    stop: () => {
      stopping ??= halt().finally(() => {
        running.delete(server);
        rmSync(persistTo, { recursive: true, force: true });
      });
      return stopping;
    },
    halt,
    resume: async () => {
      if (child !== undefined) throw new Error("resume() after halt(): the dev server is running");
      child = start();
      await ready(server, child);
    },
  };
  running.set(server, { persistTo, processGroup: () => child?.pid });
  killOnExit();
  return server;
}

async function waitForHealth(server: DevServer, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + healthDeadlineMs;
  let lastProblem = "no answer yet";
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the dev server exited (${child.exitCode ?? child.signalCode}) before it was healthy:\n${server.output()}`);
    }
    try {
      const response = await fetch(`${server.url}/v1/health`, { signal: AbortSignal.timeout(healthRequestTimeoutMs) });
      await response.arrayBuffer();
      if (response.status === 200) return;
      lastProblem = `GET /v1/health answered ${response.status}`;
    } catch (error) {
      lastProblem = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
    }
    await sleep(healthPollIntervalMs);
  }
  throw new Error(`GET ${server.url}/v1/health did not answer 200 within ${healthDeadlineMs} ms (${lastProblem}); output:\n${server.output()}`);
}

/** For a Worker without Tributary's health route: polls its output until `readyWhen` holds (bounded). */
async function waitForOutput(server: DevServer, child: ChildProcess, readyWhen: (output: string) => boolean): Promise<void> {
  const deadline = Date.now() + healthDeadlineMs;
  while (Date.now() < deadline) {
    if (readyWhen(server.output())) return;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the dev server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${server.output()}`);
    }
    await sleep(healthPollIntervalMs);
  }
  throw new Error(`${server.url} did not say it was ready within ${healthDeadlineMs} ms; output:\n${server.output()}`);
}

async function stopGroup(processGroupId: number): Promise<void> {
  signalGroup(processGroupId, "SIGTERM");
  await waitUntilGroupGone(processGroupId, stopGraceMs);
  if (livingMembers(processGroupId).length === 0) return;
  signalGroup(processGroupId, "SIGKILL");
  await waitUntilGroupGone(processGroupId, stopAfterKillMs);
  const left = livingMembers(processGroupId);
  if (left.length > 0) throw new Error(`process group ${processGroupId} survived SIGKILL:\n${left.join("\n")}`);
}

function signalGroup(processGroupId: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-processGroupId, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error; // ESRCH: the group is already gone
  }
}

async function waitUntilGroupGone(processGroupId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && livingMembers(processGroupId).length > 0) await sleep(100);
}

/**
 * The processes of a group that still run, as `ps` lines. Zombies are left out: they have
 * exited and hold no port, and a container whose init does not reap may keep them listed.
 */
export function livingMembers(processGroupId: number): string[] {
  const table = execFileSync("ps", ["-A", "-o", "pid=,pgid=,stat=,args="], { encoding: "utf8" });
  return table
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => {
      const [, pgid, stat] = line.split(/\s+/);
      return pgid === String(processGroupId) && stat !== undefined && !stat.startsWith("Z");
    });
}

let exitHooksInstalled = false;

/** Last resort when `afterAll` does not run: kill every group still running, synchronously. */
function killOnExit(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  const killAll = () => {
    for (const { persistTo, processGroup } of running.values()) {
      const processGroupId = processGroup();
      if (processGroupId !== undefined) signalGroup(processGroupId, "SIGKILL");
      rmSync(persistTo, { recursive: true, force: true });
    }
    running.clear();
  };
  process.on("exit", killAll);
  if (!isMainThread) return; // a worker thread receives no signals
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      killAll();
      process.removeListener(signal, onSignal);
      // Without other listeners, re-raise so the process ends as the signal means it to.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
