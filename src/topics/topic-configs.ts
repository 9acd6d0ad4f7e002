import { TributaryError } from "../errors.ts";
import { configEntriesMax, recordBytesMax, segmentBytesMax, segmentBytesMin } from "../limits.ts";
import { subjectStrategyConfigValues, subjectStrategyPackage } from "../registry/wire-format.ts";
import { checkStreamConfig, isStreamConfigName } from "./stream-configs.ts";

/**
 * Topic configs, with Kafka's names and string values (API.md, Topics). Each entry says how
 * to validate a value and what the default is; a topic's effective configs are its explicit
 * ones over these defaults, and describe shows them all.
 */
type ConfigRule =
  | { kind: "long"; min: number; max?: number; default: string }
  | { kind: "enum"; values: readonly string[]; default: string };

/** Kafka's `Long.MAX_VALUE`, its spelling of "unbounded" for the timestamp checks. */
const unbounded = "9223372036854775807";
const sevenDaysMs = "604800000";

export const topicConfigRules = {
  "retention.ms": { kind: "long", min: -1, default: sevenDaysMs },
  "retention.bytes": { kind: "long", min: -1, default: "-1" },
  "cleanup.policy": { kind: "enum", values: ["delete", "compact", "compact,delete", "delete,compact"], default: "delete" },
  "delete.retention.ms": { kind: "long", min: 0, default: "86400000" },
  "segment.bytes": { kind: "long", min: segmentBytesMin, max: segmentBytesMax, default: String(8 * 1024 * 1024) },
  "segment.ms": { kind: "long", min: 1, default: sevenDaysMs },
  "max.message.bytes": { kind: "long", min: 1, max: recordBytesMax, default: String(recordBytesMax) },
  "min.insync.replicas": { kind: "long", min: 1, default: "1" },
  "replica.lag.time.max.ms": { kind: "long", min: 1, default: "30000" },
  "unclean.leader.election.enable": { kind: "enum", values: ["true", "false"], default: "false" },
  "message.timestamp.type": { kind: "enum", values: ["CreateTime", "LogAppendTime"], default: "CreateTime" },
  "message.timestamp.before.max.ms": { kind: "long", min: 0, default: unbounded },
  "message.timestamp.after.max.ms": { kind: "long", min: 0, default: unbounded },
  // Issue 27: how batches are stored. `producer` keeps each batch as its producer compressed
  // it; any other value re-encodes batches that arrive in another codec (Kafka's values).
  "compression.type": { kind: "enum", values: ["producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"], default: "producer" },
  // Issue 30: schema id validation, Confluent Server's names and values (docs/schema-registry.md).
  // A strategy is Confluent's class name, or its short name; the class name is the default, as there.
  "confluent.key.schema.validation": { kind: "enum", values: ["true", "false"], default: "false" },
  "confluent.value.schema.validation": { kind: "enum", values: ["true", "false"], default: "false" },
  "confluent.key.subject.name.strategy": { kind: "enum", values: subjectStrategyConfigValues, default: `${subjectStrategyPackage}TopicNameStrategy` },
  "confluent.value.subject.name.strategy": { kind: "enum", values: subjectStrategyConfigValues, default: `${subjectStrategyPackage}TopicNameStrategy` },
  // A level Confluent does not have: the id checked as above, and the data decoded against its schema.
  "tributary.key.schema.validation": { kind: "enum", values: ["false", "full"], default: "false" },
  "tributary.value.schema.validation": { kind: "enum", values: ["false", "full"], default: "false" },
} as const satisfies Record<string, ConfigRule>;

export type TopicConfigName = keyof typeof topicConfigRules;
export type TopicConfigs = Record<string, string>;

const integerPattern = /^-?\d{1,19}$/;

function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_CONFIG", message);
}

function isConfigName(name: string): name is TopicConfigName {
  return Object.hasOwn(topicConfigRules, name);
}

/** A config value as given in JSON: strings as Kafka has them; numbers and booleans are accepted as their string. */
function asConfigString(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return String(value);
  throw invalid(`config ${name} must be a string`);
}

function checkValue(name: TopicConfigName, value: string): string {
  const rule: ConfigRule = topicConfigRules[name];
  if (rule.kind === "enum") {
    if (!rule.values.includes(value)) throw invalid(`config ${name} must be one of ${rule.values.join(" | ")}, not "${value}"`);
    return value;
  }
  if (!integerPattern.test(value)) throw invalid(`config ${name} must be an integer, not "${value}"`);
  const number = Number(value);
  if (number < rule.min || (rule.max !== undefined && number > rule.max)) {
    const range = rule.max === undefined ? `at least ${rule.min}` : `between ${rule.min} and ${rule.max}`;
    throw invalid(`config ${name} must be ${range}, not ${value}`);
  }
  return value;
}

/**
 * Validates explicit configs and merges them into `current` (a `null` value restores the
 * default, i.e. removes the explicit entry). Throws INVALID_CONFIG, changing nothing, on an
 * unknown name or a bad value.
 */
export function mergeTopicConfigs(current: TopicConfigs, changes: unknown): TopicConfigs {
  if (changes === undefined) return { ...current };
  if (changes === null || typeof changes !== "object" || Array.isArray(changes)) {
    throw invalid("configs must be an object of name to string value");
  }
  const entries = Object.entries(changes);
  if (entries.length > configEntriesMax) throw invalid(`at most ${configEntriesMax} configs in one request`);
  const merged: TopicConfigs = { ...current };
  for (const [name, value] of entries) {
    // A Durable Streams stream's own family (stream-configs.ts): no defaults, shown when set.
    if (isStreamConfigName(name)) {
      if (value === null) delete merged[name];
      else merged[name] = checkStreamConfig(name, asConfigString(name, value));
      continue;
    }
    if (!isConfigName(name)) throw invalid(`unknown config ${JSON.stringify(name)}`);
    if (value === null) delete merged[name];
    else merged[name] = checkValue(name, asConfigString(name, value));
  }
  return merged;
}

/** Explicit configs over the defaults: what describe shows and what the system applies. */
export function effectiveTopicConfigs(explicit: TopicConfigs): Record<TopicConfigName, string> {
  const effective = {} as Record<TopicConfigName, string>;
  for (const name of Object.keys(topicConfigRules) as TopicConfigName[]) {
    effective[name] = explicit[name] ?? topicConfigRules[name].default;
  }
  for (const [name, value] of Object.entries(explicit)) if (isStreamConfigName(name)) (effective as Record<string, string>)[name] = value;
  return effective;
}

/** A numeric config of the effective set, as a number. */
export function configNumber(configs: Record<TopicConfigName, string>, name: TopicConfigName): number {
  return Number(configs[name]);
}
