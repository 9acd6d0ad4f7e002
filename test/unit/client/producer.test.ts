import { describe, expect, it } from "vitest";
import { partitionForKey } from "../../../src/protocol/partitioner.ts";
import { splitBatches } from "../../../src/protocol/record-batch.ts";
import { isTributaryError, TributaryError } from "../../../src/client/index.ts";
import { fakeClient, produceRequests, text, utf8 } from "./support/client.ts";

/** A produce request (not the idempotent producer's POST /v1/producers, which comes first). */
const isProduce = (request: { method: string; path: string }) => request.method === "POST" && request.path.endsWith("/records");

describe("producer batching", () => {
  it("gathers the records of several sends within lingerMs into one request per partition", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 30 });
    const sends = [0, 1, 2].map((i) => producer.send({ topic: "orders", messages: [{ value: `m${i}` }, { value: `n${i}` }] }));
    const results = await Promise.all(sends);
    expect(produceRequests(server)).toHaveLength(1);
    expect(results.flat().map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(server.records("orders", 0).map((r) => text(r.value))).toEqual(["m0", "n0", "m1", "n1", "m2", "n2"]);
  });

  it("sends at once when a partition holds batchBytes, without waiting for lingerMs", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 60_000, batchBytes: 1024 });
    const started = Date.now();
    await producer.send({ topic: "orders", messages: [{ value: "x".repeat(2000) }] });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(produceRequests(server)).toHaveLength(1);
  });

  it("sends what queued while a request was in flight as one request, cut into batches of at most batchBytes", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0, batchBytes: 4096 });
    server.failNext(isProduce, { kind: "delay", ms: 50 });
    const first = producer.send({ topic: "orders", messages: [{ value: "first" }] });
    await new Promise((resolve) => setTimeout(resolve, 10)); // the first request is in flight
    const messages = Array.from({ length: 100 }, (_, i) => ({ value: `${i}`.padEnd(200, ".") }));
    const results = await producer.send({ topic: "orders", messages });
    await first;
    const requests = produceRequests(server);
    expect(requests).toHaveLength(2);
    const batches = [...splitBatches(requests[1]!.body)];
    expect(batches.length).toBeGreaterThan(4);
    for (const { start, end } of batches) expect(end - start).toBeLessThanOrEqual(4096);
    expect(results.map((r) => r.offset)).toEqual(messages.map((_, i) => i + 1));
    expect(server.records("orders", 0).map((r) => text(r.value))).toEqual(["first", ...messages.map((m) => m.value)]);
  });

  it("flush sends lingering records now and waits for them", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 60_000 });
    const sent = producer.send({ topic: "orders", messages: [{ value: "a" }] });
    await producer.flush();
    expect((await sent)[0]!.offset).toBe(0);
    expect(server.records("orders", 0)).toHaveLength(1);
  });

  it("close flushes, then refuses sends", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 60_000 });
    const sent = producer.send({ topic: "orders", messages: [{ value: "a" }] });
    await producer.close();
    await expect(sent).resolves.toHaveLength(1);
    await expect(producer.send({ topic: "orders", messages: [{ value: "b" }] })).rejects.toThrow(/closed/);
  });

  it("keeps one request in flight per partition, so records stay in send order", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0 });
    server.failNext(isProduce, { kind: "error", status: 503, body: { error: { code: "NOT_ENOUGH_REPLICAS", message: "later" } } });
    const sends = Array.from({ length: 20 }, (_, i) => producer.send({ topic: "orders", messages: [{ value: `${i}` }] }));
    await Promise.all(sends);
    expect(server.records("orders", 0).map((r) => text(r.value))).toEqual(Array.from({ length: 20 }, (_, i) => `${i}`));
  });

  it("waits for room once bufferBytes are queued, and still delivers everything", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 1, batchBytes: 2048, bufferBytes: 4096 });
    const messages = Array.from({ length: 200 }, (_, i) => ({ value: `${i}`.padEnd(100, "-") }));
    const results = await Promise.all(messages.map((message) => producer.send({ topic: "orders", messages: [message] })));
    expect(results.flat().map((r) => r.offset)).toEqual(messages.map((_, i) => i));
    expect(produceRequests(server).length).toBeGreaterThan(4);
  });

  it("answers offset -1 with acks 0, as Kafka's RecordMetadata", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const [result] = await client.producer({ acks: 0, lingerMs: 0 }).send({ topic: "orders", messages: [{ value: "a" }] });
    expect(result!.offset).toBe(-1);
    expect(produceRequests(server)[0]!.query.get("acks")).toBe("0");
  });
});

