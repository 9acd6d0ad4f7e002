/**
 * FindCoordinator: the gateway coordinates every group and transactional id (v0–3 one key, v4+ a
 * batch). Key type 2 (v6+, KIP-932) asks for a share partition's coordinator, as brokers do: the
 * gateway is that too. As Kafka's broker, a key type this version does not have (2 before v6, or
 * any other than 0–2) is INVALID_REQUEST for each key.
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";

interface FindCoordinatorRequest {
  key?: string;
  keyType?: number;
  coordinatorKeys?: string[];
}

/** Group, transaction, and (v6+) share. */
function keyTypeKnown(keyType: number, apiVersion: number): boolean {
  return keyType === 0 || keyType === 1 || (keyType === 2 && apiVersion >= 6);
}

export async function findCoordinator(request: FindCoordinatorRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const { nodeId, host, port } = context.broker;
  const keyType = request.keyType ?? 0;
  const known = keyTypeKnown(keyType, context.apiVersion);
  const errorCode = known ? kafkaErrors.NONE : kafkaErrors.INVALID_REQUEST;
  const errorMessage = known ? null : `key type ${keyType} is not one FindCoordinator v${context.apiVersion} has`;
  const where = known ? { nodeId, host, port } : { nodeId: -1, host: "", port: -1 };
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    ...where,
    coordinators: (request.coordinatorKeys ?? []).map((key) => ({ key, ...where, errorCode, errorMessage })),
  };
}
