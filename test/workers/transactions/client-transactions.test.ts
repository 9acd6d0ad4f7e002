/**
 * The client's transactions (src/client/transaction.ts; docs/client.md, "Transactions") against
 * the real Worker inside workerd, through a service binding: a transactional producer's commit
 * shows its records to read_committed readers on every partition at once and commits its
 * offsets, an abort hides both, a second instance with the same transactional id fences the
 * first, and a consume-transform-produce loop writes each input once.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isTributaryError, Tributary, type Producer } from "../../../src/client/index.ts";
import { createTopic, uniqueTopic } from "../support/http.ts";
import { uniqueTransactionalId } from "./support.ts";

const client = new Tributary({ binding: exports.default as unknown as Fetcher, retry: { initialBackoffMs: 20, maxBackoffMs: 200 }, logLevel: "nothing" });
const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

/** A transactional producer that sends each request at once (no linger, no pacing): the tests wait on no timer. */
function transactionalProducer(transactionalId: string): Producer {
  return client.producer({ transactionalId, lingerMs: 0, requestsPerSecond: Infinity });
}

async function values(topic: string, partition: number, readUncommitted = false): Promise<(string | null)[]> {
  const { records } = await client.topic(topic).fetch(partition, 0, { readUncommitted });
  return records.map((record) => text(record.value));
}

/** The first `count` records of partition 0's stream from the start (it fails the test rather than wait past 10 s). */
async function streamed(topic: string, count: number, readUncommitted = false): Promise<(string | null)[]> {
  const values: (string | null)[] = [];
  const stream = client.topic(topic).partition(0).stream({ from: "earliest", readUncommitted, signal: AbortSignal.timeout(10_000) });
  for await (const record of stream) {
    values.push(text(record.value));
    if (values.length === count) break;
  }
  return values;
}

async function committed(group: string, topic: string, partition: number): Promise<number | null> {
  const offsets = await client.admin().groups.offsets(group).catch((error: unknown) => (isTributaryError(error, "GROUP_ID_NOT_FOUND") ? [] : Promise.reject(error)));
  return offsets.find((entry) => entry.topic === topic && entry.partition === partition)?.offset ?? null;
}

