/**
 * The partition side of transactions (issue 28; docs/transactions.md): transactional produce
 * (JSON and binary), markers written through the data plane and replicated, the last stable
 * offset, read_committed against read_uncommitted on the JSON and binary fetch, the epoch fence,
 * a leader restart, and a marker's retry.
 */
import { env, exports } from "cloudflare:workers";
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { writeTransactionMarkers } from "../../../src/data-plane/transaction-markers.ts";
import { decodeControlBatch, encodeControlBatch } from "../../../src/protocol/control-batch.ts";
import { fetchHeaders, recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch, splitBatches } from "../../../src/protocol/record-batch.ts";
import { join, poll, uniqueGroup } from "../groups/support/groups.ts";
import { api, baseUrl, createTopic, describeTopic, expectError, readResponse, uniqueTopic } from "../support/http.ts";

const utf8 = new TextEncoder();

interface Producer {
  producerId: number;
  producerEpoch: number;
  transactionalId: string;
}

let transactionalIds = 0;

/** A transactional producer from its coordinator, its transaction holding the topic's partition 0 (the router checks it at produce). */
async function newProducer(topic: string): Promise<Producer> {
  const transactionalId = `tx-app-${++transactionalIds}-${crypto.randomUUID().slice(0, 8)}`;
  const response = await api("POST", `/v1/transactions/${transactionalId}/init`);
  expect(response.status, response.text).toBe(200);
  const producer = { ...response.body, transactionalId };
  await addPartition(topic, producer);
  return producer;
}

async function addPartition(topic: string, producer: Producer): Promise<void> {
  const { transactionalId, ...identity } = producer;
  const added = await api("POST", `/v1/transactions/${transactionalId}/partitions`, { ...identity, partitions: [{ topic, partition: 0 }] });
  expect(added.status, added.text).toBe(200);
}

/** A transactional producer's JSON produce to partition 0. */
function produceTransactional(topic: string, producer: Producer, sequence: number, values: string[]) {
  return api("POST", `/v1/topics/${topic}/records`, {
    records: values.map((value) => ({ value, partition: 0 })),
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    sequences: { "0": sequence },
    transactionalId: producer.transactionalId,
  });
}

function values(topic: string, isolation?: string) {
  const query = `offset=0${isolation ? `&isolation=${isolation}` : ""}`;
  return api("GET", `/v1/topics/${topic}/partitions/0/records?${query}`).then((response) => {
    expect(response.status, response.text).toBe(200);
    return { ...response.body, values: response.body.records.map((record: { value: string }) => record.value) };
  });
}

