import { Hono } from "hono";
import { TributaryError } from "../../errors.ts";
import { adminRequestBytesMax, produceRecordsMax, produceRequestBytesMax } from "../../limits.ts";
import { usualProduceRequest } from "../../protocol/produce-request-check.ts";
import { deleteRecordsSchema, produceRequestSchema } from "../../protocol/schemas.ts";
import { clientRegion } from "../client-region.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { listOffset, payloadBytesOf, readPartition } from "../../data-plane/partition-reads.ts";
import { recordsJson } from "../../data-plane/schema-decoding.ts";
import { produce } from "../../data-plane/produce.ts";
import { deleteRecords } from "../../data-plane/record-deletions.ts";
import { describeProducers } from "../../data-plane/partition-producers.ts";
import { decodeParam, encodingParam, fetchParams, isolationParam, offsetAtParam, partitionParam, routeQueries, routeQuery } from "../query.ts";
import { parseJsonBody, readBodyBytes, readJsonBody } from "../request-body.ts";
import { authorize } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { partitionEventStream } from "../streams/partition-sse.ts";
import { topicEventStream } from "../streams/topic-sse.ts";
import { acceptsEventStream } from "../streams/streaming-read.ts";

/** Produce, fetch from one partition, offsets (API.md), deleting records (docs/api.md, Delete records), a partition's producers (Transactions). */
export const recordRoutes = new Hono<RouterEnv>()
  .post("/:topic/records", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "write");
    routeQuery(c.req.url, [], "; acks, encoding and the producer fields go in the JSON body");
    const body = await readBodyBytes(c.req.raw, { maxBytes: produceRequestBytesMax, code: "RECORD_LIST_TOO_LARGE" });
    const request = parseJsonBody(body, produceRequestSchema, { usual: usualProduceRequest });
    if (request.records.length > produceRecordsMax) {
      throw new TributaryError("RECORD_LIST_TOO_LARGE", `a produce request has at most ${produceRecordsMax} records`);
    }
    if (request.transactionalId !== undefined) authorize(c, "transactionalId", request.transactionalId, "write");
    c.set("producedBytes", body.byteLength);
    const offsets = await produce(c.env, c.executionCtx, c.req.param("topic"), request);
    return offsets === undefined ? c.json({}, 202) : c.json({ offsets });
  })
  .get("/:topic/partitions/:partition/records", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "read");
    const partition = partitionParam(c.req.param("partition"));
    if (acceptsEventStream(c.req.header("accept"))) return partitionEventStream(c, c.req.param("topic"), partition);
    const query = routeQuery(c.req.url, routeQueries.jsonFetch);
    const options = fetchParams(query);
    const encoding = encodingParam(query.encoding);
    const decode = decodeParam(query.decode);
    const topic = await topicMetadata(c.env, c.req.param("topic"));
    const read = await readPartition(c.env, topic, partition, options, clientRegion(c.req.raw));
    c.set("fetchedBytes", payloadBytesOf(read.records));
    return c.json({
      records: await recordsJson(c.env, read.records, encoding, decode),
      nextOffset: read.nextOffset,
      highWatermark: read.highWatermark,
      lastStableOffset: read.lastStableOffset,
      logStartOffset: read.logStartOffset,
    });
  })
  .get("/:topic/records", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "read");
    return topicEventStream(c, c.req.param("topic"));
  })
  .post("/:topic/partitions/:partition/delete-records", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "delete"); // Kafka's DeleteRecords asks DELETE on the topic
    const partition = partitionParam(c.req.param("partition"));
    routeQuery(c.req.url, []);
    const body = await readJsonBody(c.req.raw, deleteRecordsSchema, { maxBytes: adminRequestBytesMax });
    const topic = await topicMetadata(c.env, c.req.param("topic"));
    return c.json(await deleteRecords(c.env, topic, partition, body.beforeOffset));
  })
  .get("/:topic/partitions/:partition/producers", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "describe"); // Kafka's DescribeProducers asks DESCRIBE on the topic
    const partition = partitionParam(c.req.param("partition"));
    routeQuery(c.req.url, []);
    const topic = await topicMetadata(c.env, c.req.param("topic"));
    return c.json({ producers: await describeProducers(c.env, topic, partition) });
  })
  .get("/:topic/partitions/:partition/offsets", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "describe");
    const partition = partitionParam(c.req.param("partition"));
    const query = routeQuery(c.req.url, routeQueries.listOffsets);
    const at = offsetAtParam(query.at, query.leaderEpoch);
    // Absent: read_uncommitted, so `latest` stays the high watermark (API.md); read_committed asks for the last stable offset.
    const isolation = query.isolation === undefined ? undefined : isolationParam(query.isolation);
    const answer = await listOffset(c.env, await topicMetadata(c.env, c.req.param("topic")), partition, at, isolation);
    return c.json(answer);
  });
