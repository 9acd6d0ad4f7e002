/**
 * The produce path's check of a transactional write (src/data-plane/transaction-verification.ts):
 * the current producer only, and KIP-890 part 2's implicit add — a write to a partition the open
 * transaction has not added adds it at the coordinator, with no separate request.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { verifyTransactionalWrite } from "../../../src/data-plane/transaction-verification.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { api, baseUrl, createTopic, expectError, readResponse, uniqueTopic } from "../support/http.ts";
import { describeTransaction, endTransaction, initTransactions, transactionPath, uniqueTransactionalId } from "./support.ts";

async function refusal(body: Promise<void>): Promise<string | null> {
  try {
    await body;
    return null;
  } catch (error) {
    if (error instanceof TributaryError) return error.code;
    throw error;
  }
}

describe("verifying a transactional write", () => {
  it("adds the partitions written to the open transaction, refuses a fenced producer", async () => {
    const id = uniqueTransactionalId("produce");
    const topic = uniqueTopic("produce");
    await createTopic(topic, { partitions: 4 });
    const identity = await initTransactions(id);
    expect((await api("POST", transactionPath(id, "/partitions"), { ...identity, partitions: [{ topic, partition: 0 }, { topic, partition: 1 }] })).status).toBe(200);
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 0 }]))).toBeNull();
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 0 }, { topic, partition: 1 }]))).toBeNull();
    // Not added explicitly: the write adds it.
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 2 }]))).toBeNull();
    expect((await describeTransaction(id)).partitions).toEqual([0, 1, 2].map((partition) => ({ topic, partition })));
    // The end bumps the epoch: a write of the ended transaction is refused and opens nothing (partition 3:
    // one this isolate never confirmed for the ended transaction, so the coordinator is asked).
    expect((await api("POST", transactionPath(id, "/end"), { ...identity, commit: false })).status).toBe(200);
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 3 }]))).toBe("PRODUCER_FENCED");
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteAbort", partitions: [] });
    expect(await refusal(verifyTransactionalWrite(env, uniqueTransactionalId("never-initialized"), identity, [{ topic, partition: 0 }]))).toBe("INVALID_PRODUCER_ID_MAPPING");
  });

  it("a transactional produce with no add before it opens the transaction, and its commit shows the records", async () => {
    const id = uniqueTransactionalId("implicit");
    const topic = uniqueTopic("implicit");
    await createTopic(topic, { partitions: 2 });
    const identity = await initTransactions(id);
    const produce = (partition: number, value: string, sequence: number) =>
      api("POST", `/v1/topics/${topic}/records`, { records: [{ value, partition }], ...identity, sequences: { [partition]: sequence }, transactionalId: id });
    const first = await produce(1, "one", 0);
    expect(first.status, first.text).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "Ongoing", partitions: [{ topic, partition: 1 }] });
    expect((await endTransaction(id, identity, true)).status).toBe(200);
    const read = await api("GET", `/v1/topics/${topic}/partitions/1/records?offset=0&isolation=read_committed`);
    expect(read.status, read.text).toBe(200);
    expect((read.body as { records: { value: string }[] }).records.map((record) => record.value)).toEqual(["one"]);
    // A late write of the committed transaction (its epoch, which the end bumped) opens no new one.
    const late = await produce(0, "late", 0);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: "PRODUCER_FENCED" } });
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit", partitions: [] });
  });

  it("a binary write naming transactionPartitions adds them with its own partition, in one check", async () => {
    const id = uniqueTransactionalId("named");
    const topic = uniqueTopic("named");
    await createTopic(topic, { partitions: 4 });
    const identity = await initTransactions(id);
    const batch = encodeRecordBatch([{ key: null, value: new TextEncoder().encode("v"), headers: [], timestamp: Date.now() }], { ...identity, baseSequence: 0, transactional: true });
    const post = async (query: string) =>
      readResponse(await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/1/records?${query}`, { method: "POST", headers: { "content-type": recordBatchContentType }, body: batch })));
    expectError(await post("transactionPartitions=2"), 400, "INVALID_REQUEST"); // only with transactionalId
    expectError(await post(`transactionalId=${id}&transactionPartitions=2,x`), 400, "INVALID_REQUEST");
    expectError(await post(`transactionalId=${id}&transactionPartitions=2,4`), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect((await describeTransaction(id)).partitions).toEqual([]); // refused before the check: nothing added
    const written = await post(`transactionalId=${id}&transactionPartitions=3,1,2`);
    expect(written.status, written.text).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "Ongoing", partitions: [1, 2, 3].map((partition) => ({ topic, partition })) });
  });
});