async function fetchBinary(topic: string, isolation: string) {
  const response = await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=0&isolation=${isolation}`, { headers: { accept: recordBatchContentType } }));
  expect(response.status).toBe(200);
  return { headers: response.headers, batches: [...splitBatches(new Uint8Array(await response.arrayBuffer()))] };
}

/** The transaction's end through its coordinator, which writes the markers with the epoch + 1 (as a Result, for the assertions). */
async function endTransaction(_topic: string, producer: Producer, result: "commit" | "abort") {
  const { transactionalId, producerId, producerEpoch } = producer;
  const response = await api("POST", `/v1/transactions/${transactionalId}/end`, { producerId, producerEpoch, commit: result === "commit" });
  return response.status === 200 ? { ok: true as const, value: undefined } : { ok: false as const, error: response.body.error };
}

/** A marker written straight through the data plane, as the coordinator's retry (or a stale one) would. */
function writeMarker(topic: string, producer: { producerId: number; producerEpoch: number }, result: "commit" | "abort") {
  return writeTransactionMarkers(env, { producerId: producer.producerId, producerEpoch: producer.producerEpoch + 1, result, coordinatorEpoch: 0 }, [{ topic, partition: 0 }]);
}

describe("a partition's transactions", () => {
  it("holds the LSO at an open transaction, moves it with the commit marker, which reaches every replica", async () => {
    const topic = uniqueTopic("txn-commit");
    const created = await createTopic(topic, { replicationFactor: 3 });
    await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "before", partition: 0 }] });
    const producer = await newProducer(topic);
    expect((await produceTransactional(topic, producer, 0, ["t1", "t2"])).status).toBe(200);
    const open = (await describeTopic(topic)).partitions[0]!;
    expect([open.highWatermark, open.lastStableOffset]).toEqual([3, 1]);
    expect((await values(topic)).values).toEqual(["before"]);
    expect((await values(topic, "read_committed")).lastStableOffset).toBe(1);
    expect((await values(topic, "read_uncommitted")).values).toEqual(["before", "t1", "t2"]);
    const replicaStates = async () =>
      Promise.all(created.partitions[0]!.replicas.map(async (region) => unwrap(await replicaStub(env, created.topicId, 0, region).state({ topicId: created.topicId, partition: 0, region }))));
    await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "mid", partition: 0 }] }); // carries the high watermark past t2 to the followers
    for (const state of await replicaStates()) expect([state.highWatermark >= 3, state.lastStableOffset]).toEqual([true, 1]); // followers learned the open transaction

    expect(await endTransaction(topic, producer, "commit")).toEqual({ ok: true, value: undefined });
    const closed = (await describeTopic(topic)).partitions[0]!;
    expect([closed.highWatermark, closed.lastStableOffset]).toEqual([5, 5]);
    const read = await values(topic);
    expect(read.values).toEqual(["before", "t1", "t2", "mid"]); // the marker is never a record
    expect(read.nextOffset).toBe(5);
    // One more write carries the high watermark past the marker to the followers.
    await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "after", partition: 0 }] });
    for (const state of await replicaStates()) {
      expect(state.logEndOffset).toBe(6); // acks=all: every in-sync replica holds the marker
      expect([state.highWatermark >= 5, state.lastStableOffset]).toEqual([true, state.highWatermark]); // and learned from it that no transaction is open
    }
  });

  it("skips an aborted transaction's records for read_committed readers, JSON and binary", async () => {
    const topic = uniqueTopic("txn-abort");
    await createTopic(topic);
    const aborted = await newProducer(topic);
    const committed = await newProducer(topic);
    await produceTransactional(topic, aborted, 0, ["a1"]);
    await produceTransactional(topic, committed, 0, ["c1"]);
    await produceTransactional(topic, aborted, 1, ["a2"]);
    expect((await endTransaction(topic, aborted, "abort")).ok).toBe(true);
    expect((await endTransaction(topic, committed, "commit")).ok).toBe(true);
    expect((await values(topic, "read_committed")).values).toEqual(["c1"]);
    expect((await values(topic, "read_uncommitted")).values).toEqual(["a1", "c1", "a2"]);

    const binary = await fetchBinary(topic, "read_committed");
    expect(binary.batches).toHaveLength(5); // handed on as stored, both markers too
    expect(binary.headers.get(fetchHeaders.lastStableOffset)).toBe("5");
    expect(JSON.parse(binary.headers.get(fetchHeaders.abortedTransactions)!)).toEqual([{ producerId: aborted.producerId, firstOffset: 0, lastOffset: 3 }]);
    expect(binary.headers.get(fetchHeaders.nextOffset)).toBe("5");
    const uncommitted = await fetchBinary(topic, "read_uncommitted");
    expect(uncommitted.headers.get(fetchHeaders.abortedTransactions)).toBeNull();
  });

  it("stops a binary read_committed fetch at the LSO", async () => {
    const topic = uniqueTopic("txn-binary-lso");
    await createTopic(topic);
    const producer = await newProducer(topic);
    await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "plain", partition: 0 }] });
    await produceTransactional(topic, producer, 0, ["open"]);
    const committed = await fetchBinary(topic, "read_committed");
    expect([committed.batches.length, committed.headers.get(fetchHeaders.nextOffset), committed.headers.get(fetchHeaders.lastStableOffset)]).toEqual([1, "1", "1"]);
    expect((await fetchBinary(topic, "read_uncommitted")).batches).toHaveLength(2);
  });

  it("polls a group read_committed by default, read_uncommitted when asked", async () => {
    const topic = uniqueTopic("txn-poll");
    await createTopic(topic);
    const producer = await newProducer(topic);
    await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "plain", partition: 0 }] });
    await produceTransactional(topic, producer, 0, ["open"]);
    const committedGroup = uniqueGroup("txn-rc");
    const reader = await join(committedGroup, [topic], { autoOffsetReset: "earliest" });
    const committed = await poll(committedGroup, reader.memberId, { memberEpoch: reader.memberEpoch });
    expect(committed.records.map((record) => record.value)).toEqual(["plain"]);
    expect(committed.positions).toEqual([{ topic, partition: 0, offset: 1 }]);
    const uncommittedGroup = uniqueGroup("txn-ru");
    const other = await join(uncommittedGroup, [topic], { autoOffsetReset: "earliest" });
    const uncommitted = await poll(uncommittedGroup, other.memberId, { memberEpoch: other.memberEpoch, isolation: "read_uncommitted" });
    expect(uncommitted.records.map((record) => record.value)).toEqual(["plain", "open"]);
  });

  it("refuses a write of the ended transaction's epoch (the late write), takes the bumped one", async () => {
    const topic = uniqueTopic("txn-fence");
    await createTopic(topic);
    const producer = await newProducer(topic);
    await produceTransactional(topic, producer, 0, ["x"]);
    expect((await endTransaction(topic, producer, "commit")).ok).toBe(true);
    expectError(await produceTransactional(topic, producer, 1, ["late"]), 409, "INVALID_PRODUCER_EPOCH");
    const bumped = { ...producer, producerEpoch: producer.producerEpoch + 1 };
    await addPartition(topic, bumped); // the next transaction
    expect((await produceTransactional(topic, bumped, 0, ["next"])).status).toBe(200);
    const stale = await writeMarker(topic, { ...producer, producerEpoch: producer.producerEpoch - 1 }, "abort");
    expect(stale.ok ? undefined : stale.error.code).toBe("INVALID_PRODUCER_EPOCH");
  });

  it("keeps its transactions across a leader restart, and a marker's retry writes nothing", async () => {
    const topic = uniqueTopic("txn-restart");
    const created = await createTopic(topic);
    const producer = await newProducer(topic);
    await produceTransactional(topic, producer, 0, ["r1"]);
    const leader = replicaStub(env, created.topicId, 0, created.partitions[0]!.leader);
    await evictDurableObject(leader);
    expect((await describeTopic(topic)).partitions[0]!.lastStableOffset).toBe(0);
    expect(await endTransaction(topic, producer, "abort")).toEqual({ ok: true, value: undefined });
    await evictDurableObject(leader);
    expect(await writeMarker(topic, producer, "abort")).toEqual({ ok: true, value: undefined }); // the coordinator's retry
    const call = { topicId: created.topicId, partition: 0, region: created.partitions[0]!.leader };
    expect(unwrap(await leader.state(call)).logEndOffset).toBe(2);
    expect((await values(topic)).values).toEqual([]);
    expectError(await produceTransactional(topic, producer, 1, ["late"]), 409, "INVALID_PRODUCER_EPOCH");
  });

  it("takes transactional batches on the binary route with their transactionalId, and no client's control batch", async () => {
    const topic = uniqueTopic("txn-binary");
    await createTopic(topic);
    const producer = await newProducer(topic);
    const batch = () => encodeRecordBatch([{ key: null, value: utf8.encode("b"), headers: [], timestamp: Date.now() }], { ...producer, baseSequence: 0, transactional: true });
    const post = async (body: Uint8Array, query: string) =>
      readResponse(await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records${query}`, { method: "POST", headers: { "content-type": recordBatchContentType }, body })));
    expectError(await post(batch(), ""), 400, "INVALID_REQUEST");
    expectError(await post(encodeControlBatch({ ...producer, result: "commit", coordinatorEpoch: 0 }, 1), "?transactionalId=tx"), 400, "INVALID_RECORD");
    const written = await post(batch(), `?transactionalId=${producer.transactionalId}`);
    expect(written.status, written.text).toBe(200);
    expect((await describeTopic(topic)).partitions[0]!.lastStableOffset).toBe(0);
    expect((await endTransaction(topic, producer, "commit")).ok).toBe(true);
    const stored = await fetchBinary(topic, "read_committed");
    expect(decodeControlBatch(await rawBatch(topic, 1))).toEqual({ producerId: producer.producerId, producerEpoch: producer.producerEpoch + 1, result: "commit", coordinatorEpoch: 0 });
    expect(stored.batches).toHaveLength(2);
  });
});

/** The stored batch at `offset`, as the binary fetch hands it on. */
async function rawBatch(topic: string, offset: number): Promise<Uint8Array> {
  const response = await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=${offset}&isolation=read_uncommitted`, { headers: { accept: recordBatchContentType } }));
  return new Uint8Array(await response.arrayBuffer());
}
