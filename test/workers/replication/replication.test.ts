/**
 * Replication across regions through the router (issue 4): an RF=3 topic, acks "all",
 * leader failover by fault injection, the old leader's return, min.insync.replicas, and
 * nearest-replica reads.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { createApp } from "../../../src/app.ts";
import { api, createTopic, describeTopic, expectError, readAll, uniqueTopic } from "../support/http.ts";

async function setFault(topic: string, replica: string, fault: string, ms?: number) {
  const response = await api("POST", "/v1/faults", { topic, partition: 0, replica, fault, ...(ms === undefined ? {} : { ms }) });
  expect(response.status, response.text).toBe(204);
}

async function replicaState(topicId: string, region: string) {
  return unwrap(await replicaStub(env, topicId, 0, region).state({ topicId, partition: 0, region }));
}

async function produceAll(topic: string, values: string[]) {
  return api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })), acks: "all" });
}

/** Polls `check` until it holds (bounded), running the leader's alarm between tries instead of waiting for it. */
async function eventually(check: () => Promise<boolean>, kick: () => Promise<unknown>, tries = 40): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt++) {
    if (await check()) return;
    await kick();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await check(), "condition never held").toBe(true);
}

describe("an RF=3 partition", () => {
  it("answers acks all once every in-sync replica holds the records", async () => {
    const topic = uniqueTopic("rf3-acks-all");
    const created = await createTopic(topic, { replicationFactor: 3 });
    const response = await produceAll(topic, ["a", "b", "c"]);
    expect(response.status, response.text).toBe(200);
    for (const region of created.partitions[0]!.replicas) {
      const state = await replicaState(created.topicId, region);
      expect(state.logEndOffset, region).toBe(3);
    }
    const leader = await replicaState(created.topicId, created.partitions[0]!.leader);
    expect([leader.role, leader.highWatermark]).toEqual(["leader", 3]);
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["a", "b", "c"]);
  });

  it("refuses acks all when min.insync.replicas exceeds the ISR, writing nothing", async () => {
    const topic = uniqueTopic("rf3-min-isr");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "min.insync.replicas": "4" } });
    expectError(await produceAll(topic, ["x"]), 503, "NOT_ENOUGH_REPLICAS");
    const leader = await replicaState(created.topicId, created.partitions[0]!.leader);
    expect(leader.logEndOffset).toBe(0);
    expect((await describeTopic(topic)).partitions[0]!.highWatermark).toBe(0);
  });

  it("elects a new leader when the leader is down, keeps every acknowledged record, and takes the old leader back", async () => {
    const topic = uniqueTopic("rf3-failover");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const before = created.partitions[0]!;
    expect((await produceAll(topic, ["one", "two"])).status).toBe(200);

    await setFault(topic, before.leader, "down");
    // The first request finds the leader unreachable: the controller elects a new one, the write is not acknowledged.
    expectError(await produceAll(topic, ["lost?"]), 503, "LEADER_NOT_AVAILABLE");
    const elected = (await describeTopic(topic)).partitions[0]!;
    expect(elected.leader).not.toBe(before.leader);
    expect(before.replicas).toContain(elected.leader);
    expect(elected.isr).not.toContain(before.leader);

    const retried = await produceAll(topic, ["three"]);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.offsets[0].offset).toBe(2);
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["one", "two", "three"]);

    // The old leader comes back: the new leader's pushes fence it, it follows, catches up and rejoins the ISR.
    await setFault(topic, before.leader, "none");
    const newLeader = replicaStub(env, created.topicId, 0, elected.leader);
    await eventually(
      async () => (await describeTopic(topic)).partitions[0]!.isr.includes(before.leader),
      () => runDurableObjectAlarm(newLeader),
    );
    const rejoined = await replicaState(created.topicId, before.leader);
    expect([rejoined.role, rejoined.logEndOffset]).toEqual(["follower", 3]);
    expect((await produceAll(topic, ["four"])).status).toBe(200);
    expect((await replicaState(created.topicId, before.leader)).logEndOffset).toBe(4);
  });

  it("serves a reader from an in-sync follower in its region, and from the leader past what the follower knows", async () => {
    const topic = uniqueTopic("rf3-nearest");
    const created = await createTopic(topic, { replicationFactor: 3 });
    const follower = created.partitions[0]!.replicas[1]!;
    expect((await produceAll(topic, ["a", "b"])).status).toBe(200);
    expect((await produceAll(topic, ["c"])).status).toBe(200);
    // The follower learned a high watermark of at least 2 from the second push.
    const nearby = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, undefined, { "tributary-region": follower });
    expect(nearby.status).toBe(200);
    expect(nearby.body.records.map((record: { value: string }) => record.value).slice(0, 2)).toEqual(["a", "b"]);
    const past = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=3`, undefined, { "tributary-region": follower });
    expect([past.status, past.body.records, past.body.highWatermark]).toEqual([200, [], 3]);
  });
});

describe("POST /v1/faults", () => {
  it("does not exist unless TRIBUTARY_FAULTS is 1 (a production deploy)", async () => {
    const app = createApp();
    const body = JSON.stringify({ topic: "t", partition: 0, replica: "weur", fault: "down" });
    const init = { method: "POST", body, headers: { "content-type": "application/json" } };
    const response = await app.request("/v1/faults", init, { ...env, TRIBUTARY_FAULTS: "0" }, createExecutionContext());
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  it("refuses an unknown fault, an unknown replica and an unknown topic", async () => {
    const topic = uniqueTopic("faults-bad");
    await createTopic(topic);
    const leader = (await describeTopic(topic)).partitions[0]!.leader;
    expectError(await api("POST", "/v1/faults", { topic, partition: 0, replica: leader, fault: "explode" }), 400, "INVALID_REQUEST");
    expectError(await api("POST", "/v1/faults", { topic, partition: 0, replica: "mars", fault: "down" }), 400, "INVALID_REQUEST");
    expectError(await api("POST", "/v1/faults", { topic: "no-such-topic", partition: 0, replica: leader, fault: "down" }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("makes a slow replica answer later, and crash-after-write store the append but lose its reply", async () => {
    const topic = uniqueTopic("faults-crash");
    await createTopic(topic);
    const leader = (await describeTopic(topic)).partitions[0]!.leader;
    await setFault(topic, leader, "crash-after-write");
    expectError(await produceAll(topic, ["stored"]), 503, "LEADER_NOT_AVAILABLE");
    expect((await readAll(topic, 0)).map((record) => record.value)).toEqual(["stored"]);
    await setFault(topic, leader, "slow", 300);
    const started = Date.now();
    expect((await produceAll(topic, ["later"])).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await setFault(topic, leader, "none");
  });
});
