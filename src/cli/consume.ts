/**
 * `tributary consume <topic>`: from one partition (--partition, binary fetch; with --follow, the
 * partition's stream), from the whole topic (--follow alone: the topic's SSE stream, every
 * partition merged) or through a consumer group (--group; the group commits what was printed,
 * after it was printed, and keeps polling: membership needs heartbeats, which a stream has no
 * place for). Prints each value on its own line (the bytes as stored), or JSON lines with
 * --json. Stops at the end of what is there, unless --follow; or after --max records; or on
 * Ctrl-C (gracefully: a group member commits and leaves).
 */
import type { ConsumedMessage, FetchedRecord } from "../client/index.ts";
import { encodeBase64 } from "../protocol/base64.ts";
import { concatBytes } from "../protocol/bytes.ts";
import { fetchWaitMsMax, partitionsPerTopicMax, sessionTimeoutMsMax, sessionTimeoutMsMin } from "../limits.ts";
import { integerValue, stringValue, UsageError, type OptionName } from "./args.ts";
import type { CommandContext } from "./context.ts";
import { OutputClosed, write } from "./io.ts";

export const consumeOptions: OptionName[] = ["group", "partition", "offset", "from-beginning", "follow", "max", "wait-ms", "base64", "session-timeout-ms", "transport", "isolation"];

const newline = new Uint8Array([0x0a]);
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** A record to print; a share group's record also says how many times it was delivered. */
export type Printable = FetchedRecord & { partition: number; topic: string; deliveryCount?: number };

export function formatter(context: CommandContext): (record: Printable) => Uint8Array[] {
  if (!context.json) return (record) => [record.value ?? new Uint8Array(0), newline];
  const text = context.values.base64 === true ? (bytes: Uint8Array | null) => (bytes === null ? null : encodeBase64(bytes)) : (bytes: Uint8Array | null) => (bytes === null ? null : utf8.decode(bytes));
  const encoder = new TextEncoder();
  return (record) => [
    encoder.encode(
      JSON.stringify({
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        timestamp: record.timestamp,
        key: text(record.key),
        value: text(record.value),
        headers: record.headers,
        deliveryCount: record.deliveryCount, // absent (undefined) but for share groups
      }) + "\n",
    ),
  ];
}

/** Writes records as one chunk (one write per fetched batch keeps a 100,000-record run fast). */
export async function print(context: CommandContext, records: Printable[], format: (record: Printable) => Uint8Array[]): Promise<void> {
  if (records.length === 0) return;
  await write(context.io.stdout, concatBytes(records.flatMap(format)));
}

export async function consumeCommand(context: CommandContext): Promise<void> {
  const [topic, ...extra] = context.args;
  if (topic === undefined) throw new UsageError("name the topic: tributary consume <topic>");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  const group = stringValue(context.values, "group");
  const partition = integerValue(context.values, "partition", 0, partitionsPerTopicMax - 1);
  const follow = context.values.follow === true;
  if (group !== undefined && partition !== undefined) throw new UsageError("give --group or --partition (one of them)");
  if (group === undefined && partition === undefined && !follow) {
    throw new UsageError("give --group or --partition (one of them), or --follow to follow every partition of the topic");
  }
  if (group !== undefined && stringValue(context.values, "offset") !== undefined) {
    throw new UsageError("--offset is for --partition; a group starts at its committed offsets (see groups reset)");
  }
  const max = integerValue(context.values, "max", 1);
  const transport = transportValue(context, group, follow);
  const readUncommitted = isolationValue(context);
  if (group !== undefined) return consumeGroup(context, topic, group, max, transport, readUncommitted);
  if (partition === undefined) return followStream(context, topic, undefined, max, readUncommitted);
  if (follow) return followStream(context, topic, partition, max, readUncommitted);
  return consumePartition(context, topic, partition, max, readUncommitted);
}

/**
 * --isolation (docs/transactions.md): read_committed (the default) shows only committed
 * transactions' records, up to the last stable offset; read_uncommitted shows every record up
 * to the high watermark, aborted ones too. Answers whether to read uncommitted.
 */
function isolationValue(context: CommandContext): boolean {
  const text = stringValue(context.values, "isolation");
  if (text === undefined) return false;
  if (text !== "read_committed" && text !== "read_uncommitted") throw new UsageError(`--isolation takes read_committed or read_uncommitted, got ${JSON.stringify(text)}`);
  return text === "read_uncommitted";
}

