/**
 * The HTTP calls a transactional producer's requests become (docs/api.md, Transactions): the
 * routes at `/v1/transactions/{transactionalId}/…`, through the connection's own credentials,
 * so Tributary's ACLs on the transactional id, the topics and the group apply.
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import type { ProducerIdentity } from "./producer-mapping.ts";

export interface TransactionDescription extends ProducerIdentity {
  transactionalId: string;
  state: string;
  transactionTimeoutMs: number;
  transactionStartTimeMs: number | null;
  partitions: { topic: string; partition: number }[];
}

export interface TransactionListing {
  transactions: { transactionalId: string; producerId: number; producerEpoch: number }[];
}

export interface TransactionOffsetsBody extends ProducerIdentity {
  groupId: string;
  offsets: { topic: string; partition: number; offset: number; metadata?: string; leaderEpoch?: number }[];
  memberId?: string;
  memberEpoch?: number;
  classic?: boolean;
  groupInstanceId?: string | null;
}

const route = (id: string, ...rest: string[]) => path("transactions", id, ...rest);

/** `held`: the identity the producer says it holds (KIP-360), checked by the coordinator. */
export function initTransaction(context: GatewayRequestContext, id: string, transactionTimeoutMs: number, held?: ProducerIdentity): Promise<ProducerIdentity> {
  return context.transport.json({ method: "POST", path: route(id, "init"), json: { transactionTimeoutMs, ...held } });
}

export function addTransactionPartitions(context: GatewayRequestContext, id: string, identity: ProducerIdentity, partitions: { topic: string; partition: number }[]): Promise<ProducerIdentity> {
  return context.transport.json({ method: "POST", path: route(id, "partitions"), json: { ...identity, partitions } });
}

export function commitTransactionOffsets(context: GatewayRequestContext, id: string, body: TransactionOffsetsBody): Promise<ProducerIdentity> {
  return context.transport.json({ method: "POST", path: route(id, "offsets"), json: body });
}

export function endTransaction(context: GatewayRequestContext, id: string, identity: ProducerIdentity, commit: boolean): Promise<ProducerIdentity> {
  return context.transport.json({ method: "POST", path: route(id, "end"), json: { ...identity, commit } });
}

export function describeTransaction(context: GatewayRequestContext, id: string): Promise<TransactionDescription> {
  return context.transport.json({ method: "GET", path: route(id) });
}

export function listTransactionIds(context: GatewayRequestContext): Promise<TransactionListing> {
  return context.transport.json({ method: "GET", path: path("transactions") });
}
