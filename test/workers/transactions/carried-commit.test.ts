/**
 * The commit carried by a transaction's last writes (`?commitAfterWrites=N` on binary produce;
 * src/data-plane/carried-commit-writes.ts, src/transactions/carried-commit.ts; docs/transactions.md):
 * nothing commits before every write carrying it is durable, the writes are answered with the
 * commit's outcome, a retried write gets its first answer, a write refused for good commits
 * nothing; and the client's commit sends no end request when its last records go with it.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Tributary } from "../../../src/client/index.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { baseUrl, createTopic, expectError, fetchOk, readResponse, uniqueTopic, type ApiResponse } from "../support/http.ts";
import { describeTransaction, endTransaction, initTransactions, uniqueTransactionalId, type Identity } from "./support.ts";

function batchOf(identity: Identity, values: string[], baseSequence = 0): Uint8Array {
  const records = values.map((value) => ({ key: null, value: new TextEncoder().encode(value), headers: [], timestamp: Date.now() }));
  return encodeRecordBatch(records, { ...identity, baseSequence, transactional: true });
}

async function write(topic: string, partition: number, body: Uint8Array, query: string): Promise<ApiResponse> {
  const url = `${baseUrl}/v1/topics/${topic}/partitions/${partition}/records?${query}`;
  return readResponse(await exports.default.fetch(new Request(url, { method: "POST", headers: { "content-type": recordBatchContentType }, body })));
}

async function committedValues(topic: string, partition: number): Promise<string[]> {
  return (await fetchOk(topic, partition, { offset: 0, isolation: "read_committed" })).records.map((record) => record.value as string);
}

/** Whether the promise is still pending after the work queued so far (a few macrotasks). */
async function stillPending(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
  return !done;
}

