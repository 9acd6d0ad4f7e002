/**
 * Per-token client quotas (docs/api.md, Quotas) through the real quota middleware, routes and
 * QuotaMeter objects. Rates are small so that a wait for Retry-After is a second or two;
 * nothing here asserts how fast anything is.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Quotas } from "../../../src/auth/principal.ts";
import { quotaMeterStub } from "../../../src/contracts/stubs.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import type { Usage } from "../../../src/quota/quota-kinds.ts";
import { api, createTopic, expectError, highWatermarks, produce, uniqueTopic, type ApiResponse } from "../support/http.ts";
import { appFor, call, callUntilThrottled, tokenWith, waitRetryAfter } from "./support.ts";

/** A 429 as docs/api.md promises it: retryAfterMs in the body, Retry-After its whole seconds rounded up. */
function expectThrottled(response: ApiResponse): number {
  const error = expectError(response, 429, "THROTTLING_QUOTA_EXCEEDED");
  const retryAfterMs = error.retryAfterMs as number;
  expect(retryAfterMs).toBeGreaterThan(0);
  expect(response.headers.get("retry-after")).toBe(String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return retryAfterMs;
}

const value250 = "v".repeat(250);

/** A token with these quotas whose meter already holds `usage` (served by other isolates): throttled for tens of seconds. */
async function throttledToken(quotas: Quotas, usage: Partial<Usage>) {
  const principal = tokenWith(quotas);
  if (principal.kind !== "token") throw new Error("a token");
  const answer = await quotaMeterStub(env, principal.tokenId).charge(principal.quotas, usage);
  expect(answer.ok).toBe(true);
  return appFor(principal);
}

describe("produce byte rate", () => {
  it("refuses a token past its produce rate with 429 and Retry-After, writes nothing, and lifts after Retry-After", async () => {
    const topic = uniqueTopic("quota-produce");
    await createTopic(topic);
    const app = appFor(tokenWith({ produceBytesPerSecond: 100 }));
    const path = `/v1/topics/${topic}/records`;
    // One request larger than the burst (100 bytes; this one ~280) is served; it leaves the token in debt.
    expect((await call(app, "POST", path, { records: [{ value: value250 }] })).status).toBe(200);
    expect(await highWatermarks(topic)).toEqual([1]);
    const throttled = await call(app, "POST", path, { records: [{ value: "nothing" }] });
    expectThrottled(throttled);
    expect(await highWatermarks(topic)).toEqual([1]); // the refused produce wrote nothing
    await waitRetryAfter(throttled);
    expect((await call(app, "POST", path, { records: [{ value: "again" }] })).status).toBe(200);
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("refuses both produce routes of a token in produce debt, and only them; the first request an isolate sees of it included", async () => {
    const topic = uniqueTopic("quota-produce-debt");
    await createTopic(topic);
    const app = await throttledToken({ produceBytesPerSecond: 1_000 }, { produceBytes: 60_000 });
    expectThrottled(await call(app, "POST", `/v1/topics/${topic}/records`, { records: [{ value: "x" }] }));
    const binary = await call(app, "POST", `/v1/topics/${topic}/partitions/0/records`, new Uint8Array(70), { "content-type": recordBatchContentType });
    expectThrottled(binary);
    expect(await highWatermarks(topic)).toEqual([0]); // nothing written
    expect((await call(app, "GET", `/v1/topics/${topic}/partitions/0/records?offset=0`)).status).toBe(200);
    expect((await call(app, "GET", `/v1/topics/${topic}`)).status).toBe(200);
  });
});

describe("fetch byte rate", () => {
  it("refuses a token past its fetch rate with 429 and Retry-After, and lifts after Retry-After", async () => {
    const topic = uniqueTopic("quota-fetch");
    await createTopic(topic);
    await produce(topic, [{ value: value250 }, { value: value250 }]);
    const app = appFor(tokenWith({ fetchBytesPerSecond: 100 }));
    const path = `/v1/topics/${topic}/partitions/0/records?offset=0&maxRecords=1`;
    const first = await call(app, "GET", path);
    expect(first.status).toBe(200);
    expect(first.body.records).toHaveLength(1);
    const throttled = await call(app, "GET", path);
    expectThrottled(throttled);
    await waitRetryAfter(throttled);
    expect((await call(app, "GET", path)).status).toBe(200);
  });

  it("refuses JSON and binary fetches and polls of a token in fetch debt, not its produces", async () => {
    const topic = uniqueTopic("quota-fetch-debt");
    await createTopic(topic);
    const app = await throttledToken({ fetchBytesPerSecond: 1_000 }, { fetchBytes: 60_000 });
    const path = `/v1/topics/${topic}/partitions/0/records?offset=0`;
    expectThrottled(await call(app, "GET", path));
    expectThrottled(await call(app, "GET", path, undefined, { accept: recordBatchContentType }));
    expectThrottled(await call(app, "POST", `/v1/groups/any/members/any/poll`, { memberEpoch: 1 }));
    expect((await call(app, "POST", `/v1/topics/${topic}/records`, { records: [{ value: "x" }] })).status).toBe(200);
  });

  it("counts a group poll's records as fetched bytes", async () => {
    const topic = uniqueTopic("quota-poll");
    await createTopic(topic);
    await produce(topic, [{ value: value250 }]);
    const app = appFor(tokenWith({ fetchBytesPerSecond: 100 }));
    const group = `quota-group-${crypto.randomUUID()}`;
    const joined = await call(app, "POST", `/v1/groups/${group}/members`, { topics: [topic], autoOffsetReset: "earliest" });
    expect(joined.status, joined.text).toBe(201);
    const poll = { memberEpoch: joined.body.memberEpoch };
    const pollPath = `/v1/groups/${group}/members/${joined.body.memberId}/poll`;
    const { statuses, throttled } = await callUntilThrottled(() => call(app, "POST", pollPath, poll));
    expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
    expectThrottled(throttled);
  });
});

describe("request rate", () => {
  it("refuses a token past its request rate with 429 and Retry-After, and lifts after Retry-After", async () => {
    const topic = uniqueTopic("quota-requests");
    await createTopic(topic);
    const app = appFor(tokenWith({ requestsPerSecond: 1 }));
    const { statuses, throttled } = await callUntilThrottled(() => call(app, "GET", `/v1/topics/${topic}`));
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expectThrottled(throttled);
    await waitRetryAfter(throttled);
    expect((await call(app, "GET", `/v1/topics/${topic}`)).status).toBe(200);
  });

  it("refuses every route of a token in request debt", async () => {
    const topic = uniqueTopic("quota-requests-debt");
    await createTopic(topic);
    const app = await throttledToken({ requestsPerSecond: 1 }, { requests: 60 });
    expectThrottled(await call(app, "GET", `/v1/topics/${topic}`));
    expectThrottled(await call(app, "GET", `/v1/topics/${topic}/partitions/0/records?offset=0`));
    expectThrottled(await call(app, "POST", `/v1/topics/${topic}/records`, { records: [{ value: "x" }] }));
    expect(await highWatermarks(topic)).toEqual([0]);
  });
});

describe("never throttled", () => {
  const principals = [
    ["the admin token", { kind: "admin" as const }],
    ["an open deployment", { kind: "open" as const }],
    ["a token without quotas", tokenWith({})],
  ] as const;

  it.each(principals)("%s, whatever it sends", async (_who, principal) => {
    const topic = uniqueTopic("quota-free");
    await createTopic(topic);
    const app = appFor(principal);
    for (let index = 0; index < 10; index++) {
      const produced = await call(app, "POST", `/v1/topics/${topic}/records`, { records: [{ value: "v".repeat(10_000) }] });
      expect(produced.status, produced.text).toBe(200);
      expect((await call(app, "GET", `/v1/topics/${topic}/partitions/0/records?offset=0`)).status).toBe(200);
    }
    expect(await highWatermarks(topic)).toEqual([10]);
  });

  it("the Worker itself while no token is configured (the open principal)", async () => {
    const topic = uniqueTopic("quota-open-worker");
    await createTopic(topic);
    for (let index = 0; index < 5; index++) expect((await api("GET", `/v1/topics/${topic}`)).status).toBe(200);
  });
});
