/**
 * The admin side of transactions (Kafka's `kafka-transactions.sh describe|list`, the Java
 * Admin's describeTransactions / listTransactions): DescribeTransactions from
 * `GET /v1/transactions/{id}`, ListTransactions from `GET /v1/transactions` and each listed
 * id's state (the listing holds each id as of its last init).
 */
import { TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";
import { compileTopicRegex } from "../groups/consumer-subscriptions.ts";
import { describeTransaction, listTransactionIds, type TransactionDescription } from "../transactions/transaction-calls.ts";

/** Kafka's transaction states (TransactionState.java), the ones ListTransactions filters by. */
const kafkaStates = new Set(["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"]);

function topicsOf(partitions: TransactionDescription["partitions"]): { topic: string; partitions: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  return [...byTopic].map(([topic, indexes]) => ({ topic, partitions: indexes }));
}

export async function describeTransactions(request: { transactionalIds: string[] }, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const transactionStates = await Promise.all(
    request.transactionalIds.map(async (transactionalId) => {
      try {
        const described = await describeTransaction(context, transactionalId);
        return {
          errorCode: kafkaErrors.NONE,
          transactionalId,
          transactionState: described.state,
          transactionTimeoutMs: described.transactionTimeoutMs,
          transactionStartTimeMs: BigInt(described.transactionStartTimeMs ?? -1),
          producerId: BigInt(described.producerId),
          producerEpoch: described.producerEpoch,
          topics: topicsOf(described.partitions),
        };
      } catch (error) {
        const errorCode = error instanceof TributaryError ? kafkaErrorCode(error) : kafkaErrors.UNKNOWN_SERVER_ERROR;
        return { errorCode, transactionalId, transactionState: "", transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] };
      }
    }),
  );
  return { throttleTimeMs: 0, transactionStates };
}

interface ListTransactionsRequest {
  stateFilters: string[];
  producerIdFilters: bigint[];
  durationFilter?: bigint;
  /** v2+ (KIP-1152): a regular expression the whole id must match; null or empty, every id. */
  transactionalIdPattern?: string | null;
}

/** Kafka's code for a pattern that does not compile (InvalidRegularExpression). */
const invalidRegularExpression = 128;

export async function listTransactions(request: ListTransactionsRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const answer = (errorCode: number, transactionStates: unknown[] = []) => ({
    throttleTimeMs: 0,
    errorCode,
    unknownStateFilters: request.stateFilters.filter((state) => !kafkaStates.has(state)),
    transactionStates,
  });
  // As Kafka 4.4's coordinator: the pattern matches the whole id; one that does not compile fails the request.
  const pattern = request.transactionalIdPattern ? compileTopicRegex(request.transactionalIdPattern) : undefined;
  if (pattern === null) return answer(invalidRegularExpression);
  try {
    const { transactions } = await listTransactionIds(context);
    const producerIds = new Set(request.producerIdFilters.map(Number));
    const wanted = transactions.filter(({ transactionalId, producerId }) => (producerIds.size === 0 || producerIds.has(producerId)) && (pattern === undefined || pattern.test(transactionalId)));
    const described = await Promise.all(wanted.map(({ transactionalId }) => describeTransaction(context, transactionalId).catch(() => undefined)));
    const olderThanMs = Number(request.durationFilter ?? -1n);
    const now = Date.now();
    const states = described.filter(
      (entry): entry is TransactionDescription =>
        entry !== undefined &&
        (request.stateFilters.length === 0 || request.stateFilters.includes(entry.state)) &&
        (olderThanMs < 0 || (entry.transactionStartTimeMs !== null && now - entry.transactionStartTimeMs > olderThanMs)),
    );
    return answer(
      kafkaErrors.NONE,
      states.map((entry) => ({ transactionalId: entry.transactionalId, producerId: BigInt(entry.producerId), transactionState: entry.state })),
    );
  } catch (error) {
    return answer(error instanceof TributaryError ? kafkaErrorCode(error) : kafkaErrors.UNKNOWN_SERVER_ERROR);
  }
}
