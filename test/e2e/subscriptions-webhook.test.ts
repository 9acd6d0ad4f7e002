/**
 * A webhook subscription against a real `wrangler dev` (docs/api.md, Subscriptions): a local
 * HTTP server (node:http on a free port, listed in SUBSCRIPTION_ORIGINS for this server) gets
 * 20,000 records at least once, every offset of both partitions seen and every delivery's
 * Tributary-Signature verified; some deliveries answer 503 and come again with the same
 * offsets. Paused, nothing arrives; resumed, everything produced meanwhile does.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "../../src/protocol/webhook-signature.ts";
import { freePort, startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const secret = "whsec-e2e";
const partitions = 2;
const total = 20_000;

interface Delivery {
  records: { partition: number; offset: number; value: string; deliveryCount: number }[];
}

/** The webhook: verifies each signature, keeps each delivery, answers 503 to every seventh. */
function webhookServer() {
  const deliveries: Delivery[] = [];
  let requests = 0;
  let badSignatures = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        if (!(await verifyWebhookSignature(secret, request.headers["tributary-signature"] as string | undefined, body, { toleranceMs: 300_000 }))) {
          badSignatures++;
          response.writeHead(401).end();
          return;
        }
        requests++;
        if (requests % 7 === 0) {
          response.writeHead(503).end("try again");
          return;
        }
        deliveries.push(JSON.parse(body) as Delivery);
        response.writeHead(200, { "content-type": "text/plain" }).end("ok");
      })();
    });
  });
  return { server, deliveries, badSignatures: () => badSignatures, failed: () => Math.floor(requests / 7) };
}

describe("a webhook subscription on wrangler dev", () => {
  let tributary: DevServer;
  let hook: ReturnType<typeof webhookServer>;
  let hookUrl = "";

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${tributary.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
  };

  const seen = () => new Set(hook.deliveries.flatMap((delivery) => delivery.records.map((record) => `${record.partition}:${record.offset}`)));

  const until = async (what: string, check: () => Promise<boolean> | boolean, attempts = 1_200) => {
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`gave up waiting: ${what}\n${tributary.output().slice(-4_000)}`);
  };

  beforeAll(async () => {
    hook = webhookServer();
    const port = await freePort();
    await new Promise<void>((resolve) => (hook.server as Server).listen(port, "127.0.0.1", resolve));
    hookUrl = `http://127.0.0.1:${port}/hooks/orders`;
    tributary = await startWranglerDev({ vars: { SUBSCRIPTION_ORIGINS: `http://127.0.0.1:${port}` } });
    // Stored in zstd (issue 27): the deliveries show the records decoded.
    expect((await call("POST", "/v1/topics", { name: "orders", partitions, configs: { "compression.type": "zstd" } })).status).toBe(201);
  });

  afterAll(async () => {
    await tributary?.stop();
    await new Promise<void>((resolve) => hook?.server.close(() => resolve()));
  });

  it("delivers 20,000 records at least once, every offset seen, every signature verified", async () => {
    const created = await call("POST", "/v1/subscriptions", {
      name: "orders-hook",
      topic: "orders",
      mode: "ordered",
      target: { url: hookUrl, secret },
      batchSize: 500,
      maxWaitMs: 100,
      retryDelayMs: 50,
    });
    expect(created.status, created.text).toBe(201);
    for (let sent = 0; sent < total; sent += 1_000) {
      const records = Array.from({ length: 1_000 }, (_, index) => ({ value: `order-${sent + index}`, partition: (sent + index) % partitions }));
      const produced = await call("POST", "/v1/topics/orders/records", { records, acks: 1 });
      expect(produced.status, produced.text).toBe(200);
    }
    await until("every offset seen", () => seen().size === total);
    const expected = new Set(Array.from({ length: total }, (_, index) => `${index % partitions}:${Math.floor(index / partitions)}`));
    expect(seen()).toEqual(expected);
    const wrong = hook.deliveries.flatMap((delivery) => delivery.records).filter((record) => record.value !== `order-${record.offset * partitions + record.partition}`);
    expect(wrong).toEqual([]);
    const stored = await fetch(`${tributary.url}/v1/topics/orders/partitions/0/records?offset=0`, { headers: { accept: "application/vnd.tributary.record-batch" } });
    expect(new Uint8Array(await stored.arrayBuffer())[22]! & 0x07, "the first stored batch's codec: zstd").toBe(4);
    expect(hook.badSignatures()).toBe(0);
    expect(hook.failed()).toBeGreaterThan(0);
    // A redelivery carries the same offsets, with its delivery count.
    expect(hook.deliveries.some((delivery) => delivery.records[0]!.deliveryCount > 1)).toBe(true);
    await until("the counters settled", async () => (await call("GET", "/v1/subscriptions/orders-hook")).body.delivered === total);
    const described = (await call("GET", "/v1/subscriptions/orders-hook")).body;
    expect(described).toMatchObject({ delivered: total, deadLettered: 0, lag: 0, target: { url: hookUrl, secret: "<redacted>" } });
    expect(described.retried).toBeGreaterThan(0);
    expect(described.lastError).toBe("the webhook answered HTTP 503");
  });

  it("delivers nothing while paused, and everything produced meanwhile once resumed", async () => {
    expect((await call("PATCH", "/v1/subscriptions/orders-hook", { paused: true })).status).toBe(200);
    const before = hook.deliveries.length;
    const records = Array.from({ length: 100 }, (_, index) => ({ value: `paused-${index}`, partition: index % partitions }));
    expect((await call("POST", "/v1/topics/orders/records", { records })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hook.deliveries.length).toBe(before);
    expect((await call("GET", "/v1/subscriptions/orders-hook")).body).toMatchObject({ paused: true, lag: 100 });
    expect((await call("PATCH", "/v1/subscriptions/orders-hook", { paused: false })).status).toBe(200);
    await until("the 100 records produced while paused", () => seen().size === total + 100);
    const values = new Set(hook.deliveries.slice(before).flatMap((delivery) => delivery.records.map((record) => record.value)));
    expect([...values].filter((value) => value.startsWith("paused-")).length).toBe(100);
  });
});
