/**
 * A topic's lifetime across its objects (API.md, Topics): delete and recreate, requests
 * routed with stale metadata after a delete, durability across object eviction and restart,
 * and partition increase.
 */
import { abortAllDurableObjects, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controllerStub, replicaName } from "../../../src/contracts/stubs.ts";
import { partitionForKey } from "../../../src/protocol/partitioner.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { defaultPartitionConfig } from "../../../src/contracts/partition-config.ts";
import { rememberTopic } from "../../../src/data-plane/metadata-cache.ts";
import {
  api,
  createTopic,
  describeTopic,
  expectError,
  fetchOk,
  fetchRecords,
  highWatermarks,
  produce,
  readAll,
  uniqueTopic,
  type FetchedRecord,
  type Topic,
} from "../support/http.ts";

const utf8 = new TextEncoder();

/** The partition object as a router holding `topic`'s metadata would address it. */
function partitionObject(topic: Topic, partition: number) {
  const region = topic.partitions[partition]!.leader;
  return env.PARTITIONS.get(env.PARTITIONS.idFromName(replicaName(topic.topicId, partition, region)));
}

function oneBatch(value: string): Uint8Array {
  return encodeRecordBatch([{ key: null, value: utf8.encode(value), headers: [], timestamp: Date.now() }]);
}

async function readEverything(topic: string, partitions: number): Promise<FetchedRecord[][]> {
  const all: FetchedRecord[][] = [];
  for (let partition = 0; partition < partitions; partition++) all.push(await readAll(topic, partition));
  return all;
}

describe("delete and recreate", () => {
  it("gives the recreated topic a new topicId, starting empty at offset 0 without the old records", async () => {
    const name = uniqueTopic("recreate");
    const old = await createTopic(name, { partitions: 2 });
    await produce(name, [{ value: "old-0", partition: 0 }, { value: "old-1", partition: 0 }, { value: "old-2", partition: 1 }]);
    expect((await api("DELETE", `/v1/topics/${name}`)).status).toBe(204);
    const fresh = await createTopic(name, { partitions: 2 });
    expect(fresh.topicId).not.toBe(old.topicId);
    expect(fresh.partitions.map((partition) => [partition.logStartOffset, partition.highWatermark])).toEqual([[0, 0], [0, 0]]);
    expect(await fetchOk(name, 0, { offset: 0 })).toEqual({ records: [], nextOffset: 0, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0 });
    expectError(await fetchRecords(name, 0, { offset: 1 }), 416, "OFFSET_OUT_OF_RANGE");
    const [first] = await produce(name, [{ value: "new", partition: 0 }]);
    expect(first).toMatchObject({ partition: 0, offset: 0 });
    expect((await readAll(name, 0)).map((record) => [record.offset, record.value])).toEqual([[0, "new"]]);
    expect(await highWatermarks(name)).toEqual([1, 0]);
  });

  it("deletes the old partitions' data for good, not just hides it", async () => {
    const name = uniqueTopic("gone");
    const old = await createTopic(name);
    await produce(name, [{ value: "secret" }]);
    expect((await api("DELETE", `/v1/topics/${name}`)).status).toBe(204);
    const rows = await runInDurableObject(partitionObject(old, 0), (_instance, state) =>
      state.storage.sql.exec<{ count: number }>("SELECT count(*) AS count FROM batches").one().count,
    );
    expect(rows).toBe(0);
  });
});

