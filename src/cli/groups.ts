/**
 * `tributary groups list|describe|lag|reset|delete-offsets|delete`. `reset` shows the plan
 * unless --execute, as kafka-consumer-groups --reset-offsets does; `delete-offsets` is its
 * --delete-offsets (every partition of the topic unless --partitions).
 */
import { TributaryError, type ErrorCode } from "../errors.ts";
import type { ResetTarget } from "../client/index.ts";
import { stringValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { countOf, formatCount, renderTable } from "./table.ts";

export const groupsOptions: Record<string, OptionName[]> = {
  list: [],
  describe: [],
  lag: [],
  reset: ["topic", "to", "partitions", "execute"],
  "delete-offsets": ["topic", "partitions"],
  delete: [],
};

function groupName(context: CommandContext): string {
  const [name, ...extra] = context.args;
  if (name === undefined) throw new UsageError("name the group");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return name;
}

/** earliest | latest | <offset> | @<timestamp ms>. */
export function resetTarget(text: string | undefined): ResetTarget {
  if (text === "earliest" || text === "latest") return text;
  if (text !== undefined && /^\d+$/.test(text)) return { offset: Number(text) };
  if (text !== undefined && /^@\d+$/.test(text)) return { timestamp: Number(text.slice(1)) };
  throw new UsageError("--to takes earliest, latest, an offset, or @<timestamp ms>");
}

/** "0,2" → [0, 2]: partition numbers, each once. */
export function partitionList(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(",").map((part) => part.trim());
  if (!parts.every((part) => /^\d+$/.test(part))) throw new UsageError("--partitions takes partition numbers separated by commas, e.g. 0,2");
  const partitions = parts.map(Number);
  if (new Set(partitions).size !== partitions.length) throw new UsageError("--partitions names each partition once");
  return partitions;
}

/** How long ago, for a person: "2.5 s ago", "3 min 5 s ago". */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s ago`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s ago`;
}

export async function groupsCommand(subcommand: string, context: CommandContext): Promise<void> {
  const groups = context.client.admin().groups;
  switch (subcommand) {
    case "list": {
      if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
      const list = await groups.list();
      return output(context, { groups: list }, () =>
        list.length === 0 ? "no groups\n" : renderTable(["GROUP", "STATE", "MEMBERS"], list.map((g) => [g.group, g.state, g.members])),
      );
    }
    case "describe": {
      const group = await groups.describe(groupName(context));
      const nowMs = Date.now();
      return output(context, group, () => {
        const members = renderTable(
          ["MEMBER", "CLIENT-ID", "HOST", "EPOCH", "LAST-HEARTBEAT", "SESSION", "ASSIGNMENT"],
          group.members.map((m) => [
            m.memberId,
            m.clientId,
            m.host,
            m.memberEpoch,
            formatAge(nowMs - m.lastHeartbeatAt),
            `${m.sessionTimeoutMs / 1000} s`,
            m.assignment.map((a) => `${a.topic}:${a.partitions.join(",")}`).join(" "),
          ]),
        );
        return `group ${group.group}  state ${group.state}  assignor ${group.assignor}\n\n${group.members.length === 0 ? "no members\n" : members}`;
      });
    }
    case "lag": {
      const name = groupName(context);
      const offsets = await groups.offsets(name);
      const total = offsets.reduce((sum, entry) => sum + (entry.lag ?? 0), 0);
      return output(context, { group: name, offsets, totalLag: total }, () =>
        renderTable(
          ["TOPIC", "PARTITION", "COMMITTED", "HIGH-WATERMARK", "LAG"],
          offsets.map((o) => [o.topic, o.partition, o.offset, o.highWatermark, o.lag]),
        ) + `total lag ${formatCount(total)}\n`,
      );
    }
    case "reset": {
      const name = groupName(context);
      const topic = stringValue(context.values, "topic");
      if (topic === undefined) throw new UsageError("groups reset needs --topic");
      const to = resetTarget(stringValue(context.values, "to"));
      const partitions = partitionList(stringValue(context.values, "partitions"));
      const execute = context.values.execute === true;
      const offsets = await groups.resetOffsets(name, { topic, to, ...(partitions === undefined ? {} : { partitions }), dryRun: !execute });
      return output(context, { group: name, executed: execute, offsets }, () => {
        const table = renderTable(["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"], offsets.map((o) => [name, o.topic, o.partition, o.offset]));
        if (!execute) return `${table}dry run: nothing changed; add --execute to reset (the group must have no members)\n`;
        return `${table}reset: group ${name} now starts ${countOf(offsets.length, "partition")} of ${topic} at the offsets above (its committed offsets)\n`;
      });
    }
    case "delete-offsets": {
      const name = groupName(context);
      const topic = stringValue(context.values, "topic");
      if (topic === undefined) throw new UsageError("groups delete-offsets needs --topic");
      const numbers = partitionList(stringValue(context.values, "partitions")) ?? (await context.client.admin().topics.describe(topic)).partitions.map(({ partition }) => partition);
      const results = await groups.deleteOffsets(name, numbers.map((partition) => ({ topic, partition })));
      await output(context, { group: name, partitions: results }, () =>
        renderTable(["GROUP", "TOPIC", "PARTITION", "RESULT"], results.map((r) => [name, r.topic, r.partition, r.error === null ? "deleted" : r.error.code])),
      );
      // As kafka-consumer-groups: a refused partition fails the command (its offset stays).
      const refused = results.filter((result) => result.error !== null);
      if (refused.length > 0) throw new TributaryError(refused[0]!.error!.code as ErrorCode, `${countOf(refused.length, "partition")} kept ${refused.length === 1 ? "its offset" : "their offsets"}: ${refused[0]!.error!.message}`);
      return;
    }
    case "delete": {
      const name = groupName(context);
      await groups.delete(name);
      return output(context, { deleted: name }, () => `deleted group ${name}\n`);
    }
    default:
      throw new UsageError(`unknown command: groups ${subcommand}`);
  }
}
