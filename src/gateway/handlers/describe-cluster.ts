/**
 * DescribeCluster (the Java Admin's describeCluster): the gateway is the cluster's one broker
 * (node 0) and its controller, as Metadata says. Asked for them, the cluster's authorized
 * operations are those of the connection's token (`GET /v1/whoami`): every operation Kafka
 * has on a cluster for the admin token or an open deployment (as Kafka without an authorizer
 * answers), else those its cluster rules allow.
 */
import { allows, clusterResourceName, type Operation, type Rule } from "../../auth/acl.ts";
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors, throttleTimeMs } from "../kafka-errors.ts";

interface DescribeClusterRequest {
  includeClusterAuthorizedOperations: boolean;
  endpointType?: number;
}

/** Kafka's AclOperation codes of the operations a cluster resource has, with the Tributary operation each needs. */
const clusterOperations: readonly (readonly [code: number, needs: Operation])[] = [
  [5, "create"], // CREATE
  [7, "alter"], // ALTER
  [8, "describe"], // DESCRIBE
  [9, "alter"], // CLUSTER_ACTION (brokers' own calls; no client of Tributary makes them)
  [10, "describe"], // DESCRIBE_CONFIGS
  [11, "alter"], // ALTER_CONFIGS
  [12, "write"], // IDEMPOTENT_WRITE
];
/** Kafka's "not asked for" authorized operations. */
const operationsNotAsked = -2147483648;
const brokersEndpoint = 1;

interface WhoAmI {
  kind: "open" | "none" | "admin" | "scoped" | "write" | "read";
  rules?: Rule[];
}

export async function describeCluster(request: DescribeClusterRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const { broker } = context;
  const answer = { throttleTimeMs: 0, errorCode: kafkaErrors.NONE, errorMessage: null, endpointType: brokersEndpoint, clusterId: broker.clusterId, controllerId: broker.nodeId };
  // A client asking for controllers (kafka-cluster.sh --bootstrap-controller) reached a broker.
  if ((request.endpointType ?? brokersEndpoint) !== brokersEndpoint) {
    return { ...answer, errorCode: kafkaErrors.MISMATCHED_ENDPOINT_TYPE, errorMessage: "The gateway is a broker: it describes brokers only", brokers: [], clusterAuthorizedOperations: operationsNotAsked };
  }
  const brokers = [{ brokerId: broker.nodeId, host: broker.host, port: broker.port, rack: null }];
  if (!request.includeClusterAuthorizedOperations) return { ...answer, brokers, clusterAuthorizedOperations: operationsNotAsked };
  try {
    const token = await context.transport.json<WhoAmI>({ method: "GET", path: path("whoami") });
    return { ...answer, brokers, clusterAuthorizedOperations: authorizedOperations(token) };
  } catch (error) {
    return { ...answer, throttleTimeMs: throttleTimeMs(error), errorCode: kafkaErrorCode(error), brokers: [], clusterAuthorizedOperations: operationsNotAsked };
  }
}

/** Kafka's 32-bit field of the cluster operations `token` may do (bit n for operation code n). */
export function authorizedOperations(token: WhoAmI): number {
  const unrestricted = token.kind === "open" || token.kind === "admin";
  let bits = 0;
  for (const [code, needs] of clusterOperations) {
    if (unrestricted || allows(token.rules ?? [], "cluster", clusterResourceName, needs)) bits |= 1 << code;
  }
  return bits;
}
