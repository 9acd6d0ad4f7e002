import { Hono } from "hono";
import { TributaryError, unwrap } from "../../errors.ts";
import {
  fetchMaxBytesDefault,
  fetchMaxBytesMax,
  fetchMaxRecordsDefault,
  fetchMaxRecordsMax,
  fetchWaitMsMax,
  produceRecordsMax,
  produceRequestBytesMax,
} from "../../limits.ts";
import { recordsInWindow } from "../../log/fetched-records.ts";
import { replicaStub } from "../../objects/stubs.ts";
import { encodeBase64 } from "../../protocol/base64.ts";
import type { DecodedRecord } from "../../protocol/record-batch.ts";
import { encodingSchema, produceRequestSchema, type Encoding } from "../../protocol/schemas.ts";
import type { TopicMetadata } from "../../topics/topic-metadata.ts";
import { withTopic } from "../metadata-cache.ts";
import { produce } from "../produce.ts";
import { integerParam } from "../query.ts";
import { readJsonBody } from "../request-body.ts";

const utf8 = new TextDecoder();

function encodingParam(text: string | undefined): Encoding {
  const parsed = encodingSchema.safeParse(text ?? "utf8");
  if (!parsed.success) throw new TributaryError("INVALID_REQUEST", "encoding must be utf8 or base64");
  return parsed.data;
}

/** The leader of an existing partition; a partition the topic does not have is 404. */
function leaderOf(env: Env, topic: TopicMetadata, partition: number) {
  const placement = topic.partitions[partition];
  if (!placement) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic.name} has no partition ${partition}`);
  }
  return replicaStub(env, topic.topicId, partition, placement.leader);
}

function recordJson(record: DecodedRecord, encoding: Encoding) {
  const text = (bytes: Uint8Array | null) =>
    bytes === null ? null : encoding === "base64" ? encodeBase64(bytes) : utf8.decode(bytes);
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: text(record.key),
    value: text(record.value),
    // fromEntries defines own properties, so a header named "__proto__" stays a header.
    headers: Object.fromEntries(
      record.headers.map((header) => [header.key, header.value === null ? null : utf8.decode(header.value)]),
    ),
  };
}

/** Produce, fetch from one partition, and offsets (API.md). */
export const recordRoutes = new Hono<{ Bindings: Env }>()
  .post("/:topic/records", async (c) => {
    const tooLarge = new TributaryError("RECORD_LIST_TOO_LARGE", `a produce request has at most ${produceRequestBytesMax} bytes`);
    const request = await readJsonBody(c.req.raw, produceRequestSchema, produceRequestBytesMax, tooLarge);
    if (request.records.length > produceRecordsMax) {
      throw new TributaryError("RECORD_LIST_TOO_LARGE", `a produce request has at most ${produceRecordsMax} records`);
    }
    const offsets = await produce(c.env, c.executionCtx, c.req.param("topic"), request);
    return offsets === undefined ? c.json({}, 202) : c.json({ offsets });
  })
  .get("/:topic/partitions/:partition/records", async (c) => {
    const query = c.req.query();
    const partition = integerParam("partition", c.req.param("partition"), { min: 0, max: Number.MAX_SAFE_INTEGER });
    const offset = integerParam("offset", query.offset, { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
    const maxRecords = integerParam("maxRecords", query.maxRecords, { min: 1, max: fetchMaxRecordsMax, fallback: fetchMaxRecordsDefault });
    const maxBytes = integerParam("maxBytes", query.maxBytes, { min: 1, max: fetchMaxBytesMax, fallback: fetchMaxBytesDefault });
    const waitMs = integerParam("waitMs", query.waitMs, { min: 0, max: fetchWaitMsMax, fallback: 0 });
    const encoding = encodingParam(query.encoding);
    const read = await withTopic(c.env, c.req.param("topic"), async (topic) =>
      unwrap(
        await leaderOf(c.env, topic, partition).read({ topicId: topic.topicId, partition, offset, maxRecords, maxBytes, waitMs }),
      ),
    );
    const window = { fromOffset: offset, untilOffset: read.highWatermark, maxRecords, maxBytes };
    const { records, nextOffset } = recordsInWindow(read.batches, window);
    return c.json({
      records: records.map((record) => recordJson(record, encoding)),
      nextOffset,
      highWatermark: read.highWatermark,
      logStartOffset: read.logStartOffset,
    });
  })
  .get("/:topic/partitions/:partition/offsets", async (c) => {
    const partition = integerParam("partition", c.req.param("partition"), { min: 0, max: Number.MAX_SAFE_INTEGER });
    const at = c.req.query("at");
    const query =
      at === "earliest" || at === "latest"
        ? at
        : { timestampMs: integerParam("at", at, { min: 0, max: Number.MAX_SAFE_INTEGER }) };
    const answer = await withTopic(c.env, c.req.param("topic"), async (topic) =>
      unwrap(await leaderOf(c.env, topic, partition).listOffset({ topicId: topic.topicId, partition, at: query })),
    );
    return c.json(answer);
  });
