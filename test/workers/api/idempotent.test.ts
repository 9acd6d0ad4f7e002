/**
 * The idempotent producer (API.md, Produce; issue 6): `POST /v1/producers`, JSON and binary
 * produce with producer ids and sequences, every 409, a retry answered with its original
 * offsets and written once, state that survives an object restart, crash-after-write, and an
 * RF=3 failover that keeps deduplicating.
 */
import { env, exports } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { replicaName, replicaStub } from "../../../src/contracts/stubs.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch, splitBatches, type RecordInput } from "../../../src/protocol/record-batch.ts";
import {
  api,
  baseUrl,
  createTopic,
  describeTopic,
  expectError,
  highWatermarks,
  readAll,
  readResponse,
  uniqueTopic,
  type ProduceRecordBody,
  concat,
  type Topic,
} from "../support/http.ts";

const utf8 = new TextEncoder();

interface Producer {
  producerId: number;
  producerEpoch: number;
}

async function newProducer(): Promise<Producer> {
  const response = await api("POST", "/v1/producers");
  expect(response.status, response.text).toBe(201);
  return response.body as Producer;
}

/** An idempotent JSON produce: `sequences` maps partition → first sequence. */
function produceIdempotent(topic: string, producer: Producer, records: ProduceRecordBody[], sequences: Record<string, number>, extra: Record<string, unknown> = {}) {
  return api("POST", `/v1/topics/${topic}/records`, { records, acks: "all", ...producer, sequences, ...extra });
}

function values(partition: number, ...texts: string[]): ProduceRecordBody[] {
  return texts.map((value) => ({ value, partition }));
}

function batch(texts: string[], producer: Producer | undefined, baseSequence: number, timestamp = Date.now()): Uint8Array {
  const records: RecordInput[] = texts.map((text, index) => ({ key: null, value: utf8.encode(text), headers: [], timestamp: timestamp + index }));
  return encodeRecordBatch(records, producer ? { ...producer, baseSequence } : {});
}

async function produceBinary(topic: string, partition: number, body: Uint8Array, acks = "all") {
  const response = await exports.default.fetch(
    new Request(`${baseUrl}/v1/topics/${topic}/partitions/${partition}/records?acks=${acks}`, {
      method: "POST",
      headers: { "content-type": recordBatchContentType },
      body,
    }),
  );
  return readResponse(response);
}

/** The stored batches' producer fields, as a binary fetch returns them. */
async function storedProducerFields(topic: string, partition: number) {
  const response = await exports.default.fetch(
    new Request(`${baseUrl}/v1/topics/${topic}/partitions/${partition}/records?offset=0&maxRecords=10000&maxBytes=8388608`, {
      headers: { accept: recordBatchContentType },
    }),
  );
  const bytes = new Uint8Array(await response.arrayBuffer());
  return [...splitBatches(bytes)].map(({ header }) => [header.producerId, header.producerEpoch, header.baseSequence, header.recordCount]);
}

function partitionObject(topic: Topic, partition: number, region = topic.partitions[partition]!.leader) {
  return env.PARTITIONS.get(env.PARTITIONS.idFromName(replicaName(topic.topicId, partition, region)));
}

describe("POST /v1/producers", () => {
  it("hands out a new producer id at epoch 0 each time, with or without a body", async () => {
    const first = await newProducer();
    const second = await api("POST", "/v1/producers", {});
    expect(second.status, second.text).toBe(201);
    expect(first.producerEpoch).toBe(0);
    expect(second.body.producerEpoch).toBe(0);
    expect(Number.isSafeInteger(first.producerId) && first.producerId >= 0).toBe(true);
    expect(second.body.producerId).toBeGreaterThan(first.producerId);
  });

  it("refuses a body that is not a JSON object", async () => {
    expectError(await api("POST", "/v1/producers", "[1]"), 400, "INVALID_REQUEST");
    expectError(await api("POST", "/v1/producers", "{nope"), 400, "INVALID_REQUEST");
  });
});

