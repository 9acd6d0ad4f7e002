/** `tributary groups list|describe|lag|reset|delete`. */
import type { ResetTarget } from "../client/index.ts";
import { stringValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { formatCount, renderTable } from "./table.ts";

export const groupsOptions: Record<string, OptionName[]> = {
  list: [],
  describe: [],
  lag: [],
  reset: ["topic", "to"],
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
      return output(context, group, () => {
        const members = renderTable(
          ["MEMBER", "EPOCH", "ASSIGNMENT"],
          group.members.map((m) => [m.memberId, m.memberEpoch, m.assignment.map((a) => `${a.topic}:${a.partitions.join(",")}`).join(" ")]),
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
      const offsets = await groups.resetOffsets(name, { topic, to: resetTarget(stringValue(context.values, "to")) });
      return output(context, { group: name, offsets }, () =>
        renderTable(["TOPIC", "PARTITION", "OFFSET"], offsets.map((o) => [o.topic, o.partition, o.offset])),
      );
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
