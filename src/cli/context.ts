import type { Tributary } from "../client/index.ts";
import type { Values } from "./args.ts";
import { write, type CliIo } from "./io.ts";

/** What a command gets: the client, the process's streams, its parsed options and words. */
export interface CommandContext {
  client: Tributary;
  io: CliIo;
  values: Values;
  /** The words after the command (and subcommand). */
  args: string[];
  json: boolean;
}

/** Prints JSON with --json, else the human form. */
export async function output(context: CommandContext, value: unknown, human: () => string): Promise<void> {
  await write(context.io.stdout, context.json ? `${JSON.stringify(value, null, 2)}\n` : human());
}
