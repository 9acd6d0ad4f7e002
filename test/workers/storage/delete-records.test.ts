/**
 * Deleting records (Kafka's DeleteRecords; docs/api.md, Delete records): the log start moves
 * to the offset asked for, as retention moves it — reads below it are 416 wherever they are
 * served, the description and `earliest` show it, sealed segments wholly below it leave R2, it
 * survives the leader's restart and the followers take it; bad input changes nothing.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { eventually, produceRetrying } from "./support.ts";
import { api, createTopic, describeTopic, expectError, produce, uniqueTopic, type Topic } from "../support/http.ts";

function deleteRecords(topic: string, partition: number | string, body: unknown) {
  return api("POST", `/v1/topics/${topic}/partitions/${partition}/delete-records`, body);
}

async function partitionOf(topic: string) {
  return (await describeTopic(topic)).partitions[0]!;
}

async function firstOffsetFrom(topic: string, offset: number): Promise<number> {
  const response = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxRecords=1`);
  expect(response.status, response.text).toBe(200);
  return response.body.records[0].offset;
}

async function tenRecords(topic: string, acks: 1 | "all" = 1): Promise<void> {
  await produce(topic, Array.from({ length: 10 }, (_, index) => ({ value: `v${index}`, partition: 0 })), { acks });
}

describe("POST /v1/topics/{topic}/partitions/{partition}/delete-records", () => {
  it("moves the log start: reads below it are 416, the description and earliest show it, reads from it go on", async () => {
    const topic = uniqueTopic("delrec");
    await createTopic(topic);
    await tenRecords(topic);
    const deleted = await deleteRecords(topic, 0, { beforeOffset: 4 });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ lowWatermark: 4 });
    expect(await partitionOf(topic)).toMatchObject({ logStartOffset: 4, highWatermark: 10 });
    const below = expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=3`), 416, "OFFSET_OUT_OF_RANGE");
    expect(below).toMatchObject({ logStartOffset: 4, highWatermark: 10 });
    expect((await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=earliest`)).body).toEqual({ offset: 4 });
    expect(await firstOffsetFrom(topic, 4)).toBe(4);
    // An offset below the log start changes nothing and answers where the log starts (Kafka's answer).
    expect((await deleteRecords(topic, 0, { beforeOffset: 2 })).body).toEqual({ lowWatermark: 4 });
  });

  it("-1 deletes up to the high watermark, and the partition takes new records after it", async () => {
    const topic = uniqueTopic("delrec-hw");
    await createTopic(topic);
    await tenRecords(topic);
    expect((await deleteRecords(topic, 0, { beforeOffset: -1 })).body).toEqual({ lowWatermark: 10 });
    expect(await partitionOf(topic)).toMatchObject({ logStartOffset: 10, highWatermark: 10 });
    expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=9`), 416, "OFFSET_OUT_OF_RANGE");
    await tenRecords(topic);
    expect(await firstOffsetFrom(topic, 10)).toBe(10);
    expect((await partitionOf(topic)).highWatermark).toBe(20);
  });

  it("refuses an offset past the high watermark, a negative one other than -1, an unknown topic or partition; nothing changes", async () => {
    const topic = uniqueTopic("delrec-bad");
    await createTopic(topic);
    await tenRecords(topic);
    const past = expectError(await deleteRecords(topic, 0, { beforeOffset: 11 }), 416, "OFFSET_OUT_OF_RANGE");
    expect(past).toMatchObject({ logStartOffset: 0, highWatermark: 10 });
    expectError(await deleteRecords(topic, 0, { beforeOffset: -2 }), 400, "INVALID_REQUEST");
    expectError(await deleteRecords(topic, 0, { beforeOffset: 1.5 }), 400, "INVALID_REQUEST");
    expectError(await deleteRecords(topic, 0, {}), 400, "INVALID_REQUEST");
    expectError(await deleteRecords(topic, 1, { beforeOffset: 0 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await deleteRecords(uniqueTopic("delrec-none"), 0, { beforeOffset: 0 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(await partitionOf(topic)).toMatchObject({ logStartOffset: 0, highWatermark: 10 });
    expect(await firstOffsetFrom(topic, 0)).toBe(0);
  });

  it("survives the leader's restart", async () => {
    const topic = uniqueTopic("delrec-restart");
    const created = await createTopic(topic);
    await tenRecords(topic);
    expect((await deleteRecords(topic, 0, { beforeOffset: 7 })).status).toBe(200);
    await evictDurableObject(replicaStub(env, created.topicId, 0, created.partitions[0]!.leader));
    expect(await partitionOf(topic)).toMatchObject({ logStartOffset: 7, highWatermark: 10 });
    expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=6`), 416, "OFFSET_OUT_OF_RANGE");
    expect(await firstOffsetFrom(topic, 7)).toBe(7);
  });
});

describe("deleting records of a tiered partition", () => {
  it("deletes the sealed segments wholly below the new start from R2, keeps the one holding it, and serves reads from it", async () => {
    const topic = uniqueTopic("delrec-tiered");
    const created = await createTopic(topic, { configs: { "segment.bytes": "65536" } });
    for (let request = 0; request < 30; request++) {
      await produceRetrying(topic, { records: Array.from({ length: 10 }, () => ({ value: "x".repeat(1_000) })), acks: 1 });
    }
    await eventually(async () => (await partitionOf(topic)).storage.r2Segments >= 3);
    const prefix = `${created.topicId}/0/`;
    const segmentKeys = async () => (await env.SEGMENTS.list({ prefix })).objects.map((object) => object.key).filter((key) => key.endsWith(".seg"));
    const before = await segmentKeys();
    // Offset 100 lies in a sealed segment past the first (about 60 records a segment).
    const deleted = await deleteRecords(topic, 0, { beforeOffset: 100 });
    expect(deleted.body).toEqual({ lowWatermark: 100 });
    const after = await segmentKeys();
    expect(after.length).toBeGreaterThan(0);
    expect(after.length).toBeLessThan(before.length);
    expect((await partitionOf(topic)).storage.r2Segments).toBe(after.length);
    expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=99`), 416, "OFFSET_OUT_OF_RANGE");
    expect(await firstOffsetFrom(topic, 100)).toBe(100);
    // Past every sealed segment, into the partition's own rows: every segment goes.
    expect((await deleteRecords(topic, 0, { beforeOffset: 290 })).body).toEqual({ lowWatermark: 290 });
    expect(await segmentKeys()).toEqual([]);
    expect(await firstOffsetFrom(topic, 290)).toBe(290);
    expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=150`), 416, "OFFSET_OUT_OF_RANGE");
  });
});

describe("followers", () => {
  async function followerStarts(created: Topic) {
    const { topicId, partitions } = created;
    return Promise.all(
      partitions[0]!.replicas.slice(1).map(async (region) => {
        const state = await replicaStub(env, topicId, 0, region).state({ topicId, partition: 0, region });
        return state.ok ? state.value.logStartOffset : -1;
      }),
    );
  }

  it("take their leader's new log start, -1 included (before they have heard the records are committed)", async () => {
    const topic = uniqueTopic("delrec-followers");
    const created = await createTopic(topic, { replicationFactor: 3 });
    await tenRecords(topic, "all");
    expect((await deleteRecords(topic, 0, { beforeOffset: 3 })).body).toEqual({ lowWatermark: 3 });
    await eventually(async () => (await followerStarts(created)).every((start) => start === 3));
    await tenRecords(topic, "all");
    expect((await deleteRecords(topic, 0, { beforeOffset: -1 })).body).toEqual({ lowWatermark: 20 });
    await eventually(async () => (await followerStarts(created)).every((start) => start === 20));
    // And they go on replicating after it.
    await tenRecords(topic, "all");
    expect((await partitionOf(topic)).highWatermark).toBe(30);
  });
});