describe("producer request pacing (requestsPerSecond: each request is billed, whatever it carries)", () => {
  it("by default starts two requests a partition at once, then holds later records for the partition's pace and sends them together", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0 });
    await producer.send({ topic: "orders", messages: [{ value: "a" }] });
    await producer.send({ topic: "orders", messages: [{ value: "b" }] });
    const later = ["c", "d", "e", "f"].map((value) => producer.send({ topic: "orders", messages: [{ value }] }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(produceRequests(server)).toHaveLength(2); // c … f wait for the bucket (500 ms after the first request)
    expect((await Promise.all(later)).flat().map((r) => r.offset)).toEqual([2, 3, 4, 5]);
    expect(produceRequests(server)).toHaveLength(3);
    expect(server.records("orders", 0).map((r) => text(r.value))).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("sends a full batch at once whatever the pace", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0, batchBytes: 1024, requestsPerSecond: 1 / 60 });
    await producer.send({ topic: "orders", messages: [{ value: "first" }] });
    // The next paced request could start in a minute (past the test's timeout); a full batch need not wait.
    await producer.send({ topic: "orders", messages: [{ value: "x".repeat(2000) }] });
    expect(produceRequests(server)).toHaveLength(2);
  });

  it("flush sends paced records now", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0, requestsPerSecond: 1 / 60 });
    await producer.send({ topic: "orders", messages: [{ value: "a" }] });
    const held = producer.send({ topic: "orders", messages: [{ value: "b" }] });
    await producer.flush();
    expect((await held)[0]!.offset).toBe(1);
  });

  it("paces partitions apart: a held partition does not hold another", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 2);
    const producer = client.producer({ lingerMs: 0, requestsPerSecond: 1 / 60 });
    await producer.send({ topic: "orders", messages: [{ value: "a", partition: 0 }] });
    const held = producer.send({ topic: "orders", messages: [{ value: "b", partition: 0 }] });
    await producer.send({ topic: "orders", messages: [{ value: "c", partition: 1 }] });
    expect(server.records("orders", 0)).toHaveLength(1);
    await producer.close();
    expect((await held)[0]!.offset).toBe(1);
  });

  it("with requestsPerSecond Infinity starts each request as soon as lingerMs allows, as Kafka's producers", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0, requestsPerSecond: Infinity });
    for (const value of ["a", "b", "c"]) await producer.send({ topic: "orders", messages: [{ value }] });
    const last = producer.send({ topic: "orders", messages: [{ value: "d" }] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(produceRequests(server)).toHaveLength(4); // paced (the default), d would wait until 1,000 ms
    await last;
  });

  it("refuses a rate that is not a number of at least one a minute", () => {
    const { client } = fakeClient();
    for (const bad of [0, -1, Number.NaN, 1 / 61, "2" as unknown as number]) {
      expect(() => client.producer({ requestsPerSecond: bad })).toThrow(/requestsPerSecond/);
    }
    expect(() => client.producer({ requestsPerSecond: 0.5 })).not.toThrow();
  });
});

