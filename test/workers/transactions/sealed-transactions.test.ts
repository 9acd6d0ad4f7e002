/**
 * Transactions across R2 tiering (issue 28; docs/transactions.md, Tiering): segments are sealed
 * only below the last stable offset, and a read_committed read of sealed segments still skips
 * an aborted transaction's records (the leader's aborted index outlives the held batches);
 * compaction drops an aborted transaction's records instead of letting them supersede the
 * committed ones before them, and a marker (COMMIT or ABORT) once its transaction's records are
 * gone and delete.retention.ms has passed; a read then leaves out the aborted entry whose marker
 * went, so a Kafka client (test/shared/kafka-read-committed.ts) still reads the producer's later
 * transactions.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isControlBatch } from "../../../src/protocol/control-batch.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { splitBatches } from "../../../src/protocol/record-batch.ts";
import { parseAbortedTransactions } from "../../../src/protocol/aborted-transactions.ts";
import { fetchHeaders } from "../../../src/protocol/content-types.ts";
import { kafkaReadCommittedOffsets } from "../../shared/kafka-read-committed.ts";
import { eventually } from "../storage/support.ts";
import { api, baseUrl, createTopic, describeTopic, uniqueTopic } from "../support/http.ts";

interface Producer {
  producerId: number;
  producerEpoch: number;
  transactionalId: string;
}

async function produceTransactional(topic: string, producer: Producer, sequence: number, values: string[], key?: string) {
  const { producerId, producerEpoch, transactionalId } = producer;
  const records = values.map((value) => ({ value, partition: 0, ...(key === undefined ? {} : { key }) }));
  const response = await api("POST", `/v1/topics/${topic}/records`, { records, producerId, producerEpoch, sequences: { "0": sequence }, transactionalId });
  expect(response.status, response.text).toBe(200);
}

/** A transactional producer from its coordinator (a new id unless told), its transaction holding the topic's partition 0 (the router checks it at produce). */
async function newProducer(topic: string, transactionalId = `tx-tier-${crypto.randomUUID().slice(0, 8)}`): Promise<Producer> {
  const identity = (await api("POST", `/v1/transactions/${transactionalId}/init`)).body;
  const added = await api("POST", `/v1/transactions/${transactionalId}/partitions`, { ...identity, partitions: [{ topic, partition: 0 }] });
  expect(added.status, added.text).toBe(200);
  return { ...identity, transactionalId };
}

/** The transaction's end through its coordinator, which writes the markers. */
async function end(_topic: string, producer: Producer, result: "commit" | "abort") {
  const { producerId, producerEpoch, transactionalId } = producer;
  const response = await api("POST", `/v1/transactions/${transactionalId}/end`, { producerId, producerEpoch, commit: result === "commit" });
  expect(response.status, response.text).toBe(200);
}

