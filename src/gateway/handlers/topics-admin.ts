/**
 * CreateTopics, DeleteTopics, CreatePartitions through Tributary's topic routes.
 * numPartitions/replicationFactor −1 take the deployment's defaults (Kafka's num.partitions and
 * default.replication.factor: `POST /v1/topics` without them). Replicas are placed by
 * Tributary (over regions), and the gateway is the one broker its clients see (node 0): an
 * explicit replica assignment is taken when it names only that broker — one partition per
 * entry, numbered from 0, its length the replication factor — and any other is
 * INVALID_REPLICA_ASSIGNMENT with what is wrong. validateOnly has the server make every check
 * (`?validateOnly=true`) and changes nothing. Each change drops the session's topic listing, so
 * the next Metadata sees it.
 */
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { errorMessage, kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";

interface CreateTopicsRequest {
  topics: {
    name: string;
    numPartitions: number;
    replicationFactor: number;
    assignments: { partitionIndex: number; brokerIds: number[] }[];
    configs: { name: string; value: string | null }[];
  }[];
  validateOnly?: boolean;
}

/** A count as asked, or undefined for −1 (the deployment's default). */
const positive = (count: number) => (count === -1 ? undefined : count);

/** The partition count and replication factor an explicit assignment stands for, or what is wrong with it. */
function assignedSizes(topic: CreateTopicsRequest["topics"][number], brokerId: number): { partitions: number; replicationFactor: number } | string {
  const { assignments } = topic;
  if (topic.numPartitions !== -1 || topic.replicationFactor !== -1) return "with a replica assignment, numPartitions and replicationFactor are -1";
  const replicationFactor = assignments[0]!.brokerIds.length;
  for (const [index, { partitionIndex, brokerIds }] of assignments.entries()) {
    if (partitionIndex !== index) return `the assignment names partition ${partitionIndex} where partition ${index} comes: partitions are numbered from 0 without gaps`;
    if (brokerIds.length !== replicationFactor) return `partition ${partitionIndex} has ${brokerIds.length} replicas, partition 0 has ${replicationFactor}: every partition has as many`;
    if (brokerIds.length === 0 || new Set(brokerIds).size !== brokerIds.length) return `partition ${partitionIndex}'s replicas ${JSON.stringify(brokerIds)} are empty or name a broker twice`;
    const other = brokerIds.find((id) => id !== brokerId);
    if (other !== undefined) return `broker ${other} is not a broker here: the gateway is broker ${brokerId}, and Tributary places the replicas itself`;
  }
  return { partitions: assignments.length, replicationFactor };
}

export async function createTopics(request: CreateTopicsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  let throttle = 0;
  const topics = [];
  for (const topic of request.topics) {
    const failed = (errorCode: number, message: string) => ({ name: topic.name, errorCode, errorMessage: message, numPartitions: -1, replicationFactor: -1, configs: null });
    const sizes = topic.assignments.length > 0 ? assignedSizes(topic, context.broker.nodeId) : { partitions: positive(topic.numPartitions), replicationFactor: positive(topic.replicationFactor) };
    if (typeof sizes === "string") {
      topics.push(failed(kafkaErrors.INVALID_REPLICA_ASSIGNMENT, sizes));
      continue;
    }
    const { partitions, replicationFactor } = sizes;
    const configs = Object.fromEntries(topic.configs.filter((config) => config.value !== null).map((config) => [config.name, config.value!]));
    try {
      // validateOnly: the server makes every check (name, sizes, configs) and creates nothing.
      const created = await context.tributary.admin().topics.create({ name: topic.name, partitions, replicationFactor, configs }, { validateOnly: request.validateOnly === true });
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
