/** `tributary topics list|create|describe|alter|delete|write-token`. */
import type { Topic } from "../client/index.ts";
import { configValues, durationValue, integerValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { renderTable } from "./table.ts";

export const topicsOptions: Record<string, OptionName[]> = {
  list: [],
  create: ["partitions", "replication-factor", "config"],
  describe: [],
  alter: ["config", "delete-config", "partitions"],
  delete: [],
  "write-token": ["ttl", "quiet"],
};

function topicName(context: CommandContext): string {
  const [name, ...extra] = context.args;
  if (name === undefined) throw new UsageError("name the topic");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return name;
}

function describeTopic(topic: Topic): string {
  const partitions = renderTable(
    ["PARTITION", "LEADER", "REPLICAS", "ISR", "LOG-START", "HIGH-WATERMARK"],
    topic.partitions.map((p) => [p.partition, p.leader, p.replicas.join(","), p.isr.join(","), p.logStartOffset, p.highWatermark]),
  );
  const configs = renderTable(
    ["CONFIG", "VALUE"],
    Object.entries(topic.configs).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return `topic ${topic.name}  id ${topic.topicId}  replication factor ${topic.replicationFactor}\n\n${partitions}\n${configs}`;
}

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
        partitions: integerValue(context.values, "partitions", 1),
        replicationFactor: integerValue(context.values, "replication-factor", 1),
        configs: configs as Record<string, string>,
      });
      return output(context, topic, () => `created topic ${topic.name} with ${topic.partitions.length} partition(s)\n`);
    }
    case "describe": {
      const topic = await topics.describe(topicName(context));
      return output(context, topic, () => describeTopic(topic));
    }
    case "alter": {
      const name = topicName(context);
      const configs = configValues(context.values);
      const partitions = integerValue(context.values, "partitions", 1);
      if (Object.keys(configs).length === 0 && partitions === undefined) {
        throw new UsageError("topics alter needs --config, --delete-config or --partitions");
      }
      let topic: Topic | undefined;
      if (Object.keys(configs).length > 0) topic = await topics.alterConfigs(name, configs);
      if (partitions !== undefined) topic = await topics.createPartitions(name, partitions);
      return output(context, topic, () => describeTopic(topic!));
    }
    case "delete": {
      const name = topicName(context);
      await topics.delete(name);
      return output(context, { deleted: name }, () => `deleted topic ${name}\n`);
    }
    case "write-token": {
      const name = topicName(context);
      const minted = await context.client.topic(name).writeToken({ ttlMs: durationValue(context.values, "ttl") });
      const token = minted.token.reveal();
      if (context.values.quiet === true && !context.json) return output(context, null, () => `${token}\n`);
      return output(context, { ...minted, token }, () =>
        `write token for topic ${minted.topic} (produce only), expires ${new Date(minted.expiresAt).toISOString()}:\n${token}\n`,
      );
    }
    default:
      throw new UsageError(`unknown command: topics ${subcommand}`);
  }
}
