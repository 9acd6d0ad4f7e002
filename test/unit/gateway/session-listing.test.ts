/**
 * The gateway session's topic listing (src/gateway/session.ts): a listing asked for before a
 * change (a CreateTopics, which calls `invalidate()`) and answered after it is not kept — else
 * Metadata would miss the new topic for up to 5 s (Kafka Streams creates its internal topics
 * and asks for their metadata at once).
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Session } from "../../../src/gateway/session.ts";

/** An HTTP server answering GET /v1/topics: each request waits until the test answers it. */
async function topicServer() {
  const waiting: ServerResponse[] = [];
  const server = createServer((request, response) => {
    if (request.url === "/v1/topics") waiting.push(response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const arrived = async () => {
    const deadline = Date.now() + 2_000;
    while (waiting.length === 0) {
      if (Date.now() > deadline) throw new Error("the session asked for no listing");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const answer = async (names: string[]) => {
    await arrived();
    const body = JSON.stringify({ topics: names.map((name) => ({ name, partitions: 1, replicationFactor: 1 })) });
    waiting.shift()!.writeHead(200, { "content-type": "application/json" }).end(body);
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, answer, arrived, close: () => new Promise((resolve) => server.close(resolve)) };
}

let close: (() => Promise<unknown>) | undefined;
afterEach(async () => close?.());

describe("the session's topic listing", () => {
  it("a listing answered after invalidate() is not kept: the next call asks again and sees the new topic", async () => {
    const upstream = await topicServer();
    close = upstream.close;
    const session = new Session({ url: upstream.url, requestTimeoutMs: 5_000 }, undefined);
    const before = session.topics();
    // The listing is on its way when the topic is created.
    await upstream.arrived();
    session.invalidate();
    await upstream.answer(["orders"]);
    expect((await before).map(({ name }) => name)).toEqual(["orders"]);
    const after = session.topics();
    await upstream.answer(["orders", "created"]);
    expect((await after).map(({ name }) => name)).toEqual(["orders", "created"]);
  });

  it("a call after invalidate() does not join a listing asked for before it", async () => {
    const upstream = await topicServer();
    close = upstream.close;
    const session = new Session({ url: upstream.url, requestTimeoutMs: 5_000 }, undefined);
    const before = session.topics();
    await upstream.arrived();
    session.invalidate();
    const after = session.topics();
    await upstream.answer(["orders"]);
    await upstream.answer(["orders", "created"]);
    expect((await before).map(({ name }) => name)).toEqual(["orders"]);
    expect((await after).map(({ name }) => name)).toEqual(["orders", "created"]);
  });
});
