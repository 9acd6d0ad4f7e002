import { TributaryError } from "../errors.ts";
import { shareFetchPartitionsPerRoundMax, shareFetchWaitRoundsMax } from "../limits.ts";
import type { LeaseAcknowledgement, ShareAcquireAnswer, ShareAcquireRequest, SharePartitionKey } from "../contracts/share-partition-api.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import { recordJson } from "../protocol/record-json.ts";
import type { Isolation } from "../protocol/schemas.ts";
import type { ShareFetchRequest } from "../protocol/share-schemas.ts";
import { recordPayloadBytes } from "../protocol/record-scan.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { topicMetadata } from "./metadata-cache.ts";
import { listOffset, readPartition } from "./partition-reads.ts";
import { acknowledgeAll, acknowledgementsByPartition, partitionKeyOf, sharePartitionKey, sortResults, type AcknowledgeResult, type PartitionAcknowledgements } from "./share-acknowledge.ts";
import { writeHandedOutDeadLetters } from "./share-dead-letters.ts";
import { readAcquired } from "./share-reads.ts";
import { callShareState } from "./share-state-calls.ts";

/**
 * A share group's fetch (docs/api.md, Share groups; KIP-932's ShareFetch), done by the router:
 *
 * 1. acknowledgements that ride along go to their share-partitions (with the acquisition when
 *    the partition is fetched from too: one object call for both);
 * 2. the partitions of the topics are asked, in a random order, to acquire records for a new
 *    lease — the whole `maxRecords` spread over them, and the rest offered to the partitions
 *    not asked yet while records are still wanted;
 * 3. the acquired records are read from each partition's leader and answered in offset order
 *    per partition within `maxBytes`; records acquired but not answered are given back
 *    uncounted, records the log no longer has are skipped;
 * 4. with nothing acquired, it waits (up to `waitMs`) for new records at a partition's end
 *    (a long-poll read of the leader) or a lock's expiry, and tries again.
 *
 * Records waiting for their dead-letter write that a share-partition hands out on the way are
 * written (share-dead-letters.ts) before the answer; a failed write is retried by a later request.
 */

/** Waves of acquisitions in one round: the first, the partitions not asked yet, and a few more for those that had more. */
const acquireWavesMax = 4;

/** What a share-partition's acquisition came to, on its way through the fetch. */
interface Acquisition {
  topic: TopicMetadata;
  key: SharePartitionKey;
  answer: Extract<ShareAcquireAnswer, { needsStart: false }>;
}

/** One partition the fetch may acquire from. */
interface Target {
  topic: TopicMetadata;
  key: SharePartitionKey;
  acknowledgements?: PartitionAcknowledgements;
}

export interface ShareFetchAnswer {
  records: ReturnType<typeof shareRecordJson>[];
  lease: string;
  leaseExpiresAt: number;
  results?: AcknowledgeResult[];
  /** The key, value and header bytes returned (for the fetch quota; not part of the answer). */
  fetchedBytes: number;
}

/**
 * The TypeScript entry point of a share fetch from inside the Worker (the HTTP route and the
 * push subscriptions call it): `request` as shareFetchSchema parses it. Authorization is the
 * caller's (group read, topic read).
 */
export async function shareFetch(env: Env, group: string, request: ShareFetchRequest): Promise<ShareFetchAnswer> {
  const lease = newLease();
  const topics = await Promise.all([...new Set(request.topics)].map((name) => topicMetadata(env, name)));
  const byPartition = acknowledgementsByPartition(request.acknowledgements ?? []);
  const targets: Target[] = topics.flatMap((topic) =>
    topic.partitions.map(({ partition }) => {
      const key = sharePartitionKey(group, topic, partition);
      const acknowledgements = byPartition.get(partitionKeyOf(topic.name, partition));
      byPartition.delete(partitionKeyOf(topic.name, partition));
      return { topic, key, ...(acknowledgements ? { acknowledgements } : {}) };
    }),
  );
  const results: AcknowledgeResult[] = [];
  const elsewhere = acknowledgeAll(env, group, [...byPartition.values()]);
  const deadline = Date.now() + request.waitMs;
  let acquisitions: Acquisition[] = [];
  const everyRound: Acquisition[] = []; // dead letters may be handed out in any round
  for (let round = 0; ; round++) {
    acquisitions = await acquireRound(env, round === 0 ? targets : targets.map(({ topic, key }) => ({ topic, key })), lease, request.maxRecords, results);
    everyRound.push(...acquisitions);
    const acquired = acquisitions.reduce((sum, { answer }) => sum + answer.records.length, 0);
    if (acquired > 0 || round + 1 >= shareFetchWaitRoundsMax || Date.now() >= deadline) break;
    await waitForRecords(env, acquisitions, deadline);
  }
  const [answer] = await Promise.all([deliver(env, acquisitions, lease, request), deadLettersOf(env, everyRound)]);
  results.push(...(await elsewhere));
  return { ...answer, lease, ...(request.acknowledgements?.length ? { results: sortResults(results) } : {}) };
}

