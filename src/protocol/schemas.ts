import { z } from "zod";
import { decodeBase64 } from "./base64.ts";
import {
  classicProtocolsMax,
  classicWaitMsMax,
  clientIdLengthMax,
  memberIdLengthMax,
  fetchMaxBytesDefault,
  fetchMaxBytesMax,
  fetchMaxRecordsDefault,
  fetchMaxRecordsMax,
  fetchWaitMsMax,
  groupIdLengthMax,
  transactionalIdLengthMax,
  groupTopicsMax,
  membersPerGroupMax,
  partitionsPerTopicMax,
  scramMessageLengthMax,
  scramSessionTtlMsMax,
  scramSessionTtlMsMin,
  sessionTimeoutMsMax,
  sessionTimeoutMsMin,
  subscribedTopicsMax,
} from "../limits.ts";

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
const stringEntriesSchema = z
  .unknown()
  .transform((value, ctx): [string, string][] => {
    const entries = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : undefined;
    if (!entries || entries.some(([, entry]) => typeof entry !== "string")) {
      ctx.addIssue({ code: "custom", message: "expected an object of string values" });
      return z.NEVER;
    }
    return entries as [string, string][];
  })
  // Its JSON Schema (GET /v1/openapi.json), which zod cannot derive from a transform.
  .meta({ type: "object", additionalProperties: { type: "string" } });

/** Any JSON object, every own key kept (z.record would drop "__proto__"); its entries are checked where the rules live. */
const jsonObjectSchema = z.custom<Record<string, unknown>>(
  (value) => value !== null && typeof value === "object" && !Array.isArray(value),
  { error: "expected an object" },
).meta({ type: "object" });

export const produceRecordSchema = z.object({
  key: z.string().nullable().optional(),
  value: z.string().nullable(),
  headers: stringEntriesSchema.optional(),
  partition: z.number().int().nonnegative().optional(),
  timestamp: z.number().int().optional(),
});
export type ProduceRecord = z.infer<typeof produceRecordSchema>;

/** Kafka's sequence numbers are int32 and wrap to 0 after 2^31 − 1. */
export const sequenceMax = 0x7fffffff;

