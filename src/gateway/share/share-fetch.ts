/**
 * ShareFetch (78) and ShareAcknowledge (79) on Tributary's share groups (docs/gateway.md, Share
 * groups): a ShareFetch is one `POST /v1/share-groups/{g}/fetch` over the topics of the
 * session's partitions, with the piggybacked acknowledgements riding along under the leases
 * the session remembers (sessions.ts); a ShareAcknowledge is one `POST …/acknowledge` per
 * lease. Tributary's fetch acquires from every partition of its topics; a record of a
 * partition outside the session is released at once, uncounted by the member.
 */
import { path } from "../../client/transport.ts";
import type { ErrorCode } from "../../errors.ts";
import { fetchMaxBytesMax, fetchMaxRecordsMax, fetchWaitMsMax } from "../../limits.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { errorMessage, kafkaCodeOfName, kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";
import { hold, holdRoom, leaseAcknowledgements, partitionKey, releaseAll, sessionFor, splitPartitionKey, type AcknowledgementBatch, type LeaseAcknowledgement, type ShareSession } from "./sessions.ts";
import { sharedPartition, type SharedRecord } from "./share-records.ts";

interface RequestTopic {
  topicId: Uint8Array;
  partitions: { partitionIndex: number; acknowledgementBatches: AcknowledgementBatch[] }[];
}

interface ShareFetchRequest {
  groupId: string | null;
  memberId: string | null;
  shareSessionEpoch: number;
  maxWaitMs: number;
  maxBytes: number;
  maxRecords?: number;
  isRenewAck?: boolean;
  topics: RequestTopic[];
  forgottenTopicsData: { topicId: Uint8Array; partitions: number[] }[];
}

interface ShareAcknowledgeRequest {
  groupId: string | null;
  memberId: string | null;
  shareSessionEpoch: number;
  isRenewAck?: boolean;
  topics: RequestTopic[];
}

interface PartitionAnswer {
  errorCode: number;
  errorMessage: string | null;
  acknowledgeErrorCode: number;
  acknowledgeErrorMessage: string | null;
  /** Never null: Kafka 4.4's client refuses a null (the field is not nullable in its definition). */
  records: Uint8Array[];
  acquiredRecords: { firstOffset: bigint; lastOffset: bigint; deliveryCount: number }[];
}

interface AcknowledgeResult {
  topic: string;
  partition: number;
  error?: { code: ErrorCode; message: string };
}

const noLeader = { leaderId: -1, leaderEpoch: -1 };

/** Topic names by id (hex); an id no topic of the token has maps to undefined. */
async function topicNames(ids: Iterable<Uint8Array>, context: GatewayRequestContext): Promise<Map<string, string | undefined>> {
  const hexes = new Map([...ids].map((id) => [Buffer.from(id).toString("hex"), id]));
  const named = await Promise.all([...hexes].map(async ([hex, id]) => [hex, await context.session.topicNamed(id)] as const));
  return new Map(named);
}

/** The session's answers keyed by partition, written as Kafka's topics → partitions by topic id. */
async function byTopicId<T extends object>(answers: Map<string, T>, context: GatewayRequestContext): Promise<{ topicId: Uint8Array; partitions: (T & { partitionIndex: number; currentLeader: typeof noLeader })[] }[]> {
  const byTopic = new Map<string, (T & { partitionIndex: number; currentLeader: typeof noLeader })[]>();
  for (const [key, answer] of answers) {
    const { topic, partition } = splitPartitionKey(key);
    const partitions = byTopic.get(topic) ?? [];
    partitions.push({ ...answer, partitionIndex: partition, currentLeader: noLeader });
    byTopic.set(topic, partitions);
  }
  const topics = await Promise.all([...byTopic].map(async ([topic, partitions]) => ({ topicId: await context.session.topicId(topic), partitions })));
  return topics.filter((entry): entry is { topicId: Uint8Array; partitions: typeof entry.partitions } => entry.topicId !== undefined);
}

/** The request's acknowledgements by lease, and the partitions named (each with its own acknowledgement error, if any). */
async function takeAcknowledgements(session: ShareSession, topics: readonly RequestTopic[], names: Map<string, string | undefined>) {
  const acknowledgements: LeaseAcknowledgement[] = [];
  const named = new Map<string, { errorCode: number; errorMessage: string | null; acknowledged: boolean }>();
  const unknown: { topicId: Uint8Array; partitionIndex: number }[] = [];
  for (const { topicId, partitions } of topics) {
    const topic = names.get(Buffer.from(topicId).toString("hex"));
    for (const { partitionIndex, acknowledgementBatches } of partitions) {
      if (topic === undefined) {
        unknown.push({ topicId, partitionIndex });
        continue;
      }
      const taken = leaseAcknowledgements(session, topic, partitionIndex, acknowledgementBatches);
      acknowledgements.push(...taken.acknowledgements);
      named.set(partitionKey(topic, partitionIndex), { errorCode: taken.error?.code ?? 0, errorMessage: taken.error?.message ?? null, acknowledged: acknowledgementBatches.length > 0 });
    }
  }
  return { acknowledgements, named, unknown };
}

