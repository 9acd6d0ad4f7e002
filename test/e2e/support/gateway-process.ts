/**
 * `tributary gateway` as a process of its own (to SIGKILL it): on a free port, resolved once
 * it accepts connections.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { cliEntry } from "./cli.ts";
import { freePort, repositoryRoot } from "./wrangler-dev.ts";

export interface GatewayProcess {
  /** host:port, as Kafka clients take it. */
  broker: string;
  child: ChildProcess;
  output(): string;
  kill(): void;
}

export async function startGatewayProcess(url: string): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [cliEntry, "gateway", "--url", url, "--listen", `127.0.0.1:${port}`], {
    cwd: repositoryRoot,
    env: { ...process.env, TRIBUTARY_TOKEN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const deadline = Date.now() + 30_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { broker: `127.0.0.1:${port}`, child, output: () => output, kill: () => void child.kill("SIGKILL") };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
