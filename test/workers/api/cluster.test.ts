/**
 * `GET /v1/cluster` (docs/api.md): the deployment's cluster id, in Kafka's form (16 bytes as
 * 22 URL-safe base64 characters), made once and the same across calls, hosts and restarts of
 * the controller — what every Kafka gateway of the deployment answers in Metadata — and the
 * defaults a new topic takes (TOPIC_DEFAULT_PARTITIONS, TOPIC_DEFAULT_REPLICATION_FACTOR).
 */
import { abortAllDurableObjects, evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controllerStub } from "../../../src/contracts/stubs.ts";
import { api } from "../support/http.ts";

const clusterId = async (): Promise<string> => {
  const response = await api<{ clusterId: string }>("GET", "/v1/cluster");
  expect(response.status).toBe(200);
  return response.body.clusterId;
};

describe("GET /v1/cluster", () => {
  it("answers one id in Kafka's form, the same across calls and controller restarts", async () => {
    const first = await clusterId();
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(first, "base64url")).toHaveLength(16);
    expect(await clusterId()).toBe(first);
    await evictDurableObject(controllerStub(env));
    expect(await clusterId()).toBe(first);
    await abortAllDurableObjects();
    expect(await clusterId()).toBe(first);
  });

  it("says what a new topic takes when its creation does not say, and creation takes it", async () => {
    const response = await api<{ defaults: { partitions: number; replicationFactor: number; configs: Record<string, string> } }>("GET", "/v1/cluster");
    expect(response.body.defaults).toMatchObject({ partitions: 1, replicationFactor: 1, configs: { "retention.ms": "604800000", "cleanup.policy": "delete" } });
    const created = await api("POST", "/v1/topics", { name: "cluster-defaults" });
    expect(created.status).toBe(201);
    expect([created.body.partitions.length, created.body.replicationFactor]).toEqual([1, 1]);
  });

  it("no new topic's name begins with __ (Kafka's internal topics)", async () => {
    const refused = await api("POST", "/v1/topics", { name: "__consumer_offsets" });
    expect([refused.status, refused.body.error.code]).toEqual([400, "INVALID_TOPIC_EXCEPTION"]);
    expect(refused.body.error.message).toMatch(/reserved for Kafka's internal topics/);
  });

  it("takes no query parameters", async () => {
    const response = await api("GET", "/v1/cluster?x=1");
    expect(response.status).toBe(400);
  });
});
