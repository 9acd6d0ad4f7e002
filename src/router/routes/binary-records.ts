import { Hono } from "hono";
import { TributaryError } from "../../errors.ts";
import { binaryFetchMaxRecordsMax, produceRequestBytesMax } from "../../limits.ts";
import { fetchHeaders, isRecordBatchType, recordBatchContentType } from "../../protocol/content-types.ts";
import { readBatchHeader } from "../../protocol/record-batch.ts";
import { recordRules } from "../../topics/record-rules.ts";
import { clientRegion } from "../client-region.ts";
import { appendBatches, checkClientBatches } from "../../data-plane/binary-produce.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { placementOf } from "../../data-plane/leader-calls.ts";
import { readPartitionBatches } from "../../data-plane/partition-reads.ts";
import { checkInSyncReplicas } from "../../data-plane/produce.ts";
import { checkSchemaIds } from "../../data-plane/schema-id-checks.ts";
import { verifyTransactionalWrite } from "../../data-plane/transaction-verification.ts";
import { writeCarryingCommit } from "../../data-plane/carried-commit-writes.ts";
import { acksParam, commitAfterWritesParam, fetchParams, partitionParam, routeQueries, routeQuery, transactionalIdParam, transactionPartitionsParam } from "../query.ts";
import { readBodyBytes } from "../request-body.ts";
import { authorize } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import type { CarriedWrite } from "../../transactions/carried-commit.ts";

/** Where a reader continues after these batches: past the last one, never past the high watermark (or the last stable offset). */
function nextOffsetAfter(batches: readonly Uint8Array[], offset: number, until: number): number {
  const last = batches.at(-1);
  if (!last) return offset;
  const header = readBatchHeader(last);
  return Math.min(header.baseOffset + header.lastOffsetDelta + 1, until);
}

/** A transactional write's answer: its offsets, and a LogAppendTime topic's append time. */
function writeAnswer(write: CarriedWrite): { partition: number; baseOffset: number; lastOffset: number; timestamp?: number } {
  const { partition, baseOffset, lastOffset, timestamp } = write;
  return timestamp === undefined ? { partition, baseOffset, lastOffset } : { partition, baseOffset, lastOffset, timestamp };
}

/**
 * The binary transport (docs/api.md): produce client-built Kafka record batches to one
 * partition, and fetch stored batches as they are — no JSON and no per-record work in the
 * router on the way out. Mounted before the JSON routes; a fetch without the Accept type
 * falls through to them.
 */
