import { z } from "zod";

/**
 * Request shapes of the HTTP API (API.md), shared by the router and the client. Shapes only:
 * semantic checks with their own error codes (topic names, partition counts, configs, record
 * sizes) happen where the rule lives.
 */

export const encodingSchema = z.enum(["utf8", "base64"]);
export type Encoding = z.infer<typeof encodingSchema>;

export const acksSchema = z.union([z.literal(0), z.literal(1), z.literal("all")]);
export type Acks = z.infer<typeof acksSchema>;

/**
 * A JSON object of string values as its entries, keeping every own key: `z.record` drops a
 * key named "__proto__", which is a legal header name and must not vanish silently.
 */
const stringEntriesSchema = z.unknown().transform((value, ctx): [string, string][] => {
  const entries = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : undefined;
  if (!entries || entries.some(([, entry]) => typeof entry !== "string")) {
    ctx.addIssue({ code: "custom", message: "expected an object of string values" });
    return z.NEVER;
  }
  return entries as [string, string][];
});

/** Any JSON object, every own key kept (z.record would drop "__proto__"); its entries are checked where the rules live. */
const jsonObjectSchema = z.custom<Record<string, unknown>>(
  (value) => value !== null && typeof value === "object" && !Array.isArray(value),
  { error: "expected an object" },
);

const notYet = (what: string) => z.never({ error: `${what} is not available yet` }).optional();

export const produceRecordSchema = z.object({
  key: z.string().nullable().optional(),
  value: z.string().nullable(),
  headers: stringEntriesSchema.optional(),
  partition: z.number().int().nonnegative().optional(),
  timestamp: z.number().int().optional(),
});
export type ProduceRecord = z.infer<typeof produceRecordSchema>;

export const produceRequestSchema = z.object({
  records: z.array(produceRecordSchema).min(1, "records holds at least one record"),
  acks: acksSchema.default("all"),
  encoding: encodingSchema.default("utf8"),
  // Idempotent produce (issue 6) is refused, not silently ignored, until it exists.
  producerId: notYet("idempotent produce (producerId)"),
  producerEpoch: notYet("idempotent produce (producerEpoch)"),
  sequences: notYet("idempotent produce (sequences)"),
});
export type ProduceRequest = z.infer<typeof produceRequestSchema>;

export const createTopicSchema = z.object({
  name: z.string(),
  partitions: z.number().optional(),
  replicationFactor: z.number().optional(),
  // Validated by name and value where the rules live (topic-configs.ts): INVALID_CONFIG.
  configs: jsonObjectSchema.optional(),
});

export const alterConfigsSchema = z.object({
  configs: jsonObjectSchema,
});

export const createPartitionsSchema = z.object({
  count: z.number(),
});
