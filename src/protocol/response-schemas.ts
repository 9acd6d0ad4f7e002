import { z } from "zod";
import { errorTable, type ErrorCode } from "../errors.ts";

/**
 * Response shapes of the HTTP API (API.md, docs/api.md), the one place they are written as
 * code: GET /v1/openapi.json's response schemas are generated from these (src/router/openapi/),
 * test/e2e/openapi-responses.test.ts checks the router's real answers against that document,
 * and test/unit/openapi/client-types.test.ts checks the client's types against these. Objects
 * are closed (zod's output JSON Schema says `additionalProperties: false`), so a field the
 * router adds or drops fails those tests until it is written here.
 */

const offsetSchema = z.number().int();
const timestampSchema = z.number().int().meta({ description: "ms since the Unix epoch" });

export const healthResponseSchema = z.object({
  status: z.literal("ok"),
});

export const partitionInfoSchema = z.object({
  partition: z.number().int().nonnegative(),
  leader: z.string().meta({ description: "a region name, e.g. weur" }),
  replicas: z.array(z.string()),
  isr: z.array(z.string()),
  logStartOffset: offsetSchema,
  highWatermark: offsetSchema,
  lastStableOffset: offsetSchema.meta({ description: "the first offset of the oldest open transaction, else the high watermark (an addition; docs/transactions.md)" }),
  leaderEpoch: z.number().int().nonnegative().meta({ description: "the leader's epoch, growing at every election (an addition; Kafka's Metadata leader epoch)" }),
  storage: z
    .object({ sqliteBatches: z.number().int(), sqliteBytes: z.number().int(), r2Segments: z.number().int(), r2Bytes: z.number().int() })
    .meta({ description: "where the partition's bytes live (an addition)" }),
  debug: z
    .record(z.string(), z.number())
    .optional()
    .meta({ description: "only with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1; not a stable API" }),
});

/** API.md's Topic, with the additions docs/api.md lists. */
export const topicSchema = z
  .object({
    name: z.string(),
    topicId: z.string(),
    replicationFactor: z.number().int(),
    configs: z.record(z.string(), z.string()).meta({ description: "every config with its effective value" }),
    configOverrides: z.array(z.string()).meta({ description: "the configs set on the topic rather than defaulted, sorted" }),
    partitions: z.array(partitionInfoSchema),
    debugBilling: z
      .record(z.string(), z.number())
      .optional()
      .meta({ description: "only with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1: the isolate's billing meter; not a stable API" }),
  });

export const topicSummarySchema = z.object({ name: z.string(), partitions: z.number().int(), replicationFactor: z.number().int() });
export const topicListSchema = z.object({ topics: z.array(topicSummarySchema) });

export const produceResponseSchema = z.object({
  offsets: z.array(z.object({ partition: z.number().int(), offset: offsetSchema, timestamp: timestampSchema })),
});

/** `acks: 0`: accepted, nothing known yet. */
export const acceptedResponseSchema = z.object({});

const producerIdentityFields = { producerId: z.number().int().nonnegative(), producerEpoch: z.number().int().nonnegative() };

export const binaryProduceResponseSchema = z.object({
  partition: z.number().int(),
  baseOffset: offsetSchema,
  lastOffset: offsetSchema,
  timestamp: timestampSchema.optional().meta({ description: "the append time, on a LogAppendTime topic" }),
  committed: z.object(producerIdentityFields).optional().meta({ description: "with commitAfterWrites: the transaction committed; the identity for the next one" }),
  commitError: z.object({ code: z.string(), message: z.string() }).optional().meta({ description: "with commitAfterWrites: why these writes did not commit the transaction (the producer ends it with its own request)" }),
});

const headersSchema = z.record(z.string(), z.string().nullable()).meta({ description: "header values as UTF-8 strings (null where a Kafka client wrote none)" });

export const fetchedRecordSchema = z
  .object({
    offset: offsetSchema,
    timestamp: timestampSchema,
    key: z.string().nullable(),
    value: z.string().nullable(),
    headers: headersSchema,
  });

