/**
 * The `tributary` command as a user runs it: `node bin/tributary.js`, a real process over the
 * JavaScript that `npm run build` compiles (tsconfig.build.json → dist/), against a server.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { repositoryRoot } from "./wrangler-dev.ts";

export const cliEntry = join(repositoryRoot, "bin", "tributary.js");

/** Compiles the CLI and the client to dist/, as `npm install` (the prepare script) does. */
export function buildCli(): void {
  execFileSync(join(repositoryRoot, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: repositoryRoot, stdio: "pipe" });
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  /** Resolves when the process exits, with everything it printed. */
  done: Promise<CliResult>;
}

export interface CliOptions {
  /** The whole input (default none); "open": left open for the test to write to `child.stdin`. */
  stdin?: Buffer | "open";
  /** Passed to the process as TRIBUTARY_TOKEN (default none, whatever the caller's environment holds). */
  token?: string;
}

/** Starts `tributary <args>` with TRIBUTARY_URL set to `url`. */
export function spawnCli(url: string, args: string[], options: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, [cliEntry, ...args], {
    cwd: repositoryRoot,
    env: { ...process.env, TRIBUTARY_URL: url, TRIBUTARY_TOKEN: options.token ?? "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
  if (options.stdin !== "open") child.stdin!.end(options.stdin ?? Buffer.alloc(0));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString("utf8") }),
    );
  });
  return { child, done };
}

/** Runs `tributary <args>` to its end. */
export async function runCli(url: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  return spawnCli(url, args, options).done;
}
