/**
 * Share groups (docs/api.md, Share groups; KIP-932): fetch acquires records under a lock for
 * a lease, acknowledge settles them per partition, all or none.
 */
import { describe, expect, it } from "vitest";
import { createTopic, expectError, produce, uniqueTopic } from "../support/http.ts";
import { acceptAll, acknowledge, acksOf, describeShareGroup, setConfigs, shareFetch, shareFetchRaw, uniqueShareGroup, type Ack } from "./support.ts";

async function earliestGroup(prefix: string): Promise<string> {
  const group = uniqueShareGroup(prefix);
  expect((await setConfigs(group, { "auto.offset.reset": "earliest" })).status).toBe(200);
  return group;
}

describe("share fetch and acknowledge", () => {
  it("delivers each record to one fetch at a time, and accepted records never again", async () => {
    const topic = uniqueTopic("share-basic");
    await createTopic(topic, { partitions: 1 });
    await produce(topic, Array.from({ length: 10 }, (_, index) => ({ value: `v${index}` })));
    const group = await earliestGroup("basic");
    const first = await shareFetch(group, { topics: [topic], maxRecords: 4 });
    expect(first.records.map((record) => record.offset)).toEqual([0, 1, 2, 3]);
    expect(first.records.every((record) => record.deliveryCount === 1)).toBe(true);
    expect(first.records[0]).toMatchObject({ topic, partition: 0, value: "v0", key: null, headers: {} });
    expect(first.leaseExpiresAt).toBeGreaterThan(Date.now());
    const second = await shareFetch(group, { topics: [topic], maxRecords: 100 });
    expect(second.records.map((record) => record.offset)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(second.lease).not.toBe(first.lease);
    expect((await shareFetch(group, { topics: [topic] })).records).toEqual([]);
    await acceptAll(group, first);
    await acceptAll(group, second);
    const described = await describeShareGroup(group);
    expect(described.partitions).toEqual([{ topic, partition: 0, startOffset: 10, endOffset: 10, highWatermark: 10, available: 0, acquired: 0, done: 0, archived: 0 }]);
  });

  it("describes the in-flight window and the high watermark so that available + acquired + done adds up to the records past the start", async () => {
    const topic = uniqueTopic("share-describe");
    await createTopic(topic, { partitions: 1 });
    await produce(topic, Array.from({ length: 20 }, (_, index) => ({ value: `v${index}` })));
    const group = await earliestGroup("describe");
    // 8 of 20 consumed and accepted: nothing in flight, 12 available.
    await acceptAll(group, await shareFetch(group, { topics: [topic], maxRecords: 8 }));
    expect((await describeShareGroup(group)).partitions).toEqual([
      { topic, partition: 0, startOffset: 8, endOffset: 8, highWatermark: 20, available: 12, acquired: 0, done: 0, archived: 0 },
    ]);
    // 8 more fetched: 8–10 and 12 accepted, 11 released, 13–15 still held.
    const held = await shareFetch(group, { topics: [topic], maxRecords: 8 });
    const ack = (offsets: number[], type: Ack["type"]) => ({ topic, partition: 0, offsets, type });
    await acknowledge(group, held.lease, [ack([8, 9, 10, 12], "accept"), ack([11], "release")]);
    const [view] = (await describeShareGroup(group)).partitions;
    expect(view).toEqual({ topic, partition: 0, startOffset: 11, endOffset: 16, highWatermark: 20, available: 5, acquired: 3, done: 1, archived: 0 });
    expect(view!.highWatermark - view!.startOffset).toBe(view!.available + view!.acquired + view!.done);
  });

  it("makes released records available again at once, their delivery counted", async () => {
    const topic = uniqueTopic("share-release");
    await createTopic(topic, { partitions: 1 });
    await produce(topic, [{ value: "a" }, { value: "b" }]);
    const group = await earliestGroup("release");
    const first = await shareFetch(group, { topics: [topic] });
    const results = await acknowledge(group, first.lease, [{ topic, partition: 0, offsets: [1], type: "release" }]);
    expect(results).toEqual([{ topic, partition: 0 }]);
    const again = await shareFetch(group, { topics: [topic] });
    expect(again.records.map(({ offset, deliveryCount }) => ({ offset, deliveryCount }))).toEqual([{ offset: 1, deliveryCount: 2 }]);
  });

  it("lets acknowledgements ride along a fetch, each with its lease", async () => {
    const topic = uniqueTopic("share-ride");
    await createTopic(topic, { partitions: 1 });
    await produce(topic, [{ value: "a" }, { value: "b" }, { value: "c" }]);
    const group = await earliestGroup("ride");
    const first = await shareFetch(group, { topics: [topic], maxRecords: 2 });
    const second = await shareFetch(group, {
      topics: [topic],
      acknowledgements: acksOf(first.records, "accept").map((ack) => ({ ...ack, lease: first.lease })),
    });
    expect(second.results).toEqual([{ topic, partition: 0 }]);
    expect(second.records.map((record) => record.offset)).toEqual([2]);
    await acceptAll(group, second);
    expect((await describeShareGroup(group)).partitions[0]).toMatchObject({ startOffset: 3, acquired: 0 });
  });

  it("answers within maxBytes and gives the rest back uncounted", async () => {
    const topic = uniqueTopic("share-bytes");
    await createTopic(topic, { partitions: 1 });
    await produce(topic, [{ value: "x".repeat(100) }, { value: "y".repeat(100) }, { value: "z".repeat(100) }]);
    const group = await earliestGroup("bytes");
    const first = await shareFetch(group, { topics: [topic], maxBytes: 150 });
    expect(first.records.map((record) => record.offset)).toEqual([0]); // the first record always; the second would pass maxBytes
    const second = await shareFetch(group, { topics: [topic] });
    expect(second.records.map(({ offset, deliveryCount }) => ({ offset, deliveryCount }))).toEqual([
      { offset: 1, deliveryCount: 1 },
      { offset: 2, deliveryCount: 1 },
    ]);
  });

  it("spreads a fetch over the partitions that have records, up to maxRecords", async () => {
    const topic = uniqueTopic("share-spread");
    await createTopic(topic, { partitions: 3 });
    await produce(topic, Array.from({ length: 12 }, (_, index) => ({ value: `v${index}`, partition: 1 + (index % 2) })));
    const group = await earliestGroup("spread");
    const answer = await shareFetch(group, { topics: [topic], maxRecords: 10 });
    expect(answer.records).toHaveLength(10);
    expect(new Set(answer.records.map((record) => record.partition))).toEqual(new Set([1, 2]));
    expect((await shareFetch(group, { topics: [topic], maxRecords: 10 })).records).toHaveLength(2);
  });

  it("applies acknowledgements riding along for a topic the fetch does not name", async () => {
    const acked = uniqueTopic("share-ride-a");
    const fetched = uniqueTopic("share-ride-b");
    await createTopic(acked, { partitions: 1 });
    await createTopic(fetched, { partitions: 1 });
    await produce(acked, [{ value: "a" }]);
    await produce(fetched, [{ value: "b" }]);
    const group = await earliestGroup("ride-other");
    const first = await shareFetch(group, { topics: [acked] });
    const second = await shareFetch(group, { topics: [fetched], acknowledgements: acksOf(first.records, "accept").map((ack) => ({ ...ack, lease: first.lease })) });
    expect(second.results).toEqual([{ topic: acked, partition: 0 }]);
    expect(second.records.map((record) => record.value)).toEqual(["b"]);
    const described = await describeShareGroup(group);
    expect(described.partitions.find((partition) => partition.topic === acked)).toMatchObject({ startOffset: 1, acquired: 0 });
  });

  it("refuses unknown topics and bad bodies", async () => {
    const group = uniqueShareGroup("bad");
    expectError(await shareFetchRaw(group, { topics: [uniqueTopic("nope")] }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await shareFetchRaw(group, { topics: [] }), 400, "INVALID_REQUEST");
    expectError(await shareFetchRaw(group, { topics: ["x"], maxRecords: 0 }), 400, "INVALID_REQUEST");
  });
});