/** A fetched record with `decode=schema` (docs/api.md, Reading decoded): a decoded key or value is any JSON value, with its schema id beside it, or a note why it was not decoded. */
const decodedNote = (side: string) => z.string().optional().meta({ description: `with decode=schema: why the ${side} was not decoded (it is shown as usual)` });
const decodedId = (side: string) => z.number().int().optional().meta({ description: `with decode=schema: the schema id the ${side} was decoded by (the ${side} is then that JSON value)` });
export const fetchedDecodedRecordSchema = fetchedRecordSchema.extend({
  key: z.unknown().meta({ description: "UTF-8 text or base64 (null for none); with decode=schema and keySchemaId, the decoded JSON value" }),
  value: z.unknown().meta({ description: "UTF-8 text or base64 (null for none); with decode=schema and valueSchemaId, the decoded JSON value" }),
  keySchemaId: decodedId("key"),
  valueSchemaId: decodedId("value"),
  keyDecodeError: decodedNote("key"),
  valueDecodeError: decodedNote("value"),
});

export const fetchResponseSchema = z
  .object({ records: z.array(fetchedDecodedRecordSchema), nextOffset: offsetSchema, highWatermark: offsetSchema, lastStableOffset: offsetSchema, logStartOffset: offsetSchema });

export const listOffsetResponseSchema = z.object({
  offset: z.number().int().min(-1).meta({ description: "the offset; -1 only for `at=epoch-end` of an epoch after the latest" }),
  timestamp: timestampSchema.optional().meta({ description: "present when the offset was found by time" }),
  leaderEpoch: z
    .number()
    .int()
    .min(-1)
    .optional()
    .meta({ description: "with `at=epoch-end` (an addition; Kafka's OffsetForLeaderEpoch): the largest epoch not after the one asked, -1 when undefined" }),
});

export const deleteRecordsResponseSchema = z.object({
  lowWatermark: offsetSchema.meta({ description: "the partition's log start once the records are deleted" }),
});

/** Kafka's DescribeProducers (KIP-664): the partition leader's active producers, by id. */
export const partitionProducersResponseSchema = z.object({
  producers: z.array(
    z.object({
      producerId: z.number().int().nonnegative(),
      producerEpoch: z.number().int().nonnegative(),
      lastSequence: z.number().int().meta({ description: "the last sequence written here; -1 when none is remembered" }),
      lastTimestamp: z.number().int().meta({ description: "when the producer last wrote here (ms since the epoch); -1 when unknown" }),
      coordinatorEpoch: z.number().int().meta({ description: "the coordinator epoch of the producer's last marker here; -1 before any" }),
      currentTxnStartOffset: z.number().int().meta({ description: "the first offset of its open transaction; -1 when none is open" }),
    }),
  ),
});

export const mintedTokenResponseSchema = z.object({ token: z.string(), topic: z.string(), expiresAt: timestampSchema });

export const producerIdentitySchema = z.object(producerIdentityFields);

// ---- Consumer groups ------------------------------------------------------------------

const assignmentSchema = z.array(z.object({ topic: z.string(), partitions: z.array(z.number().int()) }));
const positionSchema = z.object({ topic: z.string(), partition: z.number().int(), offset: offsetSchema });

export const memberResponseSchema = z.object({ memberEpoch: z.number().int(), assignment: assignmentSchema, heartbeatIntervalMs: z.number().int() });

/** Only a `classic: true` heartbeat answers `rebalance`: the member must rejoin (its assignment would change, or it holds partitions to give up). */
export const heartbeatResponseSchema = memberResponseSchema.extend({ rebalance: z.boolean().optional() });
export const joinResponseSchema = memberResponseSchema.extend({ memberId: z.string() });

export const pollResponseSchema = memberResponseSchema.extend({
  records: z.array(fetchedRecordSchema.extend({ topic: z.string(), partition: z.number().int() })),
  positions: z.array(positionSchema),
});

export const groupListSchema = z.object({
  groups: z.array(z.object({ group: z.string(), state: z.string(), members: z.number().int() })),
});

