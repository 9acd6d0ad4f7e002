/**
 * `tributary serve --data DIR [--port N] [--host H] [--admin-token T]`: Tributary self-hosted
 * on one machine — the built Worker on workerd through Miniflare (src/testing/run-worker.ts,
 * the code path `startTributary()` runs too), its SQLite databases and R2 segment objects
 * under DIR, kept across restarts (docs/self-hosting.md).
 *
 *   lock DIR (tributary-serve.pid) ──► Miniflare + workerd on host:port ──► a reaper process
 *     ──► wait for SIGINT / SIGTERM / SIGHUP ──► dispose (workerd ends) ──► unlock ──► exit 0
 *
 * A record is acknowledged only after its Durable Object committed it to SQLite, so ending
 * workerd at any moment (dispose kills it; so may SIGKILL) loses no acknowledged record.
 * Miniflare's own exit hook answers SIGINT/SIGTERM with exit 130/143: serve replaces it.
 * SIGKILL gives this process no chance to end workerd, so a small reaper process, whose stdin
 * is a pipe from here, kills workerd when that pipe closes: no workerd outlives serve to hold
 * the port and DIR's databases.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { integerValue, stringValue, UsageError, type OptionName } from "./args.ts";
import type { CommandContext } from "./context.ts";

export const serveOptions: OptionName[] = ["data", "port", "host", "admin-token"];

/** wrangler dev's port, and the CLI's default --url. */
const defaultPort = 8787;
/** After a stop signal, dispose gets this long before workerd is killed outright (the bound is 15 s). */
const disposeTimeoutMs = 10_000;
/** How often the reaper learns workerd's pid again (Miniflare restarts a crashed workerd). */
const reaperRefreshMs = 10_000;
const lockFileName = "tributary-serve.pid";
const stopSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export async function serveCommand(context: CommandContext): Promise<void> {
  const { values, io } = context;
  const data = stringValue(values, "data");
  if (data === undefined || data === "") throw new UsageError("serve needs --data DIR: where Tributary keeps its state");
  const port = integerValue(values, "port", 0, 65_535) ?? defaultPort;
  const host = stringValue(values, "host") ?? "127.0.0.1";
  const adminToken = stringValue(values, "admin-token") ?? io.env.TRIBUTARY_ADMIN_TOKEN;
  const directory = resolve(data);

  mkdirSync(directory, { recursive: true });
  const unlock = lock(directory);
  // Listening from the start: a stop signal during startup stops serve once workerd is up.
  const stopSignal = new Promise<NodeJS.Signals>((resolveSignal) => {
    for (const name of stopSignals) process.on(name, () => resolveSignal(name));
  });
  try {
    const { runTributaryWorker } = await import("../testing/run-worker.ts");
    const worker = await runTributaryWorker({
      persistPath: directory,
      host,
      port,
      vars: adminToken === undefined || adminToken === "" ? {} : { TRIBUTARY_ADMIN_TOKEN: adminToken },
      logLevel: "warn",
      ownSignals: true,
    });
    const reaper = startReaper();
    io.stdout.write(`Tributary on ${worker.url}, state in ${directory}${adminToken ? "" : " (no admin token: every request is allowed)"}\n`);
    const signal = await stopSignal;
    io.stdout.write(`${signal}: stopping\n`);
    await stopWithin(worker.dispose(), disposeTimeoutMs, () => killWorkerd(workerdPids()));
    reaper.stop();
  } finally {
    unlock();
  }
}

async function stopWithin(disposing: Promise<void>, timeoutMs: number, force: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout("timeout"), timeoutMs);
  });
  const outcome = await Promise.race([disposing.then(() => "done" as const), timedOut]);
  clearTimeout(timer);
  if (outcome === "timeout") force();
}

/**
 * DIR belongs to one serve at a time: two workerd processes on the same SQLite files would
 * not corrupt them (SQLite locks) but each would cache state the other changes.
 */
function lock(directory: string): () => void {
  const path = resolve(directory, lockFileName);
  let holder: number | undefined;
  try {
    holder = Number(readFileSync(path, "utf8").trim());
  } catch {
    holder = undefined;
  }
  if (holder !== undefined && Number.isSafeInteger(holder) && holder !== process.pid && isAlive(holder)) {
    throw new Error(`${directory} is in use by another tributary serve (pid ${holder}); stop it first`);
  }
  writeFileSync(path, `${process.pid}\n`);
  return () => rmSync(path, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The workerd processes this process started (Miniflare does not say), from `ps` (none where there is no `ps`). */
function workerdPids(): number[] {
  let table: string;
  try {
    table = execFileSync("ps", ["-A", "-o", "pid=,ppid=,comm="], { encoding: "utf8" });
  } catch {
    return [];
  }
  return table
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, ppid, command]) => ppid === String(process.pid) && command !== undefined && command.includes("workerd"))
    .map(([pid]) => Number(pid));
}

function killWorkerd(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Reads pid lines on stdin (the last line is the current list); when stdin closes — this
 * process ended, however — kills those pids. Stop signals do not end it (a terminal's Ctrl-C
 * reaches the whole process group): only the pipe does.
 */
const reaperScript = `
let buffer = "", pids = [];
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => {});
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  const lines = buffer.split("\\n");
  buffer = lines.pop();
  if (lines.length > 0) pids = lines.at(-1).split(" ").map(Number).filter((pid) => pid > 0);
});
process.stdin.on("end", () => {
  for (const pid of pids) { try { process.kill(pid, "SIGKILL"); } catch {} }
  process.exit(0);
});
`;

function startReaper(): { stop(): void } {
  const reaper: ChildProcess = spawn(process.execPath, ["-e", reaperScript], { stdio: ["pipe", "ignore", "ignore"] });
  // A reaper someone killed must not take serve down with an EPIPE: serve still stops workerd on a signal.
  reaper.stdin?.on("error", () => {});
  const tell = (pids: number[]) => reaper.stdin?.write(`${pids.join(" ")}\n`);
  tell(workerdPids());
  const refresh = setInterval(() => tell(workerdPids()), reaperRefreshMs);
  refresh.unref();
  reaper.unref();
  return {
    stop() {
      clearInterval(refresh);
      tell([]); // workerd has ended: nothing left to kill, and no pid to hit after reuse
      reaper.stdin?.end();
    },
  };
}
