/**
 * The produce path's check of a transactional write (src/data-plane/transaction-verification.ts;
 * wired into produce with the partition side's transactional produce): the current producer,
 * partitions its open transaction added; refusals are the coordinator's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { verifyTransactionalWrite } from "../../../src/data-plane/transaction-verification.ts";
import { api, createTopic, uniqueTopic } from "../support/http.ts";
import { initTransactions, transactionPath, uniqueTransactionalId } from "./support.ts";

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
  it("passes the partitions the open transaction added, refuses others and a fenced producer", async () => {
    const id = uniqueTransactionalId("produce");
    const topic = uniqueTopic("produce");
    await createTopic(topic, { partitions: 3 });
    const identity = await initTransactions(id);
    expect((await api("POST", transactionPath(id, "/partitions"), { ...identity, partitions: [{ topic, partition: 0 }, { topic, partition: 1 }] })).status).toBe(200);
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 0 }]))).toBeNull();
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 0 }, { topic, partition: 1 }]))).toBeNull();
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 2 }]))).toBe("INVALID_TXN_STATE");
    // The end bumps the epoch: a write of the ended transaction is refused.
    expect((await api("POST", transactionPath(id, "/end"), { ...identity, commit: false })).status).toBe(200);
    expect(await refusal(verifyTransactionalWrite(env, id, identity, [{ topic, partition: 2 }]))).toBe("PRODUCER_FENCED");
    expect(await refusal(verifyTransactionalWrite(env, uniqueTransactionalId("never-initialized"), identity, [{ topic, partition: 0 }]))).toBe("INVALID_PRODUCER_ID_MAPPING");
  });
});
