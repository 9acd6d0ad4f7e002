/**
 * Flow control of WebSocket subscribers (docs/api.md): one starting behind is caught up from
 * the sealed segments and the rows in window-sized steps; a subscriber that returns no credit
 * receives at most the window (1 MiB) and the leader holds nothing for it; credit brings the
 * rest in window-sized steps; one left without room past streamStalledMsMax is closed with
 * 4429 (also after granting credit ahead). A subscriber that grants credit ahead (the client
 * does, once, at opening) receives past the starting window without returning any, up to the
 * largest (credit beyond it is clamped), in frames of at most 1 MiB; a frame larger than the
 * largest window (one record's JSON) goes alone. Returning credit per frame (older clients)
 * keeps working: the tests above do. The stall bound is reached by moving the socket's stall
 * start back (its attachment) and running the object's alarm — no wall-clock waits.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { streamStalledMsMax, streamWindowBytes, streamWindowBytesMax } from "../../../src/limits.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { produceRetrying } from "../storage/support.ts";
import { createTopic, describeTopic, uniqueTopic } from "../support/http.ts";
import { open, type Subscriber } from "./websocket-support.ts";

const recordBytes = 20_000;
const records = 100; // 2 MB: twice the window

async function fill(topic: string): Promise<void> {
  for (let request = 0; request < records / 10; request++) {
    const batch = Array.from({ length: 10 }, (_, index) => ({ value: `${request * 10 + index}:`.padEnd(recordBytes, "v"), partition: 0 }));
    await produceRetrying(topic, { records: batch, acks: 1 });
  }
}

function frameBytes(subscriber: Subscriber): number {
  return subscriber.frames.reduce((sum, frame) => sum + (typeof frame === "string" ? new TextEncoder().encode(frame).byteLength : frame.byteLength), 0);
}

async function leaderOf(topic: string) {
  const { topicId, partitions } = await describeTopic(topic);
  const region = partitions[0]!.leader;
  const stub = replicaStub(env, topicId, 0, region);
  return { stub, debug: async () => unwrap(await stub.state({ topicId, partition: 0, region })).debug! };
}

/** Waits until the leader has pushed what it can: its push counter stops while the subscriber has everything pushed. */
async function settled(subscriber: Subscriber, leader: Awaited<ReturnType<typeof leaderOf>>): Promise<void> {
  const pushed = (await leader.debug()).bytesPushed;
  await subscriber.until(() => frameBytes(subscriber) >= pushed);
}

/** Returns credit for what it has, frame after frame, until the subscriber has `count` records. */
async function creditUntil(subscriber: Subscriber, leader: Awaited<ReturnType<typeof leaderOf>>, count: number): Promise<void> {
  while (subscriber.values().length < count) {
    const before = subscriber.frames.length;
    subscriber.returnCredit();
    await subscriber.until(() => subscriber.frames.length > before);
    await settled(subscriber, leader);
  }
}

describe("a subscriber starting behind", () => {
  it("is caught up from sealed segments (R2) and the rows, in window-sized steps, every record once", async () => {
    const topic = uniqueTopic("ws-tiers");
    await createTopic(topic, { configs: { "segment.bytes": "65536" } });
    const total = 600; // 600 × 4,000 bytes: 2.4 MB, mostly sealed
    for (let request = 0; request < total / 10; request++) {
      const batch = Array.from({ length: 10 }, (_, index) => ({ value: `${request * 10 + index}:`.padEnd(4_000, "s"), partition: 0 }));
      await produceRetrying(topic, { records: batch, acks: 1 });
    }
    const leader = await leaderOf(topic);
    for (let attempt = 0; attempt < 40 && (await describeTopic(topic)).partitions[0]!.storage.r2Segments < 30; attempt++) {
      await runDurableObjectAlarm(leader.stub);
    }
    expect((await describeTopic(topic)).partitions[0]!.storage.r2Segments).toBeGreaterThanOrEqual(30);
    const subscriber = await open(topic, 0, "?offset=earliest&encoding=base64");
    let steps = 0;
    let credited = 0;
    while (subscriber.values().length < total) {
      await subscriber.until(() => subscriber.frames.length > 0);
      await settled(subscriber, leader);
      expect(frameBytes(subscriber) - credited).toBeLessThanOrEqual(streamWindowBytes); // never more than the window unreturned
      const before = subscriber.frames.length;
      credited = frameBytes(subscriber);
      subscriber.returnCredit();
      steps++;
      if (subscriber.values().length < total) await subscriber.until(() => subscriber.frames.length > before);
    }
    expect(steps).toBeGreaterThanOrEqual(3); // 2.4 MB (more as base64) through a 1 MiB window
    expect(subscriber.values().map((value) => Number(atob(value!).split(":")[0]))).toEqual([...Array(total).keys()]);
    subscriber.socket.close(1000);
  });
});

