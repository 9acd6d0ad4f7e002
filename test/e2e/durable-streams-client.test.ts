/**
 * The protocol's own TypeScript client (`@durable-streams/client`, the version the pinned
 * conformance suite pairs with) through a real `wrangler dev` with an admin token: it
 * creates, appends (plain and as an idempotent producer), reads catch-up and live, and closes
 * a stream at /ds; Tributary's own client then sees the stream as a topic and its appends as
 * records (docs/durable-streams.md).
 */
import { DurableStream, IdempotentProducer } from "@durable-streams/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamTopicName } from "../../src/durable-streams/stream-names.ts";
import { Tributary } from "../../src/client/index.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const adminToken = "ds-client-admin";
const headers = { Authorization: `Bearer ${adminToken}` };
const text = (bytes: Uint8Array | null) => (bytes === null ? "" : new TextDecoder().decode(bytes));

describe("the Durable Streams client against wrangler dev", () => {
  let server: DevServer;

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken, DURABLE_STREAMS_LONG_POLL_MS: "2000" } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("writes, reads live and closes a JSON stream; Tributary's client reads the same stream as a topic", async () => {
    const url = `${server.url}/ds/orders/eu`;
    await expect(DurableStream.create({ url, contentType: "application/json" })).rejects.toThrow(); // no token: 401
    const stream = await DurableStream.create({ url, contentType: "application/json", headers });
    await stream.append(JSON.stringify({ order: 1 }));

    const producer = new IdempotentProducer(stream, "checkout-1", { epoch: 0 });
    producer.append(JSON.stringify({ order: 2 }));
    producer.append(JSON.stringify({ order: 3 }));
    await producer.flush();
    await producer.detach();

    const caughtUp = await stream.stream({ live: false });
    expect(await caughtUp.json()).toEqual([{ order: 1 }, { order: 2 }, { order: 3 }]);
    const resumeAt = caughtUp.offset;

    // Live: a reader from the tail gets an append made after it started.
    const live = await stream.stream<{ order: number }>({ offset: resumeAt, live: "long-poll" });
    const received = new Promise<unknown[]>((resolve) => {
      const items: unknown[] = [];
      const unsubscribe = live.subscribeJson(async (batch) => {
        items.push(...batch.items);
        if (items.length > 0) {
          unsubscribe();
          live.cancel();
          resolve(items);
        }
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await stream.append(JSON.stringify({ order: 4 }));
    expect(await received).toEqual([{ order: 4 }]);

    await stream.close();
    const head = await stream.head();
    expect(head).toMatchObject({ exists: true, contentType: "application/json", streamClosed: true });
    await expect(stream.append(JSON.stringify({ order: 5 }))).rejects.toThrow();

    const tributary = new Tributary({ url: server.url, token: adminToken });
    const topic = streamTopicName("orders/eu");
    expect(await tributary.admin().topics.list()).toContainEqual({ name: topic, partitions: 1, replicationFactor: 1 });
    const { records, highWatermark } = await tributary.topic(topic).fetch(0, 0, { maxRecords: 100 });
    expect(highWatermark).toBe(records.length);
    // One record per append (the producer may batch its two into one), each value the append's messages as a JSON array.
    const messages = records.slice(0, -1).flatMap((record) => JSON.parse(text(record.value)) as unknown[]);
    expect(messages).toEqual([{ order: 1 }, { order: 2 }, { order: 3 }, { order: 4 }]);
    const closing = records.at(-1)!; // the close: no value, the ds-closed header
    expect({ value: closing.value, headers: Object.keys(closing.headers) }).toEqual({ value: null, headers: ["ds-closed"] });
  });
});
