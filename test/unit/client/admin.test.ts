import { describe, expect, it } from "vitest";
import { isTributaryError } from "../../../src/client/index.ts";
import { fakeClient } from "./support/client.ts";

const bodyOf = (request: { body: Uint8Array }) => JSON.parse(new TextDecoder().decode(request.body));

describe("admin().topics", () => {
  it("creates, lists, describes, alters, grows and deletes", async () => {
    const { server, client } = fakeClient();
    const topics = client.admin().topics;
    const created = await topics.create({ name: "orders", partitions: 2, configs: { "retention.ms": "1000" } });
    expect(created.partitions).toHaveLength(2);
    expect(bodyOf(server.requests[0]!)).toEqual({ name: "orders", partitions: 2, configs: { "retention.ms": "1000" } });
    expect(await topics.list()).toEqual([{ name: "orders", partitions: 2, replicationFactor: 1 }]);
    expect((await topics.describe("orders")).name).toBe("orders");
    expect((await topics.alterConfigs("orders", { "retention.ms": null })).name).toBe("orders");
    expect(server.requests.at(-1)).toMatchObject({ method: "PATCH", path: "/v1/topics/orders/configs" });
    expect((await topics.createPartitions("orders", 5)).partitions).toHaveLength(5);
    await topics.delete("orders");
    const error = await topics.describe("orders").catch((e: unknown) => e);
    expect(isTributaryError(error, "UNKNOWN_TOPIC_OR_PARTITION")).toBe(true);
  });

  it("encodes names in paths, so a name never changes the route", async () => {
    const { server, client } = fakeClient();
    await client.admin().topics.describe("a/b?c").catch(() => undefined);
    expect(server.requests[0]!.path).toBe("/v1/topics/a%2Fb%3Fc");
  });

  it("retries reads on retriable errors but not changes", async () => {
    const { server, client } = fakeClient();
    const busy = { kind: "error" as const, status: 503, body: { error: { code: "BROKER_BUSY", message: "busy" } } };
    server.failNext((r) => r.method === "GET", busy);
    expect(await client.admin().topics.list()).toEqual([]);
    server.failNext((r) => r.method === "POST", busy);
    const error = await client.admin().topics.create({ name: "orders" }).catch((e: unknown) => e);
    expect(isTributaryError(error, "BROKER_BUSY")).toBe(true);
    expect(server.requestsTo(/^\/v1\/topics$/, "POST")).toHaveLength(1);
  });
});

describe("admin().groups", () => {
  it("lists, describes, reads offsets, commits for an empty group and deletes it", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 2);
    const consumer = client.consumer({ groupId: "billing" });
    await consumer.subscribe({ topics: ["orders"] });
    await consumer.run({ eachMessage: async () => {} });
    const groups = client.admin().groups;
    expect(await groups.list()).toEqual([{ group: "billing", state: "Stable", members: 1 }]);
    expect((await groups.describe("billing")).members).toHaveLength(1);
    await consumer.disconnect();
    await groups.commitOffsets("billing", [{ topic: "orders", partition: 1, offset: 0 }]);
    const offsets = await groups.offsets("billing");
    expect(offsets.find((o) => o.partition === 1)).toMatchObject({ offset: 0, lag: 0 });
    await groups.delete("billing");
    expect(await groups.list()).toEqual([]);
  });
});
