import {
  binaryFetchMaxRecordsMax,
  fetchMaxBytesDefault,
  fetchMaxBytesMax,
  fetchMaxRecordsDefault,
  fetchMaxRecordsMax,
  fetchWaitMsMax,
  transactionalIdLengthMax,
  transactionPartitionsMax,
} from "../../limits.ts";
import { accessTokenParam } from "../streams/streaming-read.ts";

/**
 * Every query parameter a route takes (docs/api.md, Conventions), as the document describes
 * it; the bounds are src/limits.ts's, as src/router/query.ts enforces them. Which route takes
 * which is in the route table, and test/workers/openapi/query-parameters.test.ts checks each
 * route's list against the router's own refusal of any other parameter.
 */
export const queryParameters: Record<string, { description: string; schema: Record<string, unknown> }> = {
  offset: {
    description:
      "Fetch: the offset to read from (required). Streaming reads: `earliest`, `latest` (the default) or an offset on a partition; `earliest` or `latest` on a whole topic.",
    schema: { type: "string", pattern: "^(earliest|latest|-?[0-9]{1,16})$" },
  },
  static: {
    description: "Leave: `true`, a static member (joined with a groupInstanceId) leaves for now, as Kafka's epoch -2: its partitions stay its own until its session ends or a member joins under its instance id.",
    schema: { type: "string", enum: ["true", "false"], default: "false" },
  },
  maxRecords: {
    description: `At most this many records (whole batches on a binary fetch); the first is always returned. At most ${fetchMaxRecordsMax.toLocaleString("en")} on a JSON fetch, ${binaryFetchMaxRecordsMax.toLocaleString("en")} on a binary one.`,
    schema: { type: "integer", minimum: 1, maximum: binaryFetchMaxRecordsMax, default: fetchMaxRecordsDefault },
  },
  maxBytes: {
    description: "At most this many bytes of keys, values and headers (whole batches on a binary fetch).",
    schema: { type: "integer", minimum: 1, maximum: fetchMaxBytesMax, default: fetchMaxBytesDefault },
  },
  waitMs: {
    description: "At the high watermark, wait this long for a record before answering empty.",
    schema: { type: "integer", minimum: 0, maximum: fetchWaitMsMax, default: 0 },
  },
  encoding: {
    description: "How keys and values are written in JSON answers.",
    schema: { type: "string", enum: ["utf8", "base64"], default: "utf8" },
  },
  decode: {
    description:
      "JSON fetch and SSE: `schema` shows each key and value in Confluent's wire format as the JSON its schema in the registry decodes it to (Avro as plain JSON, JSON as it is, Protobuf by protobuf's JSON mapping), with `keySchemaId`/`valueSchemaId` beside it; one that cannot be decoded is shown as usual with `keyDecodeError`/`valueDecodeError` saying why (docs/api.md, Reading decoded).",
    schema: { type: "string", enum: ["schema"] },
  },
  at: {
    description:
      "`earliest`, `latest`, or a timestamp in ms: the first offset whose record timestamp is at or after it; `max-timestamp`: the first record with the largest timestamp (Kafka's KIP-734); `earliest-local`: the first offset the partition holds itself, past its sealed segments in R2 (KIP-405); `latest-tiered`: the last offset sealed to R2, −1 when none is (KIP-1005); `earliest-pending-upload`: the first offset not sealed to R2 yet (KIP-1023); `epoch-end` (with `leaderEpoch`): where that leader epoch ended (Kafka's OffsetForLeaderEpoch; an addition).",
    schema: { type: "string", pattern: "^(earliest|latest|max-timestamp|earliest-local|latest-tiered|earliest-pending-upload|epoch-end|[0-9]{1,16})$" },
  },
  leaderEpoch: {
    description: "With `at=epoch-end` only: the leader epoch whose end is asked (an integer from 0).",
    schema: { type: "string", pattern: "^[0-9]{1,10}$" },
  },
  acks: {
    description: "`0` (answer 202 at once), `1` (the leader stored it) or `all` (the in-sync replicas did).",
    schema: { type: "string", enum: ["0", "1", "all"], default: "all" },
  },
  states: {
    description: "List groups: only those in one of these states, comma-separated, any case (Kafka's ListGroups states filter, KIP-518): Empty, Reconciling, Stable.",
    schema: { type: "string", maxLength: 256 },
  },
  types: {
    description: "List groups: only those of one of these types, comma-separated, any case (Kafka's ListGroups types filter, KIP-848). Every Tributary group is of type `consumer`; `classic` and `share` match none.",
    schema: { type: "string", maxLength: 256 },
  },
  isolation: {
    description: "`read_committed` (the default): records up to the last stable offset, aborted transactions' records skipped; `read_uncommitted`: up to the high watermark. Transaction markers are never records (docs/transactions.md).",
    schema: { type: "string", enum: ["read_committed", "read_uncommitted"], default: "read_committed" },
  },
  transactionalId: {
    description: "A transactional producer's id (docs/transactions.md): required with transactional batches (attributes bit 4), refused without them.",
    schema: { type: "string", minLength: 1, maxLength: transactionalIdLengthMax },
  },
  transactionPartitions: {
    description: "With `transactionalId`: more partitions of the topic, comma-separated, that the transaction writes now; the router's check adds them to the transaction with this write's partition, in one write at the coordinator (docs/transactions.md, The produce check). Tributary's client names the partitions a send is writing.",
    schema: { type: "string", pattern: "^\\d+(,\\d+)*$" },
  },
  commitAfterWrites: {
    description: "With `transactionalId`: the transaction commits once this many writes carrying this parameter (this one and the others sent with it, one per partition, all with the same producer id and epoch) are written; the answer then adds `committed` (the identity for the next transaction, as `POST /v1/transactions/{id}/end` answers) or `commitError` (not committed by these writes: the producer ends the transaction with its own request). docs/transactions.md, The commit carried by the last writes. Tributary's client sends a transaction's last records so when it commits.",
    schema: { type: "integer", minimum: 1, maximum: transactionPartitionsMax },
  },
  validateOnly: {
    description: "Kafka's validateOnly: `true` makes every check of the change and writes nothing, answering 200 with the topic as it would be (a topic not yet created: its `topicId` is not kept).",
    schema: { type: "string", enum: ["true", "false"], default: "false" },
  },
  requireStable: {
    description: "Kafka's require_stable: `true` answers 409 UNSTABLE_OFFSET_COMMIT (retriable) while a transaction holds uncommitted offsets of the group's partitions.",
    schema: { type: "string", enum: ["true", "false"], default: "false" },
  },
  [accessTokenParam]: {
    description: "The bearer token of a streaming read (SSE, WebSocket), which browsers open without headers; an Authorization header wins. Refused on every other request.",
    schema: { type: "string" },
  },
};