/** Tributary's acknowledge, one call per lease; answers each partition's result. */
async function acknowledgeByLease(groupId: string, acknowledgements: readonly LeaseAcknowledgement[], context: GatewayRequestContext): Promise<AcknowledgeResult[]> {
  const byLease = new Map<string, LeaseAcknowledgement[]>();
  for (const acknowledgement of acknowledgements) byLease.set(acknowledgement.lease, [...(byLease.get(acknowledgement.lease) ?? []), acknowledgement]);
  const answers = await Promise.all(
    [...byLease].map(async ([lease, items]) => {
      try {
        const answer = await context.transport.json<{ results: AcknowledgeResult[] }>({
          method: "POST",
          path: path("share-groups", groupId, "acknowledge"),
          json: { lease, acknowledgements: items.map(({ topic, partition, offsets, type }) => ({ topic, partition, offsets, type })) },
        });
        return answer.results;
      } catch (error) {
        const code = (error as { code?: ErrorCode }).code ?? "INVALID_REQUEST";
        return items.map(({ topic, partition }) => ({ topic, partition, error: { code, message: errorMessage(error) } }));
      }
    }),
  );
  return answers.flat();
}

/** Folds acknowledge results into the partitions' acknowledgement errors (the first error a partition got). */
function applyResults(results: readonly AcknowledgeResult[], named: Map<string, { errorCode: number; errorMessage: string | null; acknowledged: boolean }>): void {
  for (const { topic, partition, error } of results) {
    const entry = named.get(partitionKey(topic, partition));
    if (entry === undefined || error === undefined || entry.errorCode !== 0) continue;
    entry.errorCode = kafkaCodeOfName(error.code);
    entry.errorMessage = error.message;
  }
}

export async function shareFetch(request: ShareFetchRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const failed = (errorCode: number, message: string | null) => ({ throttleTimeMs: 0, errorCode, errorMessage: message, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] });
  if (request.groupId === null || request.groupId === "" || request.memberId === null || request.memberId === "") return failed(kafkaErrors.INVALID_REQUEST, "GroupId and MemberId are required");
  if (request.isRenewAck === true) return failed(kafkaErrors.INVALID_REQUEST, "renew acknowledgements are not served: Tributary's locks are not renewed");
  const groupId = request.groupId;
  const found = sessionFor(groupId, request.memberId, request.shareSessionEpoch);
  if (!found.ok) return failed(found.errorCode, found.message);
  const { session } = found;
  if (found.previous !== undefined) await acknowledgeByLease(groupId, releaseAll(found.previous), context);
  const names = await topicNames([...request.topics.map(({ topicId }) => topicId), ...request.forgottenTopicsData.map(({ topicId }) => topicId)], context);
  const closing = request.shareSessionEpoch === -1;
  const { acknowledgements, named, unknown } = await takeAcknowledgements(session, request.topics, names);
  if (!closing) for (const key of named.keys()) session.partitions.add(key);
  for (const { topicId, partitions } of request.forgottenTopicsData) {
    const topic = names.get(Buffer.from(topicId).toString("hex"));
    if (topic !== undefined) for (const partition of partitions) session.partitions.delete(partitionKey(topic, partition));
  }
  const answers = new Map<string, PartitionAnswer>();
  const answerOf = (key: string): PartitionAnswer => {
    let answer = answers.get(key);
    if (answer === undefined) {
      const ack = named.get(key);
      answer = { errorCode: 0, errorMessage: null, acknowledgeErrorCode: ack?.errorCode ?? 0, acknowledgeErrorMessage: ack?.errorMessage ?? null, records: [], acquiredRecords: [] };
      answers.set(key, answer);
    }
    return answer;
  };
  const topics = [...new Set([...session.partitions].map((key) => splitPartitionKey(key).topic))];
  const room = Math.min(request.maxRecords ?? fetchMaxRecordsMax, fetchMaxRecordsMax, holdRoom(session));
  if (closing || topics.length === 0 || room <= 0) {
    applyResults(await acknowledgeByLease(groupId, closing ? [...acknowledgements, ...releaseAll(session)] : acknowledgements, context), named);
  } else {
    try {
      const waitMs = Math.max(0, Math.min(request.maxWaitMs, fetchWaitMsMax));
      const answer = await context.transport.json<{ records: SharedRecord[]; lease: string; leaseExpiresAt: number; results?: AcknowledgeResult[] }>({
        method: "POST",
        path: path("share-groups", groupId, "fetch"),
        waitMs,
        json: {
          topics,
          maxRecords: room,
          maxBytes: Math.max(1, Math.min(request.maxBytes, fetchMaxBytesMax)),
          waitMs,
          encoding: "base64",
          ...(acknowledgements.length > 0 ? { acknowledgements: acknowledgements.map(({ lease, topic, partition, offsets, type }) => ({ lease, topic, partition, offsets, type })) } : {}),
        },
      });
      applyResults(answer.results ?? [], named);
      await takeRecords(session, answer, answerOf, context);
    } catch (error) {
      // The fetch failed as a whole (acknowledgements riding along were not applied): every session partition says why.
      const code = kafkaErrorCode(error);
      for (const key of session.partitions) Object.assign(answerOf(key), { errorCode: code, errorMessage: errorMessage(error) });
      for (const entry of named.values()) if (entry.acknowledged && entry.errorCode === 0) Object.assign(entry, { errorCode: code, errorMessage: errorMessage(error) });
    }
  }
  for (const key of named.keys()) answerOf(key);
  const responses = await byTopicId(answers, context);
  for (const { topicId, partitionIndex } of unknown) {
    responses.push({ topicId, partitions: [{ partitionIndex, errorCode: kafkaErrors.UNKNOWN_TOPIC_ID, errorMessage: null, acknowledgeErrorCode: kafkaErrors.UNKNOWN_TOPIC_ID, acknowledgeErrorMessage: null, records: [], acquiredRecords: [], currentLeader: noLeader }] });
  }
  return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: session.lockTimeoutMs, responses, nodeEndpoints: [] };
}

