import { TributaryError, unwrap } from "../errors.ts";
import type { SharePartitionRef } from "../contracts/share-partition-api.ts";
import { legacySharePartitionStub, shareGroupStub, sharePartitionStub } from "../contracts/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { topicMetadata } from "./metadata-cache.ts";
import { listOffset } from "./partition-reads.ts";
import { callShareState } from "./share-state-calls.ts";

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
export async function describeShareGroup(env: Env, group: string, visible: (key: SharePartitionRef) => boolean = () => true) {
  const view = unwrap(await shareGroupStub(env, group).view(group));
  const described = await Promise.all(view.partitions.filter(visible).map((key) => describePartition(env, key)));
  return { group, configs: view.configs, partitions: described.filter((entry) => entry !== undefined) };
}

/** Deletes a share group and every share-partition's state: 404 GROUP_ID_NOT_FOUND, 409 NON_EMPTY_GROUP while a record is acquired. */
export async function deleteShareGroup(env: Env, group: string): Promise<void> {
  const view = unwrap(await shareGroupStub(env, group).view(group));
  await refuseWhileAcquired(env, view.partitions);
  for (const ref of view.partitions) await clearSharePartition(env, ref);
  unwrap(await shareGroupStub(env, group).deleteGroup(group));
}

/**
 * Clears a share-partition's state in every region (and the object named as before
 * replication): the leader's first, refused while a record is acquired. A region that does not
 * answer fails the delete with a retriable error and the group stays, so a retry clears the
 * rest: a replica left with the old state could lead later and bring it back.
 */
async function clearSharePartition(env: Env, ref: SharePartitionRef): Promise<void> {
  const topic = await currentTopic(env, ref.topic);
  const placement = topic?.topicId === ref.topicId ? topic.partitions[ref.partition] : undefined;
  const leader = placement?.leader ?? ref.region;
  const others = (placement?.replicas ?? ref.replicas ?? [ref.region]).filter((region) => region !== leader);
  const unanswered = (region: string) => () => {
    throw new TributaryError("LEADER_NOT_AVAILABLE", `the share-partition state of ${ref.topic} partition ${ref.partition} in ${region} did not answer; retry shortly`);
  };
  unwrap(await sharePartitionStub(env, { ...ref, region: leader }).clear(true).catch(unanswered(leader)));
  await Promise.all(others.map(async (region) => unwrap(await sharePartitionStub(env, { ...ref, region }).clear(false).catch(unanswered(region)))));
  unwrap(await legacySharePartitionStub(env, ref).clear(false));
}

/**
 * One share-partition as describe shows it (its topic's current incarnation only), the
 * records available past its end counted to the partition's high watermark now.
 */
async function describePartition(env: Env, ref: SharePartitionRef) {
  const topic = await currentTopic(env, ref.topic);
  if (topic?.topicId !== ref.topicId || topic.partitions[ref.partition] === undefined) return undefined;
  const highWatermark = (await listOffset(env, topic, ref.partition, "latest")).offset;
  const state = await callShareState(env, topic, ref.group, ref.partition, (stub, key) => stub.describe(key, highWatermark));
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

/** 409 NON_EMPTY_GROUP, before anything changes, while a record of these share-partitions (of topics that exist) is acquired. */
export async function refuseWhileAcquired(env: Env, refs: readonly SharePartitionRef[]): Promise<void> {
  const states = await Promise.all(
    refs.map(async (ref) => {
      const topic = await currentTopic(env, ref.topic);
      if (topic?.topicId !== ref.topicId || topic.partitions[ref.partition] === undefined) return null;
      return callShareState(env, topic, ref.group, ref.partition, (stub, key) => stub.describe(key));
    }),
  );
  const busy = states.find((state) => state !== null && state.acquired > 0);
  if (busy) {
    throw new TributaryError("NON_EMPTY_GROUP", `the share group holds acquired records of ${busy.topic} partition ${busy.partition}; wait for them to be acknowledged or their locks to expire`, {
      topic: busy.topic,
      partition: busy.partition,
    });
  }
}