async function codeOf(body: Promise<unknown>): Promise<string | undefined> {
  try {
    await body;
  } catch (error) {
    if (isTributaryError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe("the client's transactional producer", () => {
  it("commits records on every partition and the group's offsets at once; read_committed readers see nothing before", async () => {
    const topic = uniqueTopic("client-txn-commit");
    const input = uniqueTopic("client-txn-input");
    await createTopic(topic, { partitions: 2 });
    await createTopic(input, { partitions: 1 });
    const id = uniqueTransactionalId("client-commit");
    const producer = transactionalProducer(id);
    const transaction = await producer.transaction();
    const written = await transaction.sendBatch({
      topicMessages: [{ topic, messages: [{ value: "a", partition: 0 }, { value: "b", partition: 1 }, { value: "c", partition: 1 }] }],
    });
    expect(written.map(({ partition, offset }) => [partition, offset])).toEqual([[0, 0], [1, 0], [1, 1]]);
    await transaction.sendOffsets({ consumerGroupId: `${id}-group`, topics: [{ topic: input, partitions: [{ partition: 0, offset: "7" }] }] });
    expect(await values(topic, 1)).toEqual([]);
    expect(await values(topic, 1, true)).toEqual(["b", "c"]);
    expect(await committed(`${id}-group`, input, 0)).toBeNull();

    await transaction.commit();
    expect(await values(topic, 0)).toEqual(["a"]);
    expect(await values(topic, 1)).toEqual(["b", "c"]);
    expect(await committed(`${id}-group`, input, 0)).toBe(7);
    const description = await client.admin().transactions.describe(id);
    expect(description).toMatchObject({ state: "CompleteCommit", producerEpoch: 1 });

    // The next transaction writes with the epoch the end answered, its sequences from 0 again.
    const next = await producer.transaction();
    await next.send({ topic, messages: [{ value: "d", partition: 1 }] });
    await next.commit();
    expect(await values(topic, 1)).toEqual(["b", "c", "d"]);
    expect(await client.admin().transactions.describe(id)).toMatchObject({ state: "CompleteCommit", producerEpoch: 2 });
  });

  it("aborts: read_committed readers skip the records and the offsets are dropped; read_uncommitted readers see them", async () => {
    const topic = uniqueTopic("client-txn-abort");
    await createTopic(topic, { partitions: 1 });
    const id = uniqueTransactionalId("client-abort");
    const producer = transactionalProducer(id);
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ value: "x" }, { value: "y" }] });
    await aborted.sendOffsets({ consumerGroupId: `${id}-group`, topics: [{ topic, partitions: [{ partition: 0, offset: 2 }] }] });
    await aborted.abort();
    const kept = await producer.transaction();
    await kept.send({ topic, messages: [{ value: "z" }] });
    await kept.commit();
    // Stored: x, y, the ABORT marker, z, the COMMIT marker. The client's binary fetch skips the aborted batch itself.
    expect(await values(topic, 0)).toEqual(["z"]);
    expect(await values(topic, 0, true)).toEqual(["x", "y", "z"]);
    expect(await committed(`${id}-group`, topic, 0)).toBeNull();
    // Streams take the isolation too (SSE here: a service binding has no WebSocket).
    expect(await streamed(topic, 1)).toEqual(["z"]);
    expect(await streamed(topic, 3, true)).toEqual(["x", "y", "z"]);
  });

  it("one transaction at a time: another while one is open is refused, and records go only inside one", async () => {
    const topic = uniqueTopic("client-txn-one");
    await createTopic(topic, { partitions: 1 });
    const producer = transactionalProducer(uniqueTransactionalId("client-one"));
    await expect(producer.send({ topic, messages: [{ value: "outside" }] })).rejects.toThrow(/inside a transaction/);
    const transaction = await producer.transaction();
    await expect(producer.transaction()).rejects.toThrow(/already open/);
    await transaction.send({ topic, messages: [{ value: "inside" }] });
    await transaction.commit();
    await expect(transaction.send({ topic, messages: [{ value: "late" }] })).rejects.toThrow(/over/);
    expect(await values(topic, 0)).toEqual(["inside"]);
  });

  it("a second instance with the same transactional id fences the first: its sends and commit are refused with the typed errors", async () => {
    const topic = uniqueTopic("client-txn-fence");
    await createTopic(topic, { partitions: 2 });
    const id = uniqueTransactionalId("client-fence");
    const first = transactionalProducer(id);
    const zombie = await first.transaction();
    await zombie.send({ topic, messages: [{ value: "zombie-1", partition: 0 }] });

    const second = transactionalProducer(id);
    const fencing = await second.transaction(); // init: aborts what the first left open, fences it
    // A partition the zombie had added: its write meets the partition's epoch rule (or the router's check with the coordinator).
    expect(await codeOf(zombie.send({ topic, messages: [{ value: "zombie-2", partition: 0 }] }))).toMatch(/^(INVALID_PRODUCER_EPOCH|PRODUCER_FENCED)$/);
    // A new partition: the coordinator refuses to add it.
    expect(await codeOf(zombie.send({ topic, messages: [{ value: "zombie-3", partition: 1 }] }))).toBe("PRODUCER_FENCED");
    expect(await codeOf(zombie.abort())).toBe("PRODUCER_FENCED");
    expect(await codeOf(first.transaction())).toBe("PRODUCER_FENCED");

    // A zombie whose writes all landed: its commit is refused by the coordinator.
    await fencing.send({ topic, messages: [{ value: "second", partition: 0 }] });
    const third = transactionalProducer(id);
    const current = await third.transaction();
    expect(await codeOf(fencing.commit())).toBe("PRODUCER_FENCED");
    await current.send({ topic, messages: [{ value: "third", partition: 0 }] });
    await current.commit();
    expect(await values(topic, 0)).toEqual(["third"]);
    expect(await values(topic, 1)).toEqual([]);
  });

  it("an operator's abort of a hanging transaction: the producer's commit is refused, its abort ends it and the next transaction goes on", async () => {
    const topic = uniqueTopic("client-txn-admin");
    await createTopic(topic, { partitions: 1 });
    const id = uniqueTransactionalId("client-admin");
    const producer = transactionalProducer(id);
    const transaction = await producer.transaction();
    await transaction.send({ topic, messages: [{ value: "hanging" }] });
    expect(await client.admin().transactions.list()).toMatchObject({ transactions: expect.arrayContaining([expect.objectContaining({ transactionalId: id })]) });
    expect(await client.admin().transactions.describe(id)).toMatchObject({ state: "Ongoing", partitions: [{ topic, partition: 0 }] });
    expect(await client.admin().transactions.abort(id)).toMatchObject({ transactionalId: id, state: "CompleteAbort" });
    expect(await codeOf(transaction.commit())).toBe("INVALID_TXN_STATE");
    await transaction.abort();
    const next = await producer.transaction();
    await next.send({ topic, messages: [{ value: "after" }] });
    await next.commit();
    expect(await values(topic, 0)).toEqual(["after"]);
    expect(await codeOf(client.admin().transactions.describe(uniqueTransactionalId("never")))).toBe("TRANSACTIONAL_ID_NOT_FOUND");
  });
});