/** Puts the fetch's records of session partitions into their answers (held under the lease); releases the others. */
async function takeRecords(session: ShareSession, answer: { records: SharedRecord[]; lease: string; leaseExpiresAt: number }, answerOf: (key: string) => PartitionAnswer, context: GatewayRequestContext): Promise<void> {
  if (answer.records.length === 0) return;
  session.lockTimeoutMs = Math.max(1_000, answer.leaseExpiresAt - Date.now());
  const byPartition = new Map<string, SharedRecord[]>();
  for (const record of answer.records) {
    const key = partitionKey(record.topic, record.partition);
    byPartition.set(key, [...(byPartition.get(key) ?? []), record]);
  }
  const outside: LeaseAcknowledgement[] = [];
  for (const [key, records] of byPartition) {
    const offsets = records.map(({ offset }) => offset);
    if (!session.partitions.has(key)) {
      const { topic, partition } = splitPartitionKey(key);
      outside.push({ lease: answer.lease, topic, partition, offsets, type: "release" });
      continue;
    }
    hold(session, key, offsets, answer.lease);
    const { batches, acquiredRecords } = sharedPartition(records);
    Object.assign(answerOf(key), { records: batches, acquiredRecords });
  }
  if (outside.length > 0) await acknowledgeByLease(session.groupId, outside, context);
}

export async function shareAcknowledge(request: ShareAcknowledgeRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const failed = (errorCode: number, message: string | null) => ({ throttleTimeMs: 0, errorCode, errorMessage: message, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] });
  if (request.groupId === null || request.groupId === "" || request.memberId === null || request.memberId === "") return failed(kafkaErrors.INVALID_REQUEST, "GroupId and MemberId are required");
  if (request.isRenewAck === true) return failed(kafkaErrors.INVALID_REQUEST, "renew acknowledgements are not served: Tributary's locks are not renewed");
  if (request.shareSessionEpoch === 0) return failed(kafkaErrors.INVALID_SHARE_SESSION_EPOCH, "a ShareAcknowledge cannot open a share session");
  const found = sessionFor(request.groupId, request.memberId, request.shareSessionEpoch);
  if (!found.ok) return failed(found.errorCode, found.message);
  const { session } = found;
  const names = await topicNames(request.topics.map(({ topicId }) => topicId), context);
  const { acknowledgements, named, unknown } = await takeAcknowledgements(session, request.topics, names);
  const closing = request.shareSessionEpoch === -1;
  applyResults(await acknowledgeByLease(request.groupId, closing ? [...acknowledgements, ...releaseAll(session)] : acknowledgements, context), named);
  const answers = new Map([...named].map(([key, { errorCode, errorMessage }]) => [key, { errorCode, errorMessage }]));
  const responses = await byTopicId(answers, context);
  for (const { topicId, partitionIndex } of unknown) responses.push({ topicId, partitions: [{ partitionIndex, errorCode: kafkaErrors.UNKNOWN_TOPIC_ID, errorMessage: null, currentLeader: noLeader }] });
  return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: session.lockTimeoutMs, responses, nodeEndpoints: [] };
}
