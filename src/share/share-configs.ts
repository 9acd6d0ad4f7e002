import { TributaryError } from "../errors.ts";
import {
  configEntriesMax,
  shareDeliveryCountLimitDefault,
  shareDeliveryCountLimitMax,
  shareDeliveryCountLimitMin,
  shareLockDurationMsDefault,
  shareLockDurationMsMax,
  shareLockDurationMsMin,
} from "../limits.ts";
import { checkTopicName } from "../topics/topic-names.ts";
import type { Isolation } from "../protocol/schemas.ts";
import type { SharePartitionConfig } from "./share-partition.ts";

/**
 * A share group's configs (docs/api.md, Share groups), as topic configs: Kafka's names,
 * string values, explicit ones over defaults. `dead.letter.topic` must name an existing
 * topic; whether it exists is checked by the router, which knows the topics.
 */
export const shareGroupConfigRules = {
  "record.lock.duration.ms": { min: shareLockDurationMsMin, max: shareLockDurationMsMax, default: String(shareLockDurationMsDefault) },
  "delivery.count.limit": { min: shareDeliveryCountLimitMin, max: shareDeliveryCountLimitMax, default: String(shareDeliveryCountLimitDefault) },
  "auto.offset.reset": { values: ["latest", "earliest"], default: "latest" },
  "dead.letter.topic": { default: "" },
  // KIP-932's group config; Kafka's default is read_uncommitted, Tributary's read_committed as on every read path (docs/transactions.md).
  "share.isolation.level": { values: ["read_committed", "read_uncommitted"], default: "read_committed" },
} as const;

export type ShareGroupConfigName = keyof typeof shareGroupConfigRules;
export type ShareGroupConfigs = Partial<Record<ShareGroupConfigName, string>>;

const integerPattern = /^\d{1,10}$/;

function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_CONFIG", message);
}

function isConfigName(name: string): name is ShareGroupConfigName {
  return Object.hasOwn(shareGroupConfigRules, name);
}

function checkValue(name: ShareGroupConfigName, value: unknown): string {
  const rule = shareGroupConfigRules[name];
  // A number is taken as its string for the numeric configs only: the router checks a dead-letter topic it sees as a string.
  const text = "min" in rule && typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== "string") throw invalid(`config ${name} must be a string`);
  if ("values" in rule) {
    if (!(rule.values as readonly string[]).includes(text)) throw invalid(`config ${name} must be one of ${rule.values.join(" | ")}, not "${text}"`);
  } else if ("min" in rule) {
    if (!integerPattern.test(text) || Number(text) < rule.min || Number(text) > rule.max) {
      throw invalid(`config ${name} must be an integer between ${rule.min} and ${rule.max}, not "${text}"`);
    }
  } else {
    try {
      checkTopicName(text);
    } catch {
      throw invalid(`config ${name} must name an existing topic, not "${text}"`);
    }
  }
  return text;
}

/**
 * Validates changes and merges them into `current` (null restores a default). Throws
 * INVALID_CONFIG, changing nothing, on an unknown name or a bad value.
 */
export function mergeShareGroupConfigs(current: ShareGroupConfigs, changes: Record<string, unknown>): ShareGroupConfigs {
  const entries = Object.entries(changes);
  if (entries.length > configEntriesMax) throw invalid(`at most ${configEntriesMax} configs in one request`);
  const merged: ShareGroupConfigs = { ...current };
  for (const [name, value] of entries) {
    if (!isConfigName(name)) throw invalid(`unknown share group config ${JSON.stringify(name)}`);
    if (value === null) delete merged[name];
    else merged[name] = checkValue(name, value);
  }
  return merged;
}

/** Every config with its effective value (describe shows them all; an unset dead.letter.topic is ""). */
export function effectiveShareGroupConfigs(explicit: ShareGroupConfigs): Record<ShareGroupConfigName, string> {
  const effective = {} as Record<ShareGroupConfigName, string>;
  for (const name of Object.keys(shareGroupConfigRules) as ShareGroupConfigName[]) effective[name] = explicit[name] ?? shareGroupConfigRules[name].default;
  return effective;
}

/** What a share-partition acts on. */
export function sharePartitionConfigOf(
  explicit: ShareGroupConfigs,
): SharePartitionConfig & { autoOffsetReset: "latest" | "earliest"; deadLetterTopic: string | null; isolation: Isolation } {
  const effective = effectiveShareGroupConfigs(explicit);
  const deadLetterTopic = effective["dead.letter.topic"] === "" ? null : effective["dead.letter.topic"];
  return {
    lockDurationMs: Number(effective["record.lock.duration.ms"]),
    deliveryCountLimit: Number(effective["delivery.count.limit"]),
    deadLetter: deadLetterTopic !== null,
    deadLetterTopic,
    autoOffsetReset: effective["auto.offset.reset"] === "earliest" ? "earliest" : "latest",
    isolation: effective["share.isolation.level"] === "read_uncommitted" ? "read_uncommitted" : "read_committed",
  };
}
