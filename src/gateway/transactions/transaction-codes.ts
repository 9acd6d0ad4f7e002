/**
 * How the transaction APIs answer Tributary's errors: the gateway's one mapping
 * (../kafka-errors.ts), with what Kafka's coordinator does besides. PRODUCER_FENCED exists from
 * v2 of AddPartitionsToTxn, AddOffsetsToTxn and EndTxn and v4 of InitProducerId; older
 * versions, TxnOffsetCommit and Produce know the fencing as INVALID_PRODUCER_EPOCH (Kafka's
 * broker answers so). CONCURRENT_TRANSACTIONS is itself retriable; any other retriable failure
 * to reach the coordinator (network, timeout, busy, throttled) is COORDINATOR_NOT_AVAILABLE,
 * which the clients answer by finding the coordinator again and retrying.
 */
import { isRetriable, TributaryError } from "../../errors.ts";
import { kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";

/** The Kafka code of an error a transaction call threw; `fencedFrom` is the first version of the API that knows PRODUCER_FENCED (Infinity: none). */
export function transactionCode(error: unknown, apiVersion: number, fencedFrom: number): number {
  if (!(error instanceof TributaryError)) return kafkaErrors.UNKNOWN_SERVER_ERROR;
  if (error.code === "PRODUCER_FENCED") return apiVersion >= fencedFrom ? kafkaErrors.PRODUCER_FENCED : kafkaErrors.INVALID_PRODUCER_EPOCH;
  if (error.code === "CONCURRENT_TRANSACTIONS") return kafkaErrors.CONCURRENT_TRANSACTIONS;
  if (error.code === "UNAUTHENTICATED") return kafkaErrors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  return isRetriable(error) ? kafkaErrors.COORDINATOR_NOT_AVAILABLE : kafkaErrorCode(error);
}

/** First versions that know PRODUCER_FENCED, by API. */
export const producerFencedFrom = { initProducerId: 4, addPartitionsToTxn: 2, addOffsetsToTxn: 2, endTxn: 2, txnOffsetCommit: Infinity, produce: Infinity } as const;