/**
 * Asks the targets, in a random order, to acquire up to `maxRecords` in all: as many at once as
 * records are wanted (each its share), then the ones not asked yet with what is still wanted —
 * at most shareFetchPartitionsPerRoundMax of them — and then again those that gave their whole
 * share (they may have more). A partition with acknowledgements riding along is asked in the
 * first wave whatever its share.
 */
async function acquireRound(env: Env, targets: readonly Target[], lease: string, maxRecords: number, results: AcknowledgeResult[]): Promise<Acquisition[]> {
  const order = shuffled(targets);
  const acquisitions: Acquisition[] = [];
  let wanted = maxRecords;
  let wave = order.filter((target) => target.acknowledgements);
  const rest = order.filter((target) => !target.acknowledgements).slice(0, shareFetchPartitionsPerRoundMax);
  let next = 0;
  let full: Target[] = [];
  for (let waves = 0; waves < acquireWavesMax; waves++) {
    const fresh = rest.slice(next, next + Math.max(0, wanted - wave.length));
    next += fresh.length;
    wave = [...wave, ...fresh];
    if (wave.length === 0 && wanted > 0) wave = full.splice(0, wanted).map(({ topic, key }) => ({ topic, key }));
    if (wave.length === 0) break;
    const shares = spread(wanted, wave.length);
    const answers = await Promise.all(wave.map((target, index) => acquireFrom(env, target, lease, shares[index]!, results)));
    answers.forEach((acquisition, index) => {
      if (acquisition === undefined) return;
      acquisitions.push(acquisition);
      wanted -= acquisition.answer.records.length;
      if (shares[index]! > 0 && acquisition.answer.records.length === shares[index]) full.push(wave[index]!);
    });
    wave = [];
  }
  return acquisitions;
}

/** `total` split over `count` parts, as evenly as integers allow (the larger ones first). */
function spread(total: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => Math.floor(total / count) + (index < total % count ? 1 : 0));
}

/**
 * One share-partition's acquisition. A new share-partition is started where the group's
 * auto.offset.reset says (asked of the leader); a share-partition that knows no record past its
 * end learns the high watermark from a read of the leader and is asked again.
 */
async function acquireFrom(env: Env, target: Target, lease: string, maxRecords: number, results: AcknowledgeResult[]): Promise<Acquisition | undefined> {
  const { topic, key } = target;
  const acquire = (request: ShareAcquireRequest) => callShareState<ShareAcquireAnswer>(env, topic, key.group, key.partition, (stub, current) => stub.acquire(current, request));
  const acknowledgements: LeaseAcknowledgement[] | undefined = target.acknowledgements?.entries;
  let answer: ShareAcquireAnswer = await acquire({ lease, maxRecords, ...(acknowledgements ? { acknowledgements } : {}) });
  if (acknowledgements) results.push({ topic: topic.name, partition: key.partition, ...(answer.acknowledgementError ? { error: { code: answer.acknowledgementError.code, message: answer.acknowledgementError.message } } : {}) });
  if (answer.needsStart) {
    const { isolation } = answer; // latest at read_committed: the last stable offset
    const [start, end] = await Promise.all([listOffset(env, topic, key.partition, answer.autoOffsetReset, isolation), listOffset(env, topic, key.partition, "latest", isolation)]);
    answer = await acquire({ lease, maxRecords, start: { offset: start.offset, highWatermark: end.offset } });
    if (answer.needsStart) return undefined;
  }
  if (maxRecords > answer.records.length && answer.endOffset >= answer.highWatermark) {
    // It knows no record past its end: is there one now? (A read of one record, never a wait.)
    const probe = await probeEnd(env, topic, key.partition, answer.endOffset, answer.isolation);
    if (probe !== undefined && probe.highWatermark > answer.endOffset) {
      const more = await acquire({ lease, maxRecords: maxRecords - answer.records.length, highWatermark: probe.highWatermark, logStartOffset: probe.logStartOffset });
      if (!more.needsStart) answer = { ...more, records: [...answer.records, ...more.records], deadLetters: [...answer.deadLetters, ...more.deadLetters] };
    }
  }
  return { topic, key, answer };
}

/**
 * Where the share-partition may acquire up to — the high watermark, at read_committed the last
 * stable offset (KIP-932: an open transaction's records are not acquired) — and the log start,
 * read at `offset` (one record, no wait). An offset below the log start (retention deleted
 * records never delivered) answers them from the refusal; a failed read answers undefined (the
 * next fetch tries again).
 */
