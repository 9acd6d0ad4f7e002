/**
 * A WebSocket subscriber across its partition's life (docs/api.md): the leader object is
 * evicted while idle and still delivers the next write (hibernation: the socket's state is
 * its attachment); a leader change closes with 4503, deleting the topic with 4404, retention
 * passing the subscriber with 4416; and the per-token bound before the upgrade.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, evictDurableObject, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import { streamsPerPartitionMax, streamsPerTokenMax } from "../../../src/limits.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { createApp } from "../../../src/app.ts";
import { produceRetrying } from "../storage/support.ts";
import { api, createTopic, describeTopic, expectError, readResponse, uniqueTopic } from "../support/http.ts";
import { adminToken, allOn, createToken, securedEnv } from "../support/secured.ts";
import { open, subscribe, Subscriber } from "./websocket-support.ts";

async function produce(topic: string, values: string[]) {
  const response = await api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })), acks: "all" });
  expect(response.status, response.text).toBe(200);
}

async function leaderStub(topic: string) {
  const { topicId, partitions } = await describeTopic(topic);
  return replicaStub(env, topicId, 0, partitions[0]!.leader);
}

/** Polls the leader's count of open subscribers (debug statistics) until `check` holds, bounded. */
async function openSubscribersUntil(topic: string, check: (open: number) => boolean): Promise<void> {
  const { topicId, partitions } = await describeTopic(topic);
  const region = partitions[0]!.leader;
  let open = -1;
  for (let attempt = 0; attempt < 200 && !check(open); attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25));
    open = unwrap(await replicaStub(env, topicId, 0, region).state({ topicId, partition: 0, region })).debug!.subscribers;
  }
  expect(check(open), `open subscribers: ${open}`).toBe(true);
}

