/** FindCoordinator: the gateway coordinates every group and transactional id (v0–3 one key, v4+ a batch). */
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";

interface FindCoordinatorRequest {
  key?: string;
  coordinatorKeys?: string[];
}

export async function findCoordinator(request: FindCoordinatorRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const { nodeId, host, port } = context.broker;
  return {
    throttleTimeMs: 0,
    errorCode: kafkaErrors.NONE,
    errorMessage: null,
    nodeId,
    host,
    port,
    coordinators: (request.coordinatorKeys ?? []).map((key) => ({ key, nodeId, host, port, errorCode: kafkaErrors.NONE, errorMessage: null })),
  };
}
