/**
 * `tributary produce <topic>`: one record per line of stdin or --file, through the client's
 * producer (batched per partition, binary, retried). A progress line on a terminal; a summary
 * at the end.
 *
 * A run that stops early — a line that cannot be a record (no key separator, larger than the
 * topic's max.message.bytes), a refused request, Ctrl-C — stops reading, still produces every
 * line read before the stop, waits for their answers, and says how many records were
 * acknowledged and from which line to resume (acknowledged-lines.ts).
 */
import { open, type FileHandle } from "node:fs/promises";
import { addAbortSignal, type Readable } from "node:stream";
import type { Acks, Producer, ProducerOptions } from "../client/index.ts";
import { compressionCodecs, isCompressionCodec, type CompressionCodec } from "../protocol/compression/codecs.ts";
import { batchBytesMax, partitionsPerTopicMax, recordBytesMax } from "../limits.ts";
import { AcknowledgedLines } from "./acknowledged-lines.ts";
import { integerValue, stringValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { Interrupted } from "./io.ts";
import { byteLines, linesToMessages, type LineRules } from "./lines.ts";
import { Progress } from "./progress.ts";
import { countOf, formatBytes, formatCount } from "./table.ts";

export const produceOptions: OptionName[] = ["file", "key-separator", "partition", "acks", "linger-ms", "batch-bytes", "compression", "quiet"];

/** Sends (one per input chunk) awaiting acknowledgement at once: with the producer's own buffer bound, memory stays bounded. */
const sendsInFlightMax = 32;

interface Settings {
  topic: string;
  file: string | undefined;
  rules: Omit<LineRules, "recordBytesMax">;
  producer: ProducerOptions;
}

function acksValue(text: string | undefined): Acks | undefined {
  if (text === undefined) return undefined;
  if (text === "0") return 0;
  if (text === "1") return 1;
  if (text === "all") return "all";
  throw new UsageError(`--acks takes 0, 1 or all, got ${JSON.stringify(text)}`);
}

function compressionValue(text: string | undefined): CompressionCodec | undefined {
  if (text === undefined || isCompressionCodec(text)) return text;
  throw new UsageError(`--compression takes ${compressionCodecs.join(", ")}, got ${JSON.stringify(text)}`);
}

function settingsOf(context: CommandContext): Settings {
  const [topic, ...extra] = context.args;
  if (topic === undefined) throw new UsageError("name the topic: tributary produce <topic>");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  const values = context.values;
  const separatorText = stringValue(values, "key-separator");
  if (separatorText === "") throw new UsageError("--key-separator must not be empty");
  return {
    topic,
    file: stringValue(values, "file"),
    rules: {
      separator: separatorText === undefined ? undefined : new TextEncoder().encode(separatorText),
      separatorText,
      partition: integerValue(values, "partition", 0, partitionsPerTopicMax - 1),
    },
    producer: {
      acks: acksValue(stringValue(values, "acks")),
      lingerMs: integerValue(values, "linger-ms", 0, 60_000) ?? 10,
      batchBytes: integerValue(values, "batch-bytes", 1, batchBytesMax),
      compression: compressionValue(stringValue(values, "compression")),
    },
  };
}

/**
 * The topic's max.message.bytes. Without --partition the producer describes the topic anyway
 * (for its partition count; this description is cached for it); with it, nothing is asked and
 * the largest any topic may have stands in (the server refuses a record over a smaller one).
 */
async function recordBytesMaxOf(context: CommandContext, settings: Settings): Promise<number> {
  if (settings.rules.partition !== undefined) return recordBytesMax;
  const topic = await context.client.admin().topics.describe(settings.topic);
  const configured = Number(topic.configs["max.message.bytes"]);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : recordBytesMax;
}

/** Why a file cannot be read, in words (its errno code otherwise). */
const unreadable: Record<string, string> = { ENOENT: "no such file", EACCES: "permission denied", EPERM: "permission denied", EISDIR: "it is a directory" };

/**
 * --file, opened before anything is asked of the server: a file that cannot be read is said
 * once, as that — not as a stopped produce with a line to resume from.
 */
async function openFile(file: string): Promise<FileHandle> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, "r");
    // Opening a directory succeeds on Linux; reading it would fail later.
    if ((await handle.stat()).isDirectory()) throw Object.assign(new Error("a directory"), { code: "EISDIR" });
    return handle;
  } catch (error) {
    await handle?.close();
    const code = (error as NodeJS.ErrnoException).code ?? "";
    throw new Error(`cannot read --file ${file}: ${unreadable[code] ?? (error as Error).message}`);
  }
}

interface Tally {
  ledger: AcknowledgedLines;
  bytes: number;
  byPartition: Map<number, number>;
}

/**
 * Reads and sends until the input ends or `stop` aborts (Ctrl-C, or the first failure, which
 * aborts it here); answers the first failure. Aborting destroys the input, so a read waiting
 * for input that has not come ends at once.
 */
