/** `tributary topics list|create|describe|alter|delete|delete-records|write-token|read-token`. */
import type { PartitionInfo, Topic, WriteToken } from "../client/index.ts";
import { partitionsPerTopicMax, readTokenTtlMsMax, replicationFactorMax, writeTokenTtlMsMax } from "../limits.ts";
import { configValues, durationValue, integerValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { countOf, formatBytes, renderTable } from "./table.ts";

export const topicsOptions: Record<string, OptionName[]> = {
  list: [],
  create: ["partitions", "replication-factor", "config"],
  describe: [],
  alter: ["config", "delete-config", "partitions"],
  delete: [],
  "delete-records": ["partition", "offset"],
  "write-token": ["ttl", "quiet"],
  "read-token": ["ttl", "quiet"],
};

function topicName(context: CommandContext): string {
  const [name, ...extra] = context.args;
  if (name === undefined) throw new UsageError("name the topic");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return name;
}

/** Where a partition's bytes live (docs/api.md: an addition to the contract's Topic). */
interface PartitionStorage {
  sqliteBatches: number;
  sqliteBytes: number;
  r2Segments: number;
  r2Bytes: number;
}

/** A Topic as the server describes it, with its additions (docs/api.md): each partition's storage, the configs set on the topic. */
type DescribedTopic = Omit<Topic, "partitions"> & { partitions: (PartitionInfo & { storage?: PartitionStorage })[]; configOverrides?: string[] };

function describeTopic(topic: DescribedTopic): string {
  const withStorage = topic.partitions.every((p) => p.storage !== undefined);
  const storageCells = (storage: PartitionStorage | undefined) =>
    storage === undefined ? [] : [formatBytes(storage.sqliteBytes), `${formatBytes(storage.r2Bytes)} (${countOf(storage.r2Segments, "segment")})`];
  const partitions = renderTable(
    ["PARTITION", "LEADER", "REPLICAS", "ISR", "LOG-START", "HIGH-WATERMARK", ...(withStorage ? ["SQLITE", "R2"] : [])],
    topic.partitions.map((p) => [p.partition, p.leader, p.replicas.join(","), p.isr.join(","), p.logStartOffset, p.highWatermark, ...storageCells(p.storage)]),
  );
  const sum = (field: keyof PartitionStorage) => topic.partitions.reduce((total, p) => total + (p.storage?.[field] ?? 0), 0);
  const storage = withStorage ? `stored: ${formatBytes(sum("sqliteBytes"))} in SQLite, ${formatBytes(sum("r2Bytes"))} in R2 (${countOf(sum("r2Segments"), "segment")})\n` : "";
  const overrides = topic.configOverrides;
  const configs = renderTable(
    ["CONFIG", "VALUE", ...(overrides === undefined ? [] : ["SOURCE"])],
    Object.entries(topic.configs)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => [name, value, ...(overrides === undefined ? [] : [overrides.includes(name) ? "override" : "default"])]),
  );
  return `topic ${topic.name}  id ${topic.topicId}  replication factor ${topic.replicationFactor}\n\n${partitions}${storage}\n${configs}`;
}

/** What an alter changed, as the topic now has it: "retention.ms=3600000 cleanup.policy=delete (default) partitions=6". */
function alterations(topic: Topic, configs: Record<string, string | null>, partitions: number | undefined): string {
  const changes = Object.entries(configs).map(([key, value]) => {
    const now = topic.configs[key];
    if (value !== null) return `${key}=${now ?? value}`;
    return now === undefined ? `${key}=(default)` : `${key}=${now} (default)`;
  });
  if (partitions !== undefined) changes.push(`partitions=${topic.partitions.length}`);
  return changes.join(" ");
}

const partitionsValue = (context: CommandContext) => integerValue(context.values, "partitions", 1, partitionsPerTopicMax);

export async function topicsCommand(subcommand: string, context: CommandContext): Promise<void> {
  const topics = context.client.admin().topics;
  switch (subcommand) {
    case "list": {
      if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
      const list = await topics.list();
      return output(context, { topics: list }, () =>
        list.length === 0 ? "no topics\n" : renderTable(["TOPIC", "PARTITIONS", "REPLICATION"], list.map((t) => [t.name, t.partitions, t.replicationFactor])),
      );
    }
    case "create": {
      const name = topicName(context);
      const configs = configValues(context.values);
      if (Object.values(configs).includes(null)) throw new UsageError("--delete-config is for topics alter");
      const topic = await topics.create({
        name,
        partitions: partitionsValue(context),
        replicationFactor: integerValue(context.values, "replication-factor", 1, replicationFactorMax),
        configs: configs as Record<string, string>,
      });
      return output(context, topic, () => `created topic ${topic.name} with ${countOf(topic.partitions.length, "partition")}\n`);
    }
    case "describe": {
      const topic = await topics.describe(topicName(context));
      return output(context, topic, () => describeTopic(topic));
    }
    case "alter": {
      const name = topicName(context);
      const configs = configValues(context.values);
      const partitions = partitionsValue(context);
      if (Object.keys(configs).length === 0 && partitions === undefined) {
        throw new UsageError("topics alter needs --config, --delete-config or --partitions");
      }
      let topic: Topic | undefined;
      if (Object.keys(configs).length > 0) topic = await topics.alterConfigs(name, configs);
      if (partitions !== undefined) topic = await topics.createPartitions(name, partitions);
      return output(context, topic, () => `altered topic ${name}: ${alterations(topic!, configs, partitions)}\n`);
    }
    case "delete": {
      const name = topicName(context);
      await topics.delete(name);
      return output(context, { deleted: name }, () => `deleted topic ${name}\n`);
    }
    case "delete-records": {
      const name = topicName(context);
      const partition = integerValue(context.values, "partition", 0, partitionsPerTopicMax - 1);
      const offset = integerValue(context.values, "offset", -1);
      if (partition === undefined || offset === undefined) throw new UsageError("topics delete-records needs --partition N and --offset M (-1: the high watermark)");
      const [deleted] = await topics.deleteRecords(name, [{ partition, offset }]);
      return output(context, deleted, () => `deleted the records of ${name} partition ${partition} before offset ${deleted!.lowWatermark}: the log starts there\n`);
    }
    case "write-token": {
      const name = topicName(context);
      const minted = await context.client.topic(name).writeToken({ ttlMs: durationValue(context.values, "ttl", { ms: writeTokenTtlMsMax, why: "a write token's longest life" }) });
      return printMinted(context, minted, "write token", "produce only");
    }
    case "read-token": {
      const name = topicName(context);
      const minted = await context.client.topic(name).readToken({ ttlMs: durationValue(context.values, "ttl", { ms: readTokenTtlMsMax, why: "a read token's longest life" }) });
      return printMinted(context, minted, "read token", "read and describe only; for ?access_token= on a stream");
    }
    default:
      throw new UsageError(`unknown command: topics ${subcommand}`);
  }
}

/** A minted browser token: under a line saying what it may do and when it expires; `--quiet` the token alone. */
function printMinted(context: CommandContext, minted: WriteToken, kind: string, scope: string): Promise<void> {
  const token = minted.token.reveal();
  if (context.values.quiet === true && !context.json) return output(context, null, () => `${token}\n`);
  return output(context, { ...minted, token }, () => `${kind} for topic ${minted.topic} (${scope}), expires ${new Date(minted.expiresAt).toISOString()}:\n${token}\n`);
}
