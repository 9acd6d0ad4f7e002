import { describe, expect, it } from "vitest";
import { partitionForKey } from "../../../src/protocol/partitioner.ts";
import { isTributaryError, textOf } from "../../../src/client/index.ts";
import { fakeClient, produceRequests, text, utf8 } from "./support/client.ts";

describe("topic(name).produce", () => {
  it("writes each partition's records in one binary request and answers in message order", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 4);
    const messages = ["a", "b", "c", "d", "e", "f"].map((key) => ({ key, value: `v-${key}` }));
    const results = await client.topic("orders").produce(messages);
    const partitions = new Set(messages.map((m) => partitionForKey(utf8(m.key), 4)));
    expect(produceRequests(server)).toHaveLength(partitions.size);
    for (const request of produceRequests(server)) expect(request.headers.get("content-type")).toBe("application/vnd.tributary.record-batch");
    results.forEach((result, i) => {
      expect(result.partition).toBe(partitionForKey(utf8(messages[i]!.key), 4));
      const stored = server.records("orders", result.partition).find((r) => r.offset === result.offset);
      expect(text(stored!.value)).toBe(messages[i]!.value);
    });
  });

  it("reports partial success: the failing partition's entries are null in error.data.offsets", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 2);
    server.failNext((r) => r.method === "POST" && r.path.includes("/partitions/1/"), {
      kind: "error",
      status: 413,
      body: { error: { code: "MESSAGE_TOO_LARGE", message: "too big" } },
    });
    const error = await client
      .topic("orders")
      .produce([{ value: "zero", partition: 0 }, { value: "one", partition: 1 }])
      .catch((e: unknown) => e);
    if (!isTributaryError(error, "MESSAGE_TOO_LARGE")) throw error;
    expect(error.data.offsets).toEqual([{ topic: "orders", partition: 0, offset: 0, timestamp: expect.any(Number) }, null]);
  });
});

describe("topic(name).fetch", () => {
  it("fetches binary batches and decodes the exact bytes, from the offset asked", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const topic = client.topic("orders");
    const bytes = new Uint8Array([0, 1, 2, 255]);
    await topic.produce([
      { value: "first" },
      { key: "k", value: bytes, headers: JSON.parse('{"__proto__": "x", "trace": "t"}') },
      { key: null, value: null },
    ]);
    const fetched = await topic.fetch(0, 1);
    expect(server.requests.at(-1)!.headers.get("accept")).toBe("application/vnd.tributary.record-batch");
    expect(fetched.records.map((r) => r.offset)).toEqual([1, 2]); // the batch starts at 0: offset 0 is skipped
    const [second, third] = fetched.records;
    expect([...second!.value!]).toEqual([...bytes]);
    expect(textOf(second!.key)).toBe("k");
    expect(Object.keys(second!.headers)).toEqual(["__proto__", "trace"]);
    expect(second!.headers.trace).toBe("t");
    expect(third!.key).toBeNull();
    expect(third!.value).toBeNull();
    expect({ nextOffset: fetched.nextOffset, highWatermark: fetched.highWatermark, logStartOffset: fetched.logStartOffset }).toEqual({
      nextOffset: 3,
      highWatermark: 3,
      logStartOffset: 0,
    });
  });

  it("passes maxRecords, maxBytes and waitMs through", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    await client.topic("orders").fetch(0, 0, { maxRecords: 7, maxBytes: 1000, waitMs: 10 });
    const query = server.requests.at(-1)!.query;
    expect([query.get("offset"), query.get("maxRecords"), query.get("maxBytes"), query.get("waitMs")]).toEqual(["0", "7", "1000", "10"]);
  });

  it("answers offsets: earliest and latest", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    await client.topic("orders").produce([{ value: "a" }, { value: "b" }]);
    expect(await client.topic("orders").offset(0, "latest")).toEqual({ offset: 2 });
    expect(await client.topic("orders").offset(0, "earliest")).toEqual({ offset: 0 });
  });
});

describe("topic(name) on the wire (issue 19)", () => {
  it("asks for uncompressed answers on binary produce and fetch, and leaves JSON calls to the runtime's default", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    await client.topic("orders").produce([{ value: "a" }]);
    await client.topic("orders").fetch(0, 0);
    await client.topic("orders").describe();
    const produce = server.requests.find((request) => request.method === "POST" && request.path.endsWith("/records"));
    const fetch = server.requests.find((request) => request.method === "GET" && request.path.endsWith("/records"));
    const describe = server.requests.at(-1);
    expect(produce!.headers.get("accept-encoding")).toBe("identity");
    expect(fetch!.headers.get("accept-encoding")).toBe("identity");
    expect(describe!.headers.get("accept-encoding")).toBeNull();
  });

  it("fetches the records of several whole batches in order, and from inside the first", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const topic = client.topic("orders");
    for (const batch of [["a", "b"], ["c"], ["d", "e", "f"]]) await topic.produce(batch.map((value) => ({ value })));
    expect((await topic.fetch(0, 0)).records.map((record) => [record.offset, text(record.value)])).toEqual([[0, "a"], [1, "b"], [2, "c"], [3, "d"], [4, "e"], [5, "f"]]);
    expect((await topic.fetch(0, 4)).records.map((record) => text(record.value))).toEqual(["e", "f"]);
  });
});
