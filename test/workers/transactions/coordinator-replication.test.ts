/**
 * Transaction coordinators replicated across regions (issue 28; docs/transactions.md,
 * "Replication across regions"): one replica per replica region of the id's anchor partition,
 * the one in its leader's region leading at its leader epoch. Each test anchors its ids to a
 * topic it makes at replication factor 3 (the deployment's `_transaction_state` is shared by
 * every test file, at the default factor 1); the loss of the leader's region is a fault on
 * that region's partition replica (the controller's election) and on its coordinator replica.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import type { TransactionKey } from "../../../src/contracts/transaction-coordinator-api.ts";
import { legacyTransactionCoordinatorStub, transactionIndexStub, transactionReplicaStub } from "../../../src/contracts/stubs.ts";
import { topicMetadata } from "../../../src/data-plane/metadata-cache.ts";
import { coordinatorCalls, transactionKey } from "../../../src/data-plane/coordinator-calls.ts";
import { decodeControlBatch } from "../../../src/protocol/control-batch.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { emptyMetadata } from "../../../src/transactions/transaction-metadata.ts";
import { rejection } from "../support/rejections.ts";
import { api, baseUrl, createTopic, uniqueTopic } from "../support/http.ts";
import { uniqueTransactionalId } from "./support.ts";

/** An anchor of the test's own: one partition at replication factor 3, every id on partition 0. */
async function makeAnchor() {
  const anchor = uniqueTopic("txn-anchor");
  const created = await createTopic(anchor, { partitions: 1, replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
  return { anchor, topicId: created.topicId, calls: coordinatorCalls(env, anchor) };
}

async function placement(anchor: string): Promise<TransactionKey> {
  return transactionKey(await topicMetadata(env, anchor, { refresh: true }), 0);
}

const replica = (id: string, topicId: string, region: string) => transactionReplicaStub(env, id, topicId, region);

/** A fault on a replica of partition 0 (its leader's when no region is named). */
async function setPartitionFault(topic: string, region: string | undefined, fault: "down" | "none") {
  const replica = region ?? (await topicMetadata(env, topic, { refresh: true })).partitions[0]!.leader;
  const response = await api("POST", "/v1/faults", { topic, partition: 0, replica, fault });
  expect(response.status, response.text).toBe(204);
}

/** A region lost: its replica of the anchor partition (the controller elects another leader) and its coordinator replica. */
async function setRegionFault(anchor: string, topicId: string, id: string, region: string, fault: "down" | "none") {
  await setPartitionFault(anchor, region, fault);
  unwrap(await replica(id, topicId, region).setFault(fault, 0));
}

/** The batch stored at `offset` of partition 0, as the binary fetch hands it on. */
async function rawBatch(topic: string, offset: number): Promise<Uint8Array> {
  const response = await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=${offset}&isolation=read_uncommitted`, { headers: { accept: recordBatchContentType } }));
  return new Uint8Array(await response.arrayBuffer());
}

/** A follower's alarm, until the anchor's new leader (elected after the silent one was reported) has acted. */
async function followerAlarms(id: string, topicId: string, region: string, times: number) {
  for (let round = 0; round < times; round++) await runDurableObjectAlarm(replica(id, topicId, region));
}

/** An anchor of its own, a data topic, and an id initialized with `timeoutMs` whose transaction holds the data topic's partition 0. */
async function openTransaction(prefix: string, timeoutMs: number) {
  const { anchor, topicId, calls } = await makeAnchor();
  const data = uniqueTopic("txn-data");
  await createTopic(data);
  const id = uniqueTransactionalId(prefix);
  const identity = await calls.init(id, timeoutMs);
  await calls.addPartitions(id, identity, [{ topic: data, partition: 0 }]);
  return { anchor, topicId, calls, data, id, identity, before: await placement(anchor) };
}

describe("transaction coordinators replicated across regions", () => {
  it("completes a transaction decided at a leader whose region is then lost: the new leader writes the markers, the old one's late end is refused", async () => {
    const { anchor, topicId, calls, data, id, identity, before } = await openTransaction("replicated", 60_000);

    // The data partition does not take the marker: the end answers at its durable, replicated decision.
    await setPartitionFault(data, undefined, "down");
    const ended = await calls.end(id, identity, true);
    expect(ended.producerEpoch).toBe(identity.producerEpoch + 1);
    for (const region of before.replicas) {
      const state = unwrap(await replica(id, topicId, region).replicationState());
      expect(state.metadata, region).toMatchObject({ state: "PrepareCommit", pending: { marker: { result: "commit" } } });
    }

    await setRegionFault(anchor, topicId, id, before.region, "down");
    await setPartitionFault(data, undefined, "none");
    // A follower's alarm: the silent leader is reported and replaced; the new leader takes over and writes the markers.
    const follower = before.replicas.find((region) => region !== before.region)!;
    await followerAlarms(id, topicId, follower, 2);
    const elected = await placement(anchor);
    expect(elected.region).not.toBe(before.region);
    if (elected.region !== follower) await followerAlarms(id, topicId, follower, 1);
    const completed = await calls.describe(id);
    expect(completed).toMatchObject({ state: "CompleteCommit", pendingMarkers: null, producerId: identity.producerId });
    const marker = decodeControlBatch(await rawBatch(data, 0));
    expect(marker).toMatchObject({ producerId: identity.producerId, result: "commit" });
    expect(marker?.coordinatorEpoch).toBeGreaterThan(0); // written by the new leader

    // The old leader's region comes back; a caller with the old placement ends there: refused, nothing changed.
    await setRegionFault(anchor, topicId, id, before.region, "none");
    const late = await replica(id, topicId, before.region).end(before, id, ended, false);
    expect(late).toMatchObject({ ok: false, error: { code: "NOT_LEADER_OR_FOLLOWER" } });
    expect(await calls.describe(id)).toMatchObject({ state: "CompleteCommit" });
    const next = await calls.init(id, 60_000);
    expect(next).toEqual({ producerId: identity.producerId, producerEpoch: ended.producerEpoch + 1 });
  });

  it("aborts by timeout, at the new leader, a transaction left open at a leader whose region was lost", async () => {
    const { anchor, topicId, calls, data, id, identity, before } = await openTransaction("orphaned", 1_000);
    await setRegionFault(anchor, topicId, id, before.region, "down");
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the transaction's timeout

    const follower = before.replicas.find((region) => region !== before.region)!;
    await followerAlarms(id, topicId, follower, 2);
    const elected = await placement(anchor);
    if (elected.region !== follower) await followerAlarms(id, topicId, follower, 1);
    expect(await calls.describe(id)).toMatchObject({ state: "CompleteAbort", pendingMarkers: null });
    expect(decodeControlBatch(await rawBatch(data, 0))).toMatchObject({ producerId: identity.producerId, result: "abort" });
    // As at a coordinator that never moved: the producer's commit is refused, its abort answered at the bumped epoch.
    expect(await rejection(calls.end(id, identity, true))).toBe("INVALID_TXN_STATE");
    expect(await calls.end(id, identity, false)).toEqual({ producerId: identity.producerId, producerEpoch: identity.producerEpoch + 1 });
    await setRegionFault(anchor, topicId, id, before.region, "none");
  });

  it("acknowledges nothing while an in-sync replica is down, and brings it up to date before serving again", async () => {
    const { anchor, topicId, calls } = await makeAnchor();
    const id = uniqueTransactionalId("in-sync");
    const identity = await calls.init(id, 60_000);
    const key = await placement(anchor);
    const follower = key.replicas.find((region) => region !== key.region)!;
    unwrap(await replica(id, topicId, follower).setFault("down", 0));
    expect(await rejection(calls.addOffsets(id, identity, "group-a"))).toBe("NOT_ENOUGH_REPLICAS");
    expect(await rejection(calls.describe(id))).toBe("NOT_ENOUGH_REPLICAS");

    unwrap(await replica(id, topicId, follower).setFault("none", 0));
    expect(await calls.describe(id)).toMatchObject({ state: "Ongoing", groups: ["group-a"] });
    const leaderState = unwrap(await replica(id, topicId, key.region).replicationState());
    for (const region of key.replicas) expect(unwrap(await replica(id, topicId, region).replicationState()).stamp, region).toEqual(leaderState.stamp);
  });

  it("lists, at its takeover, an init the lost leader never got into the index", async () => {
    const { anchor, topicId, calls } = await makeAnchor();
    const id = uniqueTransactionalId("unlisted");
    const index = transactionIndexStub(env);
    unwrap(await index.setFault("down", 0));
    const identity = await calls.init(id, 60_000); // answered; its listing did not reach the index
    const before = await placement(anchor);
    await setRegionFault(anchor, topicId, id, before.region, "down");
    unwrap(await index.setFault("none", 0));
    const listed = async () => ((await api("GET", "/v1/transactions")).body.transactions as { transactionalId: string }[]).find((listing) => listing.transactionalId === id);
    expect(await listed()).toBeUndefined();

    // The next call finds the leader silent and has it replaced (a 503 meanwhile); the elected replica takes over.
    await calls.describe(id).catch(() => undefined);
    expect(await calls.describe(id)).toMatchObject({ producerId: identity.producerId });
    expect(await listed()).toMatchObject({ producerId: identity.producerId, producerEpoch: identity.producerEpoch });
    await setRegionFault(anchor, topicId, id, before.region, "none");
  });

  it("takes over, once, the metadata of the id's coordinator from before replication", async () => {
    const { calls } = await makeAnchor();
    const id = uniqueTransactionalId("legacy");
    const legacy = legacyTransactionCoordinatorStub(env, id);
    await runInDurableObject(legacy, async (_instance, state) => {
      // As a deployment before replication left it: an id initialized, its transaction committed.
      const metadata = { ...emptyMetadata(id, Date.now()), producerId: 4242, producerEpoch: 7, state: "CompleteCommit" };
      state.storage.sql.exec("INSERT INTO transaction_state (id, metadata, index_synced) VALUES (1, ?, 1)", JSON.stringify(metadata));
    });
    await evictDurableObject(legacy); // it starts from its rows, as after an upgrade
    expect(await calls.describe(id)).toMatchObject({ producerId: 4242, producerEpoch: 7, state: "CompleteCommit" });
    expect(unwrap(await legacy.handOver())).toBeNull(); // taken: it acts on it no more
    expect(await calls.init(id, 60_000)).toEqual({ producerId: 4242, producerEpoch: 8 });
  });
});
