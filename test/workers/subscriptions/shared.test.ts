/**
 * `shared` subscriptions (docs/api.md, Subscriptions): delivered through the share group of
 * the subscription's name, several batches at once over every partition; a failing target's
 * records are released, delivered again, and archived by the share group at the delivery
 * limit — written to the dead-letter topic with the tributary.dlq headers.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { subscriptionStub } from "../../../src/contracts/stubs.ts";
import { api, createTopic, produce, readAll, uniqueTopic } from "../support/http.ts";
import { createSubscription, describeSubscription, received, settledRequests, uniqueSubscription, until } from "./support/subscriptions.ts";

describe("a shared subscription", () => {
  it("delivers every record of every partition through the share group of its name", async () => {
    const topic = uniqueTopic("push-shared");
    await createTopic(topic, { partitions: 3 });
    const earlier = await produce(topic, Array.from({ length: 12 }, (_, index) => ({ value: `early${index}` })));
    const name = uniqueSubscription("shared");
    await createSubscription({ name, topic, mode: "shared", from: "earliest", batchSize: 5, maxInFlight: 4 });
    const later = await produce(topic, Array.from({ length: 28 }, (_, index) => ({ value: `late${index}` })));
    const expected = new Set([...earlier, ...later].map((record) => `${record.partition}:${record.offset}`));
    const seen = async () => new Set((await received(name)).flatMap((batch) => batch.records.map((record) => `${record.partition}:${record.offset}`)));
    await until("40 records delivered", async () => (await seen()).size === 40);
    expect(await seen()).toEqual(expected);
    expect((await received(name)).every((batch) => batch.records.length <= 5 && batch.records.every((record) => record.deliveryCount === 1))).toBe(true);
    await until("settled", async () => (await describeSubscription(name)).delivered === 40);
    expect(await describeSubscription(name)).toMatchObject({ mode: "shared", delivered: 40, retried: 0, deadLettered: 0, lag: 0 });
    const group = await api("GET", `/v1/share-groups/${name}`);
    expect(group.status, group.text).toBe(200);
    expect(group.body.configs).toMatchObject({ "delivery.count.limit": "5", "auto.offset.reset": "earliest" });
  });

  it("releases a failing target's records, delivers them again, and dead-letters them at the limit", async () => {
    const topic = uniqueTopic("push-shared-failing");
    const deadLetters = uniqueTopic("push-shared-dlq");
    await createTopic(topic);
    await createTopic(deadLetters);
    const name = uniqueSubscription("failing-shared");
    await createSubscription({ name, topic, mode: "shared", retryDelayMs: 50, deliveryLimit: 2, deadLetterTopic: deadLetters });
    await produce(topic, [{ key: "k", value: "v0" }, { value: "v1" }]);
    await until("dead-lettered", async () => (await readAll(deadLetters, 0)).length === 2);
    const letters = await readAll(deadLetters, 0);
    expect(letters.map((record) => [record.value, record.headers["tributary.dlq.reason"], record.headers["tributary.dlq.delivery-count"], record.headers["tributary.dlq.topic"]])).toEqual([
      ["v0", "delivery-limit", "2", topic],
      ["v1", "delivery-limit", "2", topic],
    ]);
    const counts = (await received(name)).flatMap((batch) => batch.records.map((record) => [record.offset, record.deliveryCount]));
    expect(counts.sort()).toEqual([[0, 1], [0, 2], [1, 1], [1, 2]]);
    await until("counted", async () => (await describeSubscription(name)).deadLettered === 2);
    expect(await describeSubscription(name)).toMatchObject({ delivered: 0, retried: 2, deadLettered: 2, lastError: expect.stringContaining("the target is down") });
  });

  it("makes no object requests while idle, and wakes when records are committed", async () => {
    const topic = uniqueTopic("push-shared-idle");
    await createTopic(topic, { partitions: 2 });
    const name = uniqueSubscription("shared-idle");
    await createSubscription({ name, topic, mode: "shared" });
    await produce(topic, [{ value: "a" }, { value: "b" }, { value: "c" }]);
    await until("3 delivered", async () => (await describeSubscription(name)).delivered === 3);
    await until("caught up", async () => (await describeSubscription(name)).lag === 0);
    const requests = async () => unwrap(await subscriptionStub(env, name).debugStats()).requests;
    const before = await settledRequests(requests);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await requests()).toBe(before);
    await produce(topic, [{ value: "d" }]);
    await until("woken by the commit", async () => (await describeSubscription(name)).delivered === 4);
  });

  it("leaves the share group with the subscription", async () => {
    const topic = uniqueTopic("push-shared-delete");
    await createTopic(topic);
    const name = uniqueSubscription("shared-delete");
    await createSubscription({ name, topic, mode: "shared" });
    expect((await api("GET", `/v1/share-groups/${name}`)).status).toBe(200);
    expect((await api("DELETE", `/v1/subscriptions/${name}`)).status).toBe(204);
    expect((await api("GET", `/v1/share-groups/${name}`)).status).toBe(404);
  });
});
