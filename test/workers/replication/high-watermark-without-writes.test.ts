/**
 * Acknowledged records become readable everywhere without a new write (issue 12 item 5):
 * through an in-sync follower in the reader's region (KIP-392) soon after the last write —
 * also when every replica object restarts right after the acknowledgement — and through a
 * leader that restarts with records its followers stored but never confirmed; and then the
 * leader stops calling (idle costs nothing). Each test polls with a deadline and asserts no speed.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { api, createTopic, uniqueTopic } from "../support/http.ts";

const deadlineMs = 20_000;

async function produce(topic: string, values: string[], acks: "all" | 1 = "all") {
  const response = await api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })), acks });
  expect(response.status, response.text).toBe(200);
}

async function setFault(topic: string, replica: string, fault: string, ms?: number) {
  const response = await api("POST", "/v1/faults", { topic, partition: 0, replica, fault, ...(ms === undefined ? {} : { ms }) });
  expect(response.status, response.text).toBe(204);
}

/** A fetch from offset 0 as a reader in `region`: the values it returns and the high watermark it states. */
async function readIn(topic: string, region: string): Promise<{ values: string[]; highWatermark: number }> {
  const response = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&maxRecords=1000`, undefined, { "tributary-region": region });
  expect(response.status, response.text).toBe(200);
  return { values: response.body.records.map((record: { value: string }) => record.value), highWatermark: response.body.highWatermark };
}

/** Reads in `region` until it returns `values` with a high watermark past them all, or the deadline passes; the last answer. */
async function readUntil(topic: string, region: string, values: string[]) {
  const deadline = Date.now() + deadlineMs;
  let answer = await readIn(topic, region);
  while (Date.now() < deadline && (answer.values.length < values.length || answer.highWatermark < values.length)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await readIn(topic, region);
  }
  return answer;
}

describe("an announcement of the high watermark", () => {
  it("costs a follower no row when it tells nothing new (its role is not stored again with every push)", async () => {
    const topic = uniqueTopic("hw-rows");
    const { topicId, partitions } = await createTopic(topic, { replicationFactor: 3 });
    const { leader, replicas } = partitions[0]!;
    const follower = replicas[1]!;
    await produce(topic, ["a"]);
    const stub = replicaStub(env, topicId, 0, follower);
    const state = async () => unwrap(await stub.state({ topicId, partition: 0, region: follower }));
    const deadline = Date.now() + deadlineMs;
    while ((await state()).highWatermark < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const before = await state();
    expect(before.highWatermark).toBe(1); // the leader's announcement
    const sync = { topicId, partition: 0, region: follower, leader, leaderEpoch: 0, prevLogEndOffset: 1, prevEpoch: 0, batches: [], leaderHighWatermark: 1 };
    expect(unwrap(await stub.replicate(sync))).toEqual({ kind: "ok", logEndOffset: 1, leaderEpoch: 0, highWatermark: 1 });
    expect((await state()).debug!.sqliteRowsWritten).toBe(before.debug!.sqliteRowsWritten);
  });
});

describe("with no new write", () => {
  it("a reader at an in-sync follower sees every acknowledged record, and the high watermark past them", async () => {
    const topic = uniqueTopic("hw-follower");
    const { topicId, partitions } = await createTopic(topic, { replicationFactor: 3 });
    await produce(topic, ["a", "b"]);
    await produce(topic, ["c"]);
    for (const follower of partitions[0]!.replicas.slice(1)) {
      expect(await readUntil(topic, follower, ["a", "b", "c"]), follower).toEqual({ values: ["a", "b", "c"], highWatermark: 3 });
    }
    // Then idle costs nothing: the leader's alarm stops (or waits for the cleaner's next check, days away).
    const leader = replicaStub(env, topicId, 0, partitions[0]!.leader);
    const alarmSoon = () => runInDurableObject(leader, async (_instance, state) => {
      const atMs = await state.storage.getAlarm();
      return atMs !== null && atMs < Date.now() + 60_000;
    });
    const deadline = Date.now() + deadlineMs;
    while ((await alarmSoon()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await alarmSoon()).toBe(false);
  });

  it("… also when every replica object restarts right after the acknowledgement", async () => {
    const topic = uniqueTopic("hw-restart-all");
    const { topicId, partitions } = await createTopic(topic, { replicationFactor: 3 });
    await produce(topic, ["a"]);
    await produce(topic, ["b", "c"]);
    for (const region of partitions[0]!.replicas) await evictDurableObject(replicaStub(env, topicId, 0, region));
    for (const follower of partitions[0]!.replicas.slice(1)) {
      expect(await readUntil(topic, follower, ["a", "b", "c"]), follower).toEqual({ values: ["a", "b", "c"], highWatermark: 3 });
    }
  });

  it("a leader restarted before its followers confirmed records they stored makes them readable (it probes them on waking)", async () => {
    const topic = uniqueTopic("hw-restart-leader");
    const { topicId, partitions } = await createTopic(topic, { replicationFactor: 3 });
    const { leader, replicas } = partitions[0]!;
    const followers = replicas.slice(1);
    await produce(topic, ["a"]);
    // The followers answer slowly; the leader restarts while its pushes of "b" and "c" are unanswered.
    for (const follower of followers) await setFault(topic, follower, "slow", 1_000);
    await produce(topic, ["b", "c"], 1);
    // Its alarm is lost too: only what the leader does on waking (for the reader's fetch) can bring them.
    const leaderObject = replicaStub(env, topicId, 0, leader);
    await runInDurableObject(leaderObject, (_instance, state) => state.storage.deleteAlarm());
    await evictDurableObject(leaderObject);
    for (const follower of followers) await setFault(topic, follower, "none");
    expect(await readUntil(topic, leader, ["a", "b", "c"])).toEqual({ values: ["a", "b", "c"], highWatermark: 3 });
  });
});
