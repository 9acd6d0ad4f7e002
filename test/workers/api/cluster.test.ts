/**
 * `GET /v1/cluster` (docs/api.md): the deployment's cluster id, in Kafka's form (16 bytes as
 * 22 URL-safe base64 characters), made once and the same across calls, hosts and restarts of
 * the controller — what every Kafka gateway of the deployment answers in Metadata.
 */
import { abortAllDurableObjects, evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controllerStub } from "../../../src/objects/stubs.ts";
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

  it("takes no query parameters", async () => {
    const response = await api("GET", "/v1/cluster?x=1");
    expect(response.status).toBe(400);
  });
});