describe("producer partitioning", () => {
  it("puts a keyed record where Kafka's default partitioner does", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 7);
    const producer = client.producer({ lingerMs: 0 });
    const keys = Array.from({ length: 50 }, (_, i) => `user-${i}`);
    const results = await producer.send({ topic: "orders", messages: keys.map((key) => ({ key, value: key })) });
    results.forEach((result, i) => expect(result.partition).toBe(partitionForKey(utf8(keys[i]!), 7)));
    for (const result of results) {
      const stored = server.records("orders", result.partition).find((r) => r.offset === result.offset);
      expect(text(stored!.key)).toBe(keys[results.indexOf(result)]);
    }
  });

  it("keeps the known vectors: 'user-1' on partition 2 of 3 (the README's walkthrough)", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 3);
    const [result] = await client.producer({ lingerMs: 0 }).send({ topic: "orders", messages: [{ key: "user-1", value: "hello" }] });
    expect(result!.partition).toBe(2);
  });

  it("sends keyless records under 16 KiB to one partition (sticky) and honours an explicit partition", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 8);
    const producer = client.producer({ lingerMs: 0 });
    const results = await producer.send({ topic: "orders", messages: [...Array.from({ length: 20 }, () => ({ value: "v" })), { value: "p", partition: 5 }] });
    expect(new Set(results.slice(0, 20).map((r) => r.partition)).size).toBe(1);
    expect(results[20]!.partition).toBe(5);
  });

  it("spreads 100,000 short keyless records over every partition in ≈16 KiB chunks, in requests of many chunks; keyed ones stay put", async () => {
    const { server, client } = fakeClient();
    server.createTopic("lines", 3);
    const producer = client.producer();
    const messages = Array.from({ length: 100_000 }, (_, i) => (i % 100 === 0 ? { key: `k${i % 7}`, value: `keyed ${i}` } : { value: `line ${i}` }));
    const results = await producer.send({ topic: "lines", messages });
    for (let i = 0; i < messages.length; i += 100) expect(results[i]!.partition).toBe(partitionForKey(utf8(`k${i % 7}`), 3));
    let chunks = 0;
    for (const partition of [0, 1, 2]) {
      const stored = server.records("lines", partition).map((record) => text(record.value)!);
      const keyless = stored.filter((value) => value.startsWith("line "));
      expect(keyless.length).toBeGreaterThan(20_000);
      // Keyed records keep their send order within their partition.
      const keyed = stored.filter((value) => value.startsWith("keyed ")).map((value) => Number(value.slice(6)));
      expect(keyed).toEqual([...keyed].sort((a, b) => a - b));
      // Runs of consecutive line numbers: the chunks this partition got, each ≈16 KiB.
      const numbers = keyless.map((value) => Number(value.slice(5)));
      const runs: number[][] = [];
      for (const n of numbers) {
        const run = runs.at(-1);
        if (run !== undefined && messages.slice(run.at(-1)! + 1, n).every((message) => "key" in message)) run.push(n);
        else runs.push([n]);
      }
      for (const run of runs) {
        const bytes = run.reduce((sum, n) => sum + 24 + `line ${n}`.length, 0);
        if (!run.includes(99_999)) expect(bytes).toBeGreaterThanOrEqual(16_384); // the last chunk may be short
        expect(bytes).toBeLessThan(16_384 + 40);
      }
      chunks += runs.length;
    }
    // How much one request carries is its own matter: about 1 MiB (batchBytes), many chunks each.
    expect(produceRequests(server).length).toBeLessThan(chunks / 10);
  });

  it("topic(...).produce spreads keyless records ≈16 KiB at a time too", async () => {
    const { server, client } = fakeClient();
    server.createTopic("lines", 3);
    const results = await client.topic("lines").produce(Array.from({ length: 10_000 }, (_, i) => ({ value: `line ${i}` })));
    expect(new Set(results.map((result) => result.partition)).size).toBe(3);
  });

  it("caches topic metadata between sends", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 3);
    const producer = client.producer({ lingerMs: 0 });
    for (let i = 0; i < 5; i++) await producer.send({ topic: "orders", messages: [{ key: `k${i}`, value: "v" }] });
    expect(server.requestsTo(/^\/v1\/topics\/orders$/, "GET")).toHaveLength(1);
  });
});

