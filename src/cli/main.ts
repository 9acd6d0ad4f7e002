/**
 * `tributary`, the command line: commands, options, output and exit codes. `main` takes its
 * process as a CliIo and answers the exit code, so tests run it in-process; bin/tributary.js
 * is the thin entry that hands it the real process.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TributaryError } from "../errors.ts";
import { commandWords, defaultUrl, parseCommand, stringValue, UsageError, type OptionName } from "./args.ts";
import { stderrLogger } from "./retry-log.ts";
import { consumeCommand, consumeOptions } from "./consume.ts";
import { authorizationFields, errorHint, isAuthorizationFailure } from "./error-hints.ts";
import type { CommandContext } from "./context.ts";
import { gatewayCommand, gatewayOptions } from "./gateway.ts";
import { groupsCommand, groupsOptions } from "./groups.ts";
import { Interrupted, OutputClosed, type CliIo } from "./io.ts";
import { produceCommand, produceOptions } from "./produce.ts";
import { serveCommand, serveOptions } from "./serve.ts";
import { shareCommand, shareGroupsCommand, shareGroupsOptions, shareOptions } from "./share.ts";
import { subscriptionsCommand, subscriptionsOptions } from "./subscriptions.ts";
import { tokensCommand, tokensOptions } from "./tokens.ts";
import { topicsCommand, topicsOptions } from "./topics.ts";
import { transactionsCommand, transactionsOptions } from "./transactions.ts";
import { usage } from "./usage.ts";

export type { CliIo } from "./io.ts";

/** 130 = 128 + SIGINT, as a shell reports a command that Ctrl-C ended. */
export const exitCodes = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** The package's version: package.json is two levels up from src/cli/ and from dist/cli/ alike. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "package.json"), "utf8")) as { version: string }).version;
}

interface Command {
  /** Words that name it: ["produce"] or ["topics", "list"]. */
  words: number;
  options: OptionName[];
  run(context: CommandContext, subcommand: string): Promise<void>;
}

function resolveCommand(words: string[]): Command {
  const [command, subcommand] = words;
  const grouped = (table: Record<string, OptionName[]>, run: (sub: string, context: CommandContext) => Promise<void>): Command => {
    if (subcommand === undefined) throw new UsageError(`${command} needs a subcommand: ${Object.keys(table).join(", ")}`);
    const options = table[subcommand];
    if (options === undefined || !Object.hasOwn(table, subcommand)) throw new UsageError(`unknown command: ${command} ${subcommand}`);
    return { words: 2, options, run: (context, sub) => run(sub, context) };
  };
  switch (command) {
    case "topics":
      return grouped(topicsOptions, topicsCommand);
    case "groups":
      return grouped(groupsOptions, groupsCommand);
    case "tokens":
      return grouped(tokensOptions, tokensCommand);
    case "produce":
      return { words: 1, options: produceOptions, run: (context) => produceCommand(context) };
    case "consume":
      return { words: 1, options: consumeOptions, run: (context) => consumeCommand(context) };
    case "serve":
      return { words: 1, options: serveOptions, run: (context) => serveCommand(context) };
    // Share groups (share.ts)
    case "share":
      return grouped(shareOptions, shareCommand);
    case "share-groups":
      return grouped(shareGroupsOptions, shareGroupsCommand);
    case "gateway":
      return { words: 1, options: gatewayOptions, run: (context) => gatewayCommand(context) };
    case "subscriptions":
      return grouped(subscriptionsOptions, subscriptionsCommand);
    case "transactions":
      return grouped(transactionsOptions, transactionsCommand);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  let json = argv.includes("--json");
  try {
    const words = commandWords(argv);
    if (words.length === 0) {
      const { values } = parseCommand(argv, [], "tributary");
      if (values.version === true) {
        io.stdout.write(`tributary ${packageVersion()}\n`);
        return exitCodes.ok;
      }
      io[values.help === true ? "stdout" : "stderr"].write(usage);
      return values.help === true ? exitCodes.ok : exitCodes.usage;
    }
    const command = resolveCommand(words);
    const { values, positionals } = parseCommand(argv, command.options, words.slice(0, command.words).join(" "));
    if (values.help === true || values.version === true) {
      io.stdout.write(values.help === true ? usage : `tributary ${packageVersion()}\n`);
      return exitCodes.ok;
    }
    json = values.json === true;
    // Imported here, not above: --help and --version start without loading the client.
    const { Tributary } = await import("../client/tributary.ts");
    const client = new Tributary({
      url: stringValue(values, "url") ?? io.env.TRIBUTARY_URL ?? defaultUrl,
      token: stringValue(values, "token") ?? io.env.TRIBUTARY_TOKEN,
      fetch: io.fetch,
      webSocket: io.webSocket,
      // A person is waiting: give up after about 3 s of retries rather than the client's 26
      // (a --follow consumer retries without end); each retry is a line on stderr.
      retry: { retries: 5, maxBackoffMs: 2_000 },
      logger: stderrLogger(io.stderr),
      logLevel: "info",
    });
    const context: CommandContext = { client, io, values, args: positionals.slice(command.words), json };
    await command.run(context, words[1] ?? "");
    return exitCodes.ok;
  } catch (error) {
    return report(error, io, json);
  }
}

/** One clear line (code and message) on stderr, JSON with --json; never a stack trace for an API error. */
function report(error: unknown, io: CliIo, json: boolean): number {
  // The reader of stdout went away (`| head`): what it wanted was printed; as Unix tools do, stop quietly.
  if (error instanceof OutputClosed) return exitCodes.ok;
  if (error instanceof Interrupted) return exitCodes.interrupted;
  if (error instanceof UsageError) {
    io.stderr.write(`error: ${error.message}\nrun \`tributary --help\` for usage\n`);
    return exitCodes.usage;
  }
  if (error instanceof TributaryError) {
    const { retryAfterMs: _retryAfter, cause, ...data } = error.data as Record<string, unknown>;
    if (json) {
      io.stderr.write(`${JSON.stringify({ error: { ...data, code: error.code, message: error.message } })}\n`);
    } else {
      io.stderr.write(`error: ${error.code}: ${error.message}\n`);
      const shown = (name: string) => name !== "offsets" && !(isAuthorizationFailure(error.code) && authorizationFields.has(name));
      const details = Object.entries(data).filter(([name]) => shown(name));
      if (details.length > 0) io.stderr.write(`  ${details.map(([name, value]) => `${name}: ${JSON.stringify(value)}`).join("  ")}\n`);
      if ((error.code === "REQUEST_TIMED_OUT" || error.code === "NETWORK_EXCEPTION") && typeof cause === "string") {
        io.stderr.write(`  is Tributary running there? set --url or TRIBUTARY_URL (default ${defaultUrl})\n`);
      }
      const hint = errorHint(error.code, data);
      if (hint !== undefined) io.stderr.write(`  ${hint}\n`);
    }
    return exitCodes.failed;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(json ? `${JSON.stringify({ error: { message } })}\n` : `error: ${message}\n`);
  return exitCodes.failed;
}
