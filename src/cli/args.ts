/**
 * Command-line parsing over node:util parseArgs. Every option is declared once here, with the
 * same type in every command, so that a first lenient pass can find the command words wherever
 * the global flags are. The second pass reads parseArgs' tokens and checks them itself, so that
 * a mistake is said in the CLI's words ("unknown option --partiton; did you mean
 * --partitions?"), never in parseArgs' own.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { formatCount } from "./table.ts";

/** A mistake in how the CLI was called: exit code 2, with usage. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

type OptionSpec = NonNullable<ParseArgsConfig["options"]>[string];

const option = (type: "string" | "boolean", extra: Partial<OptionSpec> = {}): OptionSpec => ({ type, ...extra }) as OptionSpec;

/** The server --url names when neither it nor TRIBUTARY_URL is given (wrangler dev's address). */
export const defaultUrl = "http://127.0.0.1:8787";

/** Every option of every command. */
export const allOptions = {
  url: option("string"),
  token: option("string"),
  json: option("boolean"),
  help: option("boolean", { short: "h" }),
  version: option("boolean"),
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
  compression: option("string"),
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
  transport: option("string"),
  isolation: option("string"),
  // groups
  topic: option("string"),
  to: option("string"),
  execute: option("boolean"),
  // tokens, topics write-token and read-token
  name: option("string"),
  rule: option("string", { multiple: true }),
  "expires-in": option("string"),
  "produce-bytes-per-second": option("string"),
  "fetch-bytes-per-second": option("string"),
  "requests-per-second": option("string"),
  ttl: option("string"),
  // serve
  data: option("string"),
  port: option("string"),
  host: option("string"),
  "admin-token": option("string"),
  // share consume
  ack: option("string"),
  // gateway
  listen: option("string"),
  advertise: option("string"),
  "tls-cert": option("string"),
  "tls-key": option("string"),
  "auto-create-topics": option("boolean"),
  "max-connections": option("string"),
  metrics: option("string"),
  "max-reauth": option("string"),
  // subscriptions create (src/cli/subscriptions.ts)
  mode: option("string"),
  webhook: option("string"),
  secret: option("string"),
  service: option("string"),
  from: option("string"),
  "batch-size": option("string"),
  "max-wait": option("string"),
  "max-in-flight": option("string"),
  "retry-delay": option("string"),
  "delivery-limit": option("string"),
  "dead-letter-topic": option("string"),
} satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof allOptions;
export type Values = Partial<Record<OptionName, string | boolean | string[]>>;

export const globalOptions: OptionName[] = ["url", "token", "json", "help", "version"];

const isOptionName = (name: string): name is OptionName => Object.hasOwn(allOptions, name);

/** The command words (e.g. ["topics", "create", "orders"]) wherever the flags are. */
export function commandWords(argv: string[]): string[] {
  return parseArgs({ args: argv, options: allOptions, allowPositionals: true, strict: false }).positionals;
}

/** Edits (insert, delete, replace one character) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The option of `names` closest to a mistyped one, when it is close (a typo, a missing or extra letter or two). */
function closestOption(typed: string, names: OptionName[]): OptionName | undefined {
  let best: { name: OptionName; distance: number } | undefined;
  for (const name of names) {
    const distance = name.startsWith(typed) && typed.length >= 3 ? 1 : editDistance(typed, name);
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  return best !== undefined && best.distance <= Math.max(1, Math.floor(typed.length / 4)) ? best.name : undefined;
}

function unknownOption(rawName: string, name: string, names: OptionName[], command: string): UsageError {
  const suggestion = closestOption(name, names);
  const hint = suggestion === undefined ? "" : `; did you mean --${suggestion}?`;
  if (rawName.startsWith("--") && isOptionName(name)) return new UsageError(`${command} takes no option --${name}${hint}`);
  return new UsageError(`unknown option ${rawName}${hint}`);
}

/**
 * The command's options (the global ones and `names`) and its words. An unknown option, a
 * missing value, or a value given to a flag is a UsageError. A value may start with "-"
 * (`--offset -1` is then refused by the option's own check, with its range).
 */
export function parseCommand(argv: string[], names: OptionName[], command: string): { values: Values; positionals: string[] } {
  const allowed = [...globalOptions, ...names];
  const options = Object.fromEntries(allowed.map((name) => [name, allOptions[name]]));
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const values: Values = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    const name = token.name;
    if (!isOptionName(name) || !allowed.includes(name)) throw unknownOption(token.rawName, name, allowed, command);
    const spec = allOptions[name] as OptionSpec;
    if (spec.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`--${name} takes no value, got ${JSON.stringify(token.value)}`);
      values[name] = true;
      continue;
    }
    const value = token.value;
    const next = token.inlineValue ? undefined : value?.replace(/=.*$/, "").replace(/^--?/, "");
    if (value === undefined || (next !== undefined && value.startsWith("--") && isOptionName(next))) {
      throw new UsageError(`--${name} needs a value${value === undefined ? "" : `, got the option ${value}`}`);
    }
    if (spec.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else values[name] = value;
  }
  return { values, positionals };
}

export function stringValue(values: Values, name: OptionName): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function listValue(values: Values, name: OptionName): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : [];
}

/** An integer option within [min, max] (max absent: no upper bound), or undefined when absent. */
export function integerValue(values: Values, name: OptionName, min: number, max?: number): number | undefined {
  const text = stringValue(values, name);
  if (text === undefined) return undefined;
  const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || (max !== undefined && value > max)) {
    const range = max === undefined ? `of at least ${formatCount(min)}` : `from ${formatCount(min)} to ${formatCount(max)}`;
    throw new UsageError(`--${name} takes a whole number ${range}, got ${JSON.stringify(text)}`);
  }
  return value;
}

const durationUnitsMs: [unit: string, ms: number][] = [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1_000], ["ms", 1]];

/** 3,600,000 → "1h"; 90,000 → "90s": the largest unit that says it exactly. */
export function formatDuration(ms: number): string {
  const [unit, unitMs] = durationUnitsMs.find(([, unitMs]) => ms % unitMs === 0 && ms >= unitMs) ?? ["ms", 1];
  return `${ms / unitMs}${unit}`;
}

/**
 * A duration option (`500ms`, `30s`, `10m`, `1h`, `7d`) in ms, or undefined when absent. It must
 * be more than zero and, with `max`, at most `max.ms` (`max.why` says whose bound it is).
 */
export function durationValue(values: Values, name: OptionName, max?: { ms: number; why: string }): number | undefined {
  const text = stringValue(values, name);
  if (text === undefined) return undefined;
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  const unitMs = match === null ? undefined : durationUnitsMs.find(([unit]) => unit === match[2])![1];
  const ms = match === null ? Number.NaN : Number(match[1]) * unitMs!;
  if (!Number.isSafeInteger(ms)) throw new UsageError(`--${name} takes a duration such as 30s, 10m, 1h or 7d, got ${JSON.stringify(text)}`);
  if (ms === 0) throw new UsageError(`--${name} must be longer than zero, got ${JSON.stringify(text)}`);
  if (max !== undefined && ms > max.ms) throw new UsageError(`--${name} is at most ${formatDuration(max.ms)} (${max.why}), got ${JSON.stringify(text)}`);
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