export const groupDescriptionSchema = z.object({
  group: z.string(),
  state: z.enum(["Empty", "Reconciling", "Stable"]),
  assignor: z.enum(["uniform", "range"]),
  members: z.array(
    z.object({
      memberId: z.string(),
      memberEpoch: z.number().int(),
      assignment: assignmentSchema,
      clientId: z.string().nullable(),
      host: z.string().nullable(),
      lastHeartbeatAt: timestampSchema,
      sessionTimeoutMs: z.number().int(),
      groupInstanceId: z.string().nullable().optional().meta({ description: "a classic member's static id (null when dynamic); absent for an HTTP member" }),
    }),
  ),
  classic: z
    .object({
      state: z.enum(["PreparingRebalance", "CompletingRebalance", "Stable"]),
      generationId: z.number().int(),
      protocolType: z.string().nullable(),
      protocolName: z.string().nullable(),
      leader: z.string().nullable(),
    })
    .optional()
    .meta({ description: "present while the group takes Kafka's classic path (only classic members): its own state, generation, protocol and leader" }),
});

// Classic members (docs/api.md): the gateway's JoinGroup, SyncGroup, Heartbeat and LeaveGroup.
export const classicJoinResponseSchema = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("joined"),
    memberId: z.string(),
    generationId: z.number().int(),
    protocolType: z.string().nullable(),
    protocolName: z.string().nullable(),
    leader: z.string(),
    skipAssignment: z.boolean(),
    members: z.array(z.object({ memberId: z.string(), groupInstanceId: z.string().nullable(), metadata: z.string() })),
  }),
  z.object({ outcome: z.literal("pending"), memberId: z.string() }),
  z.object({ outcome: z.literal("member-id-required"), memberId: z.string() }),
]);
export const classicSyncResponseSchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("synced"), protocolType: z.string().nullable(), protocolName: z.string().nullable(), assignment: z.string() }),
  z.object({ outcome: z.literal("pending") }),
]);
export const classicHeartbeatResponseSchema = z.object({ rebalance: z.boolean() });
export const classicLeaveResponseSchema = z.object({
  members: z.array(
    z.object({
      memberId: z.string(),
      groupInstanceId: z.string().nullable(),
      error: z.object({ code: z.string(), message: z.string() }).nullable(),
    }),
  ),
});

export const groupOffsetsSchema = z.object({
  offsets: z.array(
    z.object({
      topic: z.string(),
      partition: z.number().int(),
      offset: offsetSchema.nullable(),
      metadata: z.string().nullable().meta({ description: "the commit's metadata string (\"\" when it carried none); null where nothing is committed" }),
      leaderEpoch: z.number().int().optional().meta({ description: "the commit's leader epoch (KIP-320), where it carried one" }),
      highWatermark: offsetSchema,
      lag: z.number().int().nullable(),
    }),
  ),
});

export const resetOffsetsResponseSchema = z.object({ offsets: z.array(positionSchema) });

/** Each partition named, in request order: `error` null where its offset was deleted (or there was none). */
export const deleteOffsetsResponseSchema = z.object({
  partitions: z.array(
    z.object({
      topic: z.string(),
      partition: z.number().int(),
      error: z
        .object({ code: z.enum(["GROUP_SUBSCRIBED_TO_TOPIC", "UNKNOWN_TOPIC_OR_PARTITION"]), message: z.string() })
        .nullable()
        .meta({ description: "GROUP_SUBSCRIBED_TO_TOPIC: the group's members subscribe to the topic, its offset stays" }),
    }),
  ),
});

// ---- Tokens ---------------------------------------------------------------------------

const ruleViewSchema = z.object({
  resource: z.enum(["topic", "group", "cluster", "subject", "transactionalId"]),
  name: z.string(),
  patternType: z.enum(["literal", "prefixed"]),
  operations: z.array(z.enum(["read", "write", "describe", "create", "alter", "delete"])),
});
const quotasViewSchema = z.object({
  produceBytesPerSecond: z.number().int().optional(),
  fetchBytesPerSecond: z.number().int().optional(),
  requestsPerSecond: z.number().int().optional(),
});

export const tokenViewSchema = z
  .object({ id: z.string(), name: z.string().nullable(), rules: z.array(ruleViewSchema), expiresAt: timestampSchema.nullable(), quotas: quotasViewSchema });
