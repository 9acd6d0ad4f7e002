/**
 * SQLite rows written per request (issue 19, the bill): Cloudflare bills every row an object
 * writes, index entries included, and rows written dominate the measured monthly bill. These
 * are the budgets per produce request (idempotent and not, on the leader and on each follower)
 * and per group poll that commits; each counts what the objects report (the replicas' own
 * `sqliteRowsWritten`, the isolate's billing meter for the coordinator).
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { Tributary } from "../../../src/client/index.ts";
import { billingSnapshot } from "../../../src/contracts/billing-meter.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { api, createTopic, describeTopic, produce, uniqueTopic } from "../support/http.ts";
import { PollingMember, uniqueGroup } from "../groups/support/groups.ts";
import { endTransaction, initTransactions, transactionPath, uniqueTransactionalId } from "../transactions/support.ts";

/** Within the test's 30 s: how long the replicas may take to agree on the log end and the high watermark. */
const settleWithinMs = 20_000;

interface Producer {
  producerId: number;
  producerEpoch: number;
}

/**
 * Rows each replica of partition 0 has written since it started, leader first, once every
 * replica holds the whole log and knows its high watermark (a follower learns it on its next
 * fetch, after the produce was answered), so a count never falls between the two.
 */
async function replicaRows(topic: string): Promise<number[]> {
  const { topicId, partitions } = await describeTopic(topic);
  const { leader, replicas } = partitions[0]!;
  const regions = [leader, ...replicas.filter((region) => region !== leader)];
  // A follower learns the high watermark on its next fetch; on a loaded machine that may take seconds.
  for (const deadline = Date.now() + settleWithinMs; Date.now() < deadline; ) {
    const states = await Promise.all(regions.map(async (region) => unwrap(await replicaStub(env, topicId, 0, region).state({ topicId, partition: 0, region }))));
    const end = states[0]!.logEndOffset;
    if (states.every((state) => state.logEndOffset === end && state.highWatermark === end)) return states.map((state) => state.debug!.sqliteRowsWritten);
    await scheduler.wait(10);
  }
  throw new Error(`the replicas of ${topic} did not settle`);
}

/** Rows written per request, per replica (leader first), over `requests` requests after a warm-up one. */
async function rowsPerRequest(topic: string, send: (index: number) => Promise<void>, requests = 4): Promise<number[]> {
  await send(0);
  const before = await replicaRows(topic);
  for (let index = 1; index <= requests; index++) await send(index);
  const after = await replicaRows(topic);
  return after.map((rows, index) => (rows - before[index]!) / requests);
}

async function idempotentSender(topic: string): Promise<(index: number) => Promise<void>> {
  const response = await api("POST", "/v1/producers");
  expect(response.status, response.text).toBe(201);
  const producer = response.body as Producer;
  return async (index) => {
    const answer = await api("POST", `/v1/topics/${topic}/records`, {
      records: [{ value: `v${index}`, partition: 0 }],
      acks: "all",
      ...producer,
      sequences: { "0": index },
    });
    expect(answer.status, answer.text).toBe(200);
  };
}

/**
 * The leader writes `rows` per request (acks=all: each request's high watermark moves before
 * its answer). A follower writes the batch's rows per request and learns the high watermark
 * on its next fetch, which on a loaded machine may bring two requests' moves at once: one
 * log_bounds row for both. So a follower writes at most `rows`, and at least the rest.
 */
function expectReplicaRows([leader, ...followers]: number[], budget: { rows: number; highWatermarkRows: number }): void {
  expect(leader).toBe(budget.rows);
  expect(followers).toHaveLength(2);
  for (const rows of followers) {
    expect(rows).toBeLessThanOrEqual(budget.rows);
    expect(rows).toBeGreaterThanOrEqual(budget.rows - budget.highWatermarkRows);
  }
}

function plainSender(topic: string): (index: number) => Promise<void> {
  return async (index) => {
    await produce(topic, [{ value: `v${index}`, partition: 0 }], { acks: "all" });
  };
}

