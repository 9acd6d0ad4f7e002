/**
 * A transactional producer's requests (docs/gateway.md, Transactions): AddPartitionsToTxn,
 * AddOffsetsToTxn, TxnOffsetCommit and EndTxn onto the transaction routes, the client's
 * producer identity translated to the server's (../transactions/producer-mapping.ts).
 * InitProducerId with a transactional id is in init-producer-id.ts.
 */
import { TributaryError } from "../../errors.ts";
import { lastReadOrder } from "../read-order.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";
import { isConsumerMember } from "../groups/consumer-subscriptions.ts";
import { kafkaCodeOf } from "../groups/kafka-codes.ts";
import { committedPositions } from "../groups/offsets.ts";
import { offsetCommitById } from "../groups/offsets-by-id.ts";
import { ended, initialized, mappingFor, type ProducerIdentity } from "../transactions/producer-mapping.ts";
import { addTransactionPartitions, commitTransactionOffsets, describeTransaction, endTransaction } from "../transactions/transaction-calls.ts";
import { producerFencedFrom, transactionCode } from "../transactions/transaction-codes.ts";

interface AddPartitionsToTxnRequest {
  v3AndBelowTransactionalId: string;
  v3AndBelowProducerId: bigint;
  v3AndBelowProducerEpoch: number;
  v3AndBelowTopics: { name: string; partitions: number[] }[];
}

interface AddOffsetsToTxnRequest {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  groupId: string;
}

interface EndTxnRequest {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  committed: boolean;
}

interface TxnOffsetCommitRequest {
  transactionalId: string;
  groupId: string;
  producerId: bigint;
  producerEpoch: number;
  generationIdOrMemberEpoch?: number;
  memberId?: string;
  groupInstanceId?: string | null;
  /** name: "" from v6, which names topics by id (topicId). */
  topics: { name: string; topicId?: Uint8Array; partitions: { partitionIndex: number; committedOffset: bigint; committedMetadata: string | null; committedLeaderEpoch?: number }[] }[];
}

const identityOf = (producerId: bigint, producerEpoch: number): ProducerIdentity => ({ producerId: Number(producerId), producerEpoch });

/** The client's identity as the server knows it, and the mapping that says so (undefined: as sent). */
function translated(id: string, client: ProducerIdentity, context: GatewayRequestContext) {
  const mapping = mappingFor(id, client, context.readOrder);
  return { mapping, server: mapping?.server ?? client };
}

/**
 * AddPartitionsToTxn answers per partition as Kafka's broker does: when the server refused some
 * partitions (their topic not writable, or missing: the refusal lists them), each of those has
 * its code and the others OPERATION_NOT_ATTEMPTED; otherwise the coordinator's one answer is
 * every partition's.
 */
export async function addPartitionsToTxn(request: AddPartitionsToTxnRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const id = request.v3AndBelowTransactionalId;
  const { mapping, server } = translated(id, identityOf(request.v3AndBelowProducerId, request.v3AndBelowProducerEpoch), context);
  const partitions = request.v3AndBelowTopics.flatMap(({ name, partitions }) => partitions.map((partition) => ({ topic: name, partition })));
  let codeOf = (_topic: string, _partition: number): number => kafkaErrors.NONE;
  if (partitions.length > 0) {
    try {
      await addTransactionPartitions(context, id, server, partitions);
      if (mapping !== undefined) mapping.ended = undefined;
    } catch (error) {
      const refused = refusedPartitions(error);
      const errorCode = transactionCode(error, context.apiVersion, producerFencedFrom.addPartitionsToTxn);
      codeOf = refused === undefined ? () => errorCode : (topic, partition) => refused.get(`${partition}:${topic}`) ?? kafkaErrors.OPERATION_NOT_ATTEMPTED;
    }
  }
  return {
    throttleTimeMs: 0,
    resultsByTopicV3AndBelow: request.v3AndBelowTopics.map(({ name, partitions }) => ({
      name,
      resultsByPartition: partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: codeOf(name, partitionIndex) })),
    })),
  };
}

/** The partitions the server's refusal names (docs/api.md, Transactions), by "partition:topic"; undefined when it names none. */
function refusedPartitions(error: unknown): Map<string, number> | undefined {
  const listed = error instanceof TributaryError ? error.data?.partitions : undefined;
  if (!Array.isArray(listed)) return undefined;
  const codes = new Map<string, number>();
  for (const entry of listed as { topic?: unknown; partition?: unknown; code?: unknown }[]) {
    if (typeof entry.topic !== "string" || typeof entry.partition !== "number") continue;
    codes.set(`${entry.partition}:${entry.topic}`, entry.code === "TOPIC_AUTHORIZATION_FAILED" ? kafkaErrors.TOPIC_AUTHORIZATION_FAILED : kafkaErrors.UNKNOWN_TOPIC_OR_PARTITION);
  }
  return codes.size > 0 ? codes : undefined;
}

/**
 * AddOffsetsToTxn: the group joins the transaction with its offsets, in TxnOffsetCommit (the
 * offsets route does both, and takes no empty commit). Here the producer's identity and the
 * transaction's state are checked, as Kafka's coordinator checks them.
 */