describe("requests routed with stale metadata after a delete", () => {
  it("are refused by the old partition object with UNKNOWN_TOPIC_OR_PARTITION, writing nothing", async () => {
    const name = uniqueTopic("stale-object");
    const old = await createTopic(name);
    await produce(name, [{ value: "before" }]);
    expect((await api("DELETE", `/v1/topics/${name}`)).status).toBe(204);
    const stale = partitionObject(old, 0);
    const leader = old.partitions[0]!.leader;
    const address = { topicId: old.topicId, partition: 0, region: leader };
    const routed = {
      ...address,
      placement: { leader, replicas: [leader], isr: [leader], leaderEpoch: 0, partitionEpoch: 0 },
      config: defaultPartitionConfig,
    };
    const appended = await stale.append({ ...routed, acks: 1, batches: [oneBatch("after delete")] });
    expect(appended).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } });
    const read = await stale.read({ ...routed, offset: 0, maxRecords: 10, maxBytes: 1024, waitMs: 0 });
    expect(read).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } });
    const state = await stale.state(address);
    expect(state).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } });
    // Still refused after the object restarts: the tombstone is stored, not held in memory.
    await evictDurableObject(stale);
    const again = await partitionObject(old, 0).append({ ...routed, acks: 1, batches: [oneBatch("after restart")] });
    expect(again).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } });
    const rows = await runInDurableObject(partitionObject(old, 0), (_instance, storage) =>
      storage.storage.sql.exec<{ count: number }>("SELECT count(*) AS count FROM batches").one().count,
    );
    expect(rows).toBe(0);
  });

  it("answer a produce and a fetch through a router with cached metadata with 404, writing nothing", async () => {
    const name = uniqueTopic("stale-router");
    const old = await createTopic(name);
    await produce(name, [{ value: "before" }]);
    expect((await api("DELETE", `/v1/topics/${name}`)).status).toBe(204);
    // The router in this isolate still believes the topic exists (as another isolate's cache would).
    expect(unwrapOk(await controllerStub(env).describeTopic(name))).toBeUndefined();
    await expectRouterUsesInjectedMetadata();
    rememberTopic({ name, topicId: old.topicId, replicationFactor: 1, configs: {}, partitions: old.partitions.map((p) => ({ ...p, leaderEpoch: 0, partitionEpoch: 0 })) });
    expectError(await api("POST", `/v1/topics/${name}/records`, { records: [{ value: "stale" }] }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    rememberTopic({ name, topicId: old.topicId, replicationFactor: 1, configs: {}, partitions: old.partitions.map((p) => ({ ...p, leaderEpoch: 0, partitionEpoch: 0 })) });
    expectError(await fetchRecords(name, 0, { offset: 0 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    const rows = await runInDurableObject(partitionObject(old, 0), (_instance, state) =>
      state.storage.sql.exec<{ count: number }>("SELECT count(*) AS count FROM batches").one().count,
    );
    expect(rows).toBe(0);
  });

  it("send a produce after delete and recreate to the new topic, never the old objects", async () => {
    const name = uniqueTopic("stale-recreated");
    const old = await createTopic(name);
    await produce(name, [{ value: "before" }]);
    expect((await api("DELETE", `/v1/topics/${name}`)).status).toBe(204);
    const fresh = await createTopic(name);
    rememberTopic({ name, topicId: old.topicId, replicationFactor: 1, configs: {}, partitions: old.partitions.map((p) => ({ ...p, leaderEpoch: 0, partitionEpoch: 0 })) });
    const offsets = await produce(name, [{ value: "after" }]);
    expect(offsets.map(({ partition, offset }) => [partition, offset])).toEqual([[0, 0]]);
    expect((await describeTopic(name)).topicId).toBe(fresh.topicId);
    expect((await readAll(name, 0)).map((record) => record.value)).toEqual(["after"]);
  });

  it("send a produce to a partition added since the router cached metadata, after one refresh", async () => {
    const name = uniqueTopic("stale-grown");
    const before = await createTopic(name);
    expect((await api("POST", `/v1/topics/${name}/partitions`, { count: 3 })).status).toBe(200);
    // This isolate's cache still holds the one-partition topic, as another isolate's would.
    rememberTopic({ name, topicId: before.topicId, replicationFactor: 1, configs: {}, partitions: before.partitions.map((p) => ({ ...p, leaderEpoch: 0, partitionEpoch: 0 })) });
    const offsets = await produce(name, [{ value: "to the new partition", partition: 2 }]);
    expect(offsets.map(({ partition, offset }) => [partition, offset])).toEqual([[2, 0]]);
  });
});

/**
 * Proves that rememberTopic here feeds the router that `api` calls (the main module runs in
 * this isolate): a topic the controller has never heard of becomes readable once injected.
 */
async function expectRouterUsesInjectedMetadata() {
  const name = uniqueTopic("injected-probe");
  expectError(await fetchRecords(name, 0, { offset: 0 }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  const partitions = [{ partition: 0, leader: "weur", replicas: ["weur"], isr: ["weur"], leaderEpoch: 0, partitionEpoch: 0 }];
  rememberTopic({ name, topicId: crypto.randomUUID(), replicationFactor: 1, configs: {}, partitions });
  expect((await fetchRecords(name, 0, { offset: 0 })).status).toBe(200);
}

function unwrapOk<T>(result: { ok: true; value: T } | { ok: false }): T | undefined {
  return result.ok ? result.value : undefined;
}

describe("delete with a fetch waiting", () => {
  it("answers the waiting fetch with 404 at once instead of after waitMs", async () => {
    const name = uniqueTopic("delete-waiting");
    await createTopic(name);
    await produce(name, [{ value: "a" }]);
    const started = Date.now();
    const waiting = fetchRecords(name, 0, { offset: 1, waitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await api("DELETE", `/v1/topics/${name}`)).status).toBe(204);
    expectError(await waiting, 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("durability", () => {
  async function producedTopic(prefix: string) {
    const name = uniqueTopic(prefix);
    const topic = await createTopic(name, { partitions: 3 });
    for (let request = 0; request < 4; request++) {
      await produce(
        name,
        Array.from({ length: 6 }, (_, index) => ({
          key: `key-${request}-${index}`,
          value: `value-${request}-${index}`,
          headers: { request: String(request) },
          timestamp: 1764673200000 + request * 10 + index,
        })),
      );
    }
    const before = await readEverything(name, 3);
    expect(before.flat()).toHaveLength(24);
    return { name, topic, before };
  }

  it("keeps every record, identical, after its partition objects and the controller are evicted", async () => {
    const { name, topic, before } = await producedTopic("evict");
    for (let partition = 0; partition < 3; partition++) await evictDurableObject(partitionObject(topic, partition));
    await evictDurableObject(controllerStub(env));
    expect(await readEverything(name, 3)).toEqual(before);
    expect(await highWatermarks(name)).toEqual(before.map((records) => records.length));
    expect(await describeTopic(name)).toMatchObject({ topicId: topic.topicId });
    const [next] = await produce(name, [{ value: "after", partition: 1 }]);
    expect(next!.offset).toBe(before[1]!.length);
  });

  it("keeps every record, identical, after every object is aborted", async () => {
    const { name, topic, before } = await producedTopic("abort");
    await abortAllDurableObjects();
    expect(await readEverything(name, 3)).toEqual(before);
    expect((await describeTopic(name)).topicId).toBe(topic.topicId);
    const [next] = await produce(name, [{ value: "after", partition: 2 }]);
    expect(next!.offset).toBe(before[2]!.length);
  });
});

describe("partition increase", () => {
  it("keeps existing records where they are; keys map over the new count from then on", async () => {
    const name = uniqueTopic("increase");
    await createTopic(name, { partitions: 2 });
    const keys = Array.from({ length: 30 }, (_, index) => `k${index}`);
    const first = await produce(name, keys.map((key) => ({ key, value: "before" })));
    expect(first.map((entry) => entry.partition)).toEqual(keys.map((key) => partitionForKey(utf8.encode(key), 2)));
    const before = await readEverything(name, 2);
    const grown = await api("POST", `/v1/topics/${name}/partitions`, { count: 5 });
    expect(grown.status).toBe(200);
    expect(grown.body.partitions.map((partition: { highWatermark: number }) => partition.highWatermark)).toEqual([
      before[0]!.length, before[1]!.length, 0, 0, 0,
    ]);
    expect(await readEverything(name, 2)).toEqual(before);
    for (const partition of [2, 3, 4]) {
      expect(await fetchOk(name, partition, { offset: 0 })).toEqual({ records: [], nextOffset: 0, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0 });
    }
    const second = await produce(name, keys.map((key) => ({ key, value: "after" })));
    const expected = keys.map((key) => partitionForKey(utf8.encode(key), 5));
    expect(second.map((entry) => entry.partition)).toEqual(expected);
    expect(expected.some((partition) => partition >= 2)).toBe(true);
    const after = await readEverything(name, 5);
    expect(after[0]!.slice(0, before[0]!.length)).toEqual(before[0]);
    expect(after[1]!.slice(0, before[1]!.length)).toEqual(before[1]);
    expect(after.flat().filter((record) => record.value === "after")).toHaveLength(30);
  });
});