async function produceLines(context: CommandContext, settings: Settings, file: FileHandle | undefined, tally: Tally, progress: Progress, stop: AbortController): Promise<unknown> {
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
    stop.abort(error);
  };
  let producer: Producer | undefined;
  let input: Readable | undefined;
  const inFlight = new Set<Promise<void>>();
  try {
    const rules = { ...settings.rules, recordBytesMax: await recordBytesMaxOf(context, settings) };
    producer = context.client.producer(settings.producer);
    input = addAbortSignal(stop.signal, file === undefined ? context.io.stdin : file.createReadStream());
    let linesRead = 0;
    for await (const lines of byteLines(input)) {
      if (stop.signal.aborted) break;
      const { messages, bytes, problem } = linesToMessages(lines, linesRead + 1, rules);
      linesRead += lines.length;
      if (messages.length > 0) {
        const settle = tally.ledger.sent(messages.length);
        const sent: Promise<void> = producer.send({ topic: settings.topic, messages }).then(
          (results) => {
            settle(true);
            tally.bytes += bytes;
            for (const { partition } of results) tally.byPartition.set(partition, (tally.byPartition.get(partition) ?? 0) + 1);
            progress.update(tally.ledger.acknowledged, tally.bytes);
          },
          (error: unknown) => {
            settle(false);
            fail(error);
          },
        );
        inFlight.add(sent);
        void sent.finally(() => inFlight.delete(sent));
      }
      if (problem !== undefined) fail(problem);
      while (inFlight.size >= sendsInFlightMax) await Promise.race(inFlight);
      if (stop.signal.aborted) break;
    }
  } catch (error) {
    // Reading fails with the abort's error once `stop` aborted: not a failure of its own.
    if (!stop.signal.aborted) fail(error);
  } finally {
    if (file !== undefined) {
      input?.destroy();
      await file.close().catch(() => {}); // closed with its stream already, or never read
    }
    // Every line read is produced and answered before the summary counts it.
    await Promise.allSettled(inFlight);
    await producer?.close();
  }
  return failure;
}

export async function produceCommand(context: CommandContext): Promise<void> {
  const settings = settingsOf(context);
  const file = settings.file === undefined ? undefined : await openFile(settings.file);
  const progress = new Progress(context.io.stderr, context.io.stderrIsTTY && context.values.quiet !== true && !context.json, "produced");
  const tally: Tally = { ledger: new AcknowledgedLines(), bytes: 0, byPartition: new Map() };
  const stop = new AbortController();
  const unsubscribe = context.io.onInterrupt(() => stop.abort(new Interrupted("interrupted")));
  let failure: unknown;
  try {
    failure = await produceLines(context, settings, file, tally, progress, stop);
  } finally {
    unsubscribe();
    progress.finish();
  }
  const stopped = failure !== undefined ? "failure" : stop.signal.aborted ? "interruption" : undefined;
  await summarize(context, settings.topic, tally, progress.elapsedMs, stopped);
  if (stopped !== undefined) throw failure ?? stop.signal.reason;
}

/** "50,000 records were acknowledged before the failure: lines 1 to 50000; resume from line 50001". */
export function stoppedSummary(ledger: AcknowledgedLines, stopped: "failure" | "interruption"): string {
  const { acknowledged, prefixLines } = ledger;
  const head = `${countOf(acknowledged, "record")} ${acknowledged === 1 ? "was" : "were"} acknowledged before the ${stopped}`;
  if (acknowledged === 0) return `${head}; resume from line 1\n`;
  const resume = `resume from line ${prefixLines + 1}`;
  if (acknowledged === prefixLines) return `${head}: ${prefixLines === 1 ? "line 1" : `lines 1 to ${prefixLines}`}; ${resume}\n`;
  const later = countOf(acknowledged - prefixLines, "later line");
  const all = prefixLines === 0 ? "not line 1" : prefixLines === 1 ? "line 1" : `lines 1 to ${prefixLines}`;
  return `${head}: ${all} and ${later}; ${resume} (the later ones would be written again)\n`;
}

async function summarize(context: CommandContext, topic: string, tally: Tally, elapsedMs: number, stopped: "failure" | "interruption" | undefined): Promise<void> {
  const records = tally.ledger.acknowledged;
  const seconds = elapsedMs / 1000;
  const rate = records / Math.max(seconds, 0.001);
  const byPartition = [...tally.byPartition].sort(([a], [b]) => a - b);
  if (context.json) {
    const resume = stopped === undefined ? {} : { stopped, resumeFromLine: tally.ledger.prefixLines + 1 };
    const summary = { topic, records, bytes: tally.bytes, seconds, recordsPerSecond: Math.round(rate), partitions: Object.fromEntries(byPartition), ...resume };
    return output(context, summary, () => "");
  }
  if (stopped !== undefined) {
    context.io.stderr.write(stoppedSummary(tally.ledger, stopped));
    return;
  }
  const partitions = byPartition.map(([p, n]) => `${p}: ${formatCount(n)}`).join(", ");
  context.io.stderr.write(
    `produced ${countOf(records, "record")} (${formatBytes(tally.bytes)}) to ${topic} in ${seconds.toFixed(1)} s · ${formatCount(rate)} records/s` +
      (partitions === "" ? "\n" : ` · partitions ${partitions}\n`),
  );
}