/**
 * --transport: how a group member reads (docs/client.md, "Consumer"). `poll` by default: a run
 * without --follow stops at the first poll that waited and found nothing, an answer only a
 * poll gives (a stream's silence may be a socket still opening). `websocket`, with --follow:
 * each assigned partition's WebSocket stream, cheaper for a consumer that stays.
 */
function transportValue(context: CommandContext, group: string | undefined, follow: boolean): "poll" | "websocket" {
  const text = stringValue(context.values, "transport");
  if (text === undefined) return "poll";
  if (text !== "poll" && text !== "websocket") throw new UsageError(`--transport takes poll or websocket, got ${JSON.stringify(text)}`);
  if (group === undefined) throw new UsageError("--transport is for --group (a partition or the whole topic streams with --follow)");
  if (text === "websocket" && !follow) {
    throw new UsageError("--transport websocket needs --follow: a run that stops when caught up knows it only from a poll that found nothing");
  }
  if (text === "websocket" && context.io.webSocket === undefined && typeof (globalThis as { WebSocket?: unknown }).WebSocket !== "function") {
    throw new UsageError(`--transport websocket needs a WebSocket, which Node has from version 22 (this is ${process.version}): use --transport poll`);
  }
  return text;
}

/** Where a read starts: --offset (a number only for one partition), else --from-beginning's earliest, else latest. */
function streamStart(context: CommandContext, partition: number | undefined): "earliest" | "latest" | number {
  const text = stringValue(context.values, "offset");
  if (text !== undefined && /^\d+$/.test(text)) {
    if (partition === undefined) throw new UsageError("--offset N is for --partition; following the whole topic starts at earliest or latest");
    return Number(text);
  }
  if (text !== undefined && text !== "earliest" && text !== "latest") throw new UsageError("--offset takes a number, earliest or latest");
  return (text as "earliest" | "latest" | undefined) ?? (context.values["from-beginning"] === true ? "earliest" : "latest");
}

/** Resolves on the next macrotask: the records a stream had at hand are all taken by then. */
const nothingAtHand = Symbol("nothing at hand");
const macrotask = () => new Promise<typeof nothingAtHand>((resolve) => setImmediate(() => resolve(nothingAtHand)));
/** Records printed in one write at most, when a stream keeps them coming. */
const printBatchRecordsMax = 10_000;

/**
 * --follow on a partition (its stream: SSE, through the CLI's fetch) or on the whole topic (the
 * topic's SSE stream). A stream resumes by itself across disconnects and server restarts —
 * retrying without end, a line on stderr per retry — so only Ctrl-C, --max, a closed output
 * or an error retrying cannot fix ends it. The records a stream has at hand are printed in one
 * write (one per frame, about), as a fetch's are.
 */
async function followStream(context: CommandContext, topic: string, partition: number | undefined, max: number | undefined, readUncommitted: boolean): Promise<void> {
  const from = streamStart(context, partition);
  const stop = new AbortController();
  const unsubscribe = context.io.onInterrupt(() => stop.abort(new Error("interrupted")));
  const handle = context.client.topic(topic);
  const stream =
    partition === undefined
      ? handle.stream({ from: from as "earliest" | "latest", signal: stop.signal, readUncommitted })
      : handle.partition(partition).stream({ from, signal: stop.signal, readUncommitted });
  const format = formatter(context);
  let pending: Printable[] = [];
  let printed = 0;
  let next = stream.next();
  try {
    while (max === undefined || printed + pending.length < max) {
      const result = pending.length === 0 ? await next : await Promise.race([next, macrotask()]);
      if (result === nothingAtHand || pending.length >= printBatchRecordsMax) {
        await print(context, pending, format);
        printed += pending.length;
        pending = [];
        if (result === nothingAtHand) continue;
      }
      if (result.done) break;
      pending.push(result.value);
      next = stream.next();
    }
    await print(context, pending, format);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    await print(context, pending, format);
  } finally {
    unsubscribe();
    // Ends the read in flight (a generator's return waits for it), then the stream.
    if (!stop.signal.aborted) stop.abort(new Error("done"));
    next.catch(() => {});
    await stream.return(undefined).catch(() => {});
  }
}

