/**
 * Dead letters and refusals (issue 15): a rejected record, and one past the delivery limit, go
 * to the dead-letter topic with its key, value, headers and the tributary.dlq.* headers before
 * they are archived; an acknowledgement the lease cannot make is refused per partition and
 * changes nothing.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, produce, readAll, uniqueTopic } from "../support/http.ts";
import { acknowledge, acksOf, describeShareGroup, setConfigs, shareFetch, uniqueShareGroup } from "./support.ts";

async function topicWithRecords(prefix: string, records: { key?: string; value: string; headers?: Record<string, string> }[]): Promise<string> {
  const topic = uniqueTopic(prefix);
  await createTopic(topic, { partitions: 1 });
  await produce(topic, records);
  return topic;
}

describe("dead-letter topic", () => {
  it("receives a rejected record with its key, value, headers and the dlq headers, then it is archived", async () => {
    const topic = await topicWithRecords("share-dlq", [{ key: "k1", value: "bad", headers: { trace: "t-1" } }, { value: "good" }]);
    const deadLetters = uniqueTopic("share-dlq-dead");
    await createTopic(deadLetters, { partitions: 1 });
    const group = uniqueShareGroup("dlq");
    const configured = await setConfigs(group, { "auto.offset.reset": "earliest", "dead.letter.topic": deadLetters });
    expect(configured.status, configured.text).toBe(200);
    expect(configured.body.configs["dead.letter.topic"]).toBe(deadLetters);

    const answer = await shareFetch(group, { topics: [topic] });
    const results = await acknowledge(group, answer.lease, [
      { topic, partition: 0, offsets: [0], type: "reject" },
      { topic, partition: 0, offsets: [1], type: "accept" },
    ]);
    expect(results).toEqual([{ topic, partition: 0 }]);
    const written = await readAll(deadLetters, 0);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      key: "k1",
      value: "bad",
      headers: {
        trace: "t-1",
        "tributary.dlq.topic": topic,
        "tributary.dlq.partition": "0",
        "tributary.dlq.offset": "0",
        "tributary.dlq.delivery-count": "1",
        "tributary.dlq.reason": "rejected",
      },
    });
    expect((await describeShareGroup(group)).partitions[0]).toMatchObject({ startOffset: 2, archived: 1, acquired: 0 });
    expect((await shareFetch(group, { topics: [topic] })).records).toEqual([]); // never delivered again
  });

  it("receives a record released until its delivery limit, with reason delivery-limit", async () => {
    const topic = await topicWithRecords("share-limit", [{ value: "flaky" }]);
    const deadLetters = uniqueTopic("share-limit-dead");
    await createTopic(deadLetters, { partitions: 1 });
    const group = uniqueShareGroup("limit");
    expect((await setConfigs(group, { "auto.offset.reset": "earliest", "delivery.count.limit": "2", "dead.letter.topic": deadLetters })).status).toBe(200);
    for (let delivery = 1; delivery <= 2; delivery++) {
      const answer = await shareFetch(group, { topics: [topic] });
      expect(answer.records.map((record) => record.deliveryCount)).toEqual([delivery]);
      expect(await acknowledge(group, answer.lease, acksOf(answer.records, "release"))).toEqual([{ topic, partition: 0 }]);
    }
    expect((await shareFetch(group, { topics: [topic] })).records).toEqual([]);
    const written = await readAll(deadLetters, 0);
    expect(written.map((record) => [record.value, record.headers["tributary.dlq.reason"], record.headers["tributary.dlq.delivery-count"]])).toEqual([["flaky", "delivery-limit", "2"]]);
  });

  it("keeps a record un-archived while its dead-letter write fails", async () => {
    const topic = await topicWithRecords("share-dlq-fail", [{ value: "x" }]);
    const deadLetters = uniqueTopic("share-dlq-gone");
    await createTopic(deadLetters, { partitions: 1 });
    const group = uniqueShareGroup("dlq-fail");
    expect((await setConfigs(group, { "auto.offset.reset": "earliest", "dead.letter.topic": deadLetters })).status).toBe(200);
    // The dead-letter topic disappears: the write fails, the record stays un-archived.
    expect((await api("DELETE", `/v1/topics/${deadLetters}`)).status).toBe(204);
    const answer = await shareFetch(group, { topics: [topic] });
    expect(await acknowledge(group, answer.lease, acksOf(answer.records, "reject"))).toEqual([{ topic, partition: 0 }]);
    expect((await describeShareGroup(group)).partitions[0]).toMatchObject({ startOffset: 0, archived: 0 });
  });
});

describe("acknowledgements the lease cannot make", () => {
  it("are refused per partition with INVALID_RECORD_STATE and change nothing", async () => {
    const topic = uniqueTopic("share-invalid");
    await createTopic(topic, { partitions: 2 });
    await produce(topic, [{ value: "a", partition: 0 }, { value: "b", partition: 0 }, { value: "c", partition: 1 }]);
    const group = uniqueShareGroup("invalid");
    expect((await setConfigs(group, { "auto.offset.reset": "earliest" })).status).toBe(200);
    const mine = await shareFetch(group, { topics: [topic], maxRecords: 3 });
    expect(mine.records).toHaveLength(3);
    const before = await describeShareGroup(group);
    const refusals = [
      { lease: "0".repeat(32), acknowledgements: acksOf(mine.records, "accept") }, // unknown lease
      { lease: mine.lease, acknowledgements: [{ topic, partition: 0, offsets: [0, 7], type: "accept" as const }] }, // 7 never acquired
      { lease: mine.lease, acknowledgements: [{ topic, partition: 0, offsets: [0], type: "accept" as const }, { topic, partition: 0, offsets: [0], type: "reject" as const }] },
    ];
    for (const { lease, acknowledgements } of refusals) {
      const results = await acknowledge(group, lease, acknowledgements);
      expect(results.find((result) => result.partition === 0)?.error?.code).toBe("INVALID_RECORD_STATE");
    }
    expect(await describeShareGroup(group)).toEqual(before);
    // One partition refused, the other applied: all or none per partition.
    const mixed = await acknowledge(group, mine.lease, [
      { topic, partition: 0, offsets: [0, 9], type: "accept" },
      { topic, partition: 1, offsets: [0], type: "accept" },
    ]);
    expect(mixed).toEqual([{ topic, partition: 0, error: expect.objectContaining({ code: "INVALID_RECORD_STATE" }) }, { topic, partition: 1 }]);
    const after = await describeShareGroup(group);
    expect(after.partitions.map(({ partition, startOffset, acquired }) => ({ partition, startOffset, acquired }))).toEqual([
      { partition: 0, startOffset: 0, acquired: 2 },
      { partition: 1, startOffset: 1, acquired: 0 },
    ]);
  });

  it("refuses an acknowledgement for a share group or partition never fetched, creating nothing", async () => {
    const topic = uniqueTopic("share-never");
    await createTopic(topic, { partitions: 1 });
    const group = uniqueShareGroup("never");
    const results = await acknowledge(group, "f".repeat(32), [{ topic, partition: 0, offsets: [0], type: "accept" }]);
    expect(results[0]?.error?.code).toBe("INVALID_RECORD_STATE");
    expectError(await api("GET", `/v1/share-groups/${group}`), 404, "GROUP_ID_NOT_FOUND");
  });
});
