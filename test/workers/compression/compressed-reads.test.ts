/**
 * Every path that shows records decodes compressed batches (issue 27): one partition holding a
 * batch in each codec (gzip, snappy, lz4, zstd), read through SSE (partition and topic, base64
 * as the console's message browser asks, and its JSON fetch), WebSocket JSON frames, a share
 * fetch, a push subscription's deliveries (service binding; the webhook is the same delivery
 * batch, test/e2e/subscriptions-webhook.test.ts reads a zstd topic through one) and the Durable
 * Streams front.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import type { CompressionCodec } from "../../../src/protocol/compression/codecs.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { batchCodec, compressBatch } from "../../../src/protocol/record-batch-compression.ts";
import { api, createTopic, fetchOk, uniqueTopic } from "../support/http.ts";
import { setConfigs, shareFetch, uniqueShareGroup } from "../share-groups/support.ts";
import { readRecords, stream } from "../streams/support.ts";
import { open } from "../streams/websocket-support.ts";
import { createSubscription, offsetsOf, received, uniqueSubscription, until } from "../subscriptions/support/subscriptions.ts";
import { jsonRecords, produceBinary, storedBatches } from "./support.ts";

const codecs: CompressionCodec[] = ["gzip", "snappy", "lz4", "zstd"];
const perBatch = 3;
const sent = jsonRecords(codecs.length * perBatch);
const expectedValues = sent.map((record) => new TextDecoder().decode(record.value!));
const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

/** Writes one batch per codec and checks they are stored compressed, each in its codec. */
async function produceCompressed(topic: string): Promise<void> {
  for (const [i, codec] of codecs.entries()) {
    const batch = compressBatch(encodeRecordBatch(sent.slice(i * perBatch, (i + 1) * perBatch)), codec);
    expect((await produceBinary(topic, batch)).status).toBe(200);
  }
  const stored = await storedBatches(topic);
  expect(stored.map((batch) => batchCodec({ attributes: (batch[21]! << 8) | batch[22]! }))).toEqual(codecs);
}

async function compressedTopic(prefix: string): Promise<string> {
  const topic = uniqueTopic(prefix);
  await createTopic(topic);
  await produceCompressed(topic);
  return topic;
}

describe("compressed batches on every path that shows records", () => {
  it("SSE on a partition, and the console's reads: its JSON fetch and its topic SSE in base64", async () => {
    const topic = uniqueTopic("compressed-sse");
    await createTopic(topic);
    // The console's message browser follows a topic from latest (console/src/pages/messages.tsx).
    const browser = await stream(`/v1/topics/${topic}/records?offset=latest&encoding=base64`);
    await produceCompressed(topic);
    const partition = await stream(`/v1/topics/${topic}/partitions/0/records?offset=earliest`);
    expect((await readRecords(partition, sent.length)).records.map((record) => record.value)).toEqual(expectedValues);
    await partition.close();
    expect((await readRecords(browser, sent.length)).records.map((record) => record.value)).toEqual(expectedValues.map(base64));
    await browser.close();
    // console/src/record-reads.ts: a page of a partition, base64.
    const page = await fetchOk(topic, 0, { offset: 0, maxRecords: 100, encoding: "base64" });
    expect(page.records.map((record) => record.value)).toEqual(expectedValues.map(base64));
    expect(page.records[0]).toMatchObject({ key: base64("user-0"), headers: { source: "web" } }); // encoding applies to keys and values
  });

  it("WebSocket JSON frames", async () => {
    const topic = await compressedTopic("compressed-ws");
    const subscriber = await open(topic, 0, "?offset=earliest");
    await subscriber.until(() => subscriber.values().length >= sent.length);
    expect(subscriber.values()).toEqual(expectedValues);
    expect(subscriber.jsonFrames()[0]!.records![0]).toMatchObject({ offset: 0, key: "user-0", headers: { source: "web" } });
    subscriber.socket.close(1000);
  });

  it("a share fetch", async () => {
    const topic = await compressedTopic("compressed-share");
    const group = uniqueShareGroup("compressed");
    expect((await setConfigs(group, { "auto.offset.reset": "earliest" })).status).toBe(200);
    const answer = await shareFetch(group, { topics: [topic], maxRecords: 100 });
    expect(answer.records.map((record) => [record.offset, record.value])).toEqual(expectedValues.map((value, offset) => [offset, value]));
    expect(answer.records[0]).toMatchObject({ key: "user-0", headers: { source: "web" } });
  });

  it("a push subscription's deliveries", async () => {
    const topic = uniqueTopic("compressed-push");
    await createTopic(topic);
    const name = uniqueSubscription("compressed");
    await createSubscription({ name, topic, from: "earliest", batchSize: 100 });
    await produceCompressed(topic);
    await until("every record delivered", async () => offsetsOf(await received(name)).length >= sent.length);
    const records = (await received(name)).flatMap((batch) => batch.records);
    expect(records.map((record) => [record.offset, record.value])).toEqual(expectedValues.map((value, offset) => [offset, value]));
    expect(records[0]).toMatchObject({ key: "user-0", headers: { source: "web" } });
  });

  it("the Durable Streams front", async () => {
    const path = `tests/compressed-${Date.now()}`;
    const call = async (method: string, query = "", body?: string) => {
      const response = await exports.default.fetch(new Request(`http://tributary.test/ds/${path}${query}`, { method, headers: { "content-type": "text/plain" }, body }));
      return { status: response.status, text: await response.text() };
    };
    expect((await call("PUT")).status).toBe(201);
    const topic = streamTopicName(path);
    // Appends through the front, stored in zstd by the topic's compression.type, then (compression.type producer again) a batch the binary route took in lz4.
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "compression.type": "zstd" } })).status).toBe(200);
    expect((await call("POST", "", "first,")).status).toBe(204);
    expect((await call("POST", "", "second,")).status).toBe(204);
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "compression.type": "producer" } })).status).toBe(200);
    const lz4 = compressBatch(encodeRecordBatch([{ key: null, value: new TextEncoder().encode("third"), headers: [], timestamp: Date.now() }]), "lz4");
    expect((await produceBinary(topic, lz4)).status).toBe(200);
    const stored = await storedBatches(topic);
    expect(stored.map((batch) => batchCodec({ attributes: (batch[21]! << 8) | batch[22]! }))).toEqual(["zstd", "zstd", "lz4"]);
    const read = await call("GET", "?offset=-1");
    expect(read).toEqual({ status: 200, text: "first,second,third" });
  });
});
