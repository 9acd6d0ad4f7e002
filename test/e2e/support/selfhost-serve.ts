/**
 * `tributary serve` as a user runs it — `node bin/tributary.js serve --data DIR --port N`
 * (the built CLI, on the `node` dev dependency's Node 22) — in its own process group, for the
 * e2e layer and the benchmark's startup row:
 *
 *   spawn (detached: pgid = pid) ──► poll GET /v1/health until 200 (bounded) ──► ServeProcess
 *
 * The test sends the signals itself (`signal`), to the serve process alone, not its group: what
 * serve does with its children is what is tested. Every group still running when the test
 * process exits is killed.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";
import { freePort, livingMembers, repositoryRoot } from "./wrangler-dev.ts";
import { forget, remember } from "./leftovers.ts";

const nodeBinary = join(repositoryRoot, "node_modules", ".bin", "node");
const cliEntry = join(repositoryRoot, "bin", "tributary.js");
/** serve answers in about a second here; a cold disk on a slow CI machine takes longer. */
const healthDeadlineMs = 60_000;
const healthPollIntervalMs = 50;
const outputTailChars = 16_384;
const portAttemptsMax = 3;

export interface ServeProcess {
  url: string;
  /** The serve process, also its process group id. */
  pid: number;
  /** From spawn to the first 200 from GET /v1/health. */
  startupMs: number;
  output(): string;
  /** How the serve process ended (its own exit, not its children's). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal(name: NodeJS.Signals): void;
  /** Waits until no process of the group lives (zombies aside), at most `timeoutMs`; answers what still lives. */
  waitUntilGone(timeoutMs: number): Promise<string[]>;
}

const running = new Set<number>();

export async function startServe(dataDirectory: string, extraArgs: string[] = []): Promise<ServeProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startOnPort(dataDirectory, port, extraArgs);
    } catch (error) {
      // Another process on the machine may take the free port before workerd binds it.
      if (attempt >= portAttemptsMax || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

async function startOnPort(dataDirectory: string, port: number, extraArgs: string[]): Promise<ServeProcess> {
  const startedAt = performance.now();
  const child = spawn(nodeBinary, [cliEntry, "serve", "--data", dataDirectory, "--port", String(port), ...extraArgs], {
    cwd: repositoryRoot,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (child.pid === undefined) throw new Error("could not spawn tributary serve");
  const pid = child.pid;
  running.add(pid);
  remember(pid, { what: `tributary serve on port ${port}`, group: true });
  killOnExit();
  let output = "";
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-outputTailChars);
  };
  child.stdout.on("data", append);
  child.stderr.on("data", append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const url = `http://127.0.0.1:${port}`;
  const serve: ServeProcess = {
    url,
    pid,
    startupMs: 0,
    output: () => output,
    exited,
    signal: (name) => {
      try {
        process.kill(pid, name);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    },
    waitUntilGone: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && livingMembers(pid).length > 0) await sleep(100);
      const left = livingMembers(pid);
      if (left.length === 0) {
        running.delete(pid);
        forget(pid);
      }
      return left;
    },
  };
  let ended = false;
  void exited.then(() => (ended = true));
  const deadline = Date.now() + healthDeadlineMs;
  while (Date.now() < deadline) {
    if (ended) {
      await serve.waitUntilGone(5_000);
      throw new Error(`tributary serve exited before it was healthy:\n${output}`);
    }
    try {
      const response = await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return { ...serve, startupMs: performance.now() - startedAt };
    } catch {
      // not listening yet
    }
    await sleep(healthPollIntervalMs);
  }
  killGroup(pid);
  throw new Error(`tributary serve did not answer GET /v1/health within ${healthDeadlineMs} ms:\n${output}`);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone already
  }
}

let exitHookInstalled = false;

function killOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of running) killGroup(pid);
  });
  if (!isMainThread) return;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      for (const pid of running) killGroup(pid);
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