export const produceRequestSchema = z.object({
  records: z.array(produceRecordSchema).min(1, "records holds at least one record"),
  acks: acksSchema.default("all"),
  encoding: encodingSchema.default("utf8"),
  // An idempotent producer (API.md, Produce): all three together, checked with the records
  // where the rule lives (src/data-plane/produce-plan.ts).
  producerId: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  producerEpoch: z.number().int().nonnegative().max(0x7fff).optional(),
  /** `{"<partition>": <sequence of that partition's first record in this request>}`. */
  sequences: z
    .custom<Record<string, number>>(
      (value) =>
        value !== null &&
        typeof value === "object" &&
        !Array.isArray(value) &&
        Object.values(value).every((sequence) => Number.isInteger(sequence) && sequence >= 0 && sequence <= sequenceMax),
      { error: `expected an object of sequences (integers from 0 to ${sequenceMax})` },
    )
    .meta({ type: "object", additionalProperties: { type: "integer", minimum: 0, maximum: sequenceMax } })
    .optional(),
  /** A transactional producer's id (docs/transactions.md): with the idempotent fields, its batches are transactional. */
  transactionalId: z.string().min(1).max(transactionalIdLengthMax).optional(),
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

/** Kafka's DeleteRecords (docs/api.md, Delete records): the partition's new log start; −1 is the high watermark. */
export const deleteRecordsSchema = z.object({
  beforeOffset: z.number().int().min(-1).meta({ description: "records before it are deleted; -1 for the high watermark" }),
});

// ---- Consumer groups (API.md) ---------------------------------------------------------

/** Every partition a group can hold: the most positions or owned partitions a request can name. */
const groupPartitionsMax = groupTopicsMax * partitionsPerTopicMax;

const partitionNumberSchema = z.number().int().nonnegative();
const memberEpochSchema = z.number().int().nonnegative();

/** Assignment = `[{"topic", "partitions": [...]}]`. */
export const assignmentSchema = z
  .array(z.object({ topic: z.string().min(1), partitions: z.array(partitionNumberSchema).max(partitionsPerTopicMax) }))
  .max(groupTopicsMax);

/** Position = `{"topic", "partition", "offset"}`: the next offset to read. */
export const positionSchema = z.object({
  topic: z.string().min(1),
  partition: partitionNumberSchema,
  offset: z.number().int().nonnegative(),
});
export type Position = z.infer<typeof positionSchema>;

/** Positions naming each partition at most once (which of two would count is anyone's guess). */
function distinctPositions<Item extends typeof positionSchema>(item: Item) {
  return z
    .array(item)
    .max(groupPartitionsMax)
    .refine(
      (positions) => new Set(positions.map(({ topic, partition }) => JSON.stringify([topic, partition]))).size === positions.length,
      { error: "positions name each partition at most once" },
    );
}
const positionsSchema = distinctPositions(positionSchema);

/**
 * A committed position with Kafka's metadata string (OffsetCommit's committedMetadata), kept
 * with the offset and answered by GET offsets; "" when omitted. Longer than
 * offsetMetadataLengthMax is OFFSET_METADATA_TOO_LARGE (the coordinator checks it, for its code).
 * `leaderEpoch`: the leader epoch of the record before the offset (OffsetCommit's
 * committedLeaderEpoch, KIP-320), kept and answered with it so that a consumer resuming there
 * can check the log was not truncated under it; none when omitted.
 */
export const committedPositionSchema = positionSchema.extend({ metadata: z.string().optional(), leaderEpoch: z.number().int().min(0).max(2147483647).optional() });
export type CommittedPosition = z.infer<typeof committedPositionSchema>;

export const joinGroupSchema = z.object({
  /** The id the member chose for itself (a Kafka client's, KIP-1082): joins under it, or rejoins the member that has it. */
  memberId: z.string().min(1).max(memberIdLengthMax).optional(),
  /** A static member's instance id (Kafka's group.instance.id): coming back under it takes the member's place. */
  groupInstanceId: z.string().min(1).max(memberIdLengthMax).optional(),
  topics: z.array(z.string().min(1)).min(1).max(subscribedTopicsMax),
  sessionTimeoutMs: z.number().int().min(sessionTimeoutMsMin).max(sessionTimeoutMsMax).optional(),
  assignor: z.enum(["uniform", "range"]).optional(),
  autoOffsetReset: z.enum(["latest", "earliest"]).optional(),
  /** Kafka's client.id: a label `GET /v1/groups/{group}` shows with the member. */
  clientId: z.string().max(clientIdLengthMax).optional(),
});

export const heartbeatSchema = z.object({
  memberEpoch: memberEpochSchema,
  ownedPartitions: assignmentSchema.optional(),
  /** A new subscription (a classic member's rejoin carries its subscription); omitted keeps the current one. */
  topics: z.array(z.string().min(1)).min(1).max(subscribedTopicsMax).optional(),
  /** A classic member's heartbeat (Kafka's JoinGroup protocol, the gateway's members): nothing moves; the answer says whether to rejoin. */
  classic: z.boolean().optional(),
});

/** A reader's isolation level (docs/transactions.md): read_committed by default on every read route. */
export const isolationSchema = z.enum(["read_committed", "read_uncommitted"]);
export type Isolation = z.infer<typeof isolationSchema>;

export const pollSchema = z.object({
  memberEpoch: memberEpochSchema,
  positions: positionsSchema.optional(),
  autoCommit: z.boolean().default(true),
  maxRecords: z.number().int().min(1).max(fetchMaxRecordsMax).default(fetchMaxRecordsDefault),
  maxBytes: z.number().int().min(1).max(fetchMaxBytesMax).default(fetchMaxBytesDefault),
  waitMs: z.number().int().min(0).max(fetchWaitMsMax).default(0),
  encoding: encodingSchema.default("utf8"),
  paused: assignmentSchema.optional(),
  isolation: isolationSchema.default("read_committed"),
});
export type PollRequest = z.infer<typeof pollSchema>;

export const commitOffsetsSchema = z.object({
  memberId: z.string().min(1).optional(),
  memberEpoch: memberEpochSchema.optional(),
  /** A classic member's commit: `memberEpoch` is its generation (on the server's path: for partitions it still owns, also those it is giving up). */
  classic: z.boolean().optional(),
  /** A classic static member's groupInstanceId: a commit under a member id its instance no longer has is FENCED_INSTANCE_ID. */
  groupInstanceId: z.string().min(1).nullable().optional(),
  offsets: distinctPositions(committedPositionSchema).refine((positions) => positions.length > 0, { error: "offsets holds at least one position" }),
});

// ---- Classic members: Kafka's JoinGroup protocol, as the Kafka gateway forwards it (docs/api.md) ----

/** Bytes as standard base64 (a protocol's metadata, a leader's assignment): kept and handed on as they are. */
const bytesSchema = z.string().refine((text) => decodeBase64(text) !== undefined, { error: "standard base64" });
const instanceIdSchema = z.string().min(1).max(groupIdLengthMax).nullable().default(null);
const classicWaitSchema = z.number().int().min(0).max(classicWaitMsMax).default(0);

export const classicJoinSchema = z.object({
  /** "" for a member that has no id yet. */
  memberId: z.string().default(""),
  groupInstanceId: instanceIdSchema,
  protocolType: z.string().min(1),
  protocols: z
    .array(z.object({ name: z.string().min(1), metadata: bytesSchema }))
    .min(1)
    .max(classicProtocolsMax)
    .refine((protocols) => new Set(protocols.map(({ name }) => name)).size === protocols.length, { error: "protocols name each protocol once" }),
  sessionTimeoutMs: z.number().int().min(sessionTimeoutMsMin).max(sessionTimeoutMsMax),
  rebalanceTimeoutMs: z.number().int().min(1).max(2_147_483_647),
  clientId: z.string().max(clientIdLengthMax).nullable().default(null),
  /** JoinGroup v4+: a new dynamic member gets its id first (KIP-394). */
  requireKnownMemberId: z.boolean().default(false),
  /** JoinGroup v9+ (KIP-814). */
  supportsSkipAssignment: z.boolean().default(false),
  waitMs: classicWaitSchema,
});

export const classicSyncSchema = z.object({
  memberId: z.string().min(1),
  groupInstanceId: instanceIdSchema,
  generationId: z.number().int(),
  protocolType: z.string().nullable().default(null),
  protocolName: z.string().nullable().default(null),
  /** The leader's: the bytes for each member; a follower sends none. */
  assignments: z.array(z.object({ memberId: z.string(), assignment: bytesSchema })).max(membersPerGroupMax).default([]),
  waitMs: classicWaitSchema,
});

export const classicHeartbeatSchema = z.object({
  memberId: z.string().min(1),
  groupInstanceId: instanceIdSchema,
  generationId: z.number().int(),
});

export const classicLeaveSchema = z.object({
  /** By member id, or by instance id alone with memberId "" (an admin removing a static member). */
  members: z.array(z.object({ memberId: z.string(), groupInstanceId: instanceIdSchema })).min(1).max(membersPerGroupMax),
});

export const resetOffsetsSchema = z.object({
  topic: z.string().min(1),
  to: z.union([
    z.enum(["earliest", "latest"]),
    z.strictObject({ timestamp: z.number().int().nonnegative() }),
    z.strictObject({ offset: z.number().int().nonnegative() }),
  ]),
  /** Only these partitions (each once); every partition of the topic when omitted. */
  partitions: z
    .array(partitionNumberSchema)
    .min(1)
    .max(partitionsPerTopicMax)
    .refine((partitions) => new Set(partitions).size === partitions.length, { error: "partitions names each partition at most once" })
    .optional(),
  /** Answers the plan and writes nothing (allowed while the group has members). */
  dryRun: z.boolean().optional(),
});
export type ResetTarget = z.infer<typeof resetOffsetsSchema>["to"];

/** `POST /v1/groups/{g}/offsets/delete` (Kafka's OffsetDelete): the partitions whose committed offsets go, each once. */
export const deleteOffsetsSchema = z.object({
  partitions: z
    .array(z.object({ topic: z.string().min(1), partition: partitionNumberSchema }))
    .min(1)
    .max(groupPartitionsMax)
    .refine((partitions) => new Set(partitions.map(({ topic, partition }) => JSON.stringify([topic, partition]))).size === partitions.length, {
      error: "partitions name each partition at most once",
    }),
});

/**
 * `POST /v1/producers`: no body, or a JSON object (other fields, for later versions, ignored).
 * `topic`: the topic the producer is about to write, so that a token that may write no topic
 * is refused with that topic's 403 (src/router/authorize.ts, authorizeIdempotentWrite).
 */
export const producerRequestSchema = z.looseObject({
  topic: z.string().min(1).optional().meta({ description: "the topic the producer is about to write: a token that may write no topic is refused with its TOPIC_AUTHORIZATION_FAILED" }),
});

/** `POST /v1/faults` (API.md, Fault injection): the faults themselves are src/objects/replica-faults.ts's. */
export const faultRequestSchema = z.object({
  topic: z.string(),
  partition: z.number().int().nonnegative(),
  replica: z.string(),
  fault: z.enum(["down", "slow", "crash-after-write", "none"]),
  ms: z.number().int().nonnegative().max(60_000).optional(),
});
export type FaultRequest = z.infer<typeof faultRequestSchema>;

// ---- SCRAM exchanges a Kafka gateway relays (docs/api.md, SCRAM; src/auth/scram-exchange.ts) ----

export const scramMechanismNames = ["SCRAM-SHA-256", "SCRAM-SHA-512"] as const;

/** `POST /v1/scram/first`: the client's first message, as the client wrote it. */
export const scramFirstRequestSchema = z.strictObject({
  mechanism: z.enum(scramMechanismNames),
  clientFirst: z.string().min(1).max(scramMessageLengthMax),
});

/** `POST /v1/scram/final`: the exchange the first step answered, the client's final message, and the session's lifetime. */
export const scramFinalRequestSchema = z.strictObject({
  // The messages of the first step, base64url'd in signed JSON: a few times one message.
  exchange: z.string().min(1).max(4 * scramMessageLengthMax),
  clientFinal: z.string().min(1).max(scramMessageLengthMax),
  ttlMs: z.number().int().min(scramSessionTtlMsMin).max(scramSessionTtlMsMax).optional(),
});
