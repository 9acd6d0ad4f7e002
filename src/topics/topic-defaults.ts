import { TributaryError } from "../errors.ts";
import { partitionsPerTopicMax, replicationFactorMax } from "../limits.ts";
import { topicConfigRules } from "./topic-configs.ts";

/**
 * What a new topic takes when its creation names no partition count or replication factor:
 * the deployment's TOPIC_DEFAULT_PARTITIONS and TOPIC_DEFAULT_REPLICATION_FACTOR variables
 * (wrangler.toml), Kafka's broker configs `num.partitions` and `default.replication.factor`.
 * `POST /v1/topics` without them, the Kafka gateway's auto-created topics and its CreateTopics
 * with −1 all take them; `GET /v1/cluster` says what they are, with the topic configs'
 * defaults. Unset (or empty), each is 1, as Kafka's.
 */
export interface TopicDefaults {
  partitions: number;
  replicationFactor: number;
}

function count(name: string, value: string | undefined, max: number): number {
  if (value === undefined || value.trim() === "") return 1;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max) {
    throw new TributaryError("UNKNOWN_SERVER_ERROR", `${name} must be an integer from 1 to ${max}; got "${value}"`);
  }
  return parsed;
}

/** The defaults from the deployment's variables; a replication factor is at most the number of regions. */
export function topicDefaults(env: { TOPIC_DEFAULT_PARTITIONS?: string; TOPIC_DEFAULT_REPLICATION_FACTOR?: string }, regions: number): TopicDefaults {
  return {
    partitions: count("TOPIC_DEFAULT_PARTITIONS", env.TOPIC_DEFAULT_PARTITIONS, partitionsPerTopicMax),
    replicationFactor: count("TOPIC_DEFAULT_REPLICATION_FACTOR", env.TOPIC_DEFAULT_REPLICATION_FACTOR, Math.min(replicationFactorMax, regions)),
  };
}

/** Every topic config's default value, by name. */
export function defaultTopicConfigs(): Record<string, string> {
  return Object.fromEntries(Object.entries(topicConfigRules).map(([name, rule]) => [name, rule.default]));
}
