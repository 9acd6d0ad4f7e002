import { TributaryError, unwrap } from "../errors.ts";
import type { SharePartitionKey } from "../objects/share-partition-api.ts";
import { shareGroupStub, sharePartitionStub } from "../objects/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { topicMetadata } from "./metadata-cache.ts";
import { listOffset } from "./partition-reads.ts";

/**
 * Share group administration as TypeScript entry points (the routes in routes/share-groups.ts
 * and the push subscriptions call them): configs, describe, delete. Authorization is the
 * caller's.
 */

/**
 * Changes a share group's configs (creating the group): INVALID_CONFIG for a bad name or
 * value, or a `dead.letter.topic` that does not exist. Answers every config, effective.
 */
export async function alterShareGroupConfigs(env: Env, group: string, configs: Record<string, unknown>): Promise<Record<string, string>> {
  const deadLetterTopic = configs["dead.letter.topic"];
  if (typeof deadLetterTopic === "string") {
    try {
      await topicMetadata(env, deadLetterTopic);
    } catch (error) {
      if (error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION") {
        throw new TributaryError("INVALID_CONFIG", `config dead.letter.topic must name an existing topic; ${JSON.stringify(deadLetterTopic)} does not exist`);
      }
      throw error;
    }
  }
  return unwrap(await shareGroupStub(env, group).alterConfigs(group, configs));
}

/** A share group (404 GROUP_ID_NOT_FOUND) with its share-partitions `visible` keeps, as GET /v1/share-groups/{group} answers. */
export async function describeShareGroup(env: Env, group: string, visible: (key: SharePartitionKey) => boolean = () => true) {
  const view = unwrap(await shareGroupStub(env, group).view(group));
  const described = await Promise.all(view.partitions.filter(visible).map((key) => describePartition(env, key)));
  return { group, configs: view.configs, partitions: described.filter((entry) => entry !== undefined) };
}

/** Deletes a share group and every share-partition's state: 404 GROUP_ID_NOT_FOUND, 409 NON_EMPTY_GROUP while a record is acquired. */
export async function deleteShareGroup(env: Env, group: string): Promise<void> {
  const view = unwrap(await shareGroupStub(env, group).view(group));
  await refuseWhileAcquired(env, view.partitions);
  for (const key of view.partitions) unwrap(await sharePartitionStub(env, key).clear());
  unwrap(await shareGroupStub(env, group).deleteGroup(group));
}

/**
 * One share-partition as describe shows it (its topic's current incarnation only), the
 * records available past its end counted to the partition's high watermark now.
 */
async function describePartition(env: Env, key: SharePartitionKey) {
  const topic = await currentTopic(env, key.topic);
  if (topic?.topicId !== key.topicId || topic.partitions[key.partition] === undefined) return undefined;
  const highWatermark = (await listOffset(env, topic, key.partition, "latest")).offset;
  const state = unwrap(await sharePartitionStub(env, key).describe(highWatermark));
  if (state === null) return undefined;
  const { topicId: _, ...view } = state;
  return view;
}

async function currentTopic(env: Env, name: string): Promise<TopicMetadata | undefined> {
  try {
    return await topicMetadata(env, name);
  } catch (error) {
    if (error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION") return undefined;
    throw error;
  }
}

/** 409 NON_EMPTY_GROUP, before anything changes, while a record of these share-partitions is acquired. */
export async function refuseWhileAcquired(env: Env, keys: readonly SharePartitionKey[]): Promise<void> {
  const states = await Promise.all(keys.map((key) => sharePartitionStub(env, key).describe().then(unwrap)));
  const busy = states.find((state) => state !== null && state.acquired > 0);
  if (busy) {
    throw new TributaryError("NON_EMPTY_GROUP", `the share group holds acquired records of ${busy.topic} partition ${busy.partition}; wait for them to be acknowledged or their locks to expire`, {
      topic: busy.topic,
      partition: busy.partition,
    });
  }
}