describe("consume-transform-produce with the client", () => {
  it("a read_committed consumer sees only committed input; each batch's output and offsets commit together", async () => {
    const input = uniqueTopic("ctp-input");
    const output = uniqueTopic("ctp-output");
    await createTopic(input, { partitions: 1 });
    await createTopic(output, { partitions: 1 });
    // The input: an aborted transaction between two committed ones.
    const upstream = transactionalProducer(uniqueTransactionalId("ctp-upstream"));
    for (const [values, commit] of [[["1", "2"], true], [["aborted"], false], [["3"], true]] as const) {
      const transaction = await upstream.transaction();
      await transaction.send({ topic: input, messages: values.map((value) => ({ value })) });
      await (commit ? transaction.commit() : transaction.abort());
    }

    const group = uniqueTopic("ctp-group");
    const consumer = client.consumer({ groupId: group, maxWaitTimeInMs: 100 });
    const producer = transactionalProducer(uniqueTransactionalId("ctp"));
    await consumer.subscribe({ topics: [input], fromBeginning: true });
    const seen: string[] = [];
    let done: () => void;
    const allSeen = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const transaction = await producer.transaction();
        await transaction.send({ topic: output, messages: batch.messages.map((message) => ({ value: `${text(message.value)}!` })) });
        await transaction.sendOffsets({ consumerGroupId: group, topics: [{ topic: input, partitions: [{ partition: 0, offset: batch.lastOffset() + 1 }] }] });
        await transaction.commit();
        seen.push(...batch.messages.map((message) => text(message.value)!));
        if (seen.length >= 3) done();
      },
    });
    await allSeen;
    await consumer.disconnect();
    expect(seen).toEqual(["1", "2", "3"]);
    expect(await values(output, 0)).toEqual(["1!", "2!", "3!"]);
    // The offset after the last input record (3, at 5): the group resumes after everything it turned into output.
    expect(await committed(group, input, 0)).toBe(6);

    const uncommitted = client.consumer({ groupId: uniqueTopic("ctp-uncommitted"), maxWaitTimeInMs: 100, readUncommitted: true });
    await uncommitted.subscribe({ topics: [input], fromBeginning: true });
    const raw: string[] = [];
    let rawDone: () => void;
    const rawSeen = new Promise<void>((resolve) => (rawDone = resolve));
    await uncommitted.run({
      eachMessage: ({ message }) => {
        raw.push(text(message.value)!);
        if (raw.length >= 4) rawDone();
      },
    });
    await rawSeen;
    await uncommitted.disconnect();
    expect(raw).toEqual(["1", "2", "aborted", "3"]);
  });

  it("offsets sent with a consumer's groupMetadata() are fenced as its commit: a member that left the group cannot commit them (KIP-447)", async () => {
    const input = uniqueTopic("ctp-member-input");
    await createTopic(input, { partitions: 1 });
    await client.producer({ lingerMs: 0 }).send({ topic: input, messages: [{ value: "a", partition: 0 }, { value: "b", partition: 0 }] });
    const group = uniqueTopic("ctp-member-group");
    const consumer = client.consumer({ groupId: group, maxWaitTimeInMs: 100 });
    await consumer.subscribe({ topics: [input], fromBeginning: true });
    let owned: () => void;
    const owning = new Promise<void>((resolve) => (owned = resolve));
    await consumer.run({ autoCommit: false, eachMessage: async () => owned() }); // a record handed over: partition 0 is the member's
    await owning;
    const metadata = consumer.groupMetadata();
    expect(metadata).toMatchObject({ groupId: group, memberId: expect.any(String) });
    const producer = transactionalProducer(uniqueTransactionalId("ctp-member"));
    const offsets = (offset: number) => [{ topic: input, partitions: [{ partition: 0, offset }] }];

    const transaction = await producer.transaction();
    await transaction.sendOffsets({ groupMetadata: metadata, topics: offsets(1) });
    await transaction.commit();
    expect(await committed(group, input, 0)).toBe(1);

    await consumer.disconnect();
    const zombie = await producer.transaction();
    expect(await codeOf(zombie.sendOffsets({ groupMetadata: metadata, topics: offsets(2) }))).toBe("UNKNOWN_MEMBER_ID");
    await zombie.abort();
    expect(await committed(group, input, 0)).toBe(1);
    // Without the member's place (kafkajs's request), the group's offsets are taken from anyone holding the transactional id.
    const plain = await producer.transaction();
    await plain.sendOffsets({ consumerGroupId: group, topics: offsets(2) });
    await plain.commit();
    expect(await committed(group, input, 0)).toBe(2);
    await producer.close();
  });

  it("a read_committed stream from latest starts at the last stable offset: an open transaction's records come once it commits", async () => {
    const topic = uniqueTopic("client-txn-latest");
    await createTopic(topic, { partitions: 1 });
    const producer = transactionalProducer(uniqueTransactionalId("client-latest"));
    const transaction = await producer.transaction();
    await transaction.send({ topic, messages: [{ value: "open-1", partition: 0 }] });
    const received: (string | null)[] = [];
    const reading = (async () => {
      for await (const record of client.topic(topic).partition(0).stream({ from: "latest", signal: AbortSignal.timeout(10_000) })) {
        received.push(text(record.value));
        if (received.length === 2) break;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the stream has fixed "latest" by now
    await transaction.send({ topic, messages: [{ value: "open-2", partition: 0 }] });
    await transaction.commit();
    await reading;
    expect(received).toEqual(["open-1", "open-2"]); // from the high watermark it would have missed open-1
    await producer.close();
  });
  it("describes a partition's producers (Kafka's DescribeProducers): an idempotent one, and an open transaction's first offset until it commits", async () => {
    const topic = uniqueTopic("client-txn-producers");
    await createTopic(topic, { partitions: 1 });
    const admin = client.admin().transactions;
    expect(await admin.describeProducers(topic, 0)).toEqual([]);
    const idempotent = client.producer({ lingerMs: 0, requestsPerSecond: Infinity });
    await idempotent.send({ topic, messages: [{ value: "i-1", partition: 0 }, { value: "i-2", partition: 0 }] });
    const producer = transactionalProducer(uniqueTransactionalId("client-producers"));
    const transaction = await producer.transaction();
    await transaction.send({ topic, messages: [{ value: "t-1", partition: 0 }] });
    const open = await admin.describeProducers(topic, 0);
    expect(open).toHaveLength(2);
    const plain = open.find((entry) => entry.currentTxnStartOffset === -1)!;
    const transactional = open.find((entry) => entry.currentTxnStartOffset !== -1)!;
    expect(plain).toMatchObject({ producerEpoch: 0, lastSequence: 1, coordinatorEpoch: -1 });
    expect(plain.lastTimestamp).toBeGreaterThan(0);
    expect(transactional).toMatchObject({ producerEpoch: 0, lastSequence: 0, currentTxnStartOffset: 2 });
    await transaction.commit();
    const after = (await admin.describeProducers(topic, 0)).find((entry) => entry.producerId === transactional.producerId);
    // The commit's marker bumped the epoch, and carries its coordinator's epoch (a new coordinator's first: 0), as Kafka shows it.
    expect(after).toMatchObject({ producerEpoch: 1, lastSequence: -1, coordinatorEpoch: 0, currentTxnStartOffset: -1 });
    expect(await codeOf(admin.describeProducers(topic, 5))).toBe("UNKNOWN_TOPIC_OR_PARTITION");
    await Promise.all([idempotent.close(), producer.close()]);
  });

  it("a transaction whose writes were refused before any reached the coordinator aborts, and the next starts from a new init", async () => {
    const topic = uniqueTopic("client-txn-refused");
    await createTopic(topic, { partitions: 1, configs: { "max.message.bytes": "100" } });
    const id = uniqueTransactionalId("client-refused");
    const producer = transactionalProducer(id);
    const first = await producer.transaction();
    // Refused by the router before its check with the coordinator: no transaction was opened there.
    expect(await codeOf(first.send({ topic, messages: [{ value: "v".repeat(200), partition: 0 }] }))).toBe("MESSAGE_TOO_LARGE");
    await first.abort();
    const second = await producer.transaction();
    await second.send({ topic, messages: [{ value: "ok", partition: 0 }] });
    await second.commit();
    expect(await values(topic, 0)).toEqual(["ok"]);
    // The second transaction's producer came from another init: one more epoch, no end between.
    const [described] = await client.admin().transactions.describeProducers(topic, 0);
    expect(described).toMatchObject({ producerEpoch: 2 });
    await producer.close();
  });
});
