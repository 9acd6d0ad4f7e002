/**
 * The gateway's produce row with Kafka's own producer: the Java client 4.4 with its defaults
 * (idempotent, acks=all, up to 5 requests in flight on its one connection, batch.size 16 KiB,
 * linger.ms 5) as Kafka's `ProducerPerformance` drives it (`kafka-producer-perf-test`:
 * --throughput -1, records of `recordBytes`), through the gateway. The gateway handles a
 * connection's requests one at a time (issue 34), so this row says what that costs against
 * Tributary's own client writing the same records with its defaults; the requests the Java
 * producer sends while one is written are written together (produce-writes.ts).
 *
 * And its consume row with Kafka's own consumer (`kafka-consumer-perf-test`, below).
 *
 * The tool and its classpath come from the workplace's shared/kafka/kafka.sh (Maven Central,
 * once); without it, or without java, the row is skipped.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";

const run = promisify(execFile);
/** The workplace's shared/kafka/kafka.sh, beside the main checkout or two levels up from a worktree (/work/wt/<name>). */
export const kafkaScript = [join(repositoryRoot, "..", "shared", "kafka", "kafka.sh"), join(repositoryRoot, "..", "..", "shared", "kafka", "kafka.sh")].find((path) => existsSync(path)) ?? "";

/** Records/s the Java producer reports for `records` through `address`; undefined when kafka.sh or java is not there. */
export async function javaProducerRate(address: string, topic: string, records: number, recordBytes: number): Promise<number | undefined> {
  const classpath = await kafkaClasspath();
  if (classpath === undefined) return undefined;
  const { stdout } = await run(
    "java",
    ["-Xmx512m", "-cp", classpath, "org.apache.kafka.tools.ProducerPerformance", "--topic", topic, "--num-records", String(records), "--record-size", String(recordBytes), "--throughput", "-1", "--command-property", `bootstrap.servers=${address}`],
    { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const summary = /(\d+) records sent, ([\d.]+) records\/sec/.exec(stdout.trim().split("\n").at(-1) ?? "");
  if (summary === null || Number(summary[1]) !== records) throw new Error(`ProducerPerformance did not finish: ${stdout.slice(-500)}`);
  return Number(summary[2]);
}

/** kafka.sh's classpath (kafka-tools and kafka-clients 4.4), or undefined without kafka.sh or java. */
export async function kafkaClasspath(): Promise<string | undefined> {
  if (!existsSync(kafkaScript)) return undefined;
  try {
    return (await run("bash", [kafkaScript, "classpath"], { timeout: 600_000 })).stdout.trim().split("\n").at(-1)!;
  } catch {
    return undefined;
  }
}

/**
 * Records/s the Java consumer reads `records` from the start of `topic` through `address` with:
 * Kafka's ConsumerPerformance (`kafka-consumer-perf-test`), the Java client 4.4's defaults, in a
 * new group of one (classic protocol, auto.offset.reset earliest). Its fetch.nMsg.sec: timed
 * from the first fetch after the group's join, as the kafkajs row is. Undefined without kafka.sh or java.
 */
export async function javaConsumerRate(address: string, topic: string, records: number, group: string): Promise<number | undefined> {
  const classpath = await kafkaClasspath();
  if (classpath === undefined) return undefined;
  const { stdout } = await run(
    "java",
    ["-Xmx512m", "-cp", classpath, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", address, "--topic", topic, "--num-records", String(records), "--group", group, "--timeout", "60000", "--command-property", "auto.offset.reset=earliest"],
    { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
  );
  // The header names the columns; the line after it holds them (start.time, …, data.consumed.in.nMsg, …, fetch.nMsg.sec).
  const lines = stdout.trim().split("\n");
  const header = lines.findIndex((line) => line.includes("fetch.nMsg.sec"));
  const names = (lines[header] ?? "").split(",").map((name) => name.trim());
  const values = (lines[header + 1] ?? "").split(",").map((value) => value.trim());
  const consumed = Number(values[names.indexOf("data.consumed.in.nMsg")]);
  const rate = Number(values[names.indexOf("fetch.nMsg.sec")]);
  if (header < 0 || consumed < records || !Number.isFinite(rate)) throw new Error(`ConsumerPerformance did not finish: ${stdout.slice(-500)}`);
  return rate;
}
