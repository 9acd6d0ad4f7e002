/**
 * Catch-up reads served by the router from R2 (issue 19, ARCHITECTURE.md decision 11): a
 * fetch whose offset is sealed costs the partition object no request, answers exactly what
 * the object would, and stays exact across a seal, a compaction swap and a retention step
 * while a reader is mid-log.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sealedManifestKey } from "../../../src/log/sealed-manifest.ts";
import { routedCall } from "../../../src/data-plane/leader-calls.ts";
import { topicMetadata } from "../../../src/data-plane/metadata-cache.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { splitBatches } from "../../../src/protocol/record-batch.ts";
import { createExecutionContext } from "cloudflare:test";
import { TributaryService } from "../../../src/service.ts";
import { eventually, produceRetrying } from "./support.ts";
import { readRecords, stream } from "../streams/support.ts";
import { api, baseUrl, concat, createTopic, describeTopic, expectError, uniqueTopic } from "../support/http.ts";

const mib = 1024 * 1024;
const utf8 = new TextDecoder();

/** The value written at `offset`: every one differs, so a misplaced or stale record shows. */
function valueAt(offset: number): string {
  return `v${offset}:${"s".repeat(300 + (offset % 97))}`;
}

/** Produces `count` records from offset `from` (keys cycle through `keys`), 10 a request. */
async function produceFrom(topic: string, from: number, count: number, keys = 1_000_000): Promise<void> {
  for (let start = from; start < from + count; start += 10) {
    const records = Array.from({ length: Math.min(10, from + count - start) }, (_, index) => ({ key: `k${(start + index) % keys}`, value: valueAt(start + index) }));
    await produceRetrying(topic, { records, acks: 1 });
  }
}

async function partitionOf(topic: string) {
  return (await describeTopic(topic)).partitions[0]!;
}

/** The leader's request counter (debug statistics, TRIBUTARY_FAULTS=1); the call that reads it counts one. */
async function leaderRequests(topic: string): Promise<number> {
  const metadata = await topicMetadata(env, topic);
  const region = metadata.partitions[0]!.leader;
  const state = await replicaStub(env, metadata.topicId, 0, region).state({ topicId: metadata.topicId, partition: 0, region });
  if (!state.ok || !state.value.debug) throw new Error("no debug statistics");
  return state.value.debug.requests;
}

async function binaryFetch(topic: string, offset: number, maxRecords = 10_000) {
  const url = `${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxRecords=${maxRecords}&maxBytes=${8 * mib}`;
  const response = await exports.default.fetch(new Request(url, { headers: { accept: recordBatchContentType } }));
  expect(response.status).toBe(200);
  return {
    bytes: new Uint8Array(await response.arrayBuffer()),
    highWatermark: Number(response.headers.get("tributary-high-watermark")),
    logStartOffset: Number(response.headers.get("tributary-log-start-offset")),
    nextOffset: Number(response.headers.get("tributary-next-offset")),
  };
}

/** The partition object's own answer to the same fetch (its sealed read, or its rows). */
async function objectRead(topic: string, offset: number, maxRecords = 10_000): Promise<Uint8Array> {
  const metadata = await topicMetadata(env, topic);
  const call = routedCall(metadata, 0, metadata.partitions[0]!.leader);
  const answer = await replicaStub(env, metadata.topicId, 0, call.region).read({ ...call, offset, maxRecords, maxBytes: 8 * mib, waitMs: 0 });
  if (!answer.ok) throw new Error(`the object refused the read: ${JSON.stringify(answer)}`);
  return concat(...answer.value.batches);
}

/** The records in fetched batches at or after `from`, checked against what was written at each offset. */
function checkedRecords(bytes: Uint8Array, from: number): number[] {
  const offsets: number[] = [];
  for (const { start } of splitBatches(bytes)) {
    for (const record of decodeRecordBatch(bytes, start).records) {
      if (record.offset < from) continue;
      expect(utf8.decode(record.value!), `offset ${record.offset}`).toBe(valueAt(record.offset));
      offsets.push(record.offset);
    }
  }
  return offsets;
}

/** Seals everything committed: a config change runs the leader's cleaner at once (segment.ms is 1). */
async function sealAll(topic: string): Promise<void> {
  await eventually(async () => {
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "segment.ms": "1" } })).status).toBe(200);
    return (await partitionOf(topic)).storage.sqliteBatches === 0;
  });
}

