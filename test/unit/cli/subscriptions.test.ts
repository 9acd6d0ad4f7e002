/** `tributary subscriptions …` (docs/cli.md) against a small fake of the subscription routes. */
import { describe, expect, it } from "vitest";
import { cli, FakeServer } from "./support.ts";

interface Sent {
  method: string;
  path: string;
  body: unknown;
}

const settings = {
  name: "mail",
  topic: "orders",
  mode: "ordered",
  target: { url: "https://hooks.example.com/orders", secret: "<redacted>" },
  from: "latest",
  batchSize: 50,
  maxWaitMs: 1_000,
  maxInFlight: 8,
  retryDelayMs: 2_000,
  deliveryLimit: 4,
  deadLetterTopic: "orders-dlq",
  paused: false,
  createdAt: 1,
};

/** Answers the subscription routes as the server does, recording what was sent. */
function fakeSubscriptions() {
  const sent: Sent[] = [];
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    const text = await request.text();
    sent.push({ method: request.method, path, body: text === "" ? undefined : JSON.parse(text) });
    if (path === "/v1/subscriptions" && request.method === "POST") return json(settings, 201);
    if (path === "/v1/subscriptions") return json({ subscriptions: [settings, { ...settings, name: "resize", target: { service: "RESIZER" }, paused: true }] });
    if (path === "/v1/subscriptions/mail" && request.method === "GET") {
      const partitions = [{ partition: 0, position: 40, highWatermark: 42, inFlight: { offsets: [40, 41], deliveryCount: 2, retryAt: 5 } }];
      return json({ ...settings, delivered: 40, retried: 4, deadLettered: 0, lag: 2, lastError: "the webhook answered HTTP 503", lastErrorAt: 0, partitions });
    }
    if (path === "/v1/subscriptions/mail" && request.method === "PATCH") return json({ ...settings, paused: (JSON.parse(text) as { paused: boolean }).paused });
    if (path === "/v1/subscriptions/mail" && request.method === "DELETE") return new Response(null, { status: 204 });
    return json({ error: { code: "NOT_FOUND", message: "no such subscription" } }, 404);
  };
  return { sent, fetch };
}

describe("tributary subscriptions", () => {
  it("create sends the target and settings", async () => {
    const fake = fakeSubscriptions();
    const argv = ["subscriptions", "create", "mail", "--topic", "orders", "--webhook", "https://hooks.example.com/orders", "--secret", "whsec", "--batch-size", "50", "--retry-delay", "2s", "--delivery-limit", "4", "--dead-letter-topic", "orders-dlq", "--from", "earliest", "--isolation", "read_uncommitted"];
    const run = await cli(new FakeServer(), argv, { fetch: fake.fetch });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout.toString()).toBe("created subscription mail: orders → https://hooks.example.com/orders (ordered)\n");
    expect(fake.sent[0]).toEqual({
      method: "POST",
      path: "/v1/subscriptions",
      body: { name: "mail", topic: "orders", mode: "ordered", target: { url: "https://hooks.example.com/orders", secret: "whsec" }, from: "earliest", batchSize: 50, retryDelayMs: 2_000, deliveryLimit: 4, deadLetterTopic: "orders-dlq", isolation: "read_uncommitted" },
    });
  });

  it("create takes a service target and a mode", async () => {
    const fake = fakeSubscriptions();
    expect((await cli(new FakeServer(), ["subscriptions", "create", "resize", "--topic", "images", "--service", "RESIZER", "--mode", "shared"], { fetch: fake.fetch })).code).toBe(0);
    expect(fake.sent[0]!.body).toEqual({ name: "resize", topic: "images", mode: "shared", target: { service: "RESIZER" } });
  });

  it("create refuses no target, two targets, a secret without a webhook and a bad mode, sending nothing", async () => {
    const fake = fakeSubscriptions();
    const base = ["subscriptions", "create", "mail", "--topic", "orders"];
    for (const extra of [[], ["--webhook", "https://a", "--service", "B"], ["--service", "B", "--secret", "s"], ["--service", "B", "--mode", "fanout"], ["--service", "B", "--batch-size", "0"], ["--service", "B", "--isolation", "committed"]]) {
      const run = await cli(new FakeServer(), [...base, ...extra], { fetch: fake.fetch });
      expect({ extra, code: run.code }).toEqual({ extra, code: 2 });
    }
    expect(fake.sent).toEqual([]);
  });

  it("lists, describes, pauses, resumes and deletes", async () => {
    const fake = fakeSubscriptions();
    const list = await cli(new FakeServer(), ["subscriptions", "list"], { fetch: fake.fetch });
    expect(list.stdout.toString()).toMatch(/SUBSCRIPTION +TOPIC +MODE +TARGET +STATE\nmail +orders +ordered +https:\/\/hooks.example.com\/orders +active\nresize .*service RESIZER +paused\n/);
    const described = (await cli(new FakeServer(), ["subscriptions", "describe", "mail"], { fetch: fake.fetch })).stdout.toString();
    expect(described).toContain("delivered 40  retried 4  dead-lettered 0  lag 2");
    expect(described).toContain("the webhook answered HTTP 503");
    expect(described).toMatch(/0 +40 +42 +2 records, delivery 2/);
    expect((await cli(new FakeServer(), ["subscriptions", "pause", "mail"], { fetch: fake.fetch })).stdout.toString()).toBe("paused subscription mail\n");
    expect((await cli(new FakeServer(), ["subscriptions", "resume", "mail"], { fetch: fake.fetch })).stdout.toString()).toBe("resumed subscription mail\n");
    expect((await cli(new FakeServer(), ["subscriptions", "delete", "mail"], { fetch: fake.fetch })).stdout.toString()).toBe("deleted subscription mail\n");
    expect(fake.sent.slice(2).map(({ method, path, body }) => [method, path, body])).toEqual([
      ["PATCH", "/v1/subscriptions/mail", { paused: true }],
      ["PATCH", "/v1/subscriptions/mail", { paused: false }],
      ["DELETE", "/v1/subscriptions/mail", undefined],
    ]);
    const missing = await cli(new FakeServer(), ["subscriptions", "describe", "nope"], { fetch: fake.fetch });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("NOT_FOUND");
  });
});
