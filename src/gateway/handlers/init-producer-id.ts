/**
 * InitProducerId → `POST /v1/producers`: a new producer id at epoch 0 for an idempotent
 * producer. Transactional ids are not served yet (no transactions): UNSUPPORTED_VERSION, which
 * Kafka's clients report at once as a fatal error (the Java client's initTransactions() throws),
 * rather than an authorization failure that would send the user looking at ACLs. A request to bump an epoch
 * (v3+, after a fatal sequence error) gets a new producer id instead, which starts over as well.
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";

interface InitProducerIdRequest {
  transactionalId: string | null;
}

export async function initProducerId(request: InitProducerIdRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const refused = (errorCode: number, throttle = 0) => ({ throttleTimeMs: throttle, errorCode, producerId: -1n, producerEpoch: -1 });
  if (request.transactionalId !== null) return refused(kafkaErrors.UNSUPPORTED_VERSION);
  try {
    const answer = await context.transport.json<{ producerId: number; producerEpoch: number }>({ method: "POST", path: path("producers"), json: {} });
    return { throttleTimeMs: 0, errorCode: kafkaErrors.NONE, producerId: BigInt(answer.producerId), producerEpoch: answer.producerEpoch };
  } catch (error) {
    return refused(kafkaErrorCode(error), throttleTimeMs(error));
  }
}
