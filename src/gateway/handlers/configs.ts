/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs on topics (resource type 2) through
 * `GET /v1/topics/{t}` and `PATCH …/configs`. A config set on the topic is Kafka's
 * DYNAMIC_TOPIC_CONFIG, one defaulted is DEFAULT_CONFIG. AlterConfigs replaces the topic's
 * whole set (what it does not name goes back to its default), as Kafka's; the incremental
 * form sets (0) or deletes (1) single configs, and appends to (2) or subtracts from (3) a list
 * config (cleanup.policy). The broker resource (4, the gateway's node id) answers the broker
 * configs Kafka reports that Tributary has, read-only (`brokerConfigs`). A group (32) has its
 * share-group configs (../share/group-configs.ts).
 */
import { path } from "../../client/transport.ts";
import type { Topic } from "../../client/types.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { alterGroupConfigs, describeGroupConfigs, groupResourceType } from "../share/group-configs.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";

const resourceTypes = { topic: 2, broker: 4, brokerLogger: 8 } as const;
const configSources = { dynamicTopic: 1, staticBroker: 4, defaultConfig: 5 } as const;

/** What `GET /v1/cluster` says of the deployment's defaults for new topics. */
interface ClusterDefaults {
  defaults: { partitions: number; replicationFactor: number; configs: Record<string, string> };
}

/** Kafka's broker config that a topic config's default stands for, where the names differ (Kafka's `log.` prefix and the like). */
const brokerNames: Record<string, string> = {
  "retention.ms": "log.retention.ms",
  "retention.bytes": "log.retention.bytes",
  "cleanup.policy": "log.cleanup.policy",
  "delete.retention.ms": "log.cleaner.delete.retention.ms",
  "segment.bytes": "log.segment.bytes",
  "segment.ms": "log.roll.ms",
  "max.message.bytes": "message.max.bytes",
  "message.timestamp.type": "log.message.timestamp.type",
  "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
  "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
};

/**
 * The broker's configs as Kafka reports those Tributary has (read-only here: they are the
 * deployment's): the defaults new topics take, auto-creation (this gateway's
 * `--auto-create-topics`), and topic deletion (always on).
 */
async function brokerConfigs(context: GatewayRequestContext): Promise<Record<string, string>> {
  const { defaults } = await context.transport.json<ClusterDefaults>({ method: "GET", path: path("cluster") });
  const configs: Record<string, string> = {
    "num.partitions": String(defaults.partitions),
    "default.replication.factor": String(defaults.replicationFactor),
    "auto.create.topics.enable": String(context.broker.autoCreateTopics),
    "delete.topic.enable": "true",
  };
  for (const [name, value] of Object.entries(defaults.configs)) configs[brokerNames[name] ?? name] = value;
  return configs;
}
const operations = { set: 0, delete: 1, append: 2, subtract: 3 } as const;

/**
 * A list config's new value after IncrementalAlterConfigs' APPEND (2) or SUBTRACT (3) of
 * `value`'s comma-separated items, as Kafka applies them to its list configs (cleanup.policy):
 * items already there are not added twice, items not there are not an error to remove.
 */
export function alteredList(current: string, operation: 2 | 3, value: string): string {
  const items = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item !== "");
  const now = items(current);
  const named = items(value);
  const next = operation === operations.append ? [...now, ...named.filter((item) => !now.includes(item))] : now.filter((item) => !named.includes(item));
  return next.join(",");
}

interface DescribeConfigsRequest {
  resources: { resourceType: number; resourceName: string; configurationKeys: string[] | null }[];
}

