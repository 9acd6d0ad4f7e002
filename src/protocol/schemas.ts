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

export const produceRecordSchema = z.object({
  key: z.string().nullable().optional(),
  value: z.string().nullable(),
  headers: z.record(z.string(), z.string()).optional(),
  partition: z.number().int().nonnegative().optional(),
  timestamp: z.number().int().optional(),
});
export type ProduceRecord = z.infer<typeof produceRecordSchema>;

export const produceRequestSchema = z.object({
  records: z.array(produceRecordSchema).min(1, "records holds at least one record"),
  acks: acksSchema.default("all"),
  encoding: encodingSchema.default("utf8"),
});
export type ProduceRequest = z.infer<typeof produceRequestSchema>;

export const createTopicSchema = z.object({
  name: z.string(),
  partitions: z.number().optional(),
  replicationFactor: z.number().optional(),
  configs: z.record(z.string(), z.unknown()).optional(),
});

export const alterConfigsSchema = z.object({
  configs: z.record(z.string(), z.unknown()),
});

export const createPartitionsSchema = z.object({
  count: z.number(),
});