describe("idempotent JSON produce", () => {
  it("answers a retry with the original offsets and timestamps, and writes it once", async () => {
    const topic = uniqueTopic("idem-json");
    await createTopic(topic, { partitions: 2 });
    const producer = await newProducer();
    const records = [...values(0, "a", "b"), ...values(1, "x")];
    const first = await produceIdempotent(topic, producer, records, { 0: 0, 1: 0 });
    expect(first.status, first.text).toBe(200);
    expect(first.body.offsets.map((o: { partition: number; offset: number }) => [o.partition, o.offset])).toEqual([[0, 0], [0, 1], [1, 0]]);
    expect(await highWatermarks(topic)).toEqual([2, 1]);

    await new Promise((resolve) => setTimeout(resolve, 5)); // a retry stamps a later "now": the answer keeps the stored time
    const retry = await produceIdempotent(topic, producer, records, { 0: 0, 1: 0 });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await highWatermarks(topic)).toEqual([2, 1]);

    const next = await produceIdempotent(topic, producer, values(0, "c"), { 0: 2 });
    expect(next.body.offsets[0]).toMatchObject({ partition: 0, offset: 2 });
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["a", "b", "c"]);
    expect(await storedProducerFields(topic, 0)).toEqual([
      [producer.producerId, 0, 0, 2],
      [producer.producerId, 0, 2, 1],
    ]);
  });

  it("refuses an incomplete idempotent request with 400, writing nothing", async () => {
    const topic = uniqueTopic("idem-json-invalid");
    await createTopic(topic, { partitions: 2 });
    const producer = await newProducer();
    const records = values(0, "a");
    const refused = [
      { records, acks: "all", producerId: producer.producerId, sequences: { 0: 0 } }, // no epoch
      { records, acks: "all", producerId: producer.producerId, producerEpoch: 0 }, // no sequences
      { records, acks: 1, ...producer, sequences: { 0: 0 } }, // acks 1
      { records: [{ value: "a" }], acks: "all", ...producer, sequences: { 0: 0 } }, // no partition
      { records: [...records, ...values(1, "b")], acks: "all", ...producer, sequences: { 0: 0 } }, // partition 1 has no sequence
      { records, acks: "all", ...producer, sequences: { 0: 0, 1: 0 } }, // partition 1 has no record
      { records, acks: "all", ...producer, sequences: { "00": 0 } },
      { records, acks: "all", ...producer, sequences: { 0: -1 } },
      { records, acks: "all", ...producer, sequences: { 0: 2 ** 31 } },
      { records, acks: "all", ...producer, producerEpoch: 40_000, sequences: { 0: 0 } },
    ];
    for (const body of refused) expectError(await api("POST", `/v1/topics/${topic}/records`, body), 400, "INVALID_REQUEST");
    expect(await highWatermarks(topic)).toEqual([0, 0]);
  });

  it("refuses a gap, an older duplicate and a fenced epoch with 409 and what the producer needs", async () => {
    const topic = uniqueTopic("idem-json-409");
    await createTopic(topic, { partitions: 2 });
    const producer = await newProducer();
    // Six requests of two records on partition 0, each followed by another producer's record: six runs.
    for (let request = 0; request < 6; request++) {
      const sequence = request * 2;
      expect((await produceIdempotent(topic, producer, values(0, `r${request}a`, `r${request}b`), { 0: sequence })).status).toBe(200);
      expect((await api("POST", `/v1/topics/${topic}/records`, { records: values(0, "other") })).status).toBe(200);
    }
    expect(await highWatermarks(topic)).toEqual([18, 0]);

    const gap = expectError(await produceIdempotent(topic, producer, values(0, "late"), { 0: 13 }), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(gap).toMatchObject({ producerId: producer.producerId, producerEpoch: 0, expectedSequence: 12, partition: 0 });

    // The 5th-last request is still remembered; the 6th-last is an older duplicate.
    const remembered = await produceIdempotent(topic, producer, values(0, "r1a", "r1b"), { 0: 2 });
    expect(remembered.body.offsets.map((o: { offset: number }) => o.offset)).toEqual([3, 4]);
    const older = expectError(await produceIdempotent(topic, producer, values(0, "r0a", "r0b"), { 0: 0 }), 409, "DUPLICATE_SEQUENCE_NUMBER");
    expect(older).toMatchObject({ expectedSequence: 12, lastSequence: 11, partition: 0 });

    // A newer epoch starts at sequence 0; then the older epoch is fenced.
    const newer = { ...producer, producerEpoch: 1 };
    const notZero = expectError(await produceIdempotent(topic, newer, values(0, "e1"), { 0: 12 }), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(notZero).toMatchObject({ expectedSequence: 0 });
    expect((await produceIdempotent(topic, newer, values(0, "e1"), { 0: 0 })).status).toBe(200);
    const fenced = expectError(await produceIdempotent(topic, producer, values(0, "old"), { 0: 12 }), 409, "INVALID_PRODUCER_EPOCH");
    expect(fenced).toMatchObject({ producerId: producer.producerId, producerEpoch: 1, partition: 0 });
    expect(await highWatermarks(topic)).toEqual([19, 0]);
  });

  it("splits a large request into batches with consecutive sequences through the wrap, and answers its retry whole", async () => {
    const topic = uniqueTopic("idem-json-large");
    await createTopic(topic);
    const producer = await newProducer();
    const big = "v".repeat(200 * 1024);
    const records = Array.from({ length: 12 }, (_, index) => ({ value: `${index}${big}`, partition: 0 }));
    const start = 2 ** 31 - 5;
    const first = await produceIdempotent(topic, producer, records, { 0: start });
    expect(first.status, first.text).toBe(200);
    const fields = await storedProducerFields(topic, 0);
    expect(fields.length).toBeGreaterThan(1);
    let expected = start;
    for (const [producerId, epoch, sequence, count] of fields) {
      expect([producerId, epoch, sequence]).toEqual([producer.producerId, 0, expected]);
      expected = (expected + count!) % 2 ** 31;
    }
    expect(expected).toBe(7); // 12 records from 2^31 − 5 end at 6
    const retry = await produceIdempotent(topic, producer, records, { 0: start });
    expect(retry.body).toEqual(first.body);
    expect(await highWatermarks(topic)).toEqual([12]);
    expect((await produceIdempotent(topic, producer, values(0, "after"), { 0: 7 })).body.offsets[0].offset).toBe(12);
  });
});

