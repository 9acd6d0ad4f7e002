/**
 * `tributary gateway` as a user runs it (node bin/tributary.js gateway, over dist/ — call
 * buildCli() first), on a free port, in front of a server (wrangler dev): started, ready once
 * it printed its listening line, stopped by its pid (SIGTERM, then SIGKILL after a grace).
 *
 *   const gateway = await startGateway(server.url, { args: ["--auto-create-topics"] });
 *   new Kafka({ brokers: [gateway.address] })  …  await gateway.stop();
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cliEntry } from "./cli.ts";
import { forget, remember } from "./leftovers.ts";
import { freePort, repositoryRoot } from "./wrangler-dev.ts";

/** The listening line comes within a second here; a cold start on a slow machine takes longer. */
const readyDeadlineMs = 30_000;
const stopGraceMs = 12_000;

export interface GatewayProcess {
  /** "127.0.0.1:PORT", for `bootstrap.servers` / kafkajs `brokers`. */
  address: string;
  host: string;
  port: number;
  child: ChildProcess;
  /** Everything printed so far on stdout and on stderr. */
  stdout(): string;
  stderr(): string;
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code once it exited (SIGKILL after a grace). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface GatewayStartOptions {
  /** More arguments (`--auto-create-topics`, `--max-connections 2`, …). */
  args?: string[];
  /** TRIBUTARY_TOKEN for the gateway (default none). */
  token?: string;
  /** A port to listen on (default: a free one). */
  port?: number;
}

const living = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of living) child.kill("SIGKILL");
});

export async function startGateway(url: string, options: GatewayStartOptions = {}): Promise<GatewayProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [cliEntry, "gateway", "--url", url, "--listen", `127.0.0.1:${port}`, ...(options.args ?? [])], {
    cwd: repositoryRoot,
    env: { ...process.env, TRIBUTARY_TOKEN: options.token ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  living.add(child);
  remember(child.pid, { what: `tributary gateway on 127.0.0.1:${port}`, group: false });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => (living.delete(child), forget(child.pid), resolve(code))));
  const ready = await Promise.race([
    new Promise<"ready">((resolve) => {
      const check = () => (stdout.includes("Kafka gateway on") ? resolve("ready") : undefined);
      child.stdout!.on("data", check);
    }),
    exited.then(() => "exited" as const),
    new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), readyDeadlineMs).unref()),
  ]);
  if (ready !== "ready") {
    child.kill("SIGKILL");
    throw new Error(`tributary gateway did not start (${ready}):\n${stdout}\n${stderr}`);
  }
  return {
    address: `127.0.0.1:${port}`,
    host: "127.0.0.1",
    port,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), stopGraceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