export const binaryRecordRoutes = new Hono<RouterEnv>()
  .post("/:topic/partitions/:partition/records", async (c) => {
    authorize(c, "topic", c.req.param("topic"), "write");
    const produceQuery = routeQuery(c.req.url, routeQueries.binaryProduce);
    const acks = acksParam(produceQuery.acks);
    const transactionalId = transactionalIdParam(produceQuery.transactionalId);
    const alsoAdded = transactionPartitionsParam(produceQuery.transactionPartitions, transactionalId);
    const commitAfterWrites = commitAfterWritesParam(produceQuery.commitAfterWrites, transactionalId);
    if (!isRecordBatchType(c.req.header("content-type"))) {
      throw new TributaryError(
        "INVALID_REQUEST",
        `this route takes Content-Type ${recordBatchContentType}; JSON records go to POST /v1/topics/{topic}/records`,
      );
    }
    const partition = partitionParam(c.req.param("partition"));
    const body = await readBodyBytes(c.req.raw, { maxBytes: produceRequestBytesMax, code: "RECORD_LIST_TOO_LARGE" });
    const nowMs = Date.now();
    const name = c.req.param("topic");
    let topic = await topicMetadata(c.env, name);
    if ([partition, ...alsoAdded].some((named) => !topic.partitions[named])) topic = await topicMetadata(c.env, name, { refresh: true }); // grown since cached?
    for (const named of [partition, ...alsoAdded]) placementOf(topic, named); // 404 for a partition the topic does not have, before any work
    const { batches, idempotent, transactional, schemaRefs } = checkClientBatches(body, topic, nowMs);
    if (transactional !== (transactionalId !== undefined)) {
      throw new TributaryError("INVALID_REQUEST", transactional ? "transactional batches name their producer's ?transactionalId=" : "?transactionalId= goes with transactional batches (attributes bit 4)");
    }
    if (idempotent && acks !== "all") throw new TributaryError("INVALID_REQUEST", `an idempotent producer's batches are written with acks=all, not acks=${acks}`);
    if (acks === "all") checkInSyncReplicas(topic, [partition]);
    if (schemaRefs.length > 0) await checkSchemaIds(c.env, name, schemaRefs); // a topic with schema id validation (docs/schema-registry.md)
    const logAppendTime = recordRules(topic).logAppendTime;
    if (transactionalId === undefined) {
      c.set("producedBytes", body.byteLength);
      if (acks === 0) {
        c.executionCtx.waitUntil(appendBatches(c.env, topic, partition, batches, acks));
        return c.json({}, 202);
      }
      const result = await appendBatches(c.env, topic, partition, batches, acks);
      const answer = { partition, baseOffset: result.baseOffset, lastOffset: result.lastOffset };
      // A duplicate (an idempotent producer's retry) answers the append time it was first written at.
      return c.json(logAppendTime ? { ...answer, timestamp: result.timestamps?.[0] ?? nowMs } : answer);
    }
    authorize(c, "transactionalId", transactionalId, "write");
    const identity = readBatchHeader(batches[0]!);
    // The client names the topic's other partitions its transaction writes now: one coordinator write adds them all.
    const added = [partition, ...alsoAdded.filter((other) => other !== partition)].map((other) => ({ topic: name, partition: other }));
    const write = async () => {
      await verifyTransactionalWrite(c.env, transactionalId, identity, added);
      c.set("producedBytes", body.byteLength);
      const result = await appendBatches(c.env, topic, partition, batches, acks);
      return { topic: name, partition, baseOffset: result.baseOffset, lastOffset: result.lastOffset, ...(logAppendTime ? { timestamp: result.timestamps?.[0] ?? nowMs } : {}) };
    };
    if (commitAfterWrites === undefined) return c.json(writeAnswer(await write()));
    // The transaction's last writes carry its commit: the answer says, beside the offsets, whether it committed.
    const carried = { transactionalId, identity: { producerId: identity.producerId, producerEpoch: identity.producerEpoch }, writes: commitAfterWrites, topic: name, partition };
    const { write: written, ...commit } = await writeCarryingCommit(c.env, carried, write);
    return c.json({ ...writeAnswer(written), ...commit });
  })
  .get("/:topic/partitions/:partition/records", async (c, next) => {
    if (!isRecordBatchType(c.req.header("accept"))) return next();
    authorize(c, "topic", c.req.param("topic"), "read");
    const partition = partitionParam(c.req.param("partition"));
    const options = fetchParams(routeQuery(c.req.url, routeQueries.binaryFetch), binaryFetchMaxRecordsMax);
    const topic = await topicMetadata(c.env, c.req.param("topic"));
    const read = await readPartitionBatches(c.env, topic, partition, options, clientRegion(c.req.raw));
    const lastStableOffset = read.lastStableOffset ?? read.highWatermark;
    // read_committed hands on the batches below the last stable offset, as stored (markers too), with the aborted transactions to filter by.
    const committed = options.isolation === "read_committed";
    const batches = committed ? read.batches.filter((batch) => readBatchHeader(batch).baseOffset < lastStableOffset) : read.batches;
    const until = committed ? lastStableOffset : read.highWatermark;
    c.set("fetchedBytes", batches.reduce((sum, batch) => sum + batch.byteLength, 0));
    const headers: Record<string, string> = {
      "Content-Type": recordBatchContentType,
      [fetchHeaders.highWatermark]: String(read.highWatermark),
      [fetchHeaders.lastStableOffset]: String(lastStableOffset),
      [fetchHeaders.logStartOffset]: String(read.logStartOffset),
      [fetchHeaders.nextOffset]: String(nextOffsetAfter(batches, options.offset, until)),
    };
    if (committed && read.abortedTransactions?.length) headers[fetchHeaders.abortedTransactions] = JSON.stringify(read.abortedTransactions);
    return new Response(new Blob(batches), { headers });
  });