async function sealedTopic(prefix: string, configs: Record<string, string>, count: number): Promise<string> {
  const topic = uniqueTopic(prefix);
  await createTopic(topic, { configs: { "segment.bytes": "65536", "segment.ms": "1", ...configs } });
  await produceFrom(topic, 0, count);
  await sealAll(topic);
  return topic;
}

describe("sealed reads from R2", () => {
  it("consume a fully sealed log with no partition object request per fetch, the same bytes and records as the object's", async () => {
    const topic = await sealedTopic("sealed-reads", {}, 600);
    const partition = await partitionOf(topic);
    expect(partition.storage.r2Segments).toBeGreaterThanOrEqual(3);
    expect(partition.highWatermark).toBe(600);
    const metadata = await topicMetadata(env, topic);
    expect(await env.SEGMENTS.head(sealedManifestKey(metadata.topicId, 0))).not.toBeNull();

    const objectAnswers = new Map<number, Uint8Array>();
    for (const offset of [0, 137, 250, 599]) objectAnswers.set(offset, await objectRead(topic, offset, 100));

    const before = await leaderRequests(topic);
    // Binary, 100 records a fetch: every answer is the object's, byte for byte.
    for (const [offset, expected] of objectAnswers) {
      const answer = await binaryFetch(topic, offset, 100);
      expect(answer.bytes).toEqual(expected);
      expect(answer.highWatermark).toBe(600);
      expect(answer.logStartOffset).toBe(0);
    }
    // JSON, the whole log page by page.
    const offsets: number[] = [];
    let offset = 0;
    for (let page = 0; page < 100 && offset < 600; page++) {
      const response = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxRecords=150`);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ highWatermark: 600, logStartOffset: 0 });
      for (const record of response.body.records) {
        expect(record.value).toBe(valueAt(record.offset));
        offsets.push(record.offset);
      }
      offset = response.body.nextOffset;
    }
    expect(offsets).toEqual([...Array(600).keys()]);
    // Since `before`: the call that reads the counter, and the fetches whose answer reaches the
    // sealed end (the binary one at 599, the last JSON page or two), which the object answers
    // with the current high watermark. Served by the object, the fetches alone would be 9.
    expect((await leaderRequests(topic)) - before).toBeLessThanOrEqual(4);
  });

  it("serve every record byte for byte to a reader mid-log across a seal and a compaction swap", async () => {
    const topic = uniqueTopic("sealed-swap");
    // Compaction rewrites every sealed segment into a new generation whenever new segments are sealed.
    await createTopic(topic, { configs: { "segment.bytes": "65536", "segment.ms": "1", "cleanup.policy": "compact" } });
    await produceFrom(topic, 0, 300, 1_000_000); // distinct keys: compaction keeps every record
    await sealAll(topic);
    const metadata = await topicMetadata(env, topic);
    const manifestBefore = await (await env.SEGMENTS.get(sealedManifestKey(metadata.topicId, 0)))!.text();

    const read: number[] = [];
    const first = await binaryFetch(topic, 0, 100);
    const readBeforeSwap = checkedRecords(first.bytes, 0);
    read.push(...readBeforeSwap);
    let offset = first.nextOffset;
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(300);

    // A second round of the same keys: sealed, then compacted, superseding everything read so far and what is left.
    await produceFrom(topic, 300, 300, 300);
    await sealAll(topic);
    const manifestAfter = await (await env.SEGMENTS.get(sealedManifestKey(metadata.topicId, 0)))!.text();
    expect(manifestAfter).not.toBe(manifestBefore);
    // The generation the reader started on is gone from R2.
    const oldKeys = (JSON.parse(manifestBefore).segments as { objectKey: string }[]).map((segment) => segment.objectKey);
    for (const key of oldKeys) expect(await env.SEGMENTS.head(key), key).toBeNull();

    for (let page = 0; page < 100 && offset < 600; page++) {
      const answer = await binaryFetch(topic, offset, 100);
      expect(answer.bytes).toEqual(await objectRead(topic, offset, 100));
      read.push(...checkedRecords(answer.bytes, offset));
      offset = answer.nextOffset;
    }
    expect(offset).toBe(600);
    // Offsets ascend; the first round's records past the reader were superseded and are gone; the second round is whole.
    expect([...read].sort((a, b) => a - b)).toEqual(read);
    expect(read.filter((at) => at < 300)).toEqual(readBeforeSwap);
    expect(read.filter((at) => at >= 300)).toEqual([...Array(300).keys()].map((index) => 300 + index));
  });

  it("never serve a record below the log start once retention moved it, though the reader's copy listed its segment", async () => {
    const topic = await sealedTopic("sealed-retention", {}, 600);
    const first = await binaryFetch(topic, 0, 50);
    expect(checkedRecords(first.bytes, 0).length).toBeGreaterThan(0);
    const before = await partitionOf(topic);
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "retention.bytes": "100000" } })).status).toBe(200);
    const after = await partitionOf(topic);
    expect(after.logStartOffset).toBeGreaterThan(first.nextOffset);
    expect(after.storage.r2Segments).toBeLessThan(before.storage.r2Segments);
    const error = expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=${first.nextOffset}`), 416, "OFFSET_OUT_OF_RANGE");
    expect(error).toMatchObject({ logStartOffset: after.logStartOffset, highWatermark: 600 });
    const resumed = await binaryFetch(topic, after.logStartOffset, 10_000);
    expect(resumed.logStartOffset).toBe(after.logStartOffset);
    expect(checkedRecords(resumed.bytes, after.logStartOffset)[0]).toBe(after.logStartOffset);
    expect(resumed.bytes).toEqual(await objectRead(topic, after.logStartOffset, 10_000));
  });

  it("serve an SSE stream and the service binding's fetches from R2 the same way, with no partition object request for the sealed part", async () => {
    const topic = await sealedTopic("sealed-stream", {}, 600);
    const service = new TributaryService(createExecutionContext(), env);
    const expected = await objectRead(topic, 250, 100);
    const before = await leaderRequests(topic);
    const batches = await service.fetchBatches(topic, 0, { offset: 250, maxRecords: 100, maxBytes: 8 * mib });
    expect(batches.ok).toBe(true);
    if (batches.ok) {
      expect(batches.value.batches).toEqual(expected);
      expect(batches.value).toMatchObject({ highWatermark: 600, logStartOffset: 0 });
    }
    const json = await service.fetchRecords(topic, 0, { offset: 10, maxRecords: 5 });
    expect(json.ok && (json.value as { records: { offset: number; value: string }[] }).records.map((record) => record.value)).toEqual([10, 11, 12, 13, 14].map(valueAt));
    expect((await leaderRequests(topic)) - before).toBe(1);

    const beforeStream = await leaderRequests(topic);
    const reader = await stream(`/v1/topics/${topic}/partitions/0/records?offset=0`);
    const { records } = await readRecords(reader, 600);
    await reader.close();
    expect(records.map((record: { offset: number }) => record.offset)).toEqual([...Array(600).keys()]);
    for (const record of records) expect(record.value).toBe(valueAt(record.offset));
    // The sealed records came from R2 (the object would have served at least four polls, a
    // segment each): the call reading the counter, the poll reaching the sealed end and at most
    // the stream's long poll there reached the object.
    expect((await leaderRequests(topic)) - beforeStream).toBeLessThanOrEqual(3);
  });

  it("never tell a reader it has caught up with the manifest's high watermark: a fetch reaching it gets the object's current one", async () => {
    const topic = await sealedTopic("sealed-hw", {}, 600);
    await produceFrom(topic, 600, 50); // committed, not sealed: the published manifest still says 600
    expect((await partitionOf(topic)).storage.sqliteBatches).toBeGreaterThan(0);
    const early = await binaryFetch(topic, 0, 10);
    expect(early.highWatermark).toBe(600); // from R2: the manifest's, documented as possibly behind
    expect(early.nextOffset).toBeLessThan(600);
    const before = await leaderRequests(topic);
    const atEnd = await binaryFetch(topic, 599, 10_000); // in the last segment
    expect(atEnd).toMatchObject({ highWatermark: 650, nextOffset: 600 });
    expect(atEnd.bytes).toEqual(await objectRead(topic, 599, 10_000));
    expect((await leaderRequests(topic)) - before).toBe(3); // the counter read, the fetch, the object read
    const json = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=598&maxRecords=10000`);
    expect(json.body).toMatchObject({ highWatermark: 650, nextOffset: 600 });
  });
});
