/**
 * Request and answer shapes of the transaction routes (issue 28; docs/api.md, Transactions;
 * docs/transactions.md), shared with the client: zod, as the router validates them and the
 * OpenAPI document states them.
 */
import { z } from "zod";
import { producerEpochMax, transactionPartitionsMax, transactionTimeoutMsDefault } from "../limits.ts";
import { commitOffsetsSchema } from "./schemas.ts";

const producerIdentityFields = {
  producerId: z.number().int().nonnegative(),
  producerEpoch: z.number().int().nonnegative().max(producerEpochMax),
};

const topicPartitionSchema = z.object({ topic: z.string().min(1), partition: z.number().int().nonnegative() });

/** The bounds of the timeout are the coordinator's (INVALID_TRANSACTION_TIMEOUT, with Kafka's code), not a shape error. */
export const initTransactionSchema = z
  .object({
    transactionTimeoutMs: z.number().int().default(transactionTimeoutMsDefault),
    /** KIP-360: the identity the producer holds, when it re-initializes itself (both or neither). */
    producerId: producerIdentityFields.producerId.optional(),
    producerEpoch: producerIdentityFields.producerEpoch.optional(),
  })
  .refine((body) => (body.producerId === undefined) === (body.producerEpoch === undefined), { message: "producerId and producerEpoch come together (the identity the producer holds), or neither" });

export const addPartitionsSchema = z.object({
  ...producerIdentityFields,
  partitions: z.array(topicPartitionSchema).min(1).max(transactionPartitionsMax),
});

/**
 * Offsets committed in the transaction (Kafka's AddOffsetsToTxn + TxnOffsetCommit in one
 * request), with a plain commit's member fields for KIP-447's fencing.
 */
export const transactionOffsetsSchema = commitOffsetsSchema.extend({
  ...producerIdentityFields,
  groupId: z.string().min(1),
});

export const endTransactionSchema = z.object({
  ...producerIdentityFields,
  commit: z.boolean(),
});

// ---- Answers ----

export const producerIdentitySchema = z.object(producerIdentityFields);

export const transactionStateSchema = z.enum(["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort"]);

export const transactionDescriptionSchema = z.object({
  transactionalId: z.string(),
  state: transactionStateSchema,
  producerId: z.number().int(),
  producerEpoch: z.number().int(),
  transactionTimeoutMs: z.number().int(),
  transactionStartTimeMs: z.number().int().nullable().meta({ description: "when the open transaction began (ms since the epoch); null when none is open" }),
  partitions: z.array(topicPartitionSchema),
  groups: z.array(z.string()),
  coordinatorEpoch: z.number().int(),
  pendingMarkers: z
    .object({ partitions: z.array(topicPartitionSchema), groups: z.array(z.string()), result: z.enum(["commit", "abort"]) })
    .nullable()
    .meta({ description: "partitions and groups still without the ending transaction's marker" }),
});

export const transactionListSchema = z.object({
  transactions: z.array(
    z.object({
      transactionalId: z.string(),
      producerId: z.number().int(),
      producerEpoch: z.number().int(),
      transactionTimeoutMs: z.number().int(),
      initializedAt: z.number().int(),
    }),
  ),
  truncated: z.boolean(),
});
