/**
 * Share-partition state replicated the way the log is (issue 15; docs/api.md, Share groups,
 * "Where the state lives"): one state replica per replica region, the leader's pushing each
 * write fenced by the leader epoch; a failover moves the state to the new leader's region with
 * every accepted record and every held lock; a deposed leader is refused.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap, type Result } from "../../../src/errors.ts";
import type { ShareStateStats } from "../../../src/contracts/share-partition-api.ts";
import { controllerStub, legacySharePartitionStub, replicaStub, shareGroupStub, sharePartitionStub } from "../../../src/contracts/stubs.ts";
import { SharePartition } from "../../../src/share/share-partition.ts";
import { api, createTopic, expectError, produce, uniqueTopic } from "../support/http.ts";
import { acceptAll, acknowledge, acksOf, setConfigs, shareFetch, shareFetchRaw, uniqueShareGroup, type ShareFetchAnswer } from "./support.ts";

const lockMs = 1_500;

async function setFault(topic: string, replica: string, fault: string) {
  const response = await api("POST", "/v1/faults", { topic, partition: 0, replica, fault });
  expect(response.status, response.text).toBe(204);
}

async function stats(group: string, topicId: string, region: string): Promise<ShareStateStats> {
  return unwrap(await sharePartitionStub(env, { group, topicId, partition: 0, region }).stats());
}

async function earliestGroup(prefix: string): Promise<string> {
  const group = uniqueShareGroup(prefix);
  expect((await setConfigs(group, { "auto.offset.reset": "earliest", "record.lock.duration.ms": String(lockMs) })).status).toBe(200);
  return group;
}

/** The partition's placement as the controller holds it (leader epoch included). */
async function placement(topic: string) {
  return unwrap(await controllerStub(env).describeTopic(topic)).partitions[0]!;
}

const offsets = (answer: ShareFetchAnswer) => answer.records.map((record) => record.offset);

