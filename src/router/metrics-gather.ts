import { TributaryError, unwrap } from "../errors.ts";
import { metricsFanOutConcurrencyMax, metricsGroupsMax, metricsPartitionsMax, metricsTopicsMax } from "../limits.ts";
import type { Gathered, GatheredGroup, GatheredPartition } from "../metrics/cluster-families.ts";
import { controllerStub, groupStub, replicaStub } from "../contracts/stubs.ts";
import type { PartitionPlacement, TopicMetadata } from "../topics/topic-metadata.ts";
import { mapBounded } from "./map-bounded.ts";
import { topicMetadata } from "../data-plane/metadata-cache.ts";

/**
 * Gathers what GET /v1/metrics shows (docs/metrics.md) in one bounded fan-out: the topics in
 * name order (their metadata from this isolate's cache), one `metrics()` call to each
 * partition's leader, one `offsets()` call to each group's coordinator, at most
 * metricsFanOutConcurrencyMax at once. Past the bounds (src/limits.ts) the rest is left out
 * and counted; an object that does not answer is left out this time and counted too, so one
 * unreachable leader never fails the whole scrape.
 */
export async function gatherMetrics(env: Env): Promise<Gathered> {
  const controller = controllerStub(env);
  const [topicList, groupList] = await Promise.all([controller.listTopics(), controller.listGroups()]);
  const summaries = unwrap(topicList);
  const groupEntries = unwrap(groupList);
  const included = summaries.slice(0, metricsTopicsMax);
  const omitted = {
    topics: summaries.length - included.length,
    partitions: summaries.slice(metricsTopicsMax).reduce((sum, topic) => sum + topic.partitions, 0),
    groups: Math.max(0, groupEntries.length - metricsGroupsMax),
  };
  const unavailable = { partitions: 0, groups: 0 };

  const topics = (await mapBounded(included, metricsFanOutConcurrencyMax, async (summary) => {
    try {
      return await topicMetadata(env, summary.name);
    } catch (error) {
      if (error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION") return undefined; // deleted meanwhile
      throw error;
    }
  })).filter((topic): topic is TopicMetadata => topic !== undefined);

  const placements: { topic: TopicMetadata; placement: PartitionPlacement }[] = [];
  for (const topic of topics) {
    for (const placement of topic.partitions) {
      if (placements.length < metricsPartitionsMax) placements.push({ topic, placement });
      else omitted.partitions++;
    }
  }

  // One fan-out after the other, so at most metricsFanOutConcurrencyMax calls are out at once.
  const partitions = await mapBounded(placements, metricsFanOutConcurrencyMax, async ({ topic, placement }) => {
    const gathered = await partitionNumbers(env, topic, placement);
    if (gathered === undefined) unavailable.partitions++;
    return gathered;
  });
  const groups = await mapBounded(groupEntries.slice(0, metricsGroupsMax), metricsFanOutConcurrencyMax, async ({ group }) => {
    const gathered = await groupOffsets(env, group);
    if (gathered === "unavailable") unavailable.groups++;
    return gathered === "unavailable" ? undefined : gathered;
  });
  return {
    partitions: partitions.filter((entry): entry is GatheredPartition => entry !== undefined),
    groups: groups.filter((entry): entry is GatheredGroup => entry !== undefined),
    omitted,
    unavailable,
  };
}

/** One partition's numbers from its leader; undefined when it does not answer. */
async function partitionNumbers(env: Env, topic: TopicMetadata, placement: PartitionPlacement): Promise<GatheredPartition | undefined> {
  const { partition, leader, replicas, isr } = placement;
  try {
    const { role: _role, ...numbers } = unwrap(await replicaStub(env, topic.topicId, partition, leader).metrics({ topicId: topic.topicId, partition, region: leader }));
    return { topic: topic.name, partition, replicas, isr, ...numbers };
  } catch {
    return undefined;
  }
}

/** A group's committed offsets from its coordinator (partitions without a commit left out); undefined for a group deleted meanwhile. */
async function groupOffsets(env: Env, group: string): Promise<GatheredGroup | undefined | "unavailable"> {
  try {
    const offsets = unwrap(await groupStub(env, group).offsets(group));
    return { group, offsets: offsets.flatMap(({ topic, partition, offset }) => (offset === null ? [] : [{ topic, partition, offset }])) };
  } catch (error) {
    if (error instanceof TributaryError && error.code === "GROUP_ID_NOT_FOUND") return undefined;
    return "unavailable";
  }
}
