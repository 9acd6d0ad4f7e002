/**
 * A Subscription object's restart (docs/api.md, Subscriptions: at least once): positions it had
 * not yet written are delivered again, none is skipped; a batch in flight keeps its delivery
 * count, so a failing batch still reaches the dead-letter topic at the delivery limit; the
 * partition's leader still wakes it.
 */
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { subscriptionStub } from "../../../src/contracts/stubs.ts";
import { api, createTopic, produce, readAll, uniqueTopic } from "../support/http.ts";
import { createSubscription, describeSubscription, received, settledRequests, uniqueSubscription, until } from "./support/subscriptions.ts";

const values = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => ({ value: `${prefix}${index}` }));

describe("a subscription object's restart", () => {
  it("skips no record: every offset is delivered at least once, and the leader wakes the new instance", async () => {
    const topic = uniqueTopic("push-restart");
    await createTopic(topic);
    const name = uniqueSubscription("restart");
    await createSubscription({ name, topic, batchSize: 10 });
    await produce(topic, values(50, "a"));
    await until("some delivered", async () => (await received(name)).length >= 2);
    await evictDurableObject(subscriptionStub(env, name));
    await until("the first 50 delivered", async () => new Set((await received(name)).flatMap((batch) => batch.records.map((record) => record.offset))).size === 50);
    await until("caught up", async () => (await describeSubscription(name)).lag === 0);
    await evictDurableObject(subscriptionStub(env, name)); // idle now: only the leader's wake brings it back
    await produce(topic, values(20, "b"));
    await until("all 70 delivered", async () => new Set((await received(name)).flatMap((batch) => batch.records.map((record) => record.offset))).size === 70);
    const offsets = (await received(name)).flatMap((batch) => batch.records.map((record) => record.offset));
    expect(new Set(offsets)).toEqual(new Set(Array.from({ length: 70 }, (_, offset) => offset)));
  });

  it("keeps a failing batch's delivery count, so it is dead-lettered at the limit", async () => {
    const topic = uniqueTopic("push-restart-failing");
    const deadLetters = uniqueTopic("push-restart-dlq");
    await createTopic(topic);
    await createTopic(deadLetters);
    const name = uniqueSubscription("failing-restart");
    await createSubscription({ name, topic, retryDelayMs: 100, deliveryLimit: 3, deadLetterTopic: deadLetters });
    await produce(topic, values(2, "x"));
    await until("the first failure", async () => (await describeSubscription(name)).partitions[0].inFlight?.deliveryCount === 1);
    await evictDurableObject(subscriptionStub(env, name));
    await until("dead-lettered", async () => (await describeSubscription(name)).deadLettered === 2);
    expect((await received(name)).map((batch) => batch.records.map((record) => record.deliveryCount))).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect((await readAll(deadLetters, 0)).map((record) => record.headers["tributary.dlq.delivery-count"])).toEqual(["3", "3"]);
  });
});

describe("a partition's leader failover", () => {
  it("still wakes an idle subscription: the new leader knew its registration as a follower", async () => {
    const topic = uniqueTopic("push-failover");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const before = created.partitions[0]!;
    const name = uniqueSubscription("failover");
    await createSubscription({ name, topic });
    const produceAll = (values: string[]) => api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })), acks: "all" });
    expect((await produceAll(["one", "two"])).status).toBe(200);
    await until("2 delivered", async () => (await describeSubscription(name)).delivered === 2);
    await settledRequests(async () => unwrap(await subscriptionStub(env, name).debugStats()).requests); // idle: watched
    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "down" })).status).toBe(204);
    expect((await produceAll(["lost?"])).status).toBe(503); // the leader is unreachable: a new one is elected
    const retried = await produceAll(["three"]);
    expect(retried.status, retried.text).toBe(200);
    await until("woken by the new leader", async () => (await received(name)).some((batch) => batch.records.some((record) => record.value === "three")));
    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "none" })).status).toBe(204);
  });
});
