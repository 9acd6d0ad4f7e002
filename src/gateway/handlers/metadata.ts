/**
 * Metadata: the gateway is the only broker (node 0), the controller and the leader of every
 * partition, at the partition's own leader epoch in Tributary (it grows at every election, so a
 * client sees a leader change and checks its position: OffsetForLeaderEpoch); topics and their partition counts come from the session's listing (≤ 5 s old,
 * asked again when a requested topic is missing from it); from v10, each topic's id is its
 * Tributary UUID, and a topic asked for by id alone is looked up by it (UNKNOWN_TOPIC_ID when
 * none has it). With `--auto-create-topics`, a topic
 * asked about and allowed by the client is created (the deployment's default partition count
 * and replication factor, as Kafka's num.partitions and default.replication.factor).
 * Kafka's internal topics (`__consumer_offsets`) are listed with `isInternal`, as Kafka lists
 * them, so that clients leave them out of regex subscriptions; Tributary keeps what they hold in
 * its objects, so reading them finds nothing, and no topic beginning with "__" is created.
 * Tributary's anchor topics (`_transaction_state`, `_schemas`: src/topics/topic-names.ts) are
 * listed as internal too, as Kafka lists its `__transaction_state`: they hold no records a
 * client reads, clients leave them out of regex subscriptions, and deleting one is refused.
 */
import { internalTopicId, isInternalTopic, kafkaInternalTopics } from "../internal-topics.ts";
import { anchorTopics } from "../../topics/topic-names.ts";
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";
import type { TopicSummary } from "../../client/types.ts";

interface MetadataRequest {
  topics: { name: string | null; topicId?: Uint8Array }[] | null;
  allowAutoTopicCreation?: boolean;
}

/** Kafka's "not asked for" authorized operations. */
const operationsNotAsked = -2147483648;
const zeroUuid: Uint8Array = new Uint8Array(16);

/** Kafka's internal topics, which Tributary only names (isInternalTopic), and Tributary's anchor topics. */
function listedAsInternal(name: string | null): boolean {
  return isInternalTopic(name) || (anchorTopics as readonly (string | null)[]).includes(name);
}

export async function metadata(request: MetadataRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const { broker, session } = context;
  // v0 asks for every topic with an empty list; later versions with null.
  const all = request.topics === null || (context.apiVersion === 0 && request.topics.length === 0);
  let listing = await session.topics();
  const byId = new Map<string, Record<string, unknown>>();
  const names = all ? [...new Set([...listing.map((topic) => topic.name), ...kafkaInternalTopics])] : [];
  for (const topic of all ? [] : request.topics!) {
    // A topic asked by id (v12+): its name null, or "" — the Java client's default, as its consumer asks for the topic ids a
    // KIP-848 assignment named (a regex subscription resolved by the broker) — and its id not Kafka's zero UUID.
    const byTopicId = topic.topicId !== undefined && (topic.name === null || topic.name === "") && topic.topicId.some((byte) => byte !== 0);
    const named = byTopicId ? await session.topicNamed(topic.topicId!) : (topic.name ?? "");
    if (named !== undefined) names.push(named);
    else byId.set(Buffer.from(topic.topicId!).toString("hex"), unknownId(topic.topicId!));
  }
  if (!all && names.some((name) => !listing.some((topic) => topic.name === name) && !isInternalTopic(name))) listing = await session.topics(true);
  const topics: Record<string, unknown>[] = [...byId.values()];
  // Described in parallel (and remembered): from v10 each topic answers its id.
  const listed = (name: string) => listing.some((topic) => topic.name === name);
  const [ids, epochs] = await Promise.all([
    context.apiVersion >= 10 ? Promise.all(names.map((name) => (listed(name) ? session.topicId(name) : undefined))) : [],
    Promise.all(names.map((name) => (listed(name) ? session.leaderEpochs(name) : undefined))),
  ]);
  for (const [index, name] of names.entries()) {
    let found = listing.find((topic) => topic.name === name);
    let errorCode: number = kafkaErrors.NONE;
    if (found === undefined && isInternalTopic(name)) {
      topics.push(topicEntry(name, { name, partitions: 1, replicationFactor: 1 }, errorCode, internalTopicId(name)));
      continue;
    }
    if (found === undefined && broker.autoCreateTopics && request.allowAutoTopicCreation !== false && name !== "") {
      const created = await autoCreate(name, context);
      if (typeof created === "number") errorCode = created;
      else found = created;
    } else if (found === undefined) {
      errorCode = kafkaErrors.UNKNOWN_TOPIC_OR_PARTITION;
    }
    const topicId = ids[index] ?? (found !== undefined && context.apiVersion >= 10 ? await session.topicId(name) : undefined);
    topics.push(topicEntry(name, found, errorCode, topicId, epochs[index]));
  }
  return {
    throttleTimeMs: 0,
    brokers: [{ nodeId: broker.nodeId, host: broker.host, port: broker.port, rack: null }],
    clusterId: broker.clusterId,
    controllerId: broker.nodeId,
    topics,
    clusterAuthorizedOperations: operationsNotAsked,
  };
}

function unknownId(topicId: Uint8Array): Record<string, unknown> {
  return { ...topicEntry(null, undefined, kafkaErrors.UNKNOWN_TOPIC_ID), topicId };
}

function topicEntry(name: string | null, topic: TopicSummary | undefined, errorCode: number, topicId: Uint8Array = zeroUuid, epochs?: number[]): Record<string, unknown> {
  const count = topic?.partitions ?? 0;
  return {
    errorCode,
    name,
    topicId,
    isInternal: listedAsInternal(name),
    partitions: Array.from({ length: count }, (_, partitionIndex) => ({
      errorCode: kafkaErrors.NONE,
      partitionIndex,
      leaderId: 0,
      leaderEpoch: epochs?.[partitionIndex] ?? 0,
      replicaNodes: [0],
      isrNodes: [0],
      offlineReplicas: [],
    })),
    topicAuthorizedOperations: operationsNotAsked,
  };
}

/** Creates the topic; a race with another creator is fine (it exists either way). */
async function autoCreate(name: string, context: GatewayRequestContext): Promise<TopicSummary | number> {
  try {
    // The deployment's default partition count and replication factor (Kafka's num.partitions, default.replication.factor).
    const topic = await context.tributary.admin().topics.create({ name });
    context.session.invalidate();
    return { name: topic.name, partitions: topic.partitions.length, replicationFactor: topic.replicationFactor };
  } catch (error) {
    if (error instanceof TributaryError && error.code === "TOPIC_ALREADY_EXISTS") {
      const again = (await context.session.topics(true)).find((topic) => topic.name === name);
      if (again !== undefined) return again;
    }
    // A topic being created answers LEADER_NOT_AVAILABLE in Kafka: the client asks again.
    const code = kafkaErrorCode(error);
    return code === kafkaErrors.TOPIC_ALREADY_EXISTS ? kafkaErrors.LEADER_NOT_AVAILABLE : code;
  }
}