describe("idempotent binary produce", () => {
  it("takes batches with a producer id, answers a retry with the original offsets, written once", async () => {
    const topic = uniqueTopic("idem-binary");
    await createTopic(topic, { partitions: 1 });
    const producer = await newProducer();
    const body = concat(batch(["a", "b"], producer, 0), batch(["c"], producer, 2));
    const first = await produceBinary(topic, 0, body);
    expect(first.body).toEqual({ partition: 0, baseOffset: 0, lastOffset: 2 });
    expect((await produceBinary(topic, 0, batch(["other"], undefined, -1))).status).toBe(200);
    const retry = await produceBinary(topic, 0, body);
    expect(retry.body).toEqual(first.body);
    expect(await highWatermarks(topic)).toEqual([4]);
    expect((await produceBinary(topic, 0, batch(["d"], producer, 3))).body).toEqual({ partition: 0, baseOffset: 4, lastOffset: 4 });
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["a", "b", "c", "other", "d"]);
  });

  it("refuses acks other than all, and batches of mixed producers or with a gap between them (400)", async () => {
    const topic = uniqueTopic("idem-binary-400");
    await createTopic(topic);
    const producer = await newProducer();
    expectError(await produceBinary(topic, 0, batch(["a"], producer, 0), "1"), 400, "INVALID_REQUEST");
    expectError(await produceBinary(topic, 0, concat(batch(["a"], producer, 0), batch(["b"], undefined, -1))), 400, "INVALID_REQUEST");
    expectError(await produceBinary(topic, 0, concat(batch(["a"], producer, 0), batch(["b"], producer, 5))), 400, "INVALID_REQUEST");
    expect(await highWatermarks(topic)).toEqual([0]);
  });

  it("answers every 409: gap, older duplicate, fenced epoch", async () => {
    const topic = uniqueTopic("idem-binary-409");
    await createTopic(topic);
    const producer = await newProducer();
    expect((await produceBinary(topic, 0, batch(["a", "b"], producer, 0))).status).toBe(200);
    expect((await produceBinary(topic, 0, batch(["c"], producer, 2))).status).toBe(200);
    expect(expectError(await produceBinary(topic, 0, batch(["z"], producer, 4)), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER")).toMatchObject({ expectedSequence: 3 });
    // Records inside what was written are answered with their offsets; a request only partly written before is refused,
    // as out of order: a Kafka client counts a DUPLICATE_SEQUENCE_NUMBER as written, and "new" was not.
    expect((await produceBinary(topic, 0, batch(["b", "c"], producer, 1))).body).toEqual({ partition: 0, baseOffset: 1, lastOffset: 2 });
    expect(expectError(await produceBinary(topic, 0, batch(["c", "new"], producer, 2)), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER")).toMatchObject({ expectedSequence: 3, lastSequence: 2 });
    expect((await produceBinary(topic, 0, batch(["e1"], { ...producer, producerEpoch: 3 }, 0))).status).toBe(200);
    expect(expectError(await produceBinary(topic, 0, batch(["d"], producer, 3)), 409, "INVALID_PRODUCER_EPOCH")).toMatchObject({ producerEpoch: 3 });
    expect(await highWatermarks(topic)).toEqual([4]);
  });
});

describe("two requests of one producer in flight at once (issue 34)", () => {
  it("the later one arriving first: the earlier is OUT_OF_ORDER_SEQUENCE_NUMBER (binary and JSON), never a duplicate, and nothing is written for it", async () => {
    const topic = uniqueTopic("idem-overtaken");
    await createTopic(topic);
    const binary = await newProducer();
    expect((await produceBinary(topic, 0, batch(["c", "d"], binary, 2))).status).toBe(200); // an unknown producer's first append: any sequence
    const refused = expectError(await produceBinary(topic, 0, batch(["a", "b"], binary, 0)), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(refused).toMatchObject({ producerId: binary.producerId, sequence: 0, firstSequence: 2, expectedSequence: 4 });
    const json = await newProducer();
    expect((await produceIdempotent(topic, json, values(0, "y"), { 0: 1 })).status).toBe(200);
    expectError(await produceIdempotent(topic, json, values(0, "x"), { 0: 0 }), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["c", "d", "y"]);
  });

  it("sent at the same time, in whatever order they land, every acknowledged record is in the log once", async () => {
    const topic = uniqueTopic("idem-concurrent");
    await createTopic(topic);
    const acknowledged: string[] = [];
    for (let round = 0; round < 12; round++) {
      const producer = await newProducer();
      const answers = await Promise.all([
        produceBinary(topic, 0, batch([`${round}-a`, `${round}-b`], producer, 0)),
        produceBinary(topic, 0, batch([`${round}-c`], producer, 2)),
      ]);
      answers.forEach((answer, index) => {
        if (answer.status === 200) acknowledged.push(...(index === 0 ? [`${round}-a`, `${round}-b`] : [`${round}-c`]));
        else expect(answer.body.error.code, JSON.stringify(answer.body)).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
      });
    }
    const written = (await readAll(topic, 0)).map((record) => record.value ?? "");
    expect(written.filter((value) => acknowledged.includes(value)).sort()).toEqual([...acknowledged].sort());
    expect(new Set(written).size).toBe(written.length);
  });
});

describe("producer state in the partition object", () => {
  it("survives the object's restart: a retry after eviction is still answered with the original offsets", async () => {
    const topic = uniqueTopic("idem-evict");
    const created = await createTopic(topic);
    const producer = await newProducer();
    const first = await produceIdempotent(topic, producer, values(0, "a", "b"), { 0: 0 });
    expect(first.status).toBe(200);
    await evictDurableObject(partitionObject(created, 0));
    const retry = await produceIdempotent(topic, producer, values(0, "a", "b"), { 0: 0 });
    expect(retry.body).toEqual(first.body);
    expect(await highWatermarks(topic)).toEqual([2]);
    expectError(await produceIdempotent(topic, producer, values(0, "c"), { 0: 5 }), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER");
  });

  it("after crash-after-write (the reply lost), the retry is answered with the original offsets and written once", async () => {
    const topic = uniqueTopic("idem-crash");
    const created = await createTopic(topic);
    const producer = await newProducer();
    const leader = created.partitions[0]!.leader;
    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: leader, fault: "crash-after-write" })).status).toBe(204);
    const body = batch(["once"], producer, 0);
    expectError(await produceBinary(topic, 0, body), 503, "LEADER_NOT_AVAILABLE");
    const retry = await produceBinary(topic, 0, body);
    expect(retry.body).toEqual({ partition: 0, baseOffset: 0, lastOffset: 0 });
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["once"]);
  });

  it("an RF=3 follower that takes over keeps deduplicating the producer's retries", async () => {
    const topic = uniqueTopic("idem-failover");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const before = created.partitions[0]!;
    const producer = await newProducer();
    const body = concat(batch(["a", "b"], producer, 0), batch(["c"], producer, 2));
    const first = await produceBinary(topic, 0, body);
    expect(first.body).toEqual({ partition: 0, baseOffset: 0, lastOffset: 2 });
    // Every replica holds the batches (acks all) and rebuilt the producer's state from them.
    for (const region of before.replicas) {
      const state = unwrap(await replicaStub(env, created.topicId, 0, region).state({ topicId: created.topicId, partition: 0, region }));
      expect(state.logEndOffset, region).toBe(3);
    }

    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "down" })).status).toBe(204);
    expectError(await produceBinary(topic, 0, body), 503, "LEADER_NOT_AVAILABLE"); // the election happens here
    const elected = (await describeTopic(topic)).partitions[0]!;
    expect(elected.leader).not.toBe(before.leader);

    const retry = await produceBinary(topic, 0, body);
    expect(retry.body).toEqual(first.body);
    expectError(await produceBinary(topic, 0, batch(["gap"], producer, 9)), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    const next = await produceBinary(topic, 0, batch(["d"], producer, 3));
    expect(next.body).toEqual({ partition: 0, baseOffset: 3, lastOffset: 3 });
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["a", "b", "c", "d"]);

    // The old leader comes back as a follower and learns the rest; nothing was written twice.
    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "none" })).status).toBe(204);
    const newLeader = replicaStub(env, created.topicId, 0, elected.leader);
    for (let attempt = 0; attempt < 40 && !(await describeTopic(topic)).partitions[0]!.isr.includes(before.leader); attempt++) {
      await runDurableObjectAlarm(newLeader);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const rejoined = unwrap(await replicaStub(env, created.topicId, 0, before.leader).state({ topicId: created.topicId, partition: 0, region: before.leader }));
    expect(rejoined.logEndOffset).toBe(4);
  });
});
