import { TributaryError, unwrap } from "../errors.ts";
import type { AutoOffsetReset } from "../group/index.ts";
import type { PartitionStart } from "../contracts/group-coordinator-api.ts";
import { groupStub } from "../contracts/stubs.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import type { Isolation, PollRequest, Position } from "../protocol/schemas.ts";
import { recordPayloadBytes } from "../protocol/record-scan.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { topicMetadata } from "../data-plane/metadata-cache.ts";
import { listOffset, payloadBytesOf, readPartition, recordJson, type PartitionRecords } from "../data-plane/partition-reads.ts";

/**
 * A group member's poll (API.md, Consumer groups; ARCHITECTURE.md decision 7): the
 * coordinator commits the positions the member sent, heartbeats and says where each assigned
 * partition starts; then this router reads every assigned, unpaused partition itself.
 *
 * Limits are for the whole answer. Each partition is read with an equal share of
 * `maxRecords` and `maxBytes` (at least one record), in parallel; the records are then taken
 * partition by partition, from a partition chosen at random so that none starves, until
 * `maxRecords` or `maxBytes` would be passed (the first record always comes, as in Kafka).
 * Each position says exactly what was returned: records read but not taken are read again.
 */

/** One assigned partition on its way through a poll. */
interface PartitionPlan {
  topic: TopicMetadata;
  partition: number;
  /** The next offset to read; moves as records are returned. */
  position: number;
  reset: AutoOffsetReset;
  /** Paused by the member, or its topic not found by this router: kept, not read. */
  read: boolean;
}

interface PartitionRead {
  plan: PartitionPlan;
  result: PartitionRecords | undefined;
  taken: number;
}

/**
 * `mayRead` refuses (throws) when the caller may not read one of the topics: checked for the
 * positions it sends before the coordinator commits them, and for the member's assigned
 * topics before any is read.
 */
export async function pollGroup(env: Env, group: string, memberId: string, request: PollRequest, mayRead: (topics: string[]) => void) {
  mayRead((request.positions ?? []).map((position) => position.topic));
  const start = unwrap(
    await groupStub(env, group).pollStart(group, memberId, {
      memberEpoch: request.memberEpoch,
      positions: request.positions,
      autoCommit: request.autoCommit,
    }),
  );
  mayRead(start.starts.map((partitionStart) => partitionStart.topic));
  const plans = await planPartitions(env, start.starts, request);
  const readable = plans.filter((plan) => plan.read);
  let reads = await readAll(env, readable, request);
  const waitMs = Math.min(request.waitMs, Math.floor(start.sessionTimeoutMs / 2));
  if (reads.every((read) => read.taken === 0) && waitMs > 0) {
    const woken = await waitForRecordsOrChange(env, group, memberId, start.memberEpoch, readable, { waitMs, isolation: request.isolation });
    if (woken === "records") reads = await readAll(env, readable, request);
  }
  return {
    memberEpoch: start.memberEpoch,
    assignment: start.assignment,
    heartbeatIntervalMs: start.heartbeatIntervalMs,
    records: reads.flatMap(({ plan, result, taken }) =>
      (result?.records.slice(0, taken) ?? []).map((record) => ({
        topic: plan.topic.name,
        partition: plan.partition,
        ...recordJson(record, request.encoding),
      })),
    ),
    positions: plans
      .map((plan): Position => ({ topic: plan.topic.name, partition: plan.partition, offset: plan.position }))
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition)),
    /** The key, value and header bytes returned, for the fetch quota (not part of the answer). */
    fetchedBytes: reads.reduce((sum, { result, taken }) => sum + payloadBytesOf(result?.records.slice(0, taken) ?? []), 0),
  };
}

/**
 * Where each assigned partition starts: the member's position, else the committed offset,
 * else its reset (earliest: the log start; latest: the high watermark). A partition whose
 * topic this router cannot find (deleted a moment ago) is left out.
 */
async function planPartitions(env: Env, starts: readonly PartitionStart[], request: PollRequest): Promise<PartitionPlan[]> {
  const sent = new Map<string, number>();
  if (request.memberEpoch !== 0) {
    for (const { topic, partition, offset } of request.positions ?? []) sent.set(partitionKey(topic, partition), offset);
  }
  const paused = new Set<string>();
  for (const { topic, partitions } of request.paused ?? []) for (const partition of partitions) paused.add(partitionKey(topic, partition));
  const byTopic = new Map<string, PartitionStart[]>();
  for (const start of starts) byTopic.set(start.topic, [...(byTopic.get(start.topic) ?? []), start]);
  const plans = await Promise.all(
    [...byTopic.values()].map(async (topicStarts) => {
      const first = topicStarts[0]!;
      const partitionsNeeded = Math.max(...topicStarts.map((start) => start.partition)) + 1;
      const topic = await topicAsCoordinatorSees(env, first.topic, first.topicId, partitionsNeeded);
      if (topic === undefined) return [];
      return Promise.all(
        topicStarts.map(async (start): Promise<PartitionPlan | undefined> => {
          const key = partitionKey(start.topic, start.partition);
          const position = sent.get(key) ?? start.committedOffset ?? (await resetOffset(env, topic, start.partition, start.reset));
          if (position === undefined) return undefined;
          return { topic, partition: start.partition, position, reset: start.reset, read: !paused.has(key) };
        }),
      );
    }),
  );
  return plans.flat().filter((plan): plan is PartitionPlan => plan !== undefined);
}

