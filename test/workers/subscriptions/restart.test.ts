/**
 * A Subscription object's restart (docs/api.md, Subscriptions: at least once): positions it had
 * not yet written are delivered again, none is skipped; a batch in flight keeps its delivery
 * count, so a failing batch still reaches the dead-letter topic at the delivery limit; the
 * partition's leader still wakes it.
 */
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { subscriptionStub } from "../../../src/objects/stubs.ts";
import { createTopic, produce, readAll, uniqueTopic } from "../support/http.ts";
import { createSubscription, describeSubscription, received, uniqueSubscription, until } from "./support/subscriptions.ts";

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
