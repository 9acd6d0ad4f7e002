/**
 * The gateway's consume row read by librdkafka (Debian's kcat), an informative figure beside
 * kafkajs's: librdkafka decodes in C and sends its next Fetch as soon as an answer arrives (it
 * queues records ahead of the application), so its rate says how fast the gateway itself can
 * hand a partition out; kafkajs's says how fast kafkajs takes it.
 *
 * Timed as the kafkajs row is, from the first Fetch: kcat runs with `-d fetch`, and librdkafka's
 * debug line "Fetch topic … at offset 0" carries the wall-clock time (ms) it sent that Fetch;
 * the clock stops when kcat has printed the last record's offset (`-f '%o\n'`, one line a
 * record, each handed to kcat's output as an application would get it).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { kcatPath } from "../test/e2e/support/kcat.ts";


/** Records/s of kcat reading `total` records of partition 0 from offset 0 through `address`; undefined when kcat is not installed. */
export async function kcatConsume(address: string, topic: string, total: number, timeoutMs = 60_000): Promise<number | undefined> {
  if (!existsSync(kcatPath)) return undefined;
  const args = ["-b", address, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-c", String(total), "-e", "-q", "-f", "%o\n", "-d", "fetch"];
  const child = spawn(kcatPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let lines = 0;
  let lastAt = 0;
  let log = "";
  child.stdout.on("data", (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) lines += 1;
    if (lines >= total && lastAt === 0) lastAt = Date.now();
  });
  child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  clearTimeout(timer);
  const first = new RegExp(`\\|(\\d+\\.\\d+)\\|FETCH\\|[^\\n]*Fetch topic ${topic} \\[0\\] at offset 0 `).exec(log);
  if (code !== 0 || lastAt === 0 || first === null) throw new Error(`kcat read ${lines} of ${total} records (exit ${code}): ${log.slice(-500)}`);
  return lines / ((lastAt - Number(first[1]) * 1000) / 1000);
}
