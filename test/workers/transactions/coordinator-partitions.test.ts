/**
 * The coordinator with the real partitions (issue 28, both sides): a transactional produce is
 * checked against the partitions its transaction added, its records are seen by read_committed
 * readers on every partition at the commit and never after an abort, and a coordinator evicted
 * between its decision and the markers completes the transaction from its alarm.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createTopic, uniqueTopic } from "../support/http.ts";
import { coordinatorOf, decideWithoutMarkers, describeTransaction, endTransaction, initTransactions, transactionPath, uniqueTransactionalId, type Identity } from "./support.ts";

async function begin(id: string, topic: string, partitions: number[]): Promise<Identity> {
  const identity = await initTransactions(id);
  const added = await api("POST", transactionPath(id, "/partitions"), { ...identity, partitions: partitions.map((partition) => ({ topic, partition })) });
  expect(added.status, added.text).toBe(200);
  return identity;
}

function produceInTransaction(id: string, topic: string, identity: Identity, partitions: number[]) {
  const records = partitions.map((partition) => ({ partition, value: `v${partition}` }));
  const sequences = Object.fromEntries(partitions.map((partition) => [String(partition), 0]));
  return api("POST", `/v1/topics/${topic}/records`, { records, acks: "all", transactionalId: id, ...identity, sequences });
}

async function values(topic: string, partition: number, isolation: "read_committed" | "read_uncommitted"): Promise<string[]> {
  const response = await api("GET", `/v1/topics/${topic}/partitions/${partition}/records?offset=0&isolation=${isolation}`);
  expect(response.status, response.text).toBe(200);
  return response.body.records.map((record: { value: string }) => record.value);
}

describe("transactions over real partitions", () => {
  it("commits atomically: nothing read_committed before the commit, every partition's records after", async () => {
    const id = uniqueTransactionalId("commit");
    const topic = uniqueTopic("txn-commit");
    await createTopic(topic, { partitions: 2 });
    const identity = await begin(id, topic, [0, 1]);
    const produced = await produceInTransaction(id, topic, identity, [0, 1]);
    expect(produced.status, produced.text).toBe(200);
    expect(await values(topic, 0, "read_committed")).toEqual([]);
    expect(await values(topic, 0, "read_uncommitted")).toEqual(["v0"]);
    const ended = await endTransaction(id, identity, true);
    expect(ended.status, ended.text).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit" });
    expect(await values(topic, 0, "read_committed")).toEqual(["v0"]);
    expect(await values(topic, 1, "read_committed")).toEqual(["v1"]);
    // A write of the ended transaction's epoch is refused (the epoch rule at the partition, or the coordinator's check).
    const late = await produceInTransaction(id, topic, identity, [0]);
    expect(late.status).toBe(409);
  });

  it("a transactional produce to a partition its transaction did not add adds it (KIP-890's implicit add): the abort reaches it", async () => {
    const id = uniqueTransactionalId("unadded");
    const topic = uniqueTopic("txn-unadded");
    await createTopic(topic, { partitions: 2 });
    const identity = await begin(id, topic, [0]);
    const produced = await produceInTransaction(id, topic, identity, [1]);
    expect(produced.status, produced.text).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "Ongoing", partitions: [{ topic, partition: 0 }, { topic, partition: 1 }] });
    expect((await endTransaction(id, identity, false)).status).toBe(200);
    expect(await values(topic, 1, "read_uncommitted")).toEqual(["v1"]);
    expect(await values(topic, 1, "read_committed")).toEqual([]);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteAbort" });
  });

  it("aborts: the records are never read_committed", async () => {
    const id = uniqueTransactionalId("abort");
    const topic = uniqueTopic("txn-abort");
    await createTopic(topic, { partitions: 2 });
    const identity = await begin(id, topic, [0, 1]);
    expect((await produceInTransaction(id, topic, identity, [0, 1])).status).toBe(200);
    expect((await endTransaction(id, identity, false)).status).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteAbort" });
    expect(await values(topic, 0, "read_committed")).toEqual([]);
    expect(await values(topic, 1, "read_committed")).toEqual([]);
    expect(await values(topic, 1, "read_uncommitted")).toEqual(["v1"]);
  });

  it("completes from the alarm when evicted between the decision and the markers", async () => {
    const id = uniqueTransactionalId("evicted");
    const topic = uniqueTopic("txn-evicted");
    await createTopic(topic, { partitions: 2 });
    const identity = await begin(id, topic, [0, 1]);
    expect((await produceInTransaction(id, topic, identity, [0, 1])).status).toBe(200);
    await decideWithoutMarkers(id, identity, "commit");
    await evictDurableObject(await coordinatorOf(id));
    expect(await describeTransaction(id)).toMatchObject({ state: "PrepareCommit" });
    expect(await values(topic, 0, "read_committed")).toEqual([]);
    expect(await runDurableObjectAlarm(await coordinatorOf(id))).toBe(true);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit", pendingMarkers: null });
    expect(await values(topic, 0, "read_committed")).toEqual(["v0"]);
    expect(await values(topic, 1, "read_committed")).toEqual(["v1"]);
  });
});

describe("a partition that cannot take its marker", () => {
  it("keeps the transaction in PrepareCommit and completes it from the alarm once the partition is back", async () => {
    const id = uniqueTransactionalId("down");
    const topic = uniqueTopic("txn-down");
    const created = await createTopic(topic, { partitions: 2 });
    const identity = await begin(id, topic, [0, 1]);
    expect((await produceInTransaction(id, topic, identity, [0, 1])).status).toBe(200);
    const leader = (created as unknown as { partitions: { leader: string }[] }).partitions[1]!.leader;
    const fault = (kind: string) => api("POST", "/v1/faults", { topic, partition: 1, replica: leader, fault: kind });
    expect((await fault("down")).status).toBe(204);
    const ended = await endTransaction(id, identity, true);
    expect(ended.status, ended.text).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "PrepareCommit", pendingMarkers: { partitions: [{ topic, partition: 1 }] } });
    expect(await values(topic, 0, "read_committed")).toEqual(["v0"]);
    expect((await fault("none")).status).toBe(204);
    for (let round = 0; round < 50 && (await describeTransaction(id)).state !== "CompleteCommit"; round++) {
      await runDurableObjectAlarm(await coordinatorOf(id)); // unless it already ran on its own
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit" });
    expect(await values(topic, 1, "read_committed")).toEqual(["v1"]);
  });
});