describe("a commit carried by the transaction's last writes", () => {
  it("refuses the parameter without a transactional id, or out of range, with nothing written", async () => {
    const topic = uniqueTopic("carried-params");
    await createTopic(topic, { partitions: 1 });
    const id = uniqueTransactionalId("carried-params");
    const identity = await initTransactions(id);
    const plain = encodeRecordBatch([{ key: null, value: new TextEncoder().encode("x"), headers: [], timestamp: Date.now() }]);
    expectError(await write(topic, 0, plain, "commitAfterWrites=1"), 400, "INVALID_REQUEST");
    expectError(await write(topic, 0, batchOf(identity, ["x"]), `transactionalId=${id}&commitAfterWrites=0`), 400, "INVALID_REQUEST");
    expectError(await write(topic, 0, batchOf(identity, ["x"]), `transactionalId=${id}&commitAfterWrites=1001`), 400, "INVALID_REQUEST");
    expectError(await write(topic, 0, batchOf(identity, ["x"]), `transactionalId=${id}&commitAfterWrites=x`), 400, "INVALID_REQUEST");
    expect((await fetchOk(topic, 0, { offset: 0, isolation: "read_uncommitted" })).records).toEqual([]);
    expect(await describeTransaction(id)).toMatchObject({ partitions: [] });
  });

  it("commits when the last of its writes is durable, answers each with the next identity, and a retried write as first answered", async () => {
    const topic = uniqueTopic("carried-commit");
    await createTopic(topic, { partitions: 2 });
    const id = uniqueTransactionalId("carried-commit");
    const identity = await initTransactions(id);
    const query = `transactionalId=${id}&commitAfterWrites=2`;
    const first = write(topic, 0, batchOf(identity, ["a", "b"]), query);
    // Written, waiting for the other write: nothing committed yet.
    expect(await stillPending(first)).toBe(true);
    expect((await fetchOk(topic, 0, { offset: 0, isolation: "read_uncommitted" })).records.map((record) => record.value)).toEqual(["a", "b"]);
    expect(await committedValues(topic, 0)).toEqual([]);
    expect(await describeTransaction(id)).toMatchObject({ state: "Ongoing" });
    const retriedBody = batchOf(identity, ["c"]);
    const second = await write(topic, 1, retriedBody, query);
    expect(second.status, second.text).toBe(200);
    const next = { producerId: identity.producerId, producerEpoch: identity.producerEpoch + 1 };
    expect(second.body).toEqual({ partition: 1, baseOffset: 0, lastOffset: 0, committed: next });
    expect((await first).body).toEqual({ partition: 0, baseOffset: 0, lastOffset: 1, committed: next });
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit", producerEpoch: next.producerEpoch });
    expect(await committedValues(topic, 0)).toEqual(["a", "b"]);
    expect(await committedValues(topic, 1)).toEqual(["c"]);
    // The same write again (its answer lost): the end bumped the epoch, and the first answer comes back.
    const retried = await write(topic, 1, retriedBody, query);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toEqual(second.body);
    expect(await committedValues(topic, 1)).toEqual(["c"]);
  });

  it("commits nothing when one of its writes is refused for good; the producer's own end then aborts", async () => {
    const topic = uniqueTopic("carried-refused");
    await createTopic(topic, { partitions: 2 });
    const id = uniqueTransactionalId("carried-refused");
    const identity = await initTransactions(id);
    const query = `transactionalId=${id}&commitAfterWrites=2`;
    expect((await write(topic, 1, batchOf(identity, ["earlier"]), `transactionalId=${id}`)).status).toBe(200);
    const first = write(topic, 0, batchOf(identity, ["kept back"]), query);
    expect(await stillPending(first)).toBe(true);
    // Partition 1's next write skips sequences (1 … 4): refused, not retriable.
    expectError(await write(topic, 1, batchOf(identity, ["gap"], 5), query), 409, "OUT_OF_ORDER_SEQUENCE_NUMBER");
    const answer = await first;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ partition: 0, baseOffset: 0, commitError: { code: "OUT_OF_ORDER_SEQUENCE_NUMBER" } });
    expect(answer.body.committed).toBeUndefined();
    expect(await describeTransaction(id)).toMatchObject({ state: "Ongoing" });
    expect((await endTransaction(id, identity, false)).status).toBe(200);
    expect(await committedValues(topic, 0)).toEqual([]);
  });

  it("the client's commit sends its queued records with the commit and no end request", async () => {
    const topic = uniqueTopic("carried-client");
    await createTopic(topic, { partitions: 3 });
    const paths: string[] = [];
    const binding = {
      fetch: (input: Request) => {
        paths.push(new URL(input.url).pathname + new URL(input.url).search);
        return exports.default.fetch(input);
      },
    } as unknown as Fetcher;
    const client = new Tributary({ binding, retry: { initialBackoffMs: 20, maxBackoffMs: 200 }, logLevel: "nothing" });
    const producer = client.producer({ transactionalId: uniqueTransactionalId("carried-client"), lingerMs: 0, requestsPerSecond: Infinity });
    try {
      const values = Array.from({ length: 30 }, (_, index) => `v${index}`);
      // As Kafka's producer is used: sends not awaited, then the commit (which sends them).
      for (let round = 0; round < 2; round++) {
        const transaction = await producer.transaction();
        const sent = transaction.send({ topic, messages: values.map((value) => ({ key: `${round}-${value}`, value })) });
        await transaction.commit();
        expect((await sent).every((metadata) => metadata.offset >= 0)).toBe(true);
      }
      expect(paths.filter((path) => path.includes("/end"))).toEqual([]);
      const carrying = paths.filter((path) => path.includes("commitAfterWrites="));
      expect(carrying.length).toBeGreaterThan(2); // keys spread each transaction over the partitions
      let total = 0;
      for (let partition = 0; partition < 3; partition++) total += (await committedValues(topic, partition)).length;
      expect(total).toBe(60);
      // Awaited sends: nothing is left for the commit to carry, so it sends the end request.
      const transaction = await producer.transaction();
      await transaction.send({ topic, messages: [{ value: "awaited" }] });
      await transaction.commit();
      expect(paths.filter((path) => path.includes("/end"))).toHaveLength(1);
    } finally {
      await producer.close();
    }
  });
});