/** This router's metadata of a topic, refreshed once when it is not the incarnation (topicId) the coordinator means. */
async function topicAsCoordinatorSees(env: Env, name: string, topicId: string, partitionsNeeded: number) {
  const fits = (topic: TopicMetadata | undefined) => topic?.topicId === topicId && topic.partitions.length >= partitionsNeeded;
  const cached = await ifTopicExists(topicMetadata(env, name));
  if (fits(cached)) return cached;
  const fresh = await ifTopicExists(topicMetadata(env, name, { refresh: true }));
  return fits(fresh) ? fresh : undefined;
}

async function resetOffset(env: Env, topic: TopicMetadata, partition: number, reset: AutoOffsetReset): Promise<number | undefined> {
  return (await ifTopicExists(listOffset(env, topic, partition, reset)))?.offset;
}

/** Reads every partition once without waiting, each within its share of the limits, and takes what fits. */
async function readAll(env: Env, plans: readonly PartitionPlan[], request: PollRequest): Promise<PartitionRead[]> {
  const share = (total: number) => Math.max(1, Math.ceil(total / Math.max(1, plans.length)));
  const limits = { maxRecords: share(request.maxRecords), maxBytes: share(request.maxBytes), isolation: request.isolation };
  const reads = await Promise.all(
    plans.map(async (plan): Promise<PartitionRead> => ({ plan, result: await readFromPosition(env, plan, limits), taken: 0 })),
  );
  const rotated = rotate(reads, Math.floor(Math.random() * Math.max(1, reads.length)));
  takeWithin(rotated, request.maxRecords, request.maxBytes);
  for (const read of rotated) advance(read);
  return rotated;
}

/**
 * Reads one partition from its position. A position out of range (the log start moved past
 * it, or it is beyond the log end) is reset as Kafka's consumer does, by the partition's
 * autoOffsetReset, and read again. A partition of a topic deleted meanwhile yields nothing.
 */
async function readFromPosition(
  env: Env,
  plan: PartitionPlan,
  limits: { maxRecords: number; maxBytes: number },
): Promise<PartitionRecords | undefined> {
  const read = (offset: number) => ifTopicExists(readPartition(env, plan.topic, plan.partition, { offset, ...limits, waitMs: 0 }));
  try {
    return await read(plan.position);
  } catch (error) {
    if (!(error instanceof TributaryError) || error.code !== "OFFSET_OUT_OF_RANGE") throw error;
    const { logStartOffset, highWatermark } = error.data as { logStartOffset: number; highWatermark: number };
    plan.position = plan.reset === "earliest" ? logStartOffset : highWatermark;
    return read(plan.position);
  }
}

/** Marks how many records of each read fit the whole answer's limits, in order. */
function takeWithin(reads: readonly PartitionRead[], maxRecords: number, maxBytes: number): void {
  let count = 0;
  let bytes = 0;
  for (const read of reads) {
    for (const record of read.result?.records ?? []) {
      const size = recordPayloadBytes(record);
      if (count >= maxRecords || (count > 0 && bytes + size > maxBytes)) return;
      read.taken += 1;
      count += 1;
      bytes += size;
    }
  }
}

/** Moves a partition's position past the records taken from it (past a compaction gap when all were). */
function advance(read: PartitionRead): void {
  const records: readonly DecodedRecord[] = read.result?.records ?? [];
  if (read.result === undefined) return;
  if (read.taken === records.length) read.plan.position = Math.max(read.plan.position, read.result.nextOffset);
  else if (read.taken > 0) read.plan.position = records[read.taken - 1]!.offset + 1;
}

/**
 * Waits until a partition has a record at its position, the member's assignment is about
 * to change, or `waitMs` passes. Each partition is watched by a long-poll read of one record
 * (a probe; the records are read again afterwards within the limits), the assignment by the
 * coordinator. Whatever settles first decides; the others end on their own by `waitMs`. A
 * failed probe settles as "records": the read that follows reports or resets it.
 */
function waitForRecordsOrChange(
  env: Env,
  group: string,
  memberId: string,
  memberEpoch: number,
  plans: readonly PartitionPlan[],
  { waitMs, isolation }: { waitMs: number; isolation: Isolation | undefined },
): Promise<"records" | "change" | "timeout"> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (why: "records" | "change" | "timeout") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(why);
    };
    const timer = setTimeout(() => settle("timeout"), waitMs);
    for (const plan of plans) {
      readPartition(env, plan.topic, plan.partition, { offset: plan.position, maxRecords: 1, maxBytes: 1, waitMs, isolation }).then(
        (probe) => {
          if (probe.records.length > 0) settle("records");
        },
        () => settle("records"),
      );
    }
    groupStub(env, group)
      .waitForChange(group, memberId, memberEpoch, waitMs)
      .then(
        (answer) => {
          if (!answer.ok || answer.value) settle("change");
        },
        () => settle("change"),
      );
  });
}

/** The value, or undefined when the topic or partition does not exist (any more). */
async function ifTopicExists<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION") return undefined;
    throw error;
  }
}

function rotate<T>(items: readonly T[], from: number): T[] {
  return [...items.slice(from), ...items.slice(0, from)];
}

function partitionKey(topic: string, partition: number): string {
  return JSON.stringify([topic, partition]);
}
