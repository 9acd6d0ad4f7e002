/**
 * `tributary share consume <group> --topic T` and `tributary share-groups list|describe|alter|reset|delete`
 * (docs/cli.md, "Share groups").
 *
 * `share consume` is a share consumer (the client's `shareConsumer`): each record is printed as
 * `consume` prints it and, once written to stdout, acknowledged with `--ack` (accept by default);
 * the acknowledgements ride along on the next fetch and the last ones are sent before the
 * command exits. A record fetched but not printed (past --max, on Ctrl-C, into a closed pipe)
 * is released, so another consumer gets it at once. Without --follow it stops when a fetch
 * finds nothing available.
 */
import type { AcknowledgeType, ShareGroupsAdmin } from "../client/index.ts";
import { TributaryError } from "../errors.ts";
import { fetchWaitMsMax } from "../limits.ts";
import { configValues, integerValue, stringValue, UsageError, type OptionName } from "./args.ts";
import { formatter, print } from "./consume.ts";
import { output, type CommandContext } from "./context.ts";
import { partitionList, resetTarget } from "./groups.ts";
import { OutputClosed } from "./io.ts";
import { countOf, renderTable } from "./table.ts";

export const shareOptions: Record<string, OptionName[]> = {
  consume: ["topic", "max", "follow", "wait-ms", "base64", "ack"],
};

export const shareGroupsOptions: Record<string, OptionName[]> = {
  list: [],
  describe: [],
  alter: ["config", "delete-config"],
  reset: ["topic", "to", "partitions", "execute"],
  delete: [],
};

/** Records per fetch: the server's default, or fewer when --max asks for fewer (the rest would only be locked, then released). */
const fetchRecordsMax = 500;

function groupName(context: CommandContext, command: string): string {
  const [name, ...extra] = context.args;
  if (name === undefined) throw new UsageError(`name the share group: tributary ${command} <group>`);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return name;
}

/** --topic orders or --topic orders,audit: topic names (which never hold a comma). */
function topicList(context: CommandContext): string[] {
  const text = stringValue(context.values, "topic");
  if (text === undefined) throw new UsageError("share consume needs --topic (one topic, or several separated by commas)");
  const topics = text.split(",").map((topic) => topic.trim());
  if (topics.some((topic) => topic === "")) throw new UsageError(`--topic takes topic names separated by commas, got ${JSON.stringify(text)}`);
  return [...new Set(topics)];
}

function ackType(context: CommandContext): AcknowledgeType {
  const text = stringValue(context.values, "ack") ?? "accept";
  if (text !== "accept" && text !== "release" && text !== "reject") throw new UsageError(`--ack takes accept, release or reject, got ${JSON.stringify(text)}`);
  return text;
}

/**
 * The topics whose first fetch by the group this run makes and which it starts at their end
 * (auto.offset.reset=latest, Kafka's default): asked before the first fetch, which creates
 * the share-partitions. A group that does not exist yet has the default.
 */
async function topicsStartingAtTheEnd(context: CommandContext, group: string, topics: readonly string[]): Promise<string[]> {
  try {
    const described = await context.client.admin().shareGroups.describe(group);
    if (described.configs["auto.offset.reset"] !== "latest") return [];
    return topics.filter((topic) => !described.partitions.some((partition) => partition.topic === topic));
  } catch (error) {
    if (error instanceof TributaryError && error.code === "GROUP_ID_NOT_FOUND") return [...topics];
    return []; // a token that may not describe the group, say: no note rather than a failed consume
  }
}

/** Said when the group's first fetch of those topics found nothing: why, and the commands that change it. */
function latestStartNote(group: string, topics: readonly string[]): string {
  const resets = topics.map((topic) => `  to consume those: tributary share-groups reset ${group} --topic ${topic} --to earliest --execute\n`).join("");
  return (
    `nothing to consume: share group ${group} started ${topics.join(", ")} at the end (auto.offset.reset=latest, Kafka's default), after the records already there\n` +
    resets +
    `  to start topics it has not fetched yet at their beginning: tributary share-groups alter ${group} --config auto.offset.reset=earliest\n`
  );
}