describe("replicated share-partition state", () => {
  it("survives the loss of the leader's region: accepted records never come back, held locks hold until they expire, the old leader is fenced", async () => {
    const topic = uniqueTopic("share-repl-failover");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const before = await placement(topic);
    await produce(topic, Array.from({ length: 10 }, (_, index) => ({ value: `v${index}`, partition: 0 })), { acks: "all" });
    const group = await earliestGroup("repl");

    const accepted = await shareFetch(group, { topics: [topic], maxRecords: 4 });
    expect(offsets(accepted)).toEqual([0, 1, 2, 3]);
    await acceptAll(group, accepted);
    const held = await shareFetch(group, { topics: [topic], maxRecords: 3 });
    expect(offsets(held)).toEqual([4, 5, 6]);
    // Every region's state replica holds the leader's last write, stamped at its epoch.
    const leaderStats = await stats(group, created.topicId, before.leader);
    for (const region of before.replicas) {
      const replica = await stats(group, created.topicId, region);
      expect([region, replica.stamp, replica.state]).toEqual([region, leaderStats.stamp, leaderStats.state]);
    }
    expect(leaderStats.stamp?.epoch).toBe(before.leaderEpoch);

    await setFault(topic, before.leader, "down");
    // The state's leader does not answer: reported to the controller, which elects a new leader; retriable.
    expectError(await shareFetchRaw(group, { topics: [topic] }), 503, "LEADER_NOT_AVAILABLE");
    const elected = await placement(topic);
    expect(elected.leader).not.toBe(before.leader);
    expect(elected.leaderEpoch).toBeGreaterThan(before.leaderEpoch);

    // The new leader's state replica serves: the accepted and the locked records are not handed out.
    const next = await shareFetch(group, { topics: [topic], maxRecords: 10 });
    expect(offsets(next)).toEqual([7, 8, 9]);
    const newLeader = await stats(group, created.topicId, elected.leader);
    expect([newLeader.leadingEpoch, newLeader.stamp?.epoch]).toEqual([elected.leaderEpoch, elected.leaderEpoch]);
    // The lock taken before the failover holds at the new leader: its lease acknowledges.
    expect(await acknowledge(group, held.lease, [{ topic, partition: 0, offsets: [4], type: "accept" }])).toEqual([{ topic, partition: 0 }]);
    await acceptAll(group, next);

    // The old leader's region comes back; a caller with the old metadata is refused there, and changes nothing.
    await setFault(topic, before.leader, "none");
    const staleKey = { group, topic, topicId: created.topicId, partition: 0, region: before.leader, replicas: before.replicas, isr: before.isr, leaderEpoch: before.leaderEpoch };
    const oldLeader = () => sharePartitionStub(env, staleKey);
    // It does not know the new leader's lease: before refusing the acknowledgement, it learns from the others that a newer epoch leads.
    const unknownLease = (await oldLeader().acknowledge(staleKey, [{ lease: next.lease, offsets: [7], type: "accept" }])) as Result<unknown>;
    expect(unknownLease.ok ? "answered" : unknownLease.error.code).toBe("NOT_LEADER_OR_FOLLOWER");
    const stale = (await oldLeader().acquire(staleKey, { lease: "stale-lease", maxRecords: 10 })) as Result<unknown>;
    expect(stale.ok ? "answered" : stale.error.code).toBe("NOT_LEADER_OR_FOLLOWER");
    const again = (await oldLeader().acknowledge(staleKey, [{ lease: held.lease, offsets: [5, 6], type: "accept" }])) as Result<unknown>;
    expect(again.ok ? "answered" : again.error.code).toBe("NOT_LEADER_OR_FOLLOWER");
    expect((await stats(group, created.topicId, before.leader)).seenEpoch).toBe(elected.leaderEpoch);

    // Nothing is handed out while the lock holds; after it expires, the held records come back (counted twice).
    expect(offsets(await shareFetch(group, { topics: [topic] }))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, held.leaseExpiresAt - Date.now()) + 50));
    const redelivered = await shareFetch(group, { topics: [topic], maxRecords: 10 });
    expect(redelivered.records.map(({ offset, deliveryCount }) => [offset, deliveryCount])).toEqual([
      [5, 2],
      [6, 2],
    ]);
    await acceptAll(group, redelivered);
    const described = await api("GET", `/v1/share-groups/${group}`);
    expect(described.body.partitions).toEqual([{ topic, partition: 0, startOffset: 10, endOffset: 10, highWatermark: 10, available: 0, acquired: 0, done: 0, archived: 0 }]);
  });

  it("writes one row per write in each region at RF 3, and makes no extra request at RF 1", async () => {
    const cycles = 5;
    const perFetch = 20;
    const measured: Record<number, { leader: ShareStateStats; followers: ShareStateStats[]; acknowledged: number }> = {};
    for (const replicationFactor of [1, 3]) {
      const topic = uniqueTopic(`share-repl-cost-rf${replicationFactor}`);
      const created = await createTopic(topic, { replicationFactor });
      const placement = created.partitions[0]!;
      await produce(topic, Array.from({ length: (cycles + 1) * perFetch }, (_, index) => ({ value: `v${index}`, partition: 0 })), { acks: "all" });
      const group = await earliestGroup(`cost-rf${replicationFactor}`);
      let answer = await shareFetch(group, { topics: [topic], maxRecords: perFetch }); // the share-partition starts (a takeover, registration)
      const leaderBefore = await stats(group, created.topicId, placement.leader);
      const followersBefore = await Promise.all(placement.replicas.filter((region) => region !== placement.leader).map((region) => stats(group, created.topicId, region)));
      for (let cycle = 0; cycle < cycles; cycle++) {
        // Each fetch accepts the previous one's records (acknowledgements ride along): one write.
        answer = await shareFetch(group, { topics: [topic], maxRecords: perFetch, acknowledgements: acksOf(answer.records, "accept").map((ack) => ({ ...ack, lease: answer.lease })) });
        expect(answer.records).toHaveLength(perFetch);
      }
      const leader = await stats(group, created.topicId, placement.leader);
      const followers = await Promise.all(placement.replicas.filter((region) => region !== placement.leader).map((region) => stats(group, created.topicId, region)));
      measured[replicationFactor] = {
        leader: { ...leader, requests: leader.requests - leaderBefore.requests, rowsWritten: leader.rowsWritten - leaderBefore.rowsWritten },
        followers: followers.map((follower, index) => ({ ...follower, requests: follower.requests - followersBefore[index]!.requests, rowsWritten: follower.rowsWritten - followersBefore[index]!.rowsWritten })),
        acknowledged: leader.recordsAcknowledged - leaderBefore.recordsAcknowledged,
      };
    }
    const rf1 = measured[1]!;
    const rf3 = measured[3]!;
    expect([rf1.leader.requests, rf1.leader.rowsWritten, rf1.followers.length, rf1.acknowledged]).toEqual([cycles, cycles, 0, cycles * perFetch]);
    // RF 3: the leader's requests and rows as at RF 1; each follower one request (the push) and one row per write.
    expect([rf3.leader.requests, rf3.leader.rowsWritten, rf3.acknowledged]).toEqual([cycles, cycles, cycles * perFetch]);
    expect(rf3.followers.map(({ requests, rowsWritten }) => [requests, rowsWritten])).toEqual([
      [cycles, cycles],
      [cycles, cycles],
    ]);
    const perThousand = (value: number) => (value * 1_000) / (cycles * perFetch);
    console.log(
      `share state cost per 1,000 records acknowledged (${perFetch} a fetch, acks riding along): ` +
        `RF 1 ${perThousand(rf1.leader.requests)} object requests, ${perThousand(rf1.leader.rowsWritten)} rows; ` +
        `RF 3 ${perThousand(rf3.leader.requests + rf3.followers.reduce((sum, follower) => sum + follower.requests, 0))} object requests, ` +
        `${perThousand(rf3.leader.rowsWritten + rf3.followers.reduce((sum, follower) => sum + follower.rowsWritten, 0))} rows`,
    );
  });

  it("refuses writes while an in-sync region's replica does not answer, and serves once the ISR has shrunk", async () => {
    const topic = uniqueTopic("share-repl-isr");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "300" } });
    const { leader, replicas } = await placement(topic);
    const follower = replicas.find((region) => region !== leader)!;
    await produce(topic, Array.from({ length: 6 }, (_, index) => ({ value: `v${index}`, partition: 0 })), { acks: "all" });
    const group = await earliestGroup("repl-isr");
    await acceptAll(group, await shareFetch(group, { topics: [topic], maxRecords: 2 }));

    await setFault(topic, follower, "down");
    expectError(await shareFetchRaw(group, { topics: [topic], maxRecords: 2 }), 503, "NOT_ENOUGH_REPLICAS");
    // The log's leader drops the silent follower from the ISR after replica.lag.time.max.ms (driven by writes and its alarm).
    for (let attempt = 0; attempt < 40 && (await placement(topic)).isr.includes(follower); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await produce(topic, [{ value: "later", partition: 0 }], { acks: 1 });
      await runDurableObjectAlarm(replicaStub(env, created.topicId, 0, leader));
    }
    expect((await placement(topic)).isr).not.toContain(follower);
    // A refused fetch may have acquired records at the leader (its write was not committed): they come back when its lock
    // expires. The first fetch after the shrink may still carry the router's cached ISR (≤ 5 s) and be refused once more.
    let served: ShareFetchAnswer | undefined;
    for (let attempt = 0; attempt < 2 && served === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, lockMs + 50));
      const response = await shareFetchRaw(group, { topics: [topic], maxRecords: 4 });
      if (response.status === 200) served = response.body;
      else expectError(response, 503, "NOT_ENOUGH_REPLICAS");
    }
    expect(offsets(served!)).toEqual([2, 3, 4, 5]);
    await acceptAll(group, served!);
    await setFault(topic, follower, "none");
  });

  it("reaches every region's replica with config changes and a delete", async () => {
    const topic = uniqueTopic("share-repl-admin");
    const created = await createTopic(topic, { replicationFactor: 3 });
    const { replicas } = await placement(topic);
    await produce(topic, [{ value: "a", partition: 0 }, { value: "b", partition: 0 }], { acks: "all" });
    const group = await earliestGroup("repl-admin");
    await acceptAll(group, await shareFetch(group, { topics: [topic] }));
    expect((await setConfigs(group, { "delivery.count.limit": "3" })).status).toBe(200);
    for (const region of replicas) {
      const replica = await stats(group, created.topicId, region);
      expect([region, replica.state === null, replica.configs?.["delivery.count.limit"]]).toEqual([region, false, "3"]);
    }
    const deleted = await api("DELETE", `/v1/share-groups/${group}`);
    expect(deleted.status, deleted.text).toBe(204);
    for (const region of replicas) expect([region, (await stats(group, created.topicId, region)).state]).toEqual([region, null]);
  });

  it("takes over the state a share-partition held before replication (its object named without a region), once", async () => {
    const topic = uniqueTopic("share-repl-legacy");
    const created = await createTopic(topic, { replicationFactor: 3 });
    await produce(topic, Array.from({ length: 8 }, (_, index) => ({ value: `v${index}`, partition: 0 })), { acks: "all" });
    const group = await earliestGroup("repl-legacy");
    // The state as the object named before replication held it: offsets 0-4 done, 5-7 not yet delivered.
    const legacyKey = { group, topic, topicId: created.topicId, partition: 0, region: created.partitions[0]!.leader };
    const state = JSON.stringify(SharePartition.startingAt(5, 8).toPersisted());
    unwrap(await shareGroupStub(env, group).register(group, legacyKey)); // registered then: no replicas recorded
    await runInDurableObject(legacySharePartitionStub(env, legacyKey), (_instance, object) => {
      object.storage.sql.exec(
        "INSERT INTO share_partition (id, key, configs, configs_version, state) VALUES (1, ?, ?, ?, ?)",
        JSON.stringify(legacyKey),
        JSON.stringify({ "auto.offset.reset": "earliest" }),
        1,
        state,
      );
    });
    const first = await shareFetch(group, { topics: [topic] });
    expect(offsets(first)).toEqual([5, 6, 7]);
    await acceptAll(group, first);
    const described = await api("GET", `/v1/share-groups/${group}`);
    expect(described.body.partitions[0]).toMatchObject({ startOffset: 8, acquired: 0 });
    // Read once: the group now records the replicas (its config pushes reach each region), and a new leader's takeover reads the replicas' state.
    const view = unwrap(await shareGroupStub(env, group).view(group));
    expect(view.partitions[0]!.replicas).toEqual(created.partitions[0]!.replicas);
    expect(unwrap(await shareGroupStub(env, group).register(group, { ...legacyKey, replicas: created.partitions[0]!.replicas })).legacy).toBe(false);
  });
});