describe("SQLite rows written per request", () => {
  // First in the file: the isolate's meter counts every object, and nothing else is running yet.
  it("a group poll that commits one moved partition writes one row in the whole deployment, and one that commits nothing none", async () => {
    const topic = uniqueTopic("rows-poll");
    await createTopic(topic, { partitions: 2 });
    const member = await PollingMember.join(uniqueGroup("rows"), [topic], { autoOffsetReset: "earliest" });
    await member.poll();
    await member.poll(); // positions committed once: the coordinator holds a row per partition
    await produce(topic, [{ value: "x", partition: 0 }]);
    await member.poll(); // reads the new record
    const before = billingSnapshot().sqliteRowsWritten;
    await member.poll(); // commits partition 0's new position; partition 1's is unchanged
    const moved = billingSnapshot().sqliteRowsWritten - before;
    const still = billingSnapshot().sqliteRowsWritten;
    await member.poll(); // commits nothing new
    const unchanged = billingSnapshot().sqliteRowsWritten - still;
    expect({ moved, unchanged }).toEqual({ moved: 1, unchanged: 0 });
  });

  // The bill of a transactional producer (bench/bill.ts, --bill-transactions) counts its coordinator's rows as the partitions'.
  it("a transaction's coordinator writes one row, its metadata, when partitions join the transaction", async () => {
    const topic = uniqueTopic("rows-txn");
    await createTopic(topic, { partitions: 2 });
    const transactionalId = uniqueTransactionalId("rows");
    const identity = await initTransactions(transactionalId);
    const before = billingSnapshot().sqliteRowsWritten;
    const added = await api("POST", transactionPath(transactionalId, "/partitions"), { ...identity, partitions: [{ topic, partition: 0 }, { topic, partition: 1 }] });
    expect(added.status, added.text).toBe(200);
    expect(billingSnapshot().sqliteRowsWritten - before).toBe(1);
  });

  // What a transaction costs in rows (bench/RESULTS.md, the bill with a commit a second): each step's rows in the whole deployment,
  // in the second transaction (the first write also creates the partition's tables).
  it("a transaction of one record on one partition: its add writes 1 row, its write 3, its commit 3", async () => {
    const topic = uniqueTopic("rows-txn-steps");
    await createTopic(topic);
    const transactionalId = uniqueTransactionalId("rows-steps");
    const rowsOf = async (step: () => Promise<{ status: number; text: string; body: unknown }>) => {
      const before = billingSnapshot().sqliteRowsWritten;
      const answer = await step();
      expect(answer.status, answer.text).toBe(200);
      return { rows: billingSnapshot().sqliteRowsWritten - before, body: answer.body };
    };
    let identity = await initTransactions(transactionalId);
    const transaction = async () => {
      const add = await rowsOf(() => api("POST", transactionPath(transactionalId, "/partitions"), { ...identity, partitions: [{ topic, partition: 0 }] }));
      const write = await rowsOf(() => api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "v", partition: 0 }], acks: "all", transactionalId, ...identity, sequences: { "0": 0 } }));
      const commit = await rowsOf(() => endTransaction(transactionalId, identity, true));
      identity = commit.body as typeof identity; // every end bumps the epoch (KIP-890)
      return { add: add.rows, write: write.rows, commit: commit.rows };
    };
    await transaction();
    // The coordinator's metadata at the add; the batch, the producer's row and its open transaction at the write; the
    // coordinator's decision, and the marker's batch and the closed transaction on the partition at the commit. The
    // completion is answered before it is written: the next transaction's add writes it with its own row (or, when no add
    // comes, the alarm armed at the decision does, ≈ 200 ms later).
    expect(await transaction()).toEqual({ add: 1, write: 3, commit: 3 });
  });

  // Tributary's client names the partitions a send writes (transactionPartitions): the first write's check adds them all.
  it("a transaction's send over three partitions through the client: the coordinator writes its metadata once", async () => {
    const topic = uniqueTopic("rows-txn-send");
    await createTopic(topic, { partitions: 3 });
    const client = new Tributary({ binding: exports.default as unknown as Fetcher, logLevel: "nothing" });
    const producer = client.producer({ transactionalId: uniqueTransactionalId("rows-send"), lingerMs: 0, requestsPerSecond: Infinity });
    const messages = [0, 1, 2].map((partition) => ({ value: `v${partition}`, partition }));
    try {
      const send = async () => {
        const transaction = await producer.transaction();
        const before = billingSnapshot().sqliteRowsWritten;
        await transaction.send({ topic, messages });
        const rows = billingSnapshot().sqliteRowsWritten - before;
        await transaction.commit();
        return rows;
      };
      await send(); // the first also creates the partitions' tables
      // Per partition its batch, the producer's row and its open transaction; the coordinator's metadata once.
      expect(await send()).toBe(3 * 3 + 1);
    } finally {
      await producer.close();
    }
  });

  it("an idempotent produce request on RF 1: the batch row and the producer's row, no index entries", async () => {
    const topic = uniqueTopic("rows-idem");
    await createTopic(topic);
    expect(await rowsPerRequest(topic, await idempotentSender(topic))).toEqual([2]);
  });

  it("a produce request without a producer on RF 1: the batch row only", async () => {
    const topic = uniqueTopic("rows-plain");
    await createTopic(topic);
    expect(await rowsPerRequest(topic, plainSender(topic))).toEqual([1]);
  });

  it("an idempotent produce request on RF 3: the same rows on the leader and at most those on each follower", async () => {
    const topic = uniqueTopic("rows-idem-rf3");
    await createTopic(topic, { replicationFactor: 3 });
    // The batch row, the producer's row, and the high watermark's move (log_bounds) once the followers have the batch.
    expectReplicaRows(await rowsPerRequest(topic, await idempotentSender(topic)), { rows: 3, highWatermarkRows: 1 });
  });

  it("a produce request without a producer on RF 3: the batch row and the high watermark's move", async () => {
    const topic = uniqueTopic("rows-plain-rf3");
    await createTopic(topic, { replicationFactor: 3 });
    expectReplicaRows(await rowsPerRequest(topic, plainSender(topic)), { rows: 2, highWatermarkRows: 1 });
  });

});
