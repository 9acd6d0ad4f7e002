import { z } from "zod";
import { errorTable, type ErrorCode } from "../errors.ts";
import {
  fetchMaxBytesDefault,
  fetchMaxBytesMax,
  fetchMaxRecordsDefault,
  fetchMaxRecordsMax,
  fetchWaitMsMax,
  partitionsPerTopicMax,
  shareAcknowledgedOffsetsMax,
  subscribedTopicsMax,
} from "../limits.ts";
import { fetchedRecordSchema } from "./response-schemas.ts";
import { encodingSchema, resetOffsetsSchema } from "./schemas.ts";

/**
 * Share groups (KIP-932; docs/api.md, Share groups): request and response shapes, shared
 * by the router, the client and the OpenAPI document (route-table-share-groups.ts).
 */

// ---- Requests -------------------------------------------------------------------------

/** Ack = `{"topic", "partition", "offsets": [...], "type": "accept" | "release" | "reject"}`. */
export const shareAcknowledgementSchema = z.object({
  topic: z.string().min(1),
  partition: z.number().int().nonnegative(),
  offsets: z.array(z.number().int().nonnegative()).min(1).max(shareAcknowledgedOffsetsMax),
  type: z.enum(["accept", "release", "reject"]),
});
export type ShareAcknowledgement = z.infer<typeof shareAcknowledgementSchema>;

/** An Ack riding along a fetch carries the lease of the fetch that delivered its records. */
export const shareFetchAcknowledgementSchema = shareAcknowledgementSchema.extend({ lease: z.string().min(1).max(64) });
export type ShareFetchAcknowledgement = z.infer<typeof shareFetchAcknowledgementSchema>;

const offsetsWithin = (acknowledgements: readonly { offsets: readonly number[] }[]) =>
  acknowledgements.reduce((sum, { offsets }) => sum + offsets.length, 0) <= shareAcknowledgedOffsetsMax;
const offsetsBound = { error: `at most ${shareAcknowledgedOffsetsMax} offsets in one request's acknowledgements` };

export const shareFetchSchema = z.object({
  topics: z.array(z.string().min(1)).min(1).max(subscribedTopicsMax),
  maxRecords: z.number().int().min(1).max(fetchMaxRecordsMax).default(fetchMaxRecordsDefault),
  maxBytes: z.number().int().min(1).max(fetchMaxBytesMax).default(fetchMaxBytesDefault),
  waitMs: z.number().int().min(0).max(fetchWaitMsMax).default(0),
  encoding: encodingSchema.default("utf8"),
  acknowledgements: z.array(shareFetchAcknowledgementSchema).max(subscribedTopicsMax * partitionsPerTopicMax).refine(offsetsWithin, offsetsBound).optional(),
});
export type ShareFetchRequest = z.infer<typeof shareFetchSchema>;

export const shareAcknowledgeSchema = z.object({
  lease: z.string().min(1).max(64),
  acknowledgements: z.array(shareAcknowledgementSchema).min(1).max(subscribedTopicsMax * partitionsPerTopicMax).refine(offsetsWithin, offsetsBound),
});
export type ShareAcknowledgeRequest = z.infer<typeof shareAcknowledgeSchema>;

/** `PATCH /v1/share-groups/{group}/configs`: validated by name and value in src/share/share-configs.ts (INVALID_CONFIG). */
export const shareGroupConfigsSchema = z.object({
  configs: z.custom<Record<string, unknown>>((value) => value !== null && typeof value === "object" && !Array.isArray(value), { error: "expected an object" }).meta({ type: "object" }),
});

/** `POST /v1/share-groups/{group}/offsets/reset`: as for consumer groups (dryRun plans without writing). */
export const shareResetSchema = resetOffsetsSchema;

// ---- Responses ------------------------------------------------------------------------

const errorValueSchema = z.object({ code: z.enum(Object.keys(errorTable) as [ErrorCode, ...ErrorCode[]]), message: z.string() });

/** Per partition: its acknowledgements all applied, or none (error). */
export const shareAcknowledgeResultsSchema = z.array(z.object({ topic: z.string(), partition: z.number().int(), error: errorValueSchema.optional() }));

export const shareAcknowledgeResponseSchema = z.object({ results: shareAcknowledgeResultsSchema });

export const shareFetchResponseSchema = z.object({
  records: z.array(fetchedRecordSchema.extend({ topic: z.string(), partition: z.number().int(), deliveryCount: z.number().int() })),
  lease: z.string().meta({ description: "names the records of this answer in acknowledgements" }),
  leaseExpiresAt: z.number().int().meta({ description: "ms since the Unix epoch: the records' locks hold until then" }),
  results: shareAcknowledgeResultsSchema.optional().meta({ description: "present when acknowledgements rode along: as the acknowledge route answers" }),
});

export const shareGroupListSchema = z.object({ groups: z.array(z.object({ group: z.string() })) });

export const sharePartitionViewSchema = z.object({
  topic: z.string(),
  partition: z.number().int(),
  startOffset: z.number().int().meta({ description: "KIP-932's share-partition start offset: every record below is accepted or archived" }),
  endOffset: z.number().int().meta({ description: "KIP-932's share-partition end offset: the next record never fetched; [startOffset, endOffset) is in flight" }),
  highWatermark: z.number().int().meta({ description: "the partition's high watermark: highWatermark − startOffset = available + acquired + done" }),
  available: z.number().int().meta({ description: "records waiting for a consumer: released ones in flight, and every one from endOffset to the high watermark" }),
  acquired: z.number().int().meta({ description: "records under a consumer's lock" }),
  done: z.number().int().meta({ description: "records in flight already accepted, archived or being dead-lettered: never delivered again" }),
  archived: z.number().int().meta({ description: "records archived (rejected, or past the delivery limit) since the share-partition started" }),
  debug: z.record(z.string(), z.number()).optional().meta({ description: "only with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1; not a stable API" }),
});

export const shareGroupDescriptionSchema = z.object({
  group: z.string(),
  configs: z.record(z.string(), z.string()).meta({ description: "every config with its effective value" }),
  partitions: z.array(sharePartitionViewSchema),
});

export const shareGroupConfigsResponseSchema = z.object({ group: z.string(), configs: z.record(z.string(), z.string()) });

export const shareResetResponseSchema = z.object({ offsets: z.array(z.object({ topic: z.string(), partition: z.number().int(), offset: z.number().int() })) });
