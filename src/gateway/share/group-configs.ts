/**
 * Group configs (config resource type 32, KIP-848/KIP-932's GROUP resource) for share groups:
 * DescribeConfigs and (Incremental)AlterConfigs of Kafka's share-group configs, as the share
 * group's own configs (`GET /v1/share-groups/{g}`, `PATCH …/configs`; docs/api.md, Share
 * groups) under Kafka's names. Kafka's other group configs (a consumer group's session and
 * heartbeat times) are not a group's own in Tributary: naming one is INVALID_CONFIG.
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";

export const groupResourceType = 32;

/** Kafka's share-group config names and Tributary's share-group configs they are. */
const tributaryNames: Record<string, string> = {
  "share.auto.offset.reset": "auto.offset.reset",
  "share.record.lock.duration.ms": "record.lock.duration.ms",
  "share.delivery.count.limit": "delivery.count.limit",
};
const kafkaNames = Object.fromEntries(Object.entries(tributaryNames).map(([kafka, tributary]) => [tributary, kafka]));

/** DescribeConfigs of a group: its share-group configs under Kafka's names (none, with no error, for a group Tributary does not know). */
export async function describeGroupConfigs(group: string, names: readonly string[] | null, context: GatewayRequestContext) {
  let configs: Record<string, string>;
  try {
    configs = (await context.transport.json<{ configs: Record<string, string> }>({ method: "GET", path: path("share-groups", group) })).configs;
  } catch (error) {
    if ((error as { code?: string }).code === "GROUP_ID_NOT_FOUND") return { errorCode: 0, errorMessage: null, configs: [] };
    return { errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error), configs: [] };
  }
  const described = Object.entries(configs)
    .filter(([name]) => kafkaNames[name] !== undefined && (names === null || names.includes(kafkaNames[name]!)))
    .map(([name, value]) => ({ name: kafkaNames[name]!, value, readOnly: false, isDefault: false, configSource: 8, isSensitive: false, synonyms: [], configType: 0, documentation: null }));
  return { errorCode: 0, errorMessage: null, configs: described };
}

/** (Incremental)AlterConfigs of a group: SET (0) and DELETE (1) of its share-group configs. */
export async function alterGroupConfigs(group: string, configs: readonly { name: string; value: string | null; configOperation?: number }[], validateOnly: boolean, context: GatewayRequestContext) {
  const changes: Record<string, string | null> = {};
  for (const { name, value, configOperation } of configs) {
    const tributary = tributaryNames[name];
    if (tributary === undefined) return { errorCode: kafkaErrors.INVALID_CONFIG, errorMessage: `${name} is not a group config here (the share-group configs are ${Object.keys(tributaryNames).join(", ")})` };
    if (configOperation !== undefined && configOperation !== 0 && configOperation !== 1) return { errorCode: kafkaErrors.INVALID_CONFIG, errorMessage: `${name} is not a list config: only SET and DELETE apply` };
    changes[tributary] = configOperation === 1 ? null : value;
  }
  if (validateOnly) return { errorCode: 0, errorMessage: null };
  try {
    await context.transport.json({ method: "PATCH", path: path("share-groups", group, "configs"), json: { configs: changes } });
    return { errorCode: 0, errorMessage: null };
  } catch (error) {
    return { errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error) };
  }
}