/** Waits for `wait`, failing with `what` after 10 s: a step that never ends names itself rather than timing out the test. */
async function within<T>(what: string, wait: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within 10 s`)), 10_000)));
  try {
    return await Promise.race([wait, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function received(subscriber: Subscriber, count: number): Promise<void> {
  await subscriber.until(() => subscriber.values().length >= count || subscriber.closed !== undefined);
}

describe("a subscriber's partition", () => {
  it("is evicted while idle and still delivers the next write, from where the subscriber was", async () => {
    const topic = uniqueTopic("ws-hibernate");
    await createTopic(topic);
    const subscriber = await open(topic, 0, "?offset=earliest");
    await produce(topic, ["before"]);
    await received(subscriber, 1);
    await evictDurableObject(await leaderStub(topic));
    await produce(topic, ["after-1", "after-2"]);
    await received(subscriber, 3);
    await evictDurableObject(await leaderStub(topic));
    subscriber.returnCredit(); // a credit message wakes the evicted object too
    await produce(topic, ["after-3"]);
    await received(subscriber, 4);
    expect(subscriber.values()).toEqual(["before", "after-1", "after-2", "after-3"]);
    expect(subscriber.closed).toBeUndefined();
    subscriber.socket.close(1000);
  });

  it("closes every subscriber with 4503 when the leader changes, so they reconnect to the new one", async () => {
    const topic = uniqueTopic("ws-leader-change");
    const created = await createTopic(topic, { replicationFactor: 3 });
    const before = created.partitions[0]!.leader;
    await within("the first record, acks all on 3 replicas", produce(topic, ["one"]));
    const subscribers = [await within("the first upgrade", open(topic, 0, "?offset=earliest")), await within("the second upgrade", open(topic, 0, "?offset=latest"))];
    await within("the first record reaches the earliest subscriber", received(subscribers[0]!, 1));
    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before, fault: "down" })).status).toBe(204);
    expectError(await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "lost?", partition: 0 }], acks: "all" }), 503, "LEADER_NOT_AVAILABLE");
    const elected = (await describeTopic(topic)).partitions[0]!;
    expect(elected.leader).not.toBe(before);
    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before, fault: "none" })).status).toBe(204);
    // The new leader's pushes (retried by its alarm) fence the old one, which closes its subscribers.
    // acks 1: what closes them is the push to the old leader, not the in-sync replicas' answers.
    const newLeader = replicaStub(env, created.topicId, 0, elected.leader);
    const deadline = Date.now() + 15_000;
    for (let attempt = 0; Date.now() < deadline && subscribers.some((subscriber) => subscriber.closed === undefined); attempt++) {
      const written = await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: `next-${attempt}`, partition: 0 }], acks: 1 });
      expect(written.status, written.text).toBe(200);
      await runDurableObjectAlarm(newLeader);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const states = await Promise.all([before, elected.leader].map(async (region) => unwrap(await replicaStub(env, created.topicId, 0, region).state({ topicId: created.topicId, partition: 0, region }))));
    const seen = states.map(({ role, leaderEpoch, logEndOffset, highWatermark, debug }) => ({ role, leaderEpoch, logEndOffset, highWatermark, subscribers: debug?.subscribers }));
    expect(subscribers.map((subscriber) => subscriber.closed), `old and new leader: ${JSON.stringify(seen)}`).toEqual([
      { code: 4503, reason: "NOT_LEADER_OR_FOLLOWER" },
      { code: 4503, reason: "NOT_LEADER_OR_FOLLOWER" },
    ]);
    for (const subscriber of subscribers) expect(subscriber.jsonFrames().at(-1)!.error!.code).toBe("NOT_LEADER_OR_FOLLOWER");
    // Reconnecting reaches the new leader, and reads on from where the first subscriber was.
    const next = subscribers[0]!.jsonFrames().findLast((frame) => frame.nextOffset !== undefined)!.nextOffset!;
    const again = await open(topic, 0, `?offset=${next}`);
    await within("the reconnected subscriber's first record", received(again, 1));
    expect(again.jsonFrames()[0]!.records![0]!.offset).toBe(next);
    again.socket.close(1000);
  });

  it("closes subscribers with 4404 when the topic is deleted", async () => {
    const topic = uniqueTopic("ws-deleted");
    await createTopic(topic);
    const subscriber = await open(topic, 0, "");
    expect((await api("DELETE", `/v1/topics/${topic}`)).status).toBe(204);
    expect(await subscriber.closedWith()).toEqual({ code: 4404, reason: "UNKNOWN_TOPIC_OR_PARTITION" });
    expect(subscriber.jsonFrames().at(-1)!.error!.code).toBe("UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("closes a subscriber with 4416 when retention moves the log start past it", async () => {
    const topic = uniqueTopic("ws-retention");
    await createTopic(topic, { configs: { "segment.bytes": "65536" } });
    const old = Date.now() - 3_600_000;
    // 400 records of 4,000 bytes (1.6 MB) in 64 KiB segments; the first 360 an hour old.
    for (let request = 0; request < 40; request++) {
      const records = Array.from({ length: 10 }, (_, index) => ({ value: "x".repeat(4_000), partition: 0, timestamp: request < 36 ? old : Date.now() }));
      await produceRetrying(topic, { records, acks: 1 });
    }
    // Without credit it stops within its first 1 MiB (about 260 records), below the old ones' end.
    const subscriber = await open(topic, 0, "?offset=earliest");
    await subscriber.until(() => subscriber.values().length > 200);
    for (let attempt = 0; attempt < 40 && (await describeTopic(topic)).partitions[0]!.storage.r2Segments < 20; attempt++) {
      await runDurableObjectAlarm(await leaderStub(topic));
    }
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "retention.ms": "600000" } })).status).toBe(200);
    expect(await subscriber.closedWith()).toEqual({ code: 4416, reason: "OFFSET_OUT_OF_RANGE" });
    const error = subscriber.jsonFrames().at(-1)!.error as unknown as { logStartOffset: number; highWatermark: number };
    expect(error.logStartOffset).toBeGreaterThan(subscriber.values().length);
    expect(error.highWatermark).toBe(400);
  });
});

describe("subscribers per partition", () => {
  it(`refuses an upgrade past ${streamsPerPartitionMax} on one partition with a retriable 503`, async () => {
    const topic = uniqueTopic("ws-per-partition");
    await createTopic(topic);
    const subscribers: Subscriber[] = [];
    for (let index = 0; index < streamsPerPartitionMax; index++) subscribers.push(await open(topic, 0, ""));
    const refused = await subscribe(topic, 0, "");
    expect(refused.subscriber).toBeUndefined();
    if (!refused.subscriber) expectError(refused.refusal, 503, "BROKER_BUSY");
    subscribers[0]!.socket.close(1000);
    await subscribers[0]!.closedWith();
    // The closed one's place is free again once the object has seen the close.
    await openSubscribersUntil(topic, (open) => open < streamsPerPartitionMax);
    const again = await open(topic, 0, "");
    again.socket.close(1000);
    for (const subscriber of subscribers) subscriber.socket.close(1000);
    await openSubscribersUntil(topic, (open) => open === 0);
  });
});

describe("streams per token", () => {
  it("opens with a browser's read token in ?access_token= (no headers); none is 401", async () => {
    const topic = uniqueTopic("ws-read-token");
    const app = createApp();
    const call = async (path: string, init: RequestInit) => {
      const ctx = createExecutionContext();
      const response = await app.request(`http://tributary.test${path}`, init, securedEnv, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const json = { "content-type": "application/json" };
    expect((await call("/v1/topics", { method: "POST", headers: { authorization: `Bearer ${adminToken}`, ...json }, body: JSON.stringify({ name: topic }) })).status).toBe(201);
    const reader = await createToken({ rules: [allOn("topic", topic)] });
    const minted = await readResponse(await call(`/v1/topics/${topic}/read-tokens`, { method: "POST", headers: { authorization: `Bearer ${reader.token}` } }));
    expect(minted.status, minted.text).toBe(201);
    const path = `/v1/topics/${topic}/partitions/0/records?access_token=${encodeURIComponent(minted.body.token)}`;
    const opened = await call(path, { headers: { upgrade: "websocket" } });
    expect(opened.status).toBe(101);
    const subscriber = new Subscriber(opened.webSocket!);
    expect((await call(`/v1/topics/${topic}/records`, { method: "POST", headers: { authorization: `Bearer ${reader.token}`, ...json }, body: JSON.stringify({ records: [{ value: "seen", partition: 0 }] }) })).status).toBe(200);
    await received(subscriber, 1);
    expect(subscriber.values()).toEqual(["seen"]);
    subscriber.socket.close(1000);
    expectError(await readResponse(await call(`/v1/topics/${topic}/partitions/0/records`, { headers: { upgrade: "websocket" } })), 401, "UNAUTHENTICATED");
  });

  it(`refuses a token's upgrade past ${streamsPerTokenMax} on one partition with 429 and retryAfterMs`, async () => {
    const topic = uniqueTopic("ws-per-token");
    const app = createApp();
    const call = async (token: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
      const ctx = createExecutionContext();
      const response = await app.request(
        `http://tributary.test${init.body === undefined ? `/v1/topics/${topic}/partitions/0/records` : "/v1/topics"}`,
        { method: init.method ?? "GET", headers: { authorization: `Bearer ${token}`, ...init.headers }, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) },
        securedEnv,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return response;
    };
    const created = await call(adminToken, { method: "POST", body: { name: topic }, headers: { "content-type": "application/json" } });
    expect(created.status).toBe(201);
    const reader = await createToken({ rules: [allOn("topic", topic)] });
    const other = await createToken({ rules: [allOn("topic", topic)] });
    const sockets: WebSocket[] = [];
    for (let index = 0; index < streamsPerTokenMax; index++) {
      const response = await call(reader.token, { headers: { upgrade: "websocket" } });
      expect(response.status).toBe(101);
      response.webSocket!.accept();
      sockets.push(response.webSocket!);
    }
    const refused = await readResponse(await call(reader.token, { headers: { upgrade: "websocket" } }));
    expect(expectError(refused, 429, "THROTTLING_QUOTA_EXCEEDED").retryAfterMs).toBeGreaterThan(0);
    // Another token is not counted against this one.
    const allowed = await call(other.token, { headers: { upgrade: "websocket" } });
    expect(allowed.status).toBe(101);
    allowed.webSocket!.accept();
    allowed.webSocket!.close(1000);
    for (const socket of sockets) socket.close(1000);
  });
});