describe("producer retries", () => {
  it("retries a retriable error with backoff and writes once", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    for (let i = 0; i < 2; i++) {
      server.failNext(isProduce, { kind: "error", status: 503, body: { error: { code: "LEADER_NOT_AVAILABLE", message: "electing" } } });
    }
    const [result] = await client.producer({ lingerMs: 0 }).send({ topic: "orders", messages: [{ value: "a" }] });
    expect(result!.offset).toBe(0);
    expect(produceRequests(server)).toHaveLength(3);
    expect(server.records("orders", 0)).toHaveLength(1);
  });

  it("refreshes metadata on NOT_LEADER_OR_FOLLOWER", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 2);
    const producer = client.producer({ lingerMs: 0 });
    await producer.send({ topic: "orders", messages: [{ key: "a", value: "a" }] });
    server.failNext(isProduce, { kind: "error", status: 503, body: { error: { code: "NOT_LEADER_OR_FOLLOWER", message: "moved" } } });
    await producer.send({ topic: "orders", messages: [{ key: "a", value: "b" }] });
    expect(server.requestsTo(/^\/v1\/topics\/orders$/, "GET")).toHaveLength(1);
    await producer.send({ topic: "orders", messages: [{ key: "a", value: "c" }] });
    expect(server.requestsTo(/^\/v1\/topics\/orders$/, "GET")).toHaveLength(2);
  });

  it("retries UNKNOWN_TOPIC_OR_PARTITION while fresh metadata still has the partition", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 2);
    server.failNext(isProduce, { kind: "error", status: 404, body: { error: { code: "UNKNOWN_TOPIC_OR_PARTITION", message: "stale router" } } });
    const [result] = await client.producer({ lingerMs: 0 }).send({ topic: "orders", messages: [{ value: "a", partition: 1 }] });
    expect(result).toMatchObject({ partition: 1, offset: 0 });
  });

  it("fails with UNKNOWN_TOPIC_OR_PARTITION for a partition the topic does not have", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 2);
    const error = await client
      .producer({ lingerMs: 0 })
      .send({ topic: "orders", messages: [{ value: "a", partition: 9 }] })
      .catch((e: unknown) => e);
    expect(isTributaryError(error, "UNKNOWN_TOPIC_OR_PARTITION")).toBe(true);
    expect(produceRequests(server)).toHaveLength(1);
  });

  it("does not retry an error that is not retriable", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    server.failNext(isProduce, { kind: "error", status: 413, body: { error: { code: "MESSAGE_TOO_LARGE", message: "too big" } } });
    const error = await client.producer({ lingerMs: 0 }).send({ topic: "orders", messages: [{ value: "a" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TributaryError);
    expect((error as TributaryError).code).toBe("MESSAGE_TOO_LARGE");
    expect(produceRequests(server)).toHaveLength(1);
  });

  it("gives up after retry.retries and rejects every record of the request", async () => {
    const { server, client } = fakeClient({ retry: { retries: 2 } });
    server.createTopic("orders", 1);
    for (let i = 0; i < 3; i++) server.failNext(isProduce, { kind: "drop-before" });
    const producer = client.producer({ lingerMs: 5 });
    const sends = [producer.send({ topic: "orders", messages: [{ value: "a" }] }), producer.send({ topic: "orders", messages: [{ value: "b" }] })];
    const outcomes = await Promise.allSettled(sends);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(((outcomes[0] as PromiseRejectedResult).reason as TributaryError).code).toBe("NETWORK_EXCEPTION");
    expect(produceRequests(server)).toHaveLength(3);
  });

  it("without idempotence, a retry after a dropped response writes the records twice (why idempotence matters)", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    server.failNext(isProduce, { kind: "drop-after" });
    await client.producer({ lingerMs: 0, idempotent: false }).send({ topic: "orders", messages: [{ value: "a" }] });
    expect(server.records("orders", 0)).toHaveLength(2);
  });
});

