/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs on topics (resource type 2) through
 * `GET /v1/topics/{t}` and `PATCH …/configs`. A config set on the topic is Kafka's
 * DYNAMIC_TOPIC_CONFIG, one defaulted is DEFAULT_CONFIG. AlterConfigs replaces the topic's
 * whole set (what it does not name goes back to its default), as Kafka's; the incremental
 * form sets (0) or deletes (1) single configs. The broker resource (4) has no configs here.
 */
import type { Topic } from "../../client/types.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";

const resourceTypes = { topic: 2, broker: 4, brokerLogger: 8 } as const;
const configSources = { dynamicTopic: 1, defaultConfig: 5 } as const;
const operations = { set: 0, delete: 1 } as const;

interface DescribeConfigsRequest {
  resources: { resourceType: number; resourceName: string; configurationKeys: string[] | null }[];
}

export async function describeConfigs(request: DescribeConfigsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const results = await Promise.all(
    request.resources.map(async ({ resourceType, resourceName, configurationKeys }) => {
      const result = (errorCode: number, message: string | null, configs: unknown[]) => ({ errorCode, errorMessage: message, resourceType, resourceName, configs });
      if (resourceType === resourceTypes.broker || resourceType === resourceTypes.brokerLogger) return result(kafkaErrors.NONE, null, []);
      if (resourceType !== resourceTypes.topic) return result(kafkaErrors.INVALID_REQUEST, `resource type ${resourceType} has no configs here`, []);
      try {
        const topic = (await context.tributary.admin().topics.describe(resourceName)) as Topic & { configOverrides?: string[] };
        const overrides = new Set(topic.configOverrides ?? []);
        const names = Object.keys(topic.configs).filter((name) => configurationKeys === null || configurationKeys.includes(name));
        return result(
          kafkaErrors.NONE,
          null,
          names.map((name) => ({
            name,
            value: topic.configs[name]!,
            readOnly: false,
            isDefault: !overrides.has(name),
            configSource: overrides.has(name) ? configSources.dynamicTopic : configSources.defaultConfig,
            isSensitive: false,
            synonyms: [],
            configType: 0,
            documentation: null,
          })),
        );
      } catch (error) {
        throttle = Math.max(throttle, throttleTimeMs(error));
        return result(kafkaErrorCode(error), errorMessage(error), []);
      }
    }),
  );
  return { throttleTimeMs: throttle, results };
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
        if (resourceType !== resourceTypes.topic) return response(kafkaErrors.INVALID_REQUEST, "only topic configs can be altered here");
        try {
          const changes: Record<string, string | null> = {};
          if (incremental) {
            for (const config of configs) {
              if (config.configOperation === operations.set) changes[config.name] = config.value;
              else if (config.configOperation === operations.delete) changes[config.name] = null;
              else return response(kafkaErrors.INVALID_REQUEST, `config operation ${config.configOperation} (APPEND, SUBTRACT) is not supported: SET the whole value`);
            }
          } else {
            const topic = (await context.tributary.admin().topics.describe(resourceName)) as Topic & { configOverrides?: string[] };
            for (const name of topic.configOverrides ?? []) changes[name] = null;
            for (const config of configs) changes[config.name] = config.value;
          }
          if (!request.validateOnly) await context.tributary.admin().topics.alterConfigs(resourceName, changes);
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
