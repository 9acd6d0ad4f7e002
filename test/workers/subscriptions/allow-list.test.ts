/**
 * What a subscription may push to (docs/api.md, Subscriptions): webhook origins listed in
 * SUBSCRIPTION_ORIGINS (the workers layer lists https://hooks.tributary.test and
 * http://127.0.0.1:9, test/workers/support/worker-variables.ts), Workers bound in the
 * deployment. Anything else is 400 INVALID_REQUEST and nothing is created.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { uniqueSubscription } from "./support/subscriptions.ts";

const topic = uniqueTopic("push-allow");

async function refused(body: Record<string, unknown>, status = 400, code = "INVALID_REQUEST"): Promise<string> {
  const name = uniqueSubscription("refused");
  const response = await api("POST", "/v1/subscriptions", { name, topic, mode: "ordered", ...body });
  expectError(response, status, code);
  expect((await api("GET", `/v1/subscriptions/${name}`)).status).toBe(404);
  expect((await api("GET", "/v1/subscriptions")).body.subscriptions.map((entry: { name: string }) => entry.name)).not.toContain(name);
  return response.body.error.message;
}

async function accepted(target: Record<string, unknown>): Promise<void> {
  const name = uniqueSubscription("accepted");
  const response = await api("POST", "/v1/subscriptions", { name, topic, mode: "ordered", target });
  expect(response.status, response.text).toBe(201);
  expect((await api("DELETE", `/v1/subscriptions/${name}`)).status).toBe(204);
}

describe("a subscription's target", () => {
  it("is a webhook of a listed origin, a listed loopback http:// origin included", async () => {
    await createTopic(topic);
    await accepted({ url: "https://hooks.tributary.test/orders", secret: "s3cret" });
    await accepted({ url: "http://127.0.0.1:9/hook" });
  });

  it("answers a webhook's secret as <redacted>", async () => {
    const name = uniqueSubscription("secret");
    const response = await api("POST", "/v1/subscriptions", { name, topic, mode: "ordered", target: { url: "https://hooks.tributary.test/x", secret: "s3cret" } });
    expect(response.body.target).toEqual({ url: "https://hooks.tributary.test/x", secret: "<redacted>" });
    expect(JSON.stringify((await api("GET", `/v1/subscriptions/${name}`)).body)).not.toContain("s3cret");
    expect(JSON.stringify((await api("GET", "/v1/subscriptions")).body)).not.toContain("s3cret");
    expect((await api("DELETE", `/v1/subscriptions/${name}`)).status).toBe(204);
  });

  it("refuses origins not listed, loopback origins not listed, other schemes and credentials in the URL, creating nothing", async () => {
    expect(await refused({ target: { url: "https://elsewhere.test/hook" } })).toContain("SUBSCRIPTION_ORIGINS does not list https://elsewhere.test");
    await refused({ target: { url: "http://localhost:9/hook" } });
    await refused({ target: { url: "http://127.0.0.1:10/hook" } });
    await refused({ target: { url: "http://hooks.tributary.test/hook" } }); // the https origin is listed, not the http one
    await refused({ target: { url: "ftp://hooks.tributary.test/hook" } });
    await refused({ target: { url: "https://user:pass@hooks.tributary.test/hook" } });
    await refused({ target: { url: "not a url" } });
  });

  it("refuses a service that is not a Worker bound in the deployment", async () => {
    expect(await refused({ target: { service: "NOT_BOUND" } })).toContain("NOT_BOUND");
    await refused({ target: { service: "CONTROLLER" } }); // a Durable Object namespace
    await refused({ target: { service: "REGIONS" } }); // a variable
    await refused({ target: { service: "SEGMENTS" } }); // a bucket
  });

  it("refuses bad settings, an unknown topic and an unknown dead-letter topic, creating nothing", async () => {
    const target = { service: "PUSH_TARGET" };
    await refused({ target, batchSize: 0 });
    await refused({ target, batchSize: 1_001 });
    await refused({ target, deliveryLimit: 1 });
    await refused({ target, deliveryLimit: 11 });
    await refused({ target, retryDelayMs: 60_001 });
    await refused({ target, mode: "fanout" });
    await refused({ target, name: "a/b" });
    await refused({ target, topic: uniqueTopic("missing") }, 404, "UNKNOWN_TOPIC_OR_PARTITION");
    await refused({ target, deadLetterTopic: uniqueTopic("missing-dlq") }, 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });
});
