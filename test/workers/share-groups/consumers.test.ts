/**
 * Share groups with several consumers (issue 15): four consumers work two partitions together;
 * one dies holding its locks and its records come back after the lock and are processed by
 * the others; the share-partition objects restart mid-run and lose nothing.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createTopic, produce, uniqueTopic } from "../support/http.ts";
import { acceptAll, describeShareGroup, setConfigs, shareFetch, sharePartitionObject, sleep, uniqueShareGroup, type ShareRecord } from "./support.ts";

const lockMs = 1_000;

async function groupOn(topic: string, prefix: string): Promise<string> {
  const group = uniqueShareGroup(prefix);
  const answer = await setConfigs(group, { "auto.offset.reset": "earliest", "record.lock.duration.ms": String(lockMs) });
  expect(answer.status, answer.text).toBe(200);
  return group;
}

/** A consumer that fetches and accepts until `done()`; every record it accepts is recorded. */
async function consume(group: string, topic: string, seen: ShareRecord[], done: () => boolean): Promise<void> {
  for (let round = 0; round < 200 && !done(); round++) {
    const answer = await shareFetch(group, { topics: [topic], maxRecords: 7, waitMs: 300 });
    await acceptAll(group, answer);
    seen.push(...answer.records);
  }
}

const key = (record: { partition: number; offset: number }) => `${record.partition}/${record.offset}`;

describe("share consumers together", () => {
  it("share two partitions among four consumers; a dead consumer's records come back after its lock and are processed", async () => {
    const topic = uniqueTopic("share-four");
    await createTopic(topic, { partitions: 2 });
    const total = 120;
    await produce(topic, Array.from({ length: total }, (_, index) => ({ value: `v${index}`, partition: index % 2 })));
    const group = await groupOn(topic, "four");

    // Four consumers start together; one dies after its first fetch, holding its records' locks.
    const seen: ShareRecord[] = [];
    const done = () => new Set(seen.map(key)).size >= total;
    const startedAt = Date.now(); // the doomed consumer's locks were taken after this
    const doomed = shareFetch(group, { topics: [topic], maxRecords: 10 });
    await Promise.all([doomed, ...[0, 1, 2].map(() => consume(group, topic, seen, done))]);
    const held = await doomed;
    expect(held.records.length).toBeGreaterThan(0);

    expect(new Set(seen.map(key)).size).toBe(total);
    // The doomed consumer's records came back only once its lock expired, delivered a second time.
    for (const record of held.records) {
      const again = seen.find((other) => key(other) === key(record))!;
      expect(again.deliveryCount).toBe(2);
    }
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(lockMs);
    // Both partitions were worked, and nothing is left in flight.
    expect(new Set(seen.map((record) => record.partition))).toEqual(new Set([0, 1]));
    const described = await describeShareGroup(group);
    expect(described.partitions.map(({ partition, startOffset, acquired, available }) => ({ partition, startOffset, acquired, available }))).toEqual([
      { partition: 0, startOffset: total / 2, acquired: 0, available: 0 },
      { partition: 1, startOffset: total / 2, acquired: 0, available: 0 },
    ]);
  });

  it("loses no acknowledgement and frees no lock early when the state objects restart mid-run", async () => {
    const topic = uniqueTopic("share-restart");
    await createTopic(topic, { partitions: 2 });
    const total = 80;
    await produce(topic, Array.from({ length: total }, (_, index) => ({ value: `v${index}`, partition: index % 2 })));
    const group = uniqueShareGroup("restart");
    expect((await setConfigs(group, { "auto.offset.reset": "earliest", "record.lock.duration.ms": "60000" })).status).toBe(200);

    const held = await shareFetch(group, { topics: [topic], maxRecords: 6 });
    expect(held.records.length).toBe(6);
    const accepted: ShareRecord[] = [];
    for (let round = 0; round < 100; round++) {
      for (const partition of [0, 1]) await evictDurableObject(await sharePartitionObject(group, topic, partition));
      const answer = await shareFetch(group, { topics: [topic], maxRecords: 9 });
      if (answer.records.length === 0) break;
      await acceptAll(group, answer);
      accepted.push(...answer.records);
    }
    // Every record but the held ones, each once: the held ones' 60 s locks survived every restart.
    const heldKeys = new Set(held.records.map(key));
    expect(accepted.map(key).sort()).toEqual(
      Array.from({ length: total }, (_, index) => key({ partition: index % 2, offset: Math.floor(index / 2) }))
        .filter((name) => !heldKeys.has(name))
        .sort(),
    );
    for (const partition of [0, 1]) await evictDurableObject(await sharePartitionObject(group, topic, partition));
    // The held lease can still acknowledge after the restarts: its locks were stored.
    await acceptAll(group, held);
    const described = await describeShareGroup(group);
    expect(described.partitions.map(({ startOffset, acquired }) => ({ startOffset, acquired }))).toEqual([
      { startOffset: total / 2, acquired: 0 },
      { startOffset: total / 2, acquired: 0 },
    ]);
  });

  it("wakes a waiting fetch when records arrive", async () => {
    const topic = uniqueTopic("share-wait");
    await createTopic(topic, { partitions: 1 });
    const group = await groupOn(topic, "wait");
    expect((await shareFetch(group, { topics: [topic] })).records).toEqual([]); // starts the share-partition
    const waiting = shareFetch(group, { topics: [topic], waitMs: 10_000 });
    await sleep(200);
    await produce(topic, [{ value: "late" }]);
    const answer = await waiting;
    expect(answer.records.map((record) => record.value)).toEqual(["late"]);
  });
});
