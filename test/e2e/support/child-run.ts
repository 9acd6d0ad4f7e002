/**
 * A program an e2e test runs to its end (a Java or Python client program): its output
 * collected, killed (SIGKILL) after `timeoutMs`, remembered until it exits (leftovers.ts) and
 * killed with the test process if that exits first. `killAt` stops it hard (SIGKILL: no
 * cleanup, as a crash) as soon as it prints a line holding that text; `input` is written to
 * its stdin (then closed).
 */
import { spawn } from "node:child_process";
import { forget, remember } from "./leftovers.ts";
import { repositoryRoot } from "./wrangler-dev.ts";

export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const living = new Set<ReturnType<typeof spawn>>();
process.once("exit", () => {
  for (const child of living) child.kill("SIGKILL");
});

export interface RunOptions {
  killAt?: string;
  input?: string;
}

export async function runToEnd(command: string, args: string[], what: string, timeoutMs: number, { killAt, input }: RunOptions = {}): Promise<ChildRun> {
  const child = spawn(command, args, { cwd: repositoryRoot, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) child.stdin!.end(input);
  living.add(child);
  remember(child.pid, { what, group: false });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    if (killAt !== undefined && stdout.split("\n").slice(0, -1).some((line) => line.includes(killAt))) child.kill("SIGKILL");
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  living.delete(child);
  forget(child.pid);
  return { code, stdout, stderr };
}