async function read(topic: string, isolation: string): Promise<string[]> {
  const response = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&isolation=${isolation}`);
  expect(response.status, response.text).toBe(200);
  return response.body.records.map((record: { value: string }) => record.value);
}

/** Runs the leader's cleaner (a config change does, segment.ms is 1) until `done`. */
async function clean(topic: string, done: (partition: Awaited<ReturnType<typeof describeTopic>>["partitions"][0]) => boolean) {
  await eventually(async () => {
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "segment.ms": "1" } })).status).toBe(200);
    return done((await describeTopic(topic)).partitions[0]!);
  });
}

describe("transactions and sealed segments", () => {
  it("skips an aborted transaction's records in sealed segments, and never seals an open transaction", async () => {
    const topic = uniqueTopic("txn-sealed");
    await createTopic(topic, { configs: { "segment.bytes": "65536", "segment.ms": "1" } });
    const aborted = await newProducer(topic);
    const committed = await newProducer(topic);
    await produceTransactional(topic, aborted, 0, ["a1", "a2"]);
    await produceTransactional(topic, committed, 0, ["c1"]);
    await end(topic, aborted, "abort");
    await end(topic, committed, "commit");
    const open = await newProducer(topic);
    await produceTransactional(topic, open, 0, ["o1"]);
    await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "plain", partition: 0 }] });
    await clean(topic, (partition) => partition.storage.r2Segments >= 1);
    const partition = (await describeTopic(topic)).partitions[0]!;
    expect([partition.lastStableOffset, partition.highWatermark]).toEqual([5, 7]);
    expect(partition.storage.sqliteBatches).toBe(2); // the open transaction's batch and what follows stay held
    // The sealed segment ends below the high watermark: the router reads it from R2.
    expect(await read(topic, "read_uncommitted")).toEqual(["a1", "a2", "c1"]);
    expect(await read(topic, "read_committed")).toEqual(["c1"]);
  });

  it("compaction drops an aborted transaction's records: they never supersede the committed value of their key", async () => {
    const topic = uniqueTopic("txn-compact");
    await createTopic(topic, { configs: { "cleanup.policy": "compact", "segment.bytes": "65536", "segment.ms": "1" } });
    expect((await api("POST", `/v1/topics/${topic}/records`, { records: [{ key: "k", value: "committed", partition: 0 }] })).status).toBe(200);
    const aborted = await newProducer(topic);
    await produceTransactional(topic, aborted, 0, ["aborted-1", "aborted-2"], "k");
    await end(topic, aborted, "abort");
    expect((await api("POST", `/v1/topics/${topic}/records`, { records: [{ key: "other", value: "o", partition: 0 }] })).status).toBe(200);
    await clean(topic, (partition) => partition.storage.r2Segments >= 1 && partition.storage.sqliteBatches === 0);
    // A config change runs the cleaner over the sealed segments.
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "delete.retention.ms": "60000" } })).status).toBe(200);
    expect(await read(topic, "read_committed")).toEqual(["committed", "o"]);
    expect(await read(topic, "read_uncommitted")).toEqual(["committed", "o"]); // the aborted records are gone from the log
  });

  it("compaction removes a COMMIT marker once its transaction's records are superseded and delete.retention.ms has passed", async () => {
    const topic = uniqueTopic("txn-compact-marker");
    await createTopic(topic, { configs: { "cleanup.policy": "compact", "delete.retention.ms": "0", "segment.bytes": "65536", "segment.ms": "1" } });
    const committed = await newProducer(topic);
    await produceTransactional(topic, committed, 0, ["in-transaction"], "k");
    await end(topic, committed, "commit");
    for (const [key, value] of [["k", "later"], ["other", "o"]]) {
      expect((await api("POST", `/v1/topics/${topic}/records`, { records: [{ key, value, partition: 0 }] })).status).toBe(200);
    }
    expect(await controlOffsetsOf(topic)).toEqual([1]);
    // "in-transaction" is superseded, then its marker goes.
    await compactUntilMarkersLeft(topic, 0);
    expect(await read(topic, "read_committed")).toEqual(["later", "o"]);
  });

  it("compaction removes an ABORT marker with its records; a Kafka client then still reads the producer's next transaction", async () => {
    const topic = uniqueTopic("txn-compact-abort");
    await createTopic(topic, { configs: { "cleanup.policy": "compact", "delete.retention.ms": "0", "segment.bytes": "65536", "segment.ms": "1" } });
    const first = await newProducer(topic);
    await produceTransactional(topic, first, 0, ["aborted"], "k");
    await end(topic, first, "abort");
    // The same transactional id again: the same producer id, whose next transaction commits.
    const second = await newProducer(topic, first.transactionalId);
    expect(second.producerId).toBe(first.producerId);
    await produceTransactional(topic, second, 0, ["committed"], "j");
    await end(topic, second, "commit");
    expect((await api("POST", `/v1/topics/${topic}/records`, { records: [{ key: "other", value: "o", partition: 0 }] })).status).toBe(200);
    expect(await controlOffsetsOf(topic)).toEqual([1, 3]);
    await compactUntilMarkersLeft(topic, 1);
    expect(await controlOffsetsOf(topic)).toEqual([3]); // the ABORT marker went; the COMMIT marker's record "j" is left
    expect(await read(topic, "read_committed")).toEqual(["committed", "o"]);
    // The binary read_committed answer, read by Kafka's rule (as the gateway's clients read it).
    const response = await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=0&isolation=read_committed`, { headers: { accept: recordBatchContentType } }));
    expect(response.status).toBe(200);
    const aborted = parseAbortedTransactions(response.headers.get(fetchHeaders.abortedTransactions) ?? "[]")!;
    expect(kafkaReadCommittedOffsets(new Uint8Array(await response.arrayBuffer()), aborted)).toEqual([2, 4]);
  });
});

/** Every control batch's offset as stored (read_uncommitted, from offset 0): the sealed segments in R2 once sealed. */
async function controlOffsetsOf(topic: string): Promise<number[]> {
  const response = await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=0&isolation=read_uncommitted`, { headers: { accept: recordBatchContentType } }));
  expect(response.status).toBe(200);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return [...splitBatches(bytes)].filter(({ header }) => isControlBatch(header.attributes)).map(({ header }) => header.baseOffset);
}

/** Seals every batch, then runs the cleaner over the sealed segments (config changes do) until `count` markers are left. */
async function compactUntilMarkersLeft(topic: string, count: number): Promise<void> {
  await clean(topic, (partition) => partition.storage.r2Segments >= 1 && partition.storage.sqliteBatches === 0);
  await eventually(async () => {
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "delete.retention.ms": "0" } })).status).toBe(200);
    return (await controlOffsetsOf(topic)).length === count;
  });
}