export async function describeConfigs(request: DescribeConfigsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const results = await Promise.all(
    request.resources.map(async ({ resourceType, resourceName, configurationKeys }) => {
      const result = (errorCode: number, message: string | null, configs: unknown[]) => ({ errorCode, errorMessage: message, resourceType, resourceName, configs });
      if (resourceType === resourceTypes.brokerLogger) return result(kafkaErrors.NONE, null, []);
      if (resourceType === resourceTypes.broker) {
        if (resourceName !== "" && resourceName !== String(context.broker.nodeId)) return result(kafkaErrors.INVALID_REQUEST, `broker ${resourceName} is not a broker here: the gateway is broker ${context.broker.nodeId}`, []);
        try {
          const configs = await brokerConfigs(context);
          const names = Object.keys(configs).filter((name) => configurationKeys === null || configurationKeys.includes(name));
          return result(kafkaErrors.NONE, null, names.map((name) => describedConfig(name, configs[name]!, configSources.staticBroker, true)));
        } catch (error) {
          throttle = Math.max(throttle, throttleTimeMs(error));
          return result(kafkaErrorCode(error), errorMessage(error), []);
        }
      }
      if (resourceType === groupResourceType) {
        const group = await describeGroupConfigs(resourceName, configurationKeys, context);
        return result(group.errorCode, group.errorMessage, group.configs);
      }
      if (resourceType !== resourceTypes.topic) return result(kafkaErrors.INVALID_REQUEST, `resource type ${resourceType} has no configs here`, []);
      try {
        const topic = (await context.tributary.admin().topics.describe(resourceName)) as Topic & { configOverrides?: string[] };
        const overrides = new Set(topic.configOverrides ?? []);
        const names = Object.keys(topic.configs).filter((name) => configurationKeys === null || configurationKeys.includes(name));
        return result(
          kafkaErrors.NONE,
          null,
          names.map((name) => describedConfig(name, topic.configs[name]!, overrides.has(name) ? configSources.dynamicTopic : configSources.defaultConfig, false)),
        );
      } catch (error) {
        throttle = Math.max(throttle, throttleTimeMs(error));
        return result(kafkaErrorCode(error), errorMessage(error), []);
      }
    }),
  );
  return { throttleTimeMs: throttle, results };
}

function describedConfig(name: string, value: string, configSource: number, readOnly: boolean): Record<string, unknown> {
  return { name, value, readOnly, isDefault: configSource === configSources.defaultConfig, configSource, isSensitive: false, synonyms: [], configType: 0, documentation: null };
}

interface AlterRequest {
  resources: { resourceType: number; resourceName: string; configs: { name: string; value: string | null; configOperation?: number }[] }[];
  validateOnly: boolean;
}

/** AlterConfigs (`incremental` false) and IncrementalAlterConfigs (true). */
function alter(incremental: boolean) {
  return async (request: AlterRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> => {
    let throttle = 0;
    const responses = await Promise.all(
      request.resources.map(async ({ resourceType, resourceName, configs }) => {
        const response = (errorCode: number, message: string | null) => ({ errorCode, errorMessage: message, resourceType, resourceName });
        if (resourceType === groupResourceType) {
          const group = await alterGroupConfigs(resourceName, configs, request.validateOnly, context);
          return response(group.errorCode, group.errorMessage);
        }
        if (resourceType !== resourceTypes.topic) return response(kafkaErrors.INVALID_REQUEST, "only topic and group configs can be altered here");
        try {
          const changes: Record<string, string | null> = {};
          if (incremental) {
            let current: Record<string, string> | undefined;
            for (const config of configs) {
              const operation = config.configOperation;
              if (operation === operations.set) changes[config.name] = config.value;
              else if (operation === operations.delete) changes[config.name] = null;
              else if (operation === operations.append || operation === operations.subtract) {
                if (config.name !== "cleanup.policy") return response(kafkaErrors.INVALID_CONFIG, `${config.name} is not a list config: APPEND and SUBTRACT apply to list configs (cleanup.policy)`);
                current ??= (await context.tributary.admin().topics.describe(resourceName)).configs;
                changes[config.name] = alteredList(changes[config.name] ?? current[config.name] ?? "", operation, config.value ?? "");
              } else return response(kafkaErrors.INVALID_REQUEST, `config operation ${operation} is not one of SET (0), DELETE (1), APPEND (2), SUBTRACT (3)`);
            }
          } else {
            const topic = (await context.tributary.admin().topics.describe(resourceName)) as Topic & { configOverrides?: string[] };
            for (const name of topic.configOverrides ?? []) changes[name] = null;
            for (const config of configs) changes[config.name] = config.value;
          }
          // validateOnly: the server checks the change (the topic, each name and value) and writes nothing.
          await context.tributary.admin().topics.alterConfigs(resourceName, changes, { validateOnly: request.validateOnly });
          return response(kafkaErrors.NONE, null);
        } catch (error) {
          throttle = Math.max(throttle, throttleTimeMs(error));
          return response(kafkaErrorCode(error), errorMessage(error));
        }
      }),
    );
    return { throttleTimeMs: throttle, responses };
  };
}

export const alterConfigs = alter(false);
export const incrementalAlterConfigs = alter(true);
