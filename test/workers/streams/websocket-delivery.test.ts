/**
 * WebSocket subscribers on a partition (docs/api.md, "WebSocket on a partition"): every
 * committed record once and in order while a producer writes, as JSON or as binary record
 * batches byte-equal to a binary fetch; many subscribers served by one read per position;
 * refusals before the upgrade as fetch's.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import type { PartitionReplica } from "../../../src/objects/partition-replica.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { api, baseUrl, createTopic, describeTopic, expectError, uniqueTopic } from "../support/http.ts";
import { open, recordBatchSubprotocol, subscribe } from "./websocket-support.ts";

async function produce(topic: string, values: string[]) {
  const response = await api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })) });
  expect(response.status, response.text).toBe(200);
}

async function binaryFetch(topic: string, offset: number): Promise<Uint8Array> {
  const url = `${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxBytes=1048576`;
  const response = await exports.default.fetch(new Request(url, { headers: { accept: "application/vnd.tributary.record-batch" } }));
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** The leader's debug statistics (TRIBUTARY_FAULTS=1 in this layer). */
async function debugStats(topic: string) {
  const { topicId, partitions } = await describeTopic(topic);
  const region = partitions[0]!.leader;
  return { debug: unwrap(await replicaStub(env, topicId, 0, region).state({ topicId, partition: 0, region })).debug };
}