async function probeEnd(env: Env, topic: TopicMetadata, partition: number, offset: number, isolation: Isolation): Promise<{ highWatermark: number; logStartOffset: number } | undefined> {
  try {
    const read = await readPartition(env, topic, partition, { offset, maxRecords: 1, maxBytes: 1, waitMs: 0, isolation });
    return { highWatermark: isolation === "read_committed" ? read.lastStableOffset : read.highWatermark, logStartOffset: read.logStartOffset };
  } catch (error) {
    if (error instanceof TributaryError && error.code === "OFFSET_OUT_OF_RANGE") return error.data as { highWatermark: number; logStartOffset: number };
    return undefined;
  }
}

/**
 * Waits until a partition has records past its share-partition's end (a long-poll read of its
 * leader), the earliest lock held expires, or the deadline. Reads still waiting when one settles
 * end on their own by the deadline.
 */
function waitForRecords(env: Env, acquisitions: readonly Acquisition[], deadline: number): Promise<void> {
  const waitMs = deadline - Date.now();
  if (waitMs <= 0) return Promise.resolve();
  const lockExpiries = acquisitions.map(({ answer }) => answer.nextLockExpiryMs).filter((at): at is number => at !== null);
  const untilMs = Math.min(deadline, ...lockExpiries.map((at) => at + 1));
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, untilMs - Date.now()));
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    for (const { topic, key, answer } of acquisitions) {
      if (answer.endOffset < answer.highWatermark) continue; // records there already: the window is full, a lock must expire
      readPartition(env, topic, key.partition, { offset: answer.endOffset, maxRecords: 1, maxBytes: 1, waitMs, isolation: answer.isolation }).then(
        (probe) => probe.records.length > 0 && wake(),
        wake,
      );
    }
  });
}

/**
 * Reads the acquired records from the leaders and answers them, partition by partition in a
 * random order, within `maxBytes` (the first record always). Gives back what is not answered.
 */
async function deliver(env: Env, acquisitions: readonly Acquisition[], lease: string, request: ShareFetchRequest) {
  const withRecords = acquisitions.filter(({ answer }) => answer.records.length > 0);
  let failure: unknown;
  const reads = await Promise.all(
    withRecords.map(async (acquisition) => {
      const offsets = acquisition.answer.records.map(({ offset }) => offset);
      try {
        return { acquisition, read: await readAcquired(env, acquisition.topic, acquisition.key.partition, offsets, request.maxBytes, acquisition.answer.isolation) };
      } catch (error) {
        // The leader did not answer: nothing of this partition is delivered, so nothing of it is counted.
        failure ??= error;
        return { acquisition, read: { records: [], missing: [], unread: offsets } };
      }
    }),
  );
  const records: ReturnType<typeof shareRecordJson>[] = [];
  let bytes = 0;
  const settlements: Promise<void>[] = [];
  for (const { acquisition, read } of reads) {
    const counts = new Map(acquisition.answer.records.map(({ offset, deliveryCount }) => [offset, deliveryCount]));
    const unacquired = [...read.unread];
    for (const record of read.records) {
      const size = recordPayloadBytes(record);
      if (records.length > 0 && bytes + size > request.maxBytes) {
        unacquired.push(record.offset);
        continue;
      }
      bytes += size;
      records.push(shareRecordJson(acquisition.topic.name, acquisition.key.partition, record, counts.get(record.offset)!, request.encoding));
    }
    if (unacquired.length > 0 || read.missing.length > 0) {
      const { topic, key } = acquisition;
      settlements.push(callShareState(env, topic, key.group, key.partition, (stub, current) => stub.settle(current, { lease, unacquired, missing: read.missing })));
    }
  }
  await Promise.all(settlements);
  if (records.length === 0 && failure !== undefined) throw failure; // no partition could be read: the caller retries
  const lockExpiries = withRecords.map(({ answer }) => answer.lockExpiresAtMs);
  return { records, leaseExpiresAt: lockExpiries.length > 0 ? Math.min(...lockExpiries) : Date.now(), fetchedBytes: bytes };
}

/** Writes the dead letters the share-partitions handed out; a failure leaves them for a later request. */
async function deadLettersOf(env: Env, acquisitions: readonly Acquisition[]): Promise<void> {
  await Promise.all(acquisitions.map(({ topic, key, answer }) => writeHandedOutDeadLetters(env, topic, key, answer)));
}

export function shareRecordJson(topic: string, partition: number, record: DecodedRecord, deliveryCount: number, encoding: ShareFetchRequest["encoding"]) {
  return { topic, partition, ...recordJson(record, encoding), deliveryCount };
}

/** A lease: 128 random bits as hex. It names records in acknowledgements; it is not a secret (the group's ACL is). */
function newLease(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}