describe("idempotent producer (client half; the server half is src/log/producer-state.ts)", () => {
  it("is on by default with acks all: batches carry the producer id from POST /v1/producers", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    await client.producer({ lingerMs: 0 }).send({ topic: "orders", messages: [{ value: "a" }] });
    const [batch] = [...splitBatches(produceRequests(server)[0]!.body)];
    const [opened] = server.requestsTo(/\/v1\/producers/);
    expect(server.requestsTo(/\/v1\/producers/)).toHaveLength(1);
    // The topic it is about to write: a token that may write no topic is refused with that topic's 403.
    expect(JSON.parse(new TextDecoder().decode(opened!.body))).toEqual({ topic: "orders" });
    expect(batch!.header.producerId).toBeGreaterThanOrEqual(0);
    expect([batch!.header.producerEpoch, batch!.header.baseSequence]).toEqual([0, 0]);
  });

  it("is off by default with acks 1 or 0 (as Kafka), and with idempotent: false: batches carry no producer id", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    await client.producer({ lingerMs: 0, acks: 1 }).send({ topic: "orders", messages: [{ value: "a" }] });
    await client.producer({ lingerMs: 0, idempotent: false }).send({ topic: "orders", messages: [{ value: "b" }] });
    for (const request of produceRequests(server)) expect([...splitBatches(request.body)][0]!.header.producerId).toBe(-1);
    expect(server.requestsTo(/\/v1\/producers/)).toHaveLength(0);
  });

  it("with idempotent: true, a retry after a dropped response resends the same sequence and writes once", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0, idempotent: true });
    await producer.send({ topic: "orders", messages: [{ value: "a" }, { value: "b" }] });
    server.failNext(isProduce, { kind: "drop-after" });
    const results = await producer.send({ topic: "orders", messages: [{ value: "c" }] });
    expect(results[0]!.offset).toBe(2);
    expect(server.records("orders", 0).map((r) => text(r.value))).toEqual(["a", "b", "c"]);
    const sequences = produceRequests(server).map((r) => [...splitBatches(r.body)][0]!.header.baseSequence);
    expect(sequences).toEqual([0, 2, 2]);
  });

  it("numbers the batches of one request consecutively, continuing across requests", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0, batchBytes: 1024, idempotent: true });
    server.failNext(isProduce, { kind: "delay", ms: 50 });
    const first = producer.send({ topic: "orders", messages: [{ value: "first" }] });
    await new Promise((resolve) => setTimeout(resolve, 10)); // in flight: what follows queues up
    await producer.send({ topic: "orders", messages: Array.from({ length: 30 }, (_, i) => ({ value: `${i}`.padEnd(100, "-") })) });
    await first;
    const [, second] = produceRequests(server);
    const headers = [...splitBatches(second!.body)].map((batch) => batch.header);
    expect(headers.length).toBeGreaterThan(1);
    let expected = 1; // the first request took sequence 0
    for (const header of headers) {
      expect(header.baseSequence).toBe(expected);
      expected += header.recordCount;
    }
    expect(server.records("orders", 0)).toHaveLength(31);
  });

  it("needs acks all", () => {
    const { client } = fakeClient();
    expect(() => client.producer({ idempotent: true, acks: 1 })).toThrow(/acks "all"/);
  });
});

describe("producer input", () => {
  it("refuses a message without a value, a bad partition or timestamp before sending anything", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0 });
    await expect(producer.send({ topic: "orders", messages: [{} as never] })).rejects.toThrow(/value is required/);
    await expect(producer.send({ topic: "orders", messages: [{ value: "a", partition: -1 }] })).rejects.toThrow(/partition/);
    await expect(producer.send({ topic: "orders", messages: [{ value: "a", timestamp: 1.5 }] })).rejects.toThrow(/timestamp/);
    expect(produceRequests(server)).toHaveLength(0);
  });

  it("copies a value at send, so reusing the caller's buffer before the batch goes changes nothing", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const buffer = Buffer.from("original");
    const sent = client.producer({ lingerMs: 20 }).send({ topic: "orders", messages: [{ value: buffer }] });
    buffer.fill(0);
    await sent;
    expect(text(server.records("orders", 0)[0]!.value)).toBe("original");
  });

  it("writes bytes, null values, headers and timestamps exactly", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const value = new Uint8Array([0, 255, 10, 13]);
    await client.producer({ lingerMs: 0 }).send({
      topic: "orders",
      messages: [
        { key: "k", value, headers: JSON.parse('{"__proto__": "p", "trace": "t"}'), timestamp: 1_764_673_200_000 },
        { key: null, value: null },
      ],
    });
    const [first, second] = server.records("orders", 0);
    expect([...first!.value!]).toEqual([...value]);
    expect(first!.timestamp).toBe(1_764_673_200_000);
    expect(first!.headers.map((h) => [h.key, text(h.value)])).toEqual([
      ["__proto__", "p"],
      ["trace", "t"],
    ]);
    expect(second!.key).toBeNull();
    expect(second!.value).toBeNull();
  });
});

