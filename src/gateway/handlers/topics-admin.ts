/**
 * CreateTopics, DeleteTopics, CreatePartitions through Tributary's topic routes. Replica
 * assignments are Tributary's own (placement over regions), so explicit ones are refused;
 * numPartitions/replicationFactor −1 take the defaults (1). validateOnly checks what can be
 * checked without creating (the name is free) and changes nothing. Each change drops the
 * session's topic listing, so the next Metadata sees it.
 */
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";

interface CreateTopicsRequest {
  topics: { name: string; numPartitions: number; replicationFactor: number; assignments: unknown[]; configs: { name: string; value: string | null }[] }[];
  validateOnly?: boolean;
}

export async function createTopics(request: CreateTopicsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const topics = [];
  for (const topic of request.topics) {
    const failed = (errorCode: number, message: string) => ({ name: topic.name, errorCode, errorMessage: message, numPartitions: -1, replicationFactor: -1, configs: null });
    if (topic.assignments.length > 0) {
      topics.push(failed(kafkaErrors.INVALID_REQUEST, "replica assignments are Tributary's own: give numPartitions and replicationFactor"));
      continue;
    }
    const partitions = topic.numPartitions === -1 ? 1 : topic.numPartitions;
    const replicationFactor = topic.replicationFactor === -1 ? 1 : topic.replicationFactor;
    const configs = Object.fromEntries(topic.configs.filter((config) => config.value !== null).map((config) => [config.name, config.value!]));
    try {
      if (request.validateOnly === true) {
        const exists = (await context.session.topics(true)).some((existing) => existing.name === topic.name);
        topics.push(exists ? failed(kafkaErrors.TOPIC_ALREADY_EXISTS, `topic ${topic.name} already exists`) : { name: topic.name, errorCode: kafkaErrors.NONE, errorMessage: null, numPartitions: partitions, replicationFactor, configs: [] });
        continue;
      }
      const created = await context.tributary.admin().topics.create({ name: topic.name, partitions, replicationFactor, configs });
      topics.push({
        name: created.name,
        errorCode: kafkaErrors.NONE,
        errorMessage: null,
        numPartitions: created.partitions.length,
        replicationFactor: created.replicationFactor,
        configs: Object.entries(created.configs).map(([name, value]) => ({ name, value, readOnly: false, configSource: 5, isSensitive: false })),
      });
    } catch (error) {
      throttle = Math.max(throttle, throttleTimeMs(error));
      topics.push(failed(kafkaErrorCode(error), errorMessage(error)));
    }
  }
  context.session.invalidate();
  return { throttleTimeMs: throttle, topics };
}

interface DeleteTopicsRequest {
  topicNames?: string[];
  topics?: { name: string | null; topicId: Uint8Array }[];
}

export async function deleteTopics(request: DeleteTopicsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const names = request.topicNames ?? (request.topics ?? []).map((topic) => topic.name);
  let throttle = 0;
  const responses = await Promise.all(
    names.map(async (name) => {
      const topicId = new Uint8Array(16);
      if (name === null) return { name, topicId, errorCode: kafkaErrors.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: "topics are deleted by name here (no topic ids)" };
      try {
        await context.tributary.admin().topics.delete(name);
        return { name, topicId, errorCode: kafkaErrors.NONE, errorMessage: null };
      } catch (error) {
        throttle = Math.max(throttle, throttleTimeMs(error));
        return { name, topicId, errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error) };
      }
    }),
  );
  context.session.invalidate();
  return { throttleTimeMs: throttle, responses };
}

interface CreatePartitionsRequest {
  topics: { name: string; count: number; assignments: unknown[] | null }[];
  validateOnly: boolean;
}

export async function createPartitions(request: CreatePartitionsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const results = await Promise.all(
    request.topics.map(async ({ name, count, assignments }) => {
      if (assignments !== null && assignments.length > 0) return { name, errorCode: kafkaErrors.INVALID_REQUEST, errorMessage: "replica assignments are Tributary's own" };
      try {
        if (request.validateOnly) {
          const topic = await context.tributary.admin().topics.describe(name);
          if (count <= topic.partitions.length) throw new TributaryError("INVALID_PARTITIONS", `topic ${name} has ${topic.partitions.length} partitions; the count must be larger`);
        } else {
          await context.tributary.admin().topics.createPartitions(name, count);
        }
        return { name, errorCode: kafkaErrors.NONE, errorMessage: null };
      } catch (error) {
        throttle = Math.max(throttle, throttleTimeMs(error));
        return { name, errorCode: kafkaErrorCode(error), errorMessage: errorMessage(error) };
      }
    }),
  );
  context.session.invalidate();
  return { throttleTimeMs: throttle, results };
}
