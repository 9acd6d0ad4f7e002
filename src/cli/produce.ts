/**
 * `tributary produce <topic>`: one record per line of stdin or --file, through the client's
 * producer (batched per partition, binary, retried). A progress line on a terminal; a summary
 * at the end. On a failure it stops reading and says how many records were acknowledged.
 */
import { createReadStream } from "node:fs";
import type { Acks, Message, RecordMetadata } from "../client/index.ts";
import { integerValue, stringValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { byteLines, splitKey } from "./lines.ts";
import { Progress } from "./progress.ts";
import { formatBytes, formatCount } from "./table.ts";

export const produceOptions: OptionName[] = ["file", "key-separator", "partition", "acks", "linger-ms", "batch-bytes", "quiet"];

/** Sends (one per input chunk) awaiting acknowledgement at once: with the producer's own buffer bound, memory stays bounded. */
const sendsInFlightMax = 32;

function acksValue(text: string | undefined): Acks | undefined {
  if (text === undefined) return undefined;
  if (text === "0") return 0;
  if (text === "1") return 1;
  if (text === "all") return "all";
  throw new UsageError("--acks takes 0, 1 or all");
}

export async function produceCommand(context: CommandContext): Promise<void> {
  const [topic, ...extra] = context.args;
  if (topic === undefined) throw new UsageError("name the topic: tributary produce <topic>");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  const values = context.values;
  const separatorText = stringValue(values, "key-separator");
  if (separatorText === "") throw new UsageError("--key-separator must not be empty");
  const separator = separatorText === undefined ? undefined : new TextEncoder().encode(separatorText);
  const partition = integerValue(values, "partition", 0);
  const producer = context.client.producer({
    acks: acksValue(stringValue(values, "acks")),
    lingerMs: integerValue(values, "linger-ms", 0, 60_000) ?? 10,
    batchBytes: integerValue(values, "batch-bytes", 1, 1024 * 1024),
  });
  const file = stringValue(values, "file");
  const input = file === undefined ? context.io.stdin : createReadStream(file);
  const progress = new Progress(context.io.stderr, context.io.stderrIsTTY && values.quiet !== true && !context.json, "produced");

  let lineNumber = 0;
  let acknowledged = 0;
  let bytes = 0;
  let failure: unknown;
  const byPartition = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  const onSent = (results: RecordMetadata[], size: number) => {
    acknowledged += results.length;
    bytes += size;
    for (const result of results) byPartition.set(result.partition, (byPartition.get(result.partition) ?? 0) + 1);
    progress.update(acknowledged, bytes);
  };

  try {
    for await (const lines of byteLines(input)) {
      const messages = lines.map((line): Message => {
        lineNumber += 1;
        if (separator === undefined) return { value: line, partition };
        const split = splitKey(line, separator);
        if (split === undefined) throw new Error(`line ${lineNumber} has no key separator ${JSON.stringify(separatorText)}`);
        return { key: split.key, value: split.value, partition };
      });
      const size = lines.reduce((sum, line) => sum + line.length, 0);
      const sent: Promise<void> = producer.send({ topic, messages }).then(
        (results) => onSent(results, size),
        (error: unknown) => void (failure ??= error),
      );
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
      while (inFlight.size >= sendsInFlightMax) await Promise.race(inFlight);
      if (failure !== undefined) break;
    }
  } finally {
    if (file !== undefined) (input as ReturnType<typeof createReadStream>).destroy();
    await Promise.allSettled(inFlight);
    await producer.close();
    progress.finish();
  }
  if (failure !== undefined) {
    context.io.stderr.write(`${formatCount(acknowledged)} records were acknowledged before the failure\n`);
    throw failure;
  }
  const seconds = progress.elapsedMs / 1000;
  const rate = acknowledged / Math.max(seconds, 0.001);
  const summary = { topic, records: acknowledged, bytes, seconds, recordsPerSecond: Math.round(rate), partitions: Object.fromEntries([...byPartition].sort(([a], [b]) => a - b)) };
  if (context.json) return output(context, summary, () => "");
  const partitions = [...byPartition].sort(([a], [b]) => a - b).map(([p, n]) => `${p}: ${formatCount(n)}`).join(", ");
  context.io.stderr.write(
    `produced ${formatCount(acknowledged)} records (${formatBytes(bytes)}) to ${topic} in ${seconds.toFixed(1)} s · ${formatCount(rate)} records/s` +
      (partitions === "" ? "\n" : ` · partitions ${partitions}\n`),
  );
}
