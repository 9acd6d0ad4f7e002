/**
 * Push subscriptions in ordered mode (docs/api.md, Subscriptions), delivering to a Worker over
 * a service binding (PUSH_TARGET, support/push-target.js): every record in offset order; a
 * failing target retried with backoff, then dead-lettered with the tributary.dlq headers; rejected
 * records dead-lettered; an idle subscription costs no object requests; pause, resume, delete.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { replicaStub, subscriptionStub } from "../../../src/contracts/stubs.ts";
import { api, createTopic, produce, readAll, uniqueTopic } from "../support/http.ts";
import { createSubscription, describeSubscription, offsetsOf, received, settledRequests, uniqueSubscription, until } from "./support/subscriptions.ts";

const values = (count: number, prefix = "r") => Array.from({ length: count }, (_, index) => ({ value: `${prefix}${index}` }));

describe("an ordered subscription to a Worker", () => {
  it("delivers every record produced after its creation, in offset order, in batches of batchSize", async () => {
    const topic = uniqueTopic("push");
    await createTopic(topic);
    await produce(topic, values(3, "before")); // "from": "latest": these are not delivered
    const name = uniqueSubscription("push");
    await createSubscription({ name, topic, batchSize: 10 });
    await produce(topic, values(25));
    await until("25 records delivered", async () => offsetsOf(await received(name)).length >= 25);
    const batches = await received(name);
    expect(offsetsOf(batches)).toEqual(Array.from({ length: 25 }, (_, index) => index + 3));
    expect(batches.every((batch) => batch.records.length <= 10 && batch.topic === topic && batch.subscription === name)).toBe(true);
    expect(batches[0]!.records[0]).toMatchObject({ partition: 0, offset: 3, value: "r0", key: null, deliveryCount: 1 });
    await until("the counters settled", async () => (await describeSubscription(name)).delivered === 25);
    const described = await describeSubscription(name);
    expect(described).toMatchObject({ name, topic, mode: "ordered", target: { service: "PUSH_TARGET" }, delivered: 25, retried: 0, deadLettered: 0, lag: 0, lastError: null });
    expect(described.partitions).toEqual([{ partition: 0, position: 28, highWatermark: 28, inFlight: null }]);
  });

  it("starts at the log's start with from: earliest, over every partition", async () => {
    const topic = uniqueTopic("push-earliest");
    await createTopic(topic, { partitions: 3 });
    const produced = await produce(topic, values(30));
    const name = uniqueSubscription("earliest");
    await createSubscription({ name, topic, from: "earliest" });
    await until("30 records delivered", async () => offsetsOf(await received(name)).length >= 30);
    const seen = (await received(name)).flatMap((batch) => batch.records.map((record) => `${record.partition}:${record.offset}`));
    expect(new Set(seen)).toEqual(new Set(produced.map((record) => `${record.partition}:${record.offset}`)));
    for (let partition = 0; partition < 3; partition++) {
      const offsets = (await received(name)).flatMap((batch) => batch.records.filter((record) => record.partition === partition).map((record) => record.offset));
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b)); // in offset order per partition
    }
  });

  it("retries a failing Worker with the same offsets and doubling delays, then dead-letters the batch with its headers and moves on", async () => {
    const topic = uniqueTopic("push-failing");
    const deadLetters = uniqueTopic("push-dlq");
    await createTopic(topic);
    await createTopic(deadLetters);
    const name = uniqueSubscription("failing");
    await createSubscription({ name, topic, retryDelayMs: 150, deliveryLimit: 3, deadLetterTopic: deadLetters });
    await produce(topic, [{ key: "k", value: "v0", headers: { origin: "test" } }, { value: "v1" }]);
    // Each failure schedules the next delivery retryDelayMs × 2^(n−1) after it (computed, not timed).
    await until("the first failure", async () => (await describeSubscription(name)).partitions[0].inFlight?.deliveryCount === 1);
    const first = await describeSubscription(name);
    expect(first.partitions[0].inFlight.retryAt - first.lastErrorAt).toBe(150);
    expect(first.lastError).toContain("the target is down");
    await until("the second failure", async () => (await describeSubscription(name)).partitions[0].inFlight?.deliveryCount === 2);
    const second = await describeSubscription(name);
    expect(second.partitions[0].inFlight.retryAt - second.lastErrorAt).toBe(300);
    await until("dead-lettered", async () => (await describeSubscription(name)).deadLettered === 2);
    const batches = await received(name);
    expect(batches.map((batch) => batch.records.map((record) => [record.offset, record.deliveryCount]))).toEqual([
      [[0, 1], [1, 1]],
      [[0, 2], [1, 2]],
      [[0, 3], [1, 3]],
    ]);
    const letters = await readAll(deadLetters, 0);
    expect(letters.map((record) => [record.key, record.value])).toEqual([["k", "v0"], [null, "v1"]]);
    expect(letters[0]!.headers).toEqual({
      origin: "test",
      "tributary.dlq.topic": topic,
      "tributary.dlq.partition": "0",
      "tributary.dlq.offset": "0",
      "tributary.dlq.delivery-count": "3",
      "tributary.dlq.reason": "delivery-limit",
    });
    const described = await describeSubscription(name);
    expect(described).toMatchObject({ delivered: 0, retried: 4, deadLettered: 2, lag: 0 });
    expect(described.partitions[0]).toMatchObject({ position: 2, inFlight: null });
  });

  it("dead-letters the records a target rejects and accepts the rest", async () => {
    const topic = uniqueTopic("push-reject");
    const deadLetters = uniqueTopic("push-reject-dlq");
    await createTopic(topic);
    await createTopic(deadLetters);
    const name = uniqueSubscription("rejecting");
    await createSubscription({ name, topic, deadLetterTopic: deadLetters });
    await produce(topic, [{ value: "good0" }, { value: "bad1" }, { value: "good2" }]);
    await until("settled", async () => (await describeSubscription(name)).partitions[0].position === 3);
    expect(await describeSubscription(name)).toMatchObject({ delivered: 2, deadLettered: 1, retried: 0 });
    const letters = await readAll(deadLetters, 0);
    expect(letters.map((record) => [record.value, record.headers["tributary.dlq.reason"], record.headers["tributary.dlq.delivery-count"]])).toEqual([["bad1", "rejected", "1"]]);
  });
});

describe("an idle subscription", () => {
  it("makes no object requests while its topic has nothing new, and wakes when records are committed", async () => {
    const topic = uniqueTopic("push-idle");
    const created = await createTopic(topic);
    const name = uniqueSubscription("idle");
    await createSubscription({ name, topic });
    await produce(topic, values(5));
    await until("5 records delivered", async () => (await describeSubscription(name)).delivered === 5);
    const leader = replicaStub(env, created.topicId, 0, created.partitions[0]!.leader);
    const address = { topicId: created.topicId, partition: 0, region: created.partitions[0]!.leader };
    const counts = async () => ({
      subscription: unwrap(await subscriptionStub(env, name).debugStats()).requests,
      leader: unwrap(await leader.state(address)).debug!.requests, // this call counts itself: one per reading
    });
    // Settle: the last delivery's watch is registered, and no run is left, before the counts start.
    await until("caught up and watched", async () => (await describeSubscription(name)).lag === 0);
    await settledRequests(async () => unwrap(await subscriptionStub(env, name).debugStats()).requests);
    const before = await counts();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // longer than maxWaitMs and any retry delay here
    const after = await counts();
    expect(after).toEqual({ subscription: before.subscription, leader: before.leader + 1 });
    await produce(topic, values(2, "later"));
    await until("woken by the commit", async () => (await describeSubscription(name)).delivered === 7);
  });
});

describe("managing a subscription", () => {
  it("pauses (nothing delivered) and resumes (everything delivered)", async () => {
    const topic = uniqueTopic("push-pause");
    await createTopic(topic);
    const name = uniqueSubscription("pause");
    await createSubscription({ name, topic });
    const paused = await api("PATCH", `/v1/subscriptions/${name}`, { paused: true });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body.paused).toBe(true);
    await produce(topic, values(5));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await received(name)).toEqual([]);
    expect(await describeSubscription(name)).toMatchObject({ paused: true, delivered: 0, lag: 5 });
    expect((await api("PATCH", `/v1/subscriptions/${name}`, { paused: false, batchSize: 2 })).status).toBe(200);
    await until("5 records delivered", async () => offsetsOf(await received(name)).length >= 5);
    expect((await received(name)).map((batch) => batch.records.length)).toEqual([2, 2, 1]);
  });

  it("stops delivering once deleted, and forgets it", async () => {
    const topic = uniqueTopic("push-delete");
    await createTopic(topic);
    const name = uniqueSubscription("delete");
    await createSubscription({ name, topic });
    await produce(topic, values(3));
    await until("3 records delivered", async () => offsetsOf(await received(name)).length >= 3);
    expect((await api("GET", "/v1/subscriptions")).body.subscriptions.map((entry: { name: string }) => entry.name)).toContain(name);
    const deleted = await api("DELETE", `/v1/subscriptions/${name}`);
    expect(deleted.status, deleted.text).toBe(204);
    await produce(topic, values(3, "after"));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(offsetsOf(await received(name))).toEqual([0, 1, 2]);
    expect((await api("GET", `/v1/subscriptions/${name}`)).status).toBe(404);
    expect((await api("GET", "/v1/subscriptions")).body.subscriptions.map((entry: { name: string }) => entry.name)).not.toContain(name);
    expect((await api("DELETE", `/v1/subscriptions/${name}`)).status).toBe(404);
  });

  it("refuses a second subscription of the same name", async () => {
    const topic = uniqueTopic("push-twice");
    await createTopic(topic);
    const name = uniqueSubscription("twice");
    await createSubscription({ name, topic });
    const again = await api("POST", "/v1/subscriptions", { name, topic, mode: "ordered", target: { service: "PUSH_TARGET" } });
    expect({ status: again.status, code: again.body?.error?.code }).toEqual({ status: 409, code: "SUBSCRIPTION_ALREADY_EXISTS" });
  });
});
