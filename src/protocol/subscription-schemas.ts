import { z } from "zod";
import {
  subscriptionBatchSizeMax,
  subscriptionInFlightDefault,
  subscriptionInFlightMax,
  subscriptionNameLengthMax,
  subscriptionRetryDelayMsMax,
  subscriptionSecretLengthMax,
  subscriptionWaitMsMax,
} from "../limits.ts";
import { isolationSchema } from "./schemas.ts";

/**
 * Subscriptions' request and answer shapes (docs/api.md, Subscriptions), shared by the router,
 * the Subscription object and the client. Whether a webhook's origin is allowed and whether a
 * service binding exists are checked by the router (src/subscriptions/target-origins.ts).
 */

/** As a topic's name: it names the subscription's object and its share group. */
export const subscriptionNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9._-]+$/, "a subscription name holds letters, digits, '.', '_' and '-'")
  .max(subscriptionNameLengthMax);

export const webhookTargetSchema = z.strictObject({
  url: z.string().min(1),
  secret: z.string().min(1).max(subscriptionSecretLengthMax).optional(),
});

/** A Worker bound in the deployment's wrangler config (`[[services]]`), called with `deliver(batch)`. */
export const serviceTargetSchema = z.strictObject({
  service: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a service target names a binding: letters, digits and '_'"),
});

export const subscriptionTargetSchema = z.union([webhookTargetSchema, serviceTargetSchema]);
export type SubscriptionTarget = z.infer<typeof subscriptionTargetSchema>;

const batchSizeSchema = z.number().int().min(1).max(subscriptionBatchSizeMax);
const maxWaitMsSchema = z.number().int().min(0).max(subscriptionWaitMsMax);
const maxInFlightSchema = z.number().int().min(1).max(subscriptionInFlightMax);
const retryDelayMsSchema = z.number().int().min(0).max(subscriptionRetryDelayMsMax);
const deliveryLimitSchema = z.number().int().min(2).max(10);

export const createSubscriptionSchema = z.strictObject({
  name: subscriptionNameSchema,
  topic: z.string().min(1),
  mode: z.enum(["shared", "ordered"]),
  target: subscriptionTargetSchema,
  from: z.enum(["latest", "earliest"]).default("latest"),
  batchSize: batchSizeSchema.default(100),
  maxWaitMs: maxWaitMsSchema.default(1_000),
  maxInFlight: maxInFlightSchema.default(subscriptionInFlightDefault),
  retryDelayMs: retryDelayMsSchema.default(1_000),
  deliveryLimit: deliveryLimitSchema.default(5),
  deadLetterTopic: z.string().min(1).optional(),
  /** Which records are delivered (docs/transactions.md): committed ones only, or every record up to the high watermark. */
  isolation: isolationSchema.default("read_committed"),
});
export type CreateSubscription = z.infer<typeof createSubscriptionSchema>;

export const patchSubscriptionSchema = z.strictObject({
  paused: z.boolean().optional(),
  target: subscriptionTargetSchema.optional(),
  batchSize: batchSizeSchema.optional(),
  maxWaitMs: maxWaitMsSchema.optional(),
  maxInFlight: maxInFlightSchema.optional(),
  retryDelayMs: retryDelayMsSchema.optional(),
  deliveryLimit: deliveryLimitSchema.optional(),
  /** null: dead letters are dropped after the delivery limit. */
  deadLetterTopic: z.string().min(1).nullable().optional(),
});
export type PatchSubscription = z.infer<typeof patchSubscriptionSchema>;

/** What a target answers with a 2xx (or a resolved `deliver`) to settle single records. */
export const deliveryAckSchema = z.object({
  partition: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  type: z.enum(["accept", "release", "reject"]),
});
export type DeliveryAck = z.infer<typeof deliveryAckSchema>;
export const deliveryAnswerSchema = z.object({ acknowledgements: z.array(deliveryAckSchema) });

// ---- Answers ----------------------------------------------------------------------------

/** A target as answered: a webhook's secret never leaves the server. */
export const subscriptionTargetAnswerSchema = z.union([
  z.strictObject({ url: z.string(), secret: z.literal("<redacted>").optional() }),
  z.strictObject({ service: z.string() }),
]);

export const subscriptionSchema = z.strictObject({
  name: z.string(),
  topic: z.string(),
  mode: z.enum(["shared", "ordered"]),
  target: subscriptionTargetAnswerSchema,
  from: z.enum(["latest", "earliest"]),
  batchSize: z.number().int(),
  maxWaitMs: z.number().int(),
  maxInFlight: z.number().int(),
  retryDelayMs: z.number().int(),
  deliveryLimit: z.number().int(),
  deadLetterTopic: z.string().nullable(),
  isolation: isolationSchema,
  paused: z.boolean(),
  createdAt: z.number().int(),
});
export type SubscriptionAnswer = z.infer<typeof subscriptionSchema>;

export const subscriptionListSchema = z.strictObject({ subscriptions: z.array(subscriptionSchema) });

export const subscriptionDescriptionSchema = z.strictObject({
  ...subscriptionSchema.shape,
  /** Records the target accepted. */
  delivered: z.number().int(),
  /** Redeliveries: records delivered again after a failed or released delivery. */
  retried: z.number().int(),
  /** Records given up on: rejected, or past the delivery limit (written to deadLetterTopic when set). */
  deadLettered: z.number().int(),
  /** Records committed to the topic and not yet settled by the target. */
  lag: z.number().int(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().int().nullable(),
  partitions: z.array(
    z.strictObject({
      partition: z.number().int(),
      /** The next offset to deliver: every record below it is settled. */
      position: z.number().int(),
      highWatermark: z.number().int().nullable(),
      /** Offsets delivered and not yet settled, with their delivery count; null when none. */
      inFlight: z.strictObject({ offsets: z.array(z.number().int()), deliveryCount: z.number().int(), retryAt: z.number().int().nullable() }).nullable(),
    }),
  ),
});
export type SubscriptionDescription = z.infer<typeof subscriptionDescriptionSchema>;

/**
 * What a target receives: a webhook as its JSON body, a Worker as the argument of
 * `deliver(batch)`. Keys, values and headers as UTF-8 text (a fetch's default encoding);
 * `deliveryCount` is 1 on a record's first delivery and grows with each redelivery of the
 * same offsets.
 */
export interface DeliveryRecord {
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
  deliveryCount: number;
}

export interface DeliveryBatch {
  subscription: string;
  topic: string;
  records: DeliveryRecord[];
}