describe("a WebSocket subscriber", () => {
  it("receives every committed record once and in order as JSON while a producer writes", async () => {
    const topic = uniqueTopic("ws-json");
    await createTopic(topic);
    await produce(topic, ["a", "b"]);
    const subscriber = await open(topic, 0, "?offset=earliest");
    const expected = ["a", "b"];
    for (let round = 0; round < 10; round++) {
      const values = [`x${round}`, `y${round}`];
      expected.push(...values);
      await produce(topic, values);
    }
    await subscriber.until(() => subscriber.values().length >= expected.length);
    expect(subscriber.values()).toEqual(expected);
    const frames = subscriber.jsonFrames();
    expect(frames.at(-1)).toMatchObject({ nextOffset: 22, highWatermark: 22, logStartOffset: 0 });
    expect(frames.flatMap((frame) => frame.records!.map((record) => record.offset))).toEqual(expected.map((_, offset) => offset));
    subscriber.socket.close(1000);
  });

  it("gets every record once, in order and committed only, from concurrent producers, as JSON and as binary", async () => {
    const topic = uniqueTopic("ws-concurrent");
    await createTopic(topic, { replicationFactor: 3 }); // the high watermark moves as followers answer
    const json = await open(topic, 0, "?offset=earliest");
    const binary = await open(topic, 0, "?offset=earliest", { "Sec-WebSocket-Protocol": recordBatchSubprotocol });
    const requests = Array.from({ length: 12 }, (_, request) => Array.from({ length: 5 }, (_, index) => `${request}-${index}`));
    await Promise.all(requests.map((values) => api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })), acks: 1 })));
    await json.until(() => json.values().length >= 60);
    const frames = json.jsonFrames();
    const offsets = frames.flatMap((frame) => frame.records!.map((record) => record.offset));
    expect(offsets).toEqual([...Array(60).keys()]);
    for (const frame of frames) for (const record of frame.records!) expect(record.offset).toBeLessThan(frame.highWatermark!);
    expect(new Set(json.values()).size).toBe(60);
    const expected = await binaryFetch(topic, 0);
    await binary.until(() => binary.binaryBytes().byteLength >= expected.byteLength);
    expect(binary.binaryBytes()).toEqual(expected);
    json.socket.close(1000);
    binary.socket.close(1000);
  });

  it("upgrades a browser's request (with an Origin, as browsers send it)", async () => {
    const topic = uniqueTopic("ws-origin");
    await createTopic(topic);
    const subscriber = await open(topic, 0, "", { Origin: "https://app.example" });
    await produce(topic, ["hello"]);
    await subscriber.until(() => subscriber.values().length >= 1);
    expect(subscriber.values()).toEqual(["hello"]);
    subscriber.socket.close(1000);
  });

  it("starts at latest by default and sends only what is committed after it", async () => {
    const topic = uniqueTopic("ws-latest");
    await createTopic(topic);
    await produce(topic, ["old"]);
    const subscriber = await open(topic, 0, "?encoding=base64");
    await produce(topic, ["new"]);
    await subscriber.until(() => subscriber.values().length >= 1);
    expect(subscriber.jsonFrames()[0]!.records).toEqual([expect.objectContaining({ offset: 1, value: btoa("new"), key: null })]);
  });

  it("sends whole stored batches as binary frames with the record-batch subprotocol, byte-equal to a binary fetch", async () => {
    const topic = uniqueTopic("ws-binary");
    await createTopic(topic);
    await produce(topic, ["one"]);
    const opened = await subscribe(topic, 0, "?offset=0", { "Sec-WebSocket-Protocol": recordBatchSubprotocol });
    expect(opened.subscriber).toBeDefined();
    if (!opened.subscriber) return;
    expect(opened.response.headers.get("Sec-WebSocket-Protocol")).toBe(recordBatchSubprotocol);
    const subscriber = opened.subscriber;
    for (let round = 0; round < 5; round++) await produce(topic, [`r${round}a`, `r${round}b`, `r${round}c`]);
    const expected = await binaryFetch(topic, 0);
    await subscriber.until(() => subscriber.binaryBytes().byteLength >= expected.byteLength);
    expect(subscriber.binaryBytes()).toEqual(expected);
    expect(subscriber.frames.every((frame) => typeof frame !== "string")).toBe(true);
  });

  it("serves many subscribers at one position with one read per commit, each getting every record", async () => {
    const topic = uniqueTopic("ws-many");
    await createTopic(topic);
    const subscribers = await Promise.all(Array.from({ length: 25 }, () => open(topic, 0, "?offset=latest")));
    const before = (await debugStats(topic)).debug!;
    const expected: string[] = [];
    for (let round = 0; round < 4; round++) {
      const values = [`v${round}`];
      expected.push(...values);
      await produce(topic, values);
      await Promise.all(subscribers.map((subscriber) => subscriber.until(() => subscriber.values().length >= expected.length)));
    }
    for (const subscriber of subscribers) expect(subscriber.values()).toEqual(expected);
    const after = (await debugStats(topic)).debug!;
    expect(after.subscribers).toBe(25);
    expect(after.framesPushed - before.framesPushed).toBe(25 * 4);
    // One read per commit serves all 25 (a read per subscriber would be 100).
    expect(after.subscriberReads - before.subscriberReads).toBe(4);
  });

  it("sends subscribers at one position the same frame and counts its UTF-8 bytes against each window", async () => {
    const topic = uniqueTopic("ws-same-frame");
    await createTopic(topic);
    const subscribers = await Promise.all(Array.from({ length: 3 }, () => open(topic, 0, "?offset=latest")));
    const before = (await debugStats(topic)).debug!;
    const values = ["é", "€uro", "😀 emoji", "plain"];
    await produce(topic, values);
    await Promise.all(subscribers.map((subscriber) => subscriber.until(() => subscriber.values().length >= values.length)));
    const frames = subscribers.map((subscriber) => subscriber.frames);
    for (const received of frames) expect(received).toEqual(frames[0]);
    const after = (await debugStats(topic)).debug!;
    const utf8Bytes = frames.flat().reduce((sum, frame) => sum + new TextEncoder().encode(frame as string).byteLength, 0);
    // The bytes a client returns as credit are the frame's UTF-8 length, not its UTF-16 length.
    expect(utf8Bytes).toBeGreaterThan(frames.flat().reduce((sum, frame) => sum + (frame as string).length, 0));
    expect(after.bytesPushed - before.bytesPushed).toBe(utf8Bytes);
  });

  it("starts no pass over the subscribers for credit from one caught up, and one per commit", async () => {
    const topic = uniqueTopic("ws-credit-caught-up");
    await createTopic(topic);
    const subscribers = await Promise.all(Array.from({ length: 5 }, () => open(topic, 0, "?offset=latest")));
    await produce(topic, ["first"]);
    await Promise.all(subscribers.map((subscriber) => subscriber.until(() => subscriber.values().length >= 1)));
    const before = (await debugStats(topic)).debug!;
    // Each caught-up socket's credit, delivered to the leader as the runtime does (awaited, so counted when read).
    const { topicId, partitions } = await describeTopic(topic);
    const region = partitions[0]!.leader;
    await runInDurableObject(replicaStub(env, topicId, 0, region), async (instance: PartitionReplica, state) => {
      const sockets = state.getWebSockets("subscriber");
      expect(sockets).toHaveLength(5);
      for (const socket of sockets) await instance.webSocketMessage(socket, JSON.stringify({ credit: before.bytesPushed }));
    });
    const credited = (await debugStats(topic)).debug!;
    expect(credited.subscriberPushes - before.subscriberPushes).toBe(0); // a pass per credit would make 5
    expect(credited.subscriberMessages - before.subscriberMessages).toBe(5);
    await produce(topic, ["second"]);
    await Promise.all(subscribers.map((subscriber) => subscriber.until(() => subscriber.values().length >= 2)));
    const after = (await debugStats(topic)).debug!;
    expect(after.framesPushed - credited.framesPushed).toBe(5);
    expect(after.subscriberPushes - credited.subscriberPushes).toBe(1);
  });

  it("closes with 4400 after an error frame when the client sends anything but credit", async () => {
    const topic = uniqueTopic("ws-bad-message");
    await createTopic(topic);
    for (const message of ['{"credit": -1}', '{"credit": 10, "more": 1}', "hello", '{"credit": 1.5}']) {
      const subscriber = await open(topic, 0, "");
      subscriber.socket.send(message);
      expect(await subscriber.closedWith()).toEqual({ code: 4400, reason: "INVALID_REQUEST" });
      expect(subscriber.jsonFrames().at(-1)!.error!.code).toBe("INVALID_REQUEST");
    }
  });

  it("answers JSON errors before the upgrade, as fetch does", async () => {
    const topic = uniqueTopic("ws-refusals");
    await createTopic(topic);
    await produce(topic, ["a"]);
    const refused = async (name: string, partition: number, query: string) => {
      const opened = await subscribe(name, partition, query);
      expect(opened.subscriber).toBeUndefined();
      return opened.subscriber ? undefined! : opened.refusal;
    };
    expectError(await refused(uniqueTopic("ws-missing"), 0, ""), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await refused(topic, 1, ""), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    const range = expectError(await refused(topic, 0, "?offset=5"), 416, "OFFSET_OUT_OF_RANGE");
    expect(range).toMatchObject({ logStartOffset: 0, highWatermark: 1 });
    expectError(await refused(topic, 0, "?offset=-1"), 416, "OFFSET_OUT_OF_RANGE");
    expectError(await refused(topic, 0, "?offset=soon"), 400, "INVALID_REQUEST");
    expectError(await refused(topic, 0, "?encoding=hex"), 400, "INVALID_REQUEST");
    expectError(await refused(topic, 0, "?waitMs=10"), 400, "INVALID_REQUEST");
  });
});