describe("a subscriber that returns no credit", () => {
  it("receives at most the window, then the rest as it returns credit, every record once", async () => {
    const topic = uniqueTopic("ws-credit");
    await createTopic(topic);
    await fill(topic);
    const leader = await leaderOf(topic);
    const subscriber = await open(topic, 0, "?offset=earliest");
    await subscriber.until(() => subscriber.values().length > 0);
    await settled(subscriber, leader);
    expect(frameBytes(subscriber)).toBeLessThanOrEqual(streamWindowBytes);
    expect(frameBytes(subscriber)).toBeGreaterThan(streamWindowBytes - 11 * recordBytes); // within one batch (10 records) of it
    const held = subscriber.values().length;
    expect(held).toBeLessThan(records);
    // More writes do not reach it either: nothing is queued for it.
    await fill(topic);
    await settled(subscriber, leader);
    expect(subscriber.values().length).toBe(held);
    expect((await leader.debug()).subscribers).toBe(1);

    await creditUntil(subscriber, leader, 2 * records);
    expect(subscriber.values().map((value) => Number(value!.split(":")[0]))).toEqual([...Array(2 * records).keys()].map((index) => index % records));
    expect(subscriber.closed).toBeUndefined();
  });

  for (const grant of [0, streamWindowBytesMax - streamWindowBytes]) {
    it(`is closed with 4429 and an error frame once stalled for streamStalledMsMax while records wait (credit granted ahead: ${grant})`, async () => {
      const topic = uniqueTopic("ws-stall");
      await createTopic(topic);
      await fill(topic);
      if (grant > 0) for (let fills = 0; fills < 2; fills++) await fill(topic); // 6 MB: more than the largest window
      const leader = await leaderOf(topic);
      const slow = await open(topic, 0, "?offset=earliest");
      if (grant > 0) slow.socket.send(JSON.stringify({ credit: grant }));
      const live = await open(topic, 0, "?offset=latest");
      await slow.until(() => slow.values().length > 0);
      await settled(slow, leader);
      // The stall started when the push left it behind; move that start back past the bound.
      await runInDurableObject(leader.stub, (_instance, state) => {
        for (const socket of state.getWebSockets()) {
          const attachment = socket.deserializeAttachment() as { stalledSinceMs: number | null };
          if (attachment.stalledSinceMs !== null) socket.serializeAttachment({ ...attachment, stalledSinceMs: Date.now() - streamStalledMsMax });
        }
      });
      expect(await runDurableObjectAlarm(leader.stub)).toBe(true); // the stall armed the alarm
      expect(await slow.closedWith()).toEqual({ code: 4429, reason: "THROTTLING_QUOTA_EXCEEDED" });
      const error = slow.jsonFrames().at(-1)!.error as unknown as { code: string; nextOffset: number };
      expect(error.code).toBe("THROTTLING_QUOTA_EXCEEDED");
      expect(error.nextOffset).toBe(slow.jsonFrames().at(-2)!.nextOffset);
      // A caught-up subscriber is never stalled.
      expect(live.closed).toBeUndefined();
      expect((await leader.debug()).subscribers).toBe(1);
    });
  }
});

describe("a subscriber that grants credit ahead (docs/api.md: the window grows to streamWindowBytesMax)", () => {
  it("receives more than the starting window without returning credit, never more than the largest; credit past it is clamped, not an error", async () => {
    const topic = uniqueTopic("ws-grant");
    await createTopic(topic);
    const leader = await leaderOf(topic);
    const subscriber = await open(topic, 0, "?offset=earliest");
    // Granted before anything is written, so what it receives is exactly its window.
    subscriber.socket.send(JSON.stringify({ credit: streamWindowBytesMax - streamWindowBytes }));
    subscriber.socket.send(JSON.stringify({ credit: Number.MAX_SAFE_INTEGER })); // clamped at the largest window
    for (let seen = 0; seen < 2; ) seen = (await leader.debug()).subscriberMessages;
    for (let fills = 0; fills < 3; fills++) await fill(topic); // 6 MB: more than the largest window
    await subscriber.until(() => frameBytes(subscriber) > streamWindowBytes);
    await settled(subscriber, leader);
    expect(frameBytes(subscriber)).toBeLessThanOrEqual(streamWindowBytesMax);
    expect(frameBytes(subscriber)).toBeGreaterThan(streamWindowBytesMax - 11 * recordBytes); // within one batch of it
    expect(Math.max(...subscriber.frames.map((frame) => (frame as string).length))).toBeLessThanOrEqual(streamWindowBytes); // frames of at most 1 MiB
    expect(subscriber.closed).toBeUndefined();
    // The rest as it returns credit, every record once.
    await creditUntil(subscriber, leader, 3 * records);
    expect(subscriber.values().map((value) => Number(value!.split(":")[0]))).toEqual([...Array(3 * records).keys()].map((index) => index % records));
    subscriber.socket.close(1000);
  });

  it("gets a frame larger than the largest window (one record's JSON) alone, and the next once credit restores the starting window", async () => {
    const topic = uniqueTopic("ws-huge-frame");
    await createTopic(topic);
    // 900,000 control characters: 900 kB stored, 5.4 MB as JSON ("\u0001" each).
    await produceRetrying(topic, { records: [{ value: "\u0001".repeat(900_000), partition: 0 }], acks: 1 });
    await produceRetrying(topic, { records: [{ value: "after", partition: 0 }], acks: 1 });
    const leader = await leaderOf(topic);
    const subscriber = await open(topic, 0, "?offset=earliest");
    subscriber.socket.send(JSON.stringify({ credit: streamWindowBytesMax - streamWindowBytes }));
    await subscriber.until(() => subscriber.frames.length > 0);
    await settled(subscriber, leader);
    expect(subscriber.frames).toHaveLength(1);
    expect(frameBytes(subscriber)).toBeGreaterThan(streamWindowBytesMax);
    subscriber.returnCredit(); // as the client does: 5.4 MB processed is past half the largest window
    await subscriber.until(() => subscriber.frames.length > 1);
    expect(subscriber.values().map((value) => value!.length)).toEqual([900_000, 5]);
    subscriber.socket.close(1000);
  });
});
