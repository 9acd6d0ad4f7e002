import {
  addPartitionsSchema,
  endTransactionSchema,
  initTransactionSchema,
  producerIdentitySchema,
  transactionDescriptionSchema,
  transactionListSchema,
  transactionOffsetsSchema,
} from "../../protocol/transaction-schemas.ts";
import type { RouteDoc } from "./route-doc.ts";

const fencing = ["PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH", "INVALID_PRODUCER_ID_MAPPING", "CONCURRENT_TRANSACTIONS"] as const;
/** A transactional id's coordinator is reached as any replicated state is: its leader unreachable, or an in-sync replica (docs/transactions.md, Replication across regions). */
const coordinator = ["LEADER_NOT_AVAILABLE", "NOT_ENOUGH_REPLICAS"] as const;
const identity = { 200: { description: "The producer id and epoch to use next", json: producerIdentitySchema } };

/** Transactions (issue 28; docs/api.md, Transactions; docs/transactions.md). */
export const transactionRouteDocs: readonly RouteDoc[] = [
  {
    method: "get", path: "/v1/transactions", tag: "transactions", auth: "token", objects: true,
    summary: "List the transactional ids the token may describe",
    responses: { 200: { description: "Each transactional id as of its last init", json: transactionListSchema } },
  },
  {
    method: "get", path: "/v1/transactions/:transactionalId", tag: "transactions", auth: "token", resource: "transactionalId", objects: true,
    summary: "Describe a transactional id: state, producer, timeout, partitions, start time",
    responses: { 200: { description: "The transactional id's state", json: transactionDescriptionSchema } },
    errors: ["TRANSACTIONAL_ID_NOT_FOUND", ...coordinator],
  },
  {
    method: "post", path: "/v1/transactions/:transactionalId/init", tag: "transactions", auth: "token", resource: "transactionalId", objects: true,
    summary: "Initialize a transactional producer: fences older instances, aborts what they left open",
    body: { json: initTransactionSchema, optional: true },
    responses: identity,
    errors: ["INVALID_TRANSACTION_TIMEOUT", "CONCURRENT_TRANSACTIONS", ...coordinator],
  },
  {
    method: "post", path: "/v1/transactions/:transactionalId/partitions", tag: "transactions", auth: "token", resource: "transactionalId", objects: true,
    summary: "Add partitions to the transaction (Kafka's AddPartitionsToTxn)",
    body: { json: addPartitionsSchema },
    responses: identity,
    errors: [...fencing, "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", ...coordinator],
  },
  {
    method: "post", path: "/v1/transactions/:transactionalId/offsets", tag: "transactions", auth: "token", resource: "transactionalId", objects: true,
    summary: "Commit a group's offsets in the transaction (AddOffsetsToTxn + TxnOffsetCommit)",
    body: { json: transactionOffsetsSchema },
    responses: identity,
    errors: [...fencing, "GROUP_AUTHORIZATION_FAILED", "TOPIC_AUTHORIZATION_FAILED", "UNKNOWN_TOPIC_OR_PARTITION", "UNKNOWN_MEMBER_ID", "FENCED_MEMBER_EPOCH", "FENCED_INSTANCE_ID", "REBALANCE_IN_PROGRESS", "OFFSET_METADATA_TOO_LARGE", ...coordinator],
  },
  {
    method: "post", path: "/v1/transactions/:transactionalId/end", tag: "transactions", auth: "token", resource: "transactionalId", objects: true,
    summary: "Commit or abort the transaction (Kafka's EndTxn); answers the bumped epoch",
    body: { json: endTransactionSchema },
    responses: identity,
    errors: [...fencing, "INVALID_TXN_STATE", ...coordinator],
  },
  {
    method: "post", path: "/v1/transactions/:transactionalId/abort", tag: "transactions", auth: "token", resource: "cluster", objects: true,
    summary: "Abort the transactional id's open transaction (an operator's tool)",
    responses: { 200: { description: "The transactional id's state after the decision", json: transactionDescriptionSchema } },
    errors: ["TRANSACTIONAL_ID_NOT_FOUND", "INVALID_TXN_STATE", ...coordinator],
  },
];
