/**
 * The gateway's produce row with Kafka's own producer: the Java client 4.4 with its defaults
 * (idempotent, acks=all, up to 5 requests in flight on its one connection, batch.size 16 KiB,
 * linger.ms 5) as Kafka's `ProducerPerformance` drives it (`kafka-producer-perf-test`:
 * --throughput -1, records of `recordBytes`), through the gateway. The gateway handles a
 * connection's requests one at a time (issue 34), so this row says what that costs against
 * Tributary's own client writing the same records with its defaults; the requests the Java
 * producer sends while one is written are written together (produce-writes.ts).
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
export const kafkaScript = join(repositoryRoot, "..", "shared", "kafka", "kafka.sh");

/** Records/s the Java producer reports for `records` through `address`; undefined when kafka.sh or java is not there. */
export async function javaProducerRate(address: string, topic: string, records: number, recordBytes: number): Promise<number | undefined> {
  if (!existsSync(kafkaScript)) return undefined;
  let classpath: string;
  try {
    classpath = (await run("bash", [kafkaScript, "classpath"], { timeout: 600_000 })).stdout.trim().split("\n").at(-1)!;
  } catch {
    return undefined;
  }
  const { stdout } = await run(
    "java",
    ["-Xmx512m", "-cp", classpath, "org.apache.kafka.tools.ProducerPerformance", "--topic", topic, "--num-records", String(records), "--record-size", String(recordBytes), "--throughput", "-1", "--command-property", `bootstrap.servers=${address}`],
    { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const summary = /(\d+) records sent, ([\d.]+) records\/sec/.exec(stdout.trim().split("\n").at(-1) ?? "");
  if (summary === null || Number(summary[1]) !== records) throw new Error(`ProducerPerformance did not finish: ${stdout.slice(-500)}`);
  return Number(summary[2]);
}
