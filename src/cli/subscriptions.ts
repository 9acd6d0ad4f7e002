/**
 * `tributary subscriptions create|list|describe|pause|resume|delete` (docs/cli.md): push
 * subscriptions, delivering a topic's records to a webhook (--webhook, --secret) or to a
 * Worker bound in the deployment (--service).
 */
import type { CreateSubscriptionRequest } from "../client/index.ts";
import { durationValue, integerValue, stringValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { formatCount, renderTable } from "./table.ts";

const createOptions: OptionName[] = [
  "topic", "mode", "webhook", "secret", "service", "from", "batch-size", "max-wait", "max-in-flight", "retry-delay", "delivery-limit", "dead-letter-topic",
  "isolation",
];

export const subscriptionsOptions: Record<string, OptionName[]> = {
  create: createOptions,
  list: [],
  describe: [],
  pause: [],
  resume: [],
  delete: [],
};

function subscriptionName(context: CommandContext): string {
  const [name, ...extra] = context.args;
  if (name === undefined) throw new UsageError("name the subscription");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return name;
}

function createRequest(context: CommandContext): CreateSubscriptionRequest {
  const { values } = context;
  const topic = stringValue(values, "topic");
  if (topic === undefined) throw new UsageError("subscriptions create needs --topic");
  const mode = stringValue(values, "mode") ?? "ordered";
  if (mode !== "ordered" && mode !== "shared") throw new UsageError("--mode takes ordered or shared");
  const webhook = stringValue(values, "webhook");
  const service = stringValue(values, "service");
  const secret = stringValue(values, "secret");
  if ((webhook === undefined) === (service === undefined)) throw new UsageError("give one target: --webhook URL or --service BINDING");
  if (secret !== undefined && webhook === undefined) throw new UsageError("--secret signs a webhook's deliveries: give --webhook");
  const from = stringValue(values, "from");
  if (from !== undefined && from !== "earliest" && from !== "latest") throw new UsageError("--from takes earliest or latest");
  const isolation = stringValue(values, "isolation");
  if (isolation !== undefined && isolation !== "read_committed" && isolation !== "read_uncommitted") {
    throw new UsageError(`--isolation takes read_committed or read_uncommitted, got ${JSON.stringify(isolation)}`);
  }
  const target = webhook !== undefined ? { url: webhook, ...(secret !== undefined ? { secret } : {}) } : { service: service! };
  const optional = {
    from,
    batchSize: integerValue(values, "batch-size", 1, 1_000),
    maxWaitMs: durationValue(values, "max-wait", { ms: 60_000, why: "the server's bound" }),
    maxInFlight: integerValue(values, "max-in-flight", 1),
    retryDelayMs: durationValue(values, "retry-delay", { ms: 60_000, why: "the server's bound" }),
    deliveryLimit: integerValue(values, "delivery-limit", 2, 10),
    deadLetterTopic: stringValue(values, "dead-letter-topic"),
    isolation,
  };
  const given = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return { name: subscriptionName(context), topic, mode, target, ...given };
}

function targetText(target: { url: string } | { service: string }): string {
  return "url" in target ? target.url : `service ${target.service}`;
}

export async function subscriptionsCommand(subcommand: string, context: CommandContext): Promise<void> {
  const subscriptions = context.client.admin().subscriptions;
  switch (subcommand) {
    case "create": {
      const created = await subscriptions.create(createRequest(context));
      return output(context, created, () => `created subscription ${created.name}: ${created.topic} → ${targetText(created.target)} (${created.mode})\n`);
    }
    case "list": {
      if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
      const list = await subscriptions.list();
      return output(context, { subscriptions: list }, () =>
        list.length === 0
          ? "no subscriptions\n"
          : renderTable(["SUBSCRIPTION", "TOPIC", "MODE", "TARGET", "STATE"], list.map((s) => [s.name, s.topic, s.mode, targetText(s.target), s.paused ? "paused" : "active"])),
      );
    }
    case "describe": {
      const described = await subscriptions.describe(subscriptionName(context));
      return output(context, described, () => {
        const head = [
          `subscription ${described.name}  topic ${described.topic}  mode ${described.mode}  ${described.paused ? "paused" : "active"}`,
          `target ${targetText(described.target)}  batch ${described.batchSize}  delivery limit ${described.deliveryLimit}  dead letters ${described.deadLetterTopic ?? "dropped"}`,
          `delivered ${formatCount(described.delivered)}  retried ${formatCount(described.retried)}  dead-lettered ${formatCount(described.deadLettered)}  lag ${formatCount(described.lag)}`,
          described.lastError === null ? "no errors" : `last error ${new Date(described.lastErrorAt ?? 0).toISOString()}: ${described.lastError}`,
        ];
        const rows = described.partitions.map((p) => [p.partition, p.position, p.highWatermark, p.inFlight ? `${p.inFlight.offsets.length} records, delivery ${p.inFlight.deliveryCount}` : "-"]);
        return `${head.join("\n")}\n\n${renderTable(["PARTITION", "POSITION", "HIGH-WATERMARK", "IN-FLIGHT"], rows)}`;
      });
    }
    case "pause":
    case "resume": {
      const name = subscriptionName(context);
      const updated = subcommand === "pause" ? await subscriptions.pause(name) : await subscriptions.resume(name);
      return output(context, updated, () => `${subcommand === "pause" ? "paused" : "resumed"} subscription ${updated.name}\n`);
    }
    case "delete": {
      const name = subscriptionName(context);
      await subscriptions.delete(name);
      return output(context, { deleted: name }, () => `deleted subscription ${name}\n`);
    }
    default:
      throw new UsageError(`unknown command: subscriptions ${subcommand}`);
  }
}