export async function shareCommand(subcommand: string, context: CommandContext): Promise<void> {
  if (subcommand !== "consume") throw new UsageError(`unknown command: share ${subcommand}`);
  const group = groupName(context, "share consume");
  const topics = topicList(context);
  const ack = ackType(context);
  const max = integerValue(context.values, "max", 1);
  const follow = context.values.follow === true;
  // Ctrl-C lets the fetch in flight finish (what it acquired is then released): a follower waits 5 s at most.
  const waitMs = integerValue(context.values, "wait-ms", 0, fetchWaitMsMax) ?? (follow ? 5_000 : 1_000);
  const startingAtTheEnd = await topicsStartingAtTheEnd(context, group, topics);
  const consumer = context.client.shareConsumer({ group, topics, maxWaitTimeInMs: waitMs, maxRecords: Math.min(max ?? fetchRecordsMax, fetchRecordsMax) });
  const format = formatter(context);
  let printed = 0;
  let fetches = 0;
  let outputClosed: OutputClosed | undefined;
  consumer.on("fetch", ({ records }) => {
    if (fetches++ === 0 && records === 0 && startingAtTheEnd.length > 0) context.io.stderr.write(latestStartNote(group, startingAtTheEnd));
    // Caught up: a fetch found nothing available (with --follow, fetching goes on until Ctrl-C).
    if (!follow && records === 0) void consumer.stop();
  });
  const unsubscribe = context.io.onInterrupt(() => void consumer.stop());
  try {
    await consumer.run({
      eachMessage: async ({ message }) => {
        try {
          await print(context, [message], format);
        } catch (error) {
          if (!(error instanceof OutputClosed)) throw error;
          // Nobody reads on (`| head`): this record goes back to the group, and the command stops.
          outputClosed = error;
          consumer.acknowledge(message, "release");
          void consumer.stop();
          return;
        }
        // Printed: now acknowledged (accept unless --ack says otherwise), never before.
        if (ack !== "accept") consumer.acknowledge(message, ack);
        printed++;
        if (max !== undefined && printed >= max) void consumer.stop();
      },
    });
    await consumer.done();
  } finally {
    unsubscribe();
  }
  if (outputClosed !== undefined) throw outputClosed;
}

export async function shareGroupsCommand(subcommand: string, context: CommandContext): Promise<void> {
  const admin: ShareGroupsAdmin = context.client.admin().shareGroups;
  switch (subcommand) {
    case "list": {
      if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
      const groups = await admin.list();
      return output(context, { groups }, () => (groups.length === 0 ? "no share groups\n" : renderTable(["SHARE-GROUP"], groups.map((g) => [g.group]))));
    }
    case "describe": {
      const group = await admin.describe(groupName(context, "share-groups describe"));
      return output(context, group, () => {
        const configs = renderTable(["CONFIG", "VALUE"], Object.entries(group.configs).sort(([a], [b]) => (a < b ? -1 : 1)));
        // KIP-932's share-partition start and end offsets bound the records in flight; from the
        // start to the high watermark every record is available, acquired or done (docs/cli.md).
        const partitions = renderTable(
          ["TOPIC", "PARTITION", "IN-FLIGHT-START", "IN-FLIGHT-END", "HIGH-WATERMARK", "AVAILABLE", "ACQUIRED", "DONE", "ARCHIVED"],
          group.partitions.map((p) => [p.topic, p.partition, p.startOffset, p.endOffset, p.highWatermark, p.available, p.acquired, p.done, p.archived]),
        );
        return `share group ${group.group}\n\n${configs}\n${group.partitions.length === 0 ? "no partitions fetched yet\n" : partitions}`;
      });
    }
    case "alter": {
      const name = groupName(context, "share-groups alter");
      const configs = configValues(context.values);
      if (Object.keys(configs).length === 0) throw new UsageError("share-groups alter needs --config name=value or --delete-config name");
      const group = await admin.alterConfigs(name, configs);
      return output(context, group, () => `altered share group ${name}: ${Object.keys(configs).map((key) => `${key}=${group.configs[key] ?? "(default)"}`).join(" ")}\n`);
    }
    case "reset": {
      const name = groupName(context, "share-groups reset");
      const topic = stringValue(context.values, "topic");
      if (topic === undefined) throw new UsageError("share-groups reset needs --topic");
      const to = resetTarget(stringValue(context.values, "to"));
      const partitions = partitionList(stringValue(context.values, "partitions"));
      const execute = context.values.execute === true;
      const offsets = await admin.resetOffsets(name, { topic, to, ...(partitions === undefined ? {} : { partitions }), dryRun: !execute });
      return output(context, { group: name, executed: execute, offsets }, () => {
        const table = renderTable(["SHARE-GROUP", "TOPIC", "PARTITION", "NEW-START-OFFSET"], offsets.map((o) => [name, o.topic, o.partition, o.offset]));
        if (!execute) return `${table}dry run: nothing changed; add --execute to reset (no record of the group may be acquired)\n`;
        return `${table}reset: share group ${name} now starts ${countOf(offsets.length, "partition")} of ${topic} at the offsets above (nothing in flight)\n`;
      });
    }
    case "delete": {
      const name = groupName(context, "share-groups delete");
      await admin.delete(name);
      return output(context, { deleted: name }, () => `deleted share group ${name}\n`);
    }
    default:
      throw new UsageError(`unknown command: share-groups ${subcommand}`);
  }
}
