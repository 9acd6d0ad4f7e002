/**
 * Command-line parsing with node:util parseArgs. Every option is declared once here, with the
 * same type in every command, so that a first lenient pass can find the command words wherever
 * the global flags are; a second, strict pass checks the command's own options.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A mistake in how the CLI was called: exit code 2, with usage. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

type OptionSpec = NonNullable<ParseArgsConfig["options"]>[string];

const option = (type: "string" | "boolean", extra: Partial<OptionSpec> = {}): OptionSpec => ({ type, ...extra }) as OptionSpec;

/** Every option of every command. */
export const allOptions = {
  url: option("string"),
  token: option("string"),
  json: option("boolean"),
  help: option("boolean", { short: "h" }),
  // topics
  partitions: option("string"),
  "replication-factor": option("string"),
  config: option("string", { multiple: true }),
  "delete-config": option("string", { multiple: true }),
  // produce
  file: option("string"),
  "key-separator": option("string"),
  partition: option("string"),
  acks: option("string"),
  "linger-ms": option("string"),
  "batch-bytes": option("string"),
  quiet: option("boolean", { short: "q" }),
  // consume
  group: option("string"),
  offset: option("string"),
  "from-beginning": option("boolean"),
  follow: option("boolean", { short: "f" }),
  max: option("string"),
  "wait-ms": option("string"),
  base64: option("boolean"),
  "session-timeout-ms": option("string"),
  // groups
  topic: option("string"),
  to: option("string"),
  execute: option("boolean"),
  // tokens, topics write-token
  name: option("string"),
  rule: option("string", { multiple: true }),
  "expires-in": option("string"),
  "produce-bytes-per-second": option("string"),
  "fetch-bytes-per-second": option("string"),
  "requests-per-second": option("string"),
  ttl: option("string"),
} satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof allOptions;
export type Values = Partial<Record<OptionName, string | boolean | string[]>>;

export const globalOptions: OptionName[] = ["url", "token", "json", "help"];

/** The command words (e.g. ["topics", "create", "orders"]) wherever the flags are. */
export function commandWords(argv: string[]): string[] {
  try {
    return parseArgs({ args: argv, options: allOptions, allowPositionals: true, strict: false }).positionals;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Parses strictly with the global options and `names`; unknown options are a UsageError. */
export function parseCommand(argv: string[], names: OptionName[]): { values: Values; positionals: string[] } {
  const options = Object.fromEntries([...globalOptions, ...names].map((name) => [name, allOptions[name]]));
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as Values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function stringValue(values: Values, name: OptionName): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function listValue(values: Values, name: OptionName): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : [];
}

/** An integer option within [min, max], or undefined when absent. */
export function integerValue(values: Values, name: OptionName, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const text = stringValue(values, name);
  if (text === undefined) return undefined;
  const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

const durationUnitsMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration option (`500ms`, `30s`, `10m`, `1h`, `7d`) in ms, or undefined when absent. */
export function durationValue(values: Values, name: OptionName): number | undefined {
  const text = stringValue(values, name);
  if (text === undefined) return undefined;
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  const ms = match === null ? Number.NaN : Number(match[1]) * durationUnitsMs[match[2]!]!;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new UsageError(`--${name} takes a duration such as 30s, 10m, 1h or 7d, got ${JSON.stringify(text)}`);
  }
  return ms;
}

/** `--config k=v` pairs as an object; `--delete-config k` as k: null. */
export function configValues(values: Values): Record<string, string | null> {
  const configs: Record<string, string | null> = {};
  for (const pair of listValue(values, "config")) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--config takes name=value, got ${JSON.stringify(pair)}`);
    configs[pair.slice(0, at)] = pair.slice(at + 1);
  }
  for (const name of listValue(values, "delete-config")) configs[name] = null;
  return configs;
}

export const usage = `tributary — Tributary's command-line tool (docs/cli.md)

usage: tributary [--url URL] [--token TOKEN] [--json] <command>

  topics list
  topics create <topic> [--partitions N] [--replication-factor N] [--config name=value]...
  topics describe <topic>
  topics alter <topic> [--config name=value]... [--delete-config name]... [--partitions N]
  topics delete <topic>
  topics write-token <topic> [--ttl DURATION] [--quiet]
      a short-lived token that may only produce to the topic (for a web page)

  produce <topic> [--file PATH] [--key-separator SEP] [--partition N] [--acks 0|1|all]
                  [--linger-ms N] [--batch-bytes N] [--quiet]
      one record per line of stdin (or --file); a progress line on a terminal, a summary at the end

  consume <topic> (--group G | --partition N [--offset N|earliest|latest])
                  [--from-beginning] [--follow] [--max N] [--json] [--base64] [--wait-ms N]
      values, one per line; --json: JSON lines with key, headers, partition, offset, timestamp

  groups list
  groups describe <group>
  groups lag <group>
  groups reset <group> --topic T --to earliest|latest|<offset>|@<timestamp ms> [--partitions 0,2] [--execute]
      shows the new offsets; --execute writes them (the group must have no members)
  groups delete <group>

  tokens create --rule RESOURCE:NAME:literal|prefixed:OPERATION,... [--rule ...]...
                [--name N] [--expires-in DURATION] [--produce-bytes-per-second N]
                [--fetch-bytes-per-second N] [--requests-per-second N] [--quiet]
      e.g. --rule topic:orders:literal:read,write --rule group:app-:prefixed:read;
      prints the token's secret once (--quiet: only the secret)
  tokens list
  tokens revoke <id>

options:
  --url     the Worker's URL (env TRIBUTARY_URL, default http://127.0.0.1:8787)
  --token   bearer token (env TRIBUTARY_TOKEN)
  --json    JSON output instead of tables
durations: 500ms, 30s, 10m, 1h, 7d
exit codes: 0 ok, 1 the request failed (code and message on stderr), 2 bad usage
`;