export async function addOffsetsToTxn(request: AddOffsetsToTxnRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const { mapping, server } = translated(request.transactionalId, identityOf(request.producerId, request.producerEpoch), context);
  const answer = (errorCode: number) => ({ throttleTimeMs: 0, errorCode });
  let current;
  try {
    current = await describeTransaction(context, request.transactionalId);
  } catch (error) {
    return answer(transactionCode(error, context.apiVersion, producerFencedFrom.addOffsetsToTxn));
  }
  if (current.producerId !== server.producerId) return answer(kafkaErrors.INVALID_PRODUCER_ID_MAPPING);
  if (current.producerEpoch > server.producerEpoch) return answer(context.apiVersion >= producerFencedFrom.addOffsetsToTxn ? kafkaErrors.PRODUCER_FENCED : kafkaErrors.INVALID_PRODUCER_EPOCH);
  if (current.producerEpoch < server.producerEpoch) return answer(kafkaErrors.INVALID_PRODUCER_EPOCH);
  if (current.state === "PrepareCommit" || current.state === "PrepareAbort") return answer(kafkaErrors.CONCURRENT_TRANSACTIONS);
  if (mapping !== undefined) mapping.ended = undefined;
  return answer(kafkaErrors.NONE);
}

/** TxnOffsetCommit; v6 names topics by id, resolved as OffsetCommit v10's (offsets-by-id.ts). */
export async function txnOffsetCommit(request: TxnOffsetCommitRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  if (context.apiVersion >= 6) return { ...(await offsetCommitById(request, context, (byName) => txnOffsetCommitByName(byName, context))) };
  return txnOffsetCommitByName(request, context);
}

async function txnOffsetCommitByName(request: TxnOffsetCommitRequest, context: GatewayRequestContext): Promise<{ throttleTimeMs: number; topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] }> {
  const { mapping, server } = translated(request.transactionalId, identityOf(request.producerId, request.producerEpoch), context);
  const offsets = committedPositions(request.topics);
  const generation = request.generationIdOrMemberEpoch ?? -1;
  const memberId = request.memberId ?? "";
  // KIP-447: a member's offsets are fenced as its plain commit would be (its generation, or a KIP-848 member's epoch).
  const member = generation >= 0 && memberId !== "" ? { memberId, memberEpoch: generation, classic: !isConsumerMember(context, request.groupId, memberId), groupInstanceId: request.groupInstanceId ?? null } : {};
  let errorCode: number = kafkaErrors.NONE;
  if (!offsets.every(({ offset }) => Number.isSafeInteger(offset) && offset >= 0)) errorCode = kafkaErrors.INVALID_REQUEST;
  else if (offsets.length > 0) {
    try {
      await commitTransactionOffsets(context, request.transactionalId, { ...server, groupId: request.groupId, offsets, ...member });
      if (mapping !== undefined) mapping.ended = undefined;
    } catch (error) {
      errorCode = offsetCommitCode(error, context);
    }
  }
  return {
    throttleTimeMs: 0,
    topics: request.topics.map(({ name, partitions }) => ({ name, partitions: partitions.map(({ partitionIndex }) => ({ partitionIndex, errorCode })) })),
  };
}

const producerCodes = new Set(["PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH", "INVALID_PRODUCER_ID_MAPPING", "INVALID_TXN_STATE", "CONCURRENT_TRANSACTIONS", "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"]);

/** The coordinator's refusals as a transaction's, the group's (generation, member, authorization) as a commit's. */
function offsetCommitCode(error: unknown, context: GatewayRequestContext): number {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && producerCodes.has(code)) return transactionCode(error, context.apiVersion, producerFencedFrom.txnOffsetCommit);
  try {
    return kafkaCodeOf(error);
  } catch {
    return kafkaErrors.UNKNOWN_SERVER_ERROR;
  }
}

/**
 * EndTxn: the server answers the identity for the next transaction (the epoch bumped), which
 * the client of EndTxn v0–4 does not learn: from the read order of this moment on, the client's
 * identity stands for it (producer-mapping.ts). An end repeated before anything of the next
 * transaction came (its answer was lost) is answered as the first was; the other result is
 * INVALID_TXN_STATE, as Kafka's coordinator answers.
 */
export async function endTxn(request: EndTxnRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const id = request.transactionalId;
  const client = identityOf(request.producerId, request.producerEpoch);
  const { mapping, server } = translated(id, client, context);
  const answer = (errorCode: number, next?: ProducerIdentity) => ({ throttleTimeMs: 0, errorCode, producerId: BigInt(next?.producerId ?? -1), producerEpoch: next?.producerEpoch ?? -1 });
  if (mapping?.ended !== undefined) return answer(mapping.ended.commit === request.committed ? kafkaErrors.NONE : kafkaErrors.INVALID_TXN_STATE);
  try {
    const next = await endTransaction(context, id, server, request.committed);
    // v5 (transaction version 2): the client takes the bumped identity and starts its sequences again, as the server does; a retry of the end comes with the old identity, which the coordinator answers as the end it repeats.
    if (context.apiVersion >= 5) initialized(id, next, lastReadOrder());
    else ended(id, client, mapping, next, request.committed, context.readOrder, lastReadOrder());
    return answer(kafkaErrors.NONE, context.apiVersion >= 5 ? next : undefined);
  } catch (error) {
    return answer(transactionCode(error, context.apiVersion, producerFencedFrom.endTxn));
  }
}