describe("producer records written at send (issue 19: each record straight into its partition's batch)", () => {
  it("copies bytes at send on every path: metadata cached, room in the buffer, or waiting for room", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 5, batchBytes: 1024, bufferBytes: 2048 });
    await producer.send({ topic: "orders", messages: [{ value: "warm" }] }); // the topic's metadata is now cached
    const buffers = Array.from({ length: 40 }, (_, i) => Buffer.from(`value-${i}`.padEnd(200, ".")));
    const keys = buffers.map((_, i) => Buffer.from(`key-${i}`));
    // 40 × ≈240 B is more than bufferBytes: the later messages of this send wait for room.
    const sent = producer.send({ topic: "orders", messages: buffers.map((value, i) => ({ key: keys[i]!, value, headers: { h: Buffer.from("hv") } })) });
    for (const buffer of [...buffers, ...keys]) buffer.fill(0);
    const results = await sent;
    expect(results.map((result) => result.offset)).toEqual(buffers.map((_, i) => i + 1));
    const written = server.records("orders", 0).slice(1);
    expect(written.map((record) => text(record.value))).toEqual(buffers.map((_, i) => `value-${i}`.padEnd(200, ".")));
    expect(written.map((record) => text(record.key))).toEqual(keys.map((_, i) => `key-${i}`));
    expect(written.map((record) => text(record.headers[0]!.value))).toEqual(buffers.map(() => "hv"));
  });

  it("copies bytes at send when a long send pauses for the event loop while its first request is out", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0, batchBytes: 1024 }); // the default 32 MiB buffer: no wait for room
    await producer.send({ topic: "orders", messages: [{ value: "warm" }] });
    const buffers = Array.from({ length: 40 }, (_, i) => Buffer.from(`value-${i}`.padEnd(200, ".")));
    const sent = producer.send({ topic: "orders", messages: buffers.map((value) => ({ value })) });
    for (const buffer of buffers) buffer.fill(0);
    await sent;
    expect(produceRequests(server).length).toBeGreaterThan(2);
    expect(server.records("orders", 0).slice(1).map((record) => text(record.value))).toEqual(buffers.map((_, i) => `value-${i}`.padEnd(200, ".")));
  });

  it("with lingerMs 0, still gathers the sends of one turn of the event loop into one request", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0 });
    await producer.send({ topic: "orders", messages: [{ value: "warm" }] }); // metadata cached: the sends below queue at once
    const sends = [0, 1, 2].map((i) => producer.send({ topic: "orders", messages: [{ value: `m${i}` }] }));
    expect((await Promise.all(sends)).flat().map((result) => result.offset)).toEqual([1, 2, 3]);
    expect(produceRequests(server)).toHaveLength(2);
  });

  it("answers each message of interleaved sends over several partitions with its own partition and offset", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 3);
    const producer = client.producer({ lingerMs: 10 });
    const sends = [0, 1].map((s) =>
      producer.send({ topic: "orders", messages: Array.from({ length: 30 }, (_, i) => ({ key: `user-${i % 7}`, value: `${s}:${i}`, timestamp: 1_000 + (i % 3) })) }),
    );
    const results = await Promise.all(sends);
    for (const [s, answered] of results.entries()) {
      answered.forEach((result, i) => {
        expect(result.partition).toBe(partitionForKey(utf8(`user-${i % 7}`), 3));
        expect(result.timestamp).toBe(1_000 + (i % 3));
        const stored = server.records("orders", result.partition).find((record) => record.offset === result.offset)!;
        expect(text(stored.value)).toBe(`${s}:${i}`);
      });
    }
  });

  it("cuts a send larger than one request (8 MiB) into several requests in order, each record answered", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 0 });
    const value = "v".repeat(1000);
    const messages = Array.from({ length: 12_000 }, (_, i) => ({ key: `${i}`, value }));
    const results = await producer.send({ topic: "orders", messages });
    expect(produceRequests(server).length).toBeGreaterThanOrEqual(2);
    expect(results.map((result) => result.offset)).toEqual(messages.map((_, i) => i));
    const stored = server.records("orders", 0);
    expect(stored).toHaveLength(12_000);
    expect(stored.every((record, i) => text(record.key) === `${i}`)).toBe(true);
  });

  it("rejects the sends whose records were in a failed request, and keeps serving later ones", async () => {
    const { server, client } = fakeClient({ retry: { retries: 0 } });
    server.createTopic("orders", 1);
    const producer = client.producer({ lingerMs: 20 });
    server.failNext(isProduce, { kind: "error", status: 400, body: { error: { code: "INVALID_RECORD", message: "no" } } });
    const failing = [producer.send({ topic: "orders", messages: [{ value: "a" }] }), producer.send({ topic: "orders", messages: [{ value: "b" }] })];
    for (const sent of failing) await expect(sent).rejects.toSatisfy((error: unknown) => isTributaryError(error, "INVALID_RECORD"));
    await expect(producer.send({ topic: "orders", messages: [{ value: "c" }] })).resolves.toMatchObject([{ offset: 0 }]);
  });
});
