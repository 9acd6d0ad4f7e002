import { createReadTokenSchema, createWriteTokenSchema } from "../../auth/token-schemas.ts";
import { recordBatchContentType } from "../../protocol/content-types.ts";
import {
  acceptedResponseSchema,
  binaryProduceResponseSchema,
  deleteRecordsResponseSchema,
  partitionProducersResponseSchema,
  fetchResponseSchema,
  listOffsetResponseSchema,
  mintedTokenResponseSchema,
  produceResponseSchema,
  topicListSchema,
  topicSchema,
} from "../../protocol/response-schemas.ts";
import { alterConfigsSchema, createPartitionsSchema, createTopicSchema, deleteRecordsSchema, produceRequestSchema } from "../../protocol/schemas.ts";
import { routeQueries } from "../query.ts";
import { leaderErrors, type RouteDoc } from "./route-doc.ts";

const topicAnswer = { description: "The topic (API.md's Topic)", json: topicSchema };
// With a transactional id too: the coordinator's check of the producer and its implicit add of the partition (docs/transactions.md).
const producerErrors = ["OUT_OF_ORDER_SEQUENCE_NUMBER", "DUPLICATE_SEQUENCE_NUMBER", "INVALID_PRODUCER_EPOCH", "PRODUCER_FENCED", "INVALID_PRODUCER_ID_MAPPING", "CONCURRENT_TRANSACTIONS"] as const;
/** STREAM_CLOSED: the topic of a Durable Stream that was closed takes nothing more (docs/api.md, Produce). CORRUPT_MESSAGE: a compressed batch that cannot be read (docs/api.md, Compression). */
const writeErrors = ["INVALID_RECORD", "CORRUPT_MESSAGE", "INVALID_TIMESTAMP", "MESSAGE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "NOT_ENOUGH_REPLICAS", "STREAM_CLOSED", ...leaderErrors, ...producerErrors] as const;
const mintedToken = { description: "The token, its topic and when it expires", json: mintedTokenResponseSchema };

const partitionEvents =
  "`event: records`, `id: <nextOffset>`, `data:` the JSON fetch answer; `event: error` with `data: {\"error\": {...}}` then the end; `: keepalive` comments. Resume with `Last-Event-ID`.";
const topicEvents =
  "`event: records`, an opaque `id`, `data: {\"records\": [...each with \"partition\"], \"positions\": {\"<partition>\": <nextOffset>}}`; `event: error` then the end; `: keepalive` comments. Resume with `Last-Event-ID`.";

/** Topics, produce, fetch, offsets, streaming reads and browser tokens (docs/api.md). */
export const topicRouteDocs: readonly RouteDoc[] = [
  {
    method: "post", path: "/v1/topics", tag: "topics", auth: "token", resource: "topic", objects: true,
    summary: "Create a topic",
    query: ["validateOnly"],
    body: { json: createTopicSchema },
    responses: { 201: topicAnswer, 200: { description: "validateOnly=true: every check passed, nothing created; the topic as it would be", json: topicSchema } },
    errors: ["INVALID_TOPIC_EXCEPTION", "INVALID_PARTITIONS", "INVALID_REPLICATION_FACTOR", "INVALID_CONFIG", "TOPIC_ALREADY_EXISTS"],
  },
  {
    method: "get", path: "/v1/topics", tag: "topics", auth: "token", objects: true,
    summary: "List the topics the token may describe, sorted by name",
    responses: { 200: { description: "The topics", json: topicListSchema } },
  },
  {
    method: "get", path: "/v1/topics/:topic", tag: "topics", auth: "token", resource: "topic", objects: true,
    summary: "Describe a topic",
    responses: { 200: topicAnswer },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", ...leaderErrors],
  },
  {
    method: "patch", path: "/v1/topics/:topic/configs", tag: "topics", auth: "token", resource: "topic", objects: true,
    summary: "Alter a topic's configs (merged; null restores the default)",
    query: ["validateOnly"],
    body: { json: alterConfigsSchema },
    responses: { 200: topicAnswer },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "INVALID_CONFIG", ...leaderErrors],
  },
  {
    method: "post", path: "/v1/topics/:topic/partitions", tag: "topics", auth: "token", resource: "topic", objects: true,
    summary: "Add partitions (to a larger total)",
    body: { json: createPartitionsSchema },
    responses: { 200: topicAnswer },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "INVALID_PARTITIONS", ...leaderErrors],
  },
  {
    method: "delete", path: "/v1/topics/:topic", tag: "topics", auth: "token", resource: "topic", objects: true,
    summary: "Delete a topic and its data (an internal topic, `_schemas` or `_transaction_state`, is refused: INVALID_REQUEST)",
    responses: { 204: { description: "Deleted" } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "INVALID_REQUEST"],
  },
  {
    method: "post", path: "/v1/topics/:topic/records", tag: "records", auth: "token", resource: "topic", objects: true,
    summary: "Produce JSON records",
    description: "Records go to their `partition`, else by Kafka's partitioner on the key, else to one random partition per request. With `producerId`, `producerEpoch` and `sequences`: an idempotent producer.",
    body: { json: produceRequestSchema },
    responses: {
      200: { description: "Each record's partition, offset and timestamp, in request order", json: produceResponseSchema },
      202: { description: "`acks: 0`: accepted", json: acceptedResponseSchema },
    },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", ...writeErrors],
  },
  {
    method: "post", path: "/v1/topics/:topic/partitions/:partition/records", tag: "records", auth: "token", resource: "topic", objects: true,
    summary: "Produce Kafka record batches to one partition (binary transport)",
    description: `The body is one or more Kafka RecordBatch v2 batches, concatenated, with Content-Type \`${recordBatchContentType}\`; checked whole before anything is written, and written atomically.`,
    query: routeQueries.binaryProduce,
    body: { recordBatches: true },
    responses: {
      200: { description: "The offsets the batches' records got", json: binaryProduceResponseSchema },
      202: { description: "`acks=0`: accepted", json: acceptedResponseSchema },
    },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", ...writeErrors],
  },
  {
    method: "get", path: "/v1/topics/:topic/partitions/:partition/records", tag: "records", auth: "streaming", resource: "topic", objects: true,
    summary: "Fetch from one partition: JSON, record batches, or a stream (SSE, WebSocket)",
    description: [
      "The answer's kind follows the request's headers:",
      "- no special `Accept`: a JSON fetch (`offset` required);",
      `- \`Accept: ${recordBatchContentType}\`: the stored batches as they are, with the \`Tributary-*\` headers;`,
      "- `Accept: text/event-stream`: an SSE stream of every committed record from `offset` (`Last-Event-ID` wins over it);",
      "- `Upgrade: websocket`: a WebSocket (OpenAPI cannot describe one): `101 Switching Protocols`, then JSON text frames of the fetch answer's shape, or binary frames of record batches with the subprotocol `tributary.record-batch`; the client returns credit with `{\"credit\": <bytes>}` (docs/api.md, WebSocket on a partition).",
      "Streaming reads may carry the token as `?access_token=`.",
    ].join("\n"),
    query: [...new Set([...routeQueries.jsonFetch, ...routeQueries.binaryFetch, ...routeQueries.sseRead])],
    kinds: [
      { kind: "JSON", headers: {}, query: routeQueries.jsonFetch },
      { kind: "binary", headers: { accept: recordBatchContentType }, query: routeQueries.binaryFetch },
      { kind: "SSE", headers: { accept: "text/event-stream" }, query: routeQueries.sseRead },
      { kind: "WebSocket", headers: { upgrade: "websocket" }, query: routeQueries.streamingRead },
    ],
    responses: {
      200: { description: "The records (JSON), the batches (binary) or the stream (SSE)", json: fetchResponseSchema, recordBatches: true, eventStream: partitionEvents },
      101: { description: "WebSocket upgrade (`Upgrade: websocket`): see the description" },
    },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "OFFSET_OUT_OF_RANGE", ...leaderErrors],
  },
  {
    method: "get", path: "/v1/topics/:topic/records", tag: "records", auth: "streaming", resource: "topic", objects: true,
    summary: "Stream a whole topic (SSE)",
    description: "Only with `Accept: text/event-stream` (else 400): every partition merged, resumable with `Last-Event-ID`.",
    query: routeQueries.sseRead,
    kinds: [{ kind: "SSE", headers: { accept: "text/event-stream" }, query: routeQueries.sseRead }],
    responses: { 200: { description: "The stream", eventStream: topicEvents } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "OFFSET_OUT_OF_RANGE", ...leaderErrors],
  },
  {
    method: "get", path: "/v1/topics/:topic/partitions/:partition/offsets", tag: "records", auth: "token", resource: "topic", objects: true,
    summary: "An offset by position or time (Kafka's ListOffsets), or where a leader epoch ended (`at=epoch-end&leaderEpoch=N`, Kafka's OffsetForLeaderEpoch; an addition)",
    query: routeQueries.listOffsets,
    responses: { 200: { description: "The offset", json: listOffsetResponseSchema } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", ...leaderErrors],
  },
  {
    method: "post", path: "/v1/topics/:topic/partitions/:partition/delete-records", tag: "records", auth: "token", resource: "topic", objects: true,
    summary: "Delete the records before an offset: the log start moves there (Kafka's DeleteRecords; an addition)",
    body: { json: deleteRecordsSchema },
    responses: { 200: { description: "The partition's new log start", json: deleteRecordsResponseSchema } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "OFFSET_OUT_OF_RANGE", ...leaderErrors],
  },
  {
    method: "get", path: "/v1/topics/:topic/partitions/:partition/producers", tag: "records", auth: "token", resource: "topic", objects: true,
    summary: "The partition's active producers, from its leader (Kafka's DescribeProducers; an addition)",
    responses: { 200: { description: "The producers, by id", json: partitionProducersResponseSchema } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", ...leaderErrors],
  },
  {
    method: "post", path: "/v1/topics/:topic/write-tokens", tag: "tokens", auth: "token", resource: "topic", objects: true,
    summary: "Mint a short-lived write token for a browser",
    body: { json: createWriteTokenSchema, optional: true },
    responses: { 201: mintedToken },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "SECURITY_DISABLED"],
  },
  {
    method: "post", path: "/v1/topics/:topic/read-tokens", tag: "tokens", auth: "token", resource: "topic", objects: true,
    summary: "Mint a short-lived read token for a browser (streaming reads)",
    body: { json: createReadTokenSchema, optional: true },
    responses: { 201: mintedToken },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "SECURITY_DISABLED"],
  },
];