async function startOffset(context: CommandContext, topic: string, partition: number): Promise<number> {
  const start = streamStart(context, partition);
  return typeof start === "number" ? start : (await context.client.topic(topic).offset(partition, start)).offset;
}

async function consumePartition(context: CommandContext, topic: string, partition: number, max: number | undefined, readUncommitted: boolean): Promise<void> {
  const follow = context.values.follow === true;
  const waitMs = integerValue(context.values, "wait-ms", 0, fetchWaitMsMax) ?? 10_000;
  const handle = context.client.topic(topic);
  const format = formatter(context);
  const stop = new AbortController();
  const unsubscribe = context.io.onInterrupt(() => stop.abort(new Error("interrupted")));
  let offset = await startOffset(context, topic, partition);
  let printed = 0;
  try {
    while (!stop.signal.aborted) {
      const left = max === undefined ? 10_000 : Math.min(10_000, max - printed);
      // --follow rides out a server restart: retriable failures are retried (and logged) until Ctrl-C.
      const result = await handle.fetch(partition, offset, { maxRecords: left, maxBytes: 8 * 1024 * 1024, waitMs: follow ? waitMs : 0, signal: stop.signal, retryForever: follow, readUncommitted });
      const records = result.records.slice(0, left).map((record) => ({ ...record, topic, partition }));
      await print(context, records, format);
      printed += records.length;
      const from = offset;
      offset = records.length === result.records.length ? result.nextOffset : records.at(-1)!.offset + 1;
      if (max !== undefined && printed >= max) break;
      // The end of what may be read: the high watermark, or read_committed's last stable offset. A
      // fetch of only markers and aborted records shows nothing but moves on: it is not the end.
      const end = readUncommitted ? result.highWatermark : result.lastStableOffset;
      if (!follow && (offset >= end || offset === from)) break;
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    unsubscribe();
  }
}

async function consumeGroup(
  context: CommandContext,
  topic: string,
  groupId: string,
  max: number | undefined,
  transport: "poll" | "websocket",
  readUncommitted: boolean,
): Promise<void> {
  const follow = context.values.follow === true;
  const waitMs = integerValue(context.values, "wait-ms", 0, fetchWaitMsMax) ?? (follow ? 10_000 : 1_000);
  const consumer = context.client.consumer({
    groupId,
    // Polls unless --transport websocket (transportValue): without --follow the run ends at the first poll that waited
    // and found nothing (a poll's answer, not a stream's silence); with it, a member whose session ran out during an
    // outage reads nothing before it rejoins (test/e2e/follow-restart.test.ts), as over WebSockets.
    transport,
    readUncommitted,
    maxWaitTimeInMs: waitMs,
    maxBytes: 8 * 1024 * 1024,
    maxRecords: 10_000,
    sessionTimeoutMs: integerValue(context.values, "session-timeout-ms", sessionTimeoutMsMin, sessionTimeoutMsMax),
  });
  const format = formatter(context);
  let printed = 0;
  await consumer.subscribe({ topics: [topic], fromBeginning: context.values["from-beginning"] === true });
  if (!follow) {
    // Caught up: a poll that waited and found nothing in any assigned partition.
    consumer.on("fetch", ({ records, assignment }) => {
      if (records === 0 && assignment.length > 0) void consumer.disconnect();
    });
  }
  const unsubscribe = context.io.onInterrupt(() => void consumer.disconnect());
  let outputClosed: OutputClosed | undefined;
  try {
    await consumer.run({
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, isRunning }) => {
        if (!isRunning()) return;
        const left = max === undefined ? batch.messages.length : max - printed;
        const messages: ConsumedMessage[] = batch.messages.slice(0, Math.max(0, left));
        try {
          await print(context, messages, format);
        } catch (error) {
          if (!(error instanceof OutputClosed)) throw error;
          // Nobody reads on (`| head`): leave the group as on Ctrl-C; this batch stays uncommitted.
          outputClosed = error;
          void consumer.disconnect();
          return;
        }
        // Resolved after printing: the group commits these with the next poll, never before.
        if (messages.length > 0) resolveOffset(messages.at(-1)!.offset);
        printed += messages.length;
        if (max !== undefined && printed >= max) void consumer.disconnect();
      },
    });
    await consumer.done();
  } finally {
    unsubscribe();
  }
  if (outputClosed !== undefined) throw outputClosed;
}