export const tokenListSchema = z.object({ tokens: z.array(tokenViewSchema) });
export const createdTokenSchema = tokenViewSchema.extend({ token: z.string().meta({ description: "the secret, shown only here" }) });

/** GET /v1/whoami: what kind of token the caller holds, never any of its secret. */
export const whoamiResponseSchema = z.object({
  kind: z.enum(["open", "none", "admin", "scoped", "write", "read"]).meta({ description: "open: no admin token is configured, no token needed; none: asked without a token where one is needed" }),
  tokenId: z.string().optional().meta({ description: "a scoped token's id" }),
  mintedFrom: z.string().optional().meta({ description: "a write or read token's: the id of the scoped token it was minted from, or \"admin\"" }),
  topic: z.string().optional().meta({ description: "a write or read token's one topic" }),
  rules: z.array(ruleViewSchema).optional().meta({ description: "what a scoped, write or read token may do" }),
  expiresAt: timestampSchema.nullable().optional(),
  quotas: quotasViewSchema.optional(),
});

/** `POST /v1/scram/first` (docs/api.md, SCRAM). */
export const scramFirstResponseSchema = z.object({
  serverFirst: z.string().meta({ description: "the server-first message, for the client" }),
  exchange: z.string().meta({ description: "opaque, signed: send it back with the client's final message (good for a minute)" }),
});

/** `POST /v1/scram/final`: server-final, and the session token that acts as the scoped token the username named. */
export const scramFinalResponseSchema = z.object({
  serverFinal: z.string().meta({ description: "the server-final message, for the client" }),
  token: z.string().meta({ description: "a session token (trs_…) with the scoped token's rules and quotas" }),
  expiresAt: timestampSchema,
  lifetimeMs: z.number().int().positive().meta({ description: "expiresAt less the server's time of the answer: the session's lifetime, free of clock skew" }),
});

/** GET /v1/openapi.json: an OpenAPI 3.1 document (its own shape is OpenAPI's; test/unit/openapi/ validates it). */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
});

// ---- Errors ---------------------------------------------------------------------------

/**
 * API.md's error body: `{"error": {"code", "message", ...data}}`. The data fields vary by
 * code (`logStartOffset`, `allow`, `retryAfterMs`, `parameter`, ...), so the object is open.
 */
export function errorBodySchema(codes: readonly ErrorCode[]) {
  return z.object({
    error: z.looseObject({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]), message: z.string() }),
  });
}

export const anyErrorBodySchema = errorBodySchema(Object.keys(errorTable) as ErrorCode[]);

/** GET /v1/metrics with `Accept: application/json`: the exposition's families, and 15 minutes of traffic per partition (docs/metrics.md). */
export const metricsJsonResponseSchema = z.object({
  generatedAt: timestampSchema,
  families: z.array(
    z.object({
      name: z.string(),
      type: z.enum(["gauge", "counter", "histogram"]),
      help: z.string(),
      samples: z.array(z.object({ name: z.string(), labels: z.record(z.string(), z.string()), value: z.number() })),
    }),
  ),
  history: z.object({
    partitions: z.array(
      z.object({
        topic: z.string(),
        partition: z.number().int().nonnegative(),
        minuteStartMs: z.array(timestampSchema),
        recordsIn: z.array(z.number()),
        recordsOut: z.array(z.number()),
      }),
    ),
  }),
});

// --- The deployment's cluster id (issue 16: the Kafka gateway's Metadata) ---

/** `GET /v1/cluster`. */
export const clusterIdentitySchema = z.object({
  clusterId: z.string().meta({ description: "16 random bytes as 22 URL-safe base64 characters (Kafka's cluster id form), made once per deployment" }),
  defaults: z
    .object({
      partitions: z.number().int().meta({ description: "A new topic's partition count when its creation names none (TOPIC_DEFAULT_PARTITIONS; Kafka's num.partitions)" }),
      replicationFactor: z.number().int().meta({ description: "A new topic's replication factor when its creation names none (TOPIC_DEFAULT_REPLICATION_FACTOR; Kafka's default.replication.factor)" }),
      configs: z.record(z.string(), z.string()).meta({ description: "Every topic config's default value, by its Kafka name" }),
    })
    .meta({ description: "What a new topic takes when its creation does not say" }),
});
