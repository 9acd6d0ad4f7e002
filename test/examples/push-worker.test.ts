/**
 * examples/push-worker as a push subscription's target (docs/api.md, Subscriptions): Tributary
 * calls its deliver(batch) over the PUSH_EXAMPLE service binding; it writes a receipt per order
 * through its own TRIBUTARY binding and rejects what is not an order, which lands in the
 * dead-letter topic with the tributary.dlq headers.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

async function call(method: string, path: string, body?: unknown) {
  const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
  const response = await exports.default.fetch(new Request(`http://tributary.test${path}`, init));
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text), text };
}

async function records(topic: string) {
  return (await call("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`)).body.records as { key: string | null; value: string; headers: Record<string, string> }[];
}

describe("examples/push-worker", () => {
  it("confirms each order with a receipt and rejects what is not an order into the dead-letter topic", async () => {
    for (const name of ["orders", "receipts", "orders-dlq"]) expect((await call("POST", "/v1/topics", { name, partitions: 1 })).status).toBe(201);
    const created = await call("POST", "/v1/subscriptions", { name: "confirm", topic: "orders", mode: "ordered", target: { service: "PUSH_EXAMPLE" }, deadLetterTopic: "orders-dlq", maxWaitMs: 0 });
    expect(created.status, created.text).toBe(201);
    const orders = [{ value: '{"email":"ada@example.com","item":"lamp"}' }, { value: '{"email":"bo@example.com","item":"desk"}' }, { value: "not an order" }];
    expect((await call("POST", "/v1/topics/orders/records", { records: orders })).status).toBe(200);
    for (let attempt = 0; attempt < 400 && (await call("GET", "/v1/subscriptions/confirm")).body.partitions[0].position < 3; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await call("GET", "/v1/subscriptions/confirm")).body).toMatchObject({ delivered: 2, deadLettered: 1, retried: 0, lag: 0 });
    expect((await records("receipts")).map((record) => [record.key, JSON.parse(record.value)])).toEqual([
      ["ada@example.com", { email: "ada@example.com", item: "lamp", order: "orders/0/0" }],
      ["bo@example.com", { email: "bo@example.com", item: "desk", order: "orders/0/1" }],
    ]);
    const [rejected] = await records("orders-dlq");
    expect(rejected).toMatchObject({ value: "not an order", headers: { "tributary.dlq.topic": "orders", "tributary.dlq.offset": "2", "tributary.dlq.reason": "rejected" } });
  });
});
