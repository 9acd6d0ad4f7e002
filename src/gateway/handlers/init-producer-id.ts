/**
 * InitProducerId. Without a transactional id: `POST /v1/producers`, a new producer id at epoch 0
 * for an idempotent producer; a request to bump an epoch (v3+, after a fatal sequence error)
 * gets a new producer id instead, which starts over as well.
 *
 * With a transactional id: `POST /v1/transactions/{id}/init` with the producer's
 * transaction.timeout.ms, which fences every older instance (their epoch is behind) and aborts
 * a transaction one left open. A producer that sends the identity it holds (v3+, KIP-360: it
 * recovers from an abortable error by bumping its epoch) sends it on, translated to the
 * server's, and the coordinator checks it as Kafka's does: the current identity is bumped, the
 * one held just before the last bump (a retry, or a re-init after a timeout's abort) is answered
 * the current one, any other is PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before v4).
 * The answer is the identity the client and the server both hold from now on
 * (../transactions/producer-mapping.ts).
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";
import { lastReadOrder } from "../read-order.ts";
import { initialized, mappingFor } from "../transactions/producer-mapping.ts";
import { initTransaction } from "../transactions/transaction-calls.ts";
import { producerFencedFrom, transactionCode } from "../transactions/transaction-codes.ts";

interface InitProducerIdRequest {
  transactionalId: string | null;
  transactionTimeoutMs: number;
  producerId?: bigint;
  producerEpoch?: number;
}

const refused = (errorCode: number, throttle = 0) => ({ throttleTimeMs: throttle, errorCode, producerId: -1n, producerEpoch: -1 });

export async function initProducerId(request: InitProducerIdRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  if (request.transactionalId !== null) return initTransactional(request as InitProducerIdRequest & { transactionalId: string }, context);
  try {
    const answer = await context.transport.json<{ producerId: number; producerEpoch: number }>({ method: "POST", path: path("producers"), json: {} });
    return { throttleTimeMs: 0, errorCode: kafkaErrors.NONE, producerId: BigInt(answer.producerId), producerEpoch: answer.producerEpoch };
  } catch (error) {
    return refused(kafkaErrorCode(error), throttleTimeMs(error));
  }
}

async function initTransactional(request: InitProducerIdRequest & { transactionalId: string }, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const id = request.transactionalId;
  try {
    const held = { producerId: Number(request.producerId ?? -1n), producerEpoch: request.producerEpoch ?? -1 };
    const server = held.producerId >= 0 && held.producerEpoch >= 0 ? (mappingFor(id, held, context.readOrder)?.server ?? held) : undefined;
    const answer = await initTransaction(context, id, request.transactionTimeoutMs, server);
    initialized(id, answer, lastReadOrder());
    return { throttleTimeMs: 0, errorCode: kafkaErrors.NONE, producerId: BigInt(answer.producerId), producerEpoch: answer.producerEpoch };
  } catch (error) {
    return refused(transactionCode(error, context.apiVersion, producerFencedFrom.initProducerId), throttleTimeMs(error));
  }
}
