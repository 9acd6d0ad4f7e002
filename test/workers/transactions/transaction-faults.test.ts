/**
 * Transactions under faults with the real partitions (issue 28, workers): a partition leader
 * that goes down mid-transaction (RF 3) — the new leader holds the transaction open, takes its
 * marker, and read_committed readers see the whole transaction on every partition — and a
 * transaction nobody ends, aborted by its coordinator's alarm past transaction.timeout.ms: its
 * records are never read_committed and the last stable offset moves past them.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createTopic, describeTopic, uniqueTopic } from "../support/http.ts";
import { coordinatorOf, describeTransaction, endTransaction, initTransactions, transactionPath, uniqueTransactionalId, type Identity } from "./support.ts";

async function begin(id: string, topic: string, partitions: number[], transactionTimeoutMs?: number): Promise<Identity> {
  const identity = await initTransactions(id, transactionTimeoutMs);
  const added = await api("POST", transactionPath(id, "/partitions"), { ...identity, partitions: partitions.map((partition) => ({ topic, partition })) });
  expect(added.status, added.text).toBe(200);
  return identity;
}

function produceInTransaction(id: string, topic: string, identity: Identity, values: { partition: number; value: string; sequence: number }[]) {
  const records = values.map(({ partition, value }) => ({ partition, value }));
  const sequences = Object.fromEntries(values.map(({ partition, sequence }) => [String(partition), sequence]));
  return api("POST", `/v1/topics/${topic}/records`, { records, acks: "all", transactionalId: id, ...identity, sequences });
}

async function values(topic: string, partition: number, isolation: "read_committed" | "read_uncommitted"): Promise<string[]> {
  const response = await api("GET", `/v1/topics/${topic}/partitions/${partition}/records?offset=0&isolation=${isolation}`);
  expect(response.status, response.text).toBe(200);
  return response.body.records.map((record: { value: string }) => record.value);
}

async function setFault(topic: string, replica: string, fault: string) {
  const response = await api("POST", "/v1/faults", { topic, partition: 0, replica, fault });
  expect(response.status, response.text).toBe(204);
}

describe("a partition leader's failover mid-transaction", () => {
  it("the new leader holds the transaction open and takes its marker; read_committed readers see all of it on every partition", async () => {
    const id = uniqueTransactionalId("failover");
    const topic = uniqueTopic("txn-failover");
    const created = await createTopic(topic, { partitions: 2, replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const before = created.partitions[0]!;
    const identity = await begin(id, topic, [0, 1]);
    const first = await produceInTransaction(id, topic, identity, [
      { partition: 0, value: "a0", sequence: 0 },
      { partition: 1, value: "a1", sequence: 0 },
    ]);
    expect(first.status, first.text).toBe(200);

    await setFault(topic, before.leader, "down");
    try {
      // The next write finds the leader unreachable: the controller elects an in-sync follower; the producer's retry (same sequence) writes there.
      const write = () => produceInTransaction(id, topic, identity, [{ partition: 0, value: "b0", sequence: 1 }]);
      expect((await write()).status).toBe(503);
      const second = await write();
      expect(second.status, second.text).toBe(200);
      const elected = (await describeTopic(topic)).partitions[0]!;
      expect(elected.leader).not.toBe(before.leader);
      // The new leader knows the transaction is open: nothing of it is read_committed, its LSO is held at its first record.
      expect([elected.lastStableOffset, elected.highWatermark]).toEqual([0, 2]);
      expect(await values(topic, 0, "read_committed")).toEqual([]);
      expect(await values(topic, 0, "read_uncommitted")).toEqual(["a0", "b0"]);

      const ended = await endTransaction(id, identity, true);
      expect(ended.status, ended.text).toBe(200);
      expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit" });
      expect(await values(topic, 0, "read_committed")).toEqual(["a0", "b0"]);
      expect(await values(topic, 1, "read_committed")).toEqual(["a1"]);
      const after = (await describeTopic(topic)).partitions[0]!;
      expect([after.lastStableOffset, after.highWatermark]).toEqual([3, 3]); // the marker at 2, on the new leader
    } finally {
      await setFault(topic, before.leader, "none");
    }
  });
});

describe("a transaction past transaction.timeout.ms", () => {
  it("is aborted by the coordinator's alarm: its records are never read_committed and the LSO moves past them on every partition", async () => {
    const id = uniqueTransactionalId("timeout-partitions");
    const topic = uniqueTopic("txn-timeout");
    await createTopic(topic, { partitions: 2 });
    const identity = await begin(id, topic, [0, 1], 1_000);
    const produced = await produceInTransaction(id, topic, identity, [
      { partition: 0, value: "t0", sequence: 0 },
      { partition: 1, value: "t1", sequence: 0 },
    ]);
    expect(produced.status, produced.text).toBe(200);
    expect((await describeTopic(topic)).partitions.map((partition) => [partition.lastStableOffset, partition.highWatermark])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the timeout: the alarm's rule reads the clock
    await runDurableObjectAlarm(await coordinatorOf(id)); // unless it already ran on its own
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteAbort" });
    expect((await describeTopic(topic)).partitions.map((partition) => [partition.lastStableOffset, partition.highWatermark])).toEqual([
      [2, 2],
      [2, 2],
    ]); // the abort marker at 1 closed it
    for (const partition of [0, 1]) {
      expect(await values(topic, partition, "read_committed")).toEqual([]);
      expect(await values(topic, partition, "read_uncommitted")).toEqual([`t${partition}`]);
    }
    // The producer's late write of the aborted transaction's epoch is refused.
    const late = await produceInTransaction(id, topic, identity, [{ partition: 0, value: "late", sequence: 1 }]);
    expect(late.status).toBe(409);
  });
});
