/**
 * The Durable Streams routes inside workerd with the real objects (docs/durable-streams.md):
 * a stream is a topic the rest of the API reads; closure and Stream-Seq survive the partition
 * object's restart; bad input is refused with nothing written; tokens map onto topic ACLs.
 */
import { abortAllDurableObjects, evictDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import { replicaName } from "../../../src/contracts/stubs.ts";
import { api } from "../support/http.ts";
import { unwrap } from "../../../src/errors.ts";
import { adminToken, allOn, createToken, securedCall } from "../support/secured.ts";
// The user documentation, as text (vite's ?raw): its examples are checked against the server's answers.
import durableStreamsDoc from "../../../docs/durable-streams.md?raw";

let streams = 0;
const uniquePath = (label: string) => `tests/${label}-${Date.now()}-${streams++}`;

async function call(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}) {
  const response = await exports.default.fetch(new Request(`http://tributary.test/ds/${path}`, { method, ...init }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const plain = { "content-type": "text/plain" };

/** The stream's topic as Tributary's own API sees it: its high watermark and its records' values. */
async function topicRecords(path: string): Promise<{ highWatermark: number; values: string[] }> {
  const name = streamTopicName(path);
  const described = await api("GET", `/v1/topics/${name}`);
  expect(described.status, described.text).toBe(200);
  const fetched = await api("GET", `/v1/topics/${name}/partitions/0/records?offset=0`);
  return {
    highWatermark: described.body.partitions[0].highWatermark,
    values: fetched.body.records.map((record: { value: string | null }) => record.value ?? ""),
  };
}

async function leaderObject(path: string) {
  const topic = (await api("GET", `/v1/topics/${streamTopicName(path)}`)).body;
  return env.PARTITIONS.get(env.PARTITIONS.idFromName(replicaName(topic.topicId, 0, topic.partitions[0].leader)));
}

describe("a stream is a one-partition topic", () => {
  it("is listed and described as a topic with its ds.* configs, and its appends are its records", async () => {
    const path = uniquePath("visible");
    expect((await call("PUT", path, { headers: { ...plain, "stream-ttl": "3600" }, body: "first" })).status).toBe(201);
    expect((await call("POST", path, { headers: plain, body: "second" })).status).toBe(204);
    const name = streamTopicName(path);
    const listed = await api("GET", "/v1/topics");
    expect(listed.body.topics).toContainEqual({ name, partitions: 1, replicationFactor: 1 });
    const described = await api("GET", `/v1/topics/${name}`);
    expect(described.body.configs).toMatchObject({ "ds.content.type": "text/plain", "ds.ttl.seconds": "3600", "retention.ms": "-1" });
    expect(await topicRecords(path)).toEqual({ highWatermark: 2, values: ["first", "second"] });
    const read = await call("GET", `${path}?offset=0000000000000000_0000000000000001`);
    expect({ text: read.text, next: read.headers.get("stream-next-offset") }).toEqual({ text: "second", next: "0000000000000000_0000000000000002" });
  });
});

describe("offsets", () => {
  it("are written as docs/durable-streams.md's example says: the offset after 42 records", async () => {
    const row = durableStreamsDoc.split("\n").find((line) => line.startsWith("| an offset |"));
    const example = /`([0-9_]+)`/.exec(row ?? "")?.[1];
    const path = uniquePath("offset-example");
    expect((await call("PUT", path, { headers: plain })).status).toBe(201);
    const records = Array.from({ length: 42 }, (_, index) => ({ value: `record ${index}` }));
    expect((await api("POST", `/v1/topics/${streamTopicName(path)}/records`, { records })).status).toBe(200);
    const head = await call("HEAD", path);
    expect({ status: head.status, next: head.headers.get("stream-next-offset") }).toEqual({ status: 200, next: example });
    // And taken back: a read from it is at the tail.
    const read = await call("GET", `${path}?offset=${example}`);
    expect({ status: read.status, text: read.text, upToDate: read.headers.get("stream-up-to-date") }).toEqual({ status: 200, text: "", upToDate: "true" });
  });
});

describe("closure and Stream-Seq are durable", () => {
  it("a closed stream stays closed after its partition object restarts, and after every object is aborted", async () => {
    const path = uniquePath("closed");
    await call("PUT", path, { headers: plain, body: "data" });
    const closed = await call("POST", path, { headers: { ...plain, "stream-closed": "true" }, body: "last" });
    expect({ status: closed.status, closed: closed.headers.get("stream-closed") }).toEqual({ status: 204, closed: "true" });
    await evictDurableObject(await leaderObject(path));
    const refused = await call("POST", path, { headers: plain, body: "after restart" });
    expect({ status: refused.status, closed: refused.headers.get("stream-closed"), next: refused.headers.get("stream-next-offset") }).toEqual({
      status: 409,
      closed: "true",
      next: "0000000000000000_0000000000000002",
    });
    await abortAllDurableObjects();
    expect((await call("POST", path, { headers: plain, body: "after abort" })).status).toBe(409);
    const read = await call("GET", path);
    expect({ text: read.text, closed: read.headers.get("stream-closed"), upToDate: read.headers.get("stream-up-to-date") }).toEqual({
      text: "datalast",
      closed: "true",
      upToDate: "true",
    });
    expect((await call("HEAD", path)).headers.get("stream-closed")).toBe("true");
    expect((await topicRecords(path)).highWatermark).toBe(2);
  });

  it("the last Stream-Seq survives a restart: a regression is still 409", async () => {
    const path = uniquePath("seq");
    await call("PUT", path, { headers: plain });
    expect((await call("POST", path, { headers: { ...plain, "stream-seq": "002" }, body: "a" })).status).toBe(204);
    await evictDurableObject(await leaderObject(path));
    expect((await call("POST", path, { headers: { ...plain, "stream-seq": "001" }, body: "b" })).status).toBe(409);
    expect((await call("POST", path, { headers: { ...plain, "stream-seq": "003" }, body: "c" })).status).toBe(204);
    expect((await topicRecords(path)).values).toEqual(["a", "c"]);
  });
});

describe("bad input is refused with nothing written", () => {
  it("creates no topic for a PUT with bad headers or a bad JSON body", async () => {
    const cases: [Record<string, string>, string | undefined][] = [
      [{ ...plain, "stream-ttl": "01" }, undefined],
      [{ ...plain, "stream-ttl": "60", "stream-expires-at": "2030-01-01T00:00:00Z" }, undefined],
      [{ ...plain, "stream-expires-at": "tomorrow" }, undefined],
      [{ ...plain, "stream-closed": "maybe" }, undefined],
      [{ "content-type": "not a type" }, undefined],
      [{ "content-type": "application/json" }, "{ not json"],
    ];
    for (const [headers, body] of cases) {
      const path = uniquePath("bad-put");
      const response = await call("PUT", path, { headers, ...(body === undefined ? {} : { body }) });
      expect({ headers, status: response.status }).toEqual({ headers, status: 400 });
      expect((await api("GET", `/v1/topics/${streamTopicName(path)}`)).status).toBe(404);
    }
  });

  it("appends nothing for a bad POST, and answers each with the protocol's status", async () => {
    const path = uniquePath("bad-post");
    await call("PUT", path, { headers: { "content-type": "application/json" }, body: '{"ok":1}' });
    const json = { "content-type": "application/json" };
    const cases: [Record<string, string>, BodyInit | undefined, number][] = [
      [json, "", 400],
      [json, "[]", 400],
      [json, "{ invalid", 400],
      [{}, new TextEncoder().encode('{"a":1}'), 400], // no Content-Type (a string body would get text/plain)
      [plain, "text", 409],
      [{ ...json, "producer-id": "p", "producer-epoch": "0" }, "1", 400],
      [{ ...json, "producer-id": "p", "producer-epoch": "1e3", "producer-seq": "0" }, "1", 400],
      [{ ...json, "stream-seq": "" }, "1", 400],
      [json, new Uint8Array(1024 * 1024 + 1), 413],
    ];
    for (const [headers, body, status] of cases) {
      const response = await call("POST", path, { headers, ...(body === undefined ? {} : { body }) });
      expect({ headers, status: response.status }).toEqual({ headers, status });
    }
    expect((await call("POST", `${path}-missing`, { headers: json, body: "1" })).status).toBe(404);
    expect(await topicRecords(path)).toEqual({ highWatermark: 1, values: ['[{"ok":1}]'] });
  });
});

describe("tokens map onto the stream's topic ACLs", () => {
  it("read → GET and HEAD, write → POST, create → PUT, delete → DELETE; nothing without a token", async () => {
    const path = uniquePath("acl");
    const name = streamTopicName(path);
    const ds = (method: string, token: string | undefined, init: { body?: string; headers?: Record<string, string> } = {}) =>
      securedCall(method, `/ds/${path}`, { ...(token === undefined ? {} : { token }), ...(init.body === undefined ? {} : { bytes: new TextEncoder().encode(init.body) }), headers: init.headers ?? {} });
    const reader = (await createToken({ name: "ds-reader", rules: [{ resource: "topic", name, patternType: "literal", operations: ["read"] }] })).token;
    const writer = (await createToken({ name: "ds-writer", rules: [{ resource: "topic", name, patternType: "literal", operations: ["write"] }] })).token;
    const owner = (await createToken({ name: "ds-owner", rules: [allOn("topic", name)] })).token;
    expect((await ds("PUT", undefined, { headers: plain })).status).toBe(401);
    expect((await ds("PUT", reader, { headers: plain })).status).toBe(403);
    expect((await ds("PUT", writer, { headers: plain })).status).toBe(403);
    expect((await ds("PUT", owner, { headers: plain })).status).toBe(201);
    expect((await ds("POST", reader, { headers: plain, body: "x" })).status).toBe(403);
    expect((await ds("POST", writer, { headers: plain, body: "x" })).status).toBe(204);
    expect((await ds("GET", writer)).status).toBe(403);
    const read = await ds("GET", reader);
    expect({ status: read.status, text: read.text, cache: read.headers.get("cache-control") }).toEqual({
      status: 200,
      text: "x",
      cache: "private, max-age=60, stale-while-revalidate=300",
    });
    expect((await ds("HEAD", reader)).status).toBe(200);
    expect((await ds("DELETE", writer)).status).toBe(403);
    expect((await ds("DELETE", owner)).status).toBe(204);
    expect((await securedCall("GET", `/v1/topics/${name}`, { token: adminToken })).status).toBe(404);
  });
});

describe("HTTP around the protocol", () => {
  it("answers another method with 405 and Allow, and ignores query parameters it does not know", async () => {
    const path = uniquePath("http");
    await call("PUT", path, { headers: plain, body: "x" });
    const patched = await call("PATCH", path);
    expect({ status: patched.status, allow: patched.headers.get("allow") }).toEqual({ status: 405, allow: "GET, HEAD, POST, PUT, DELETE, OPTIONS" });
    const read = await call("GET", `${path}?offset=-1&foo=bar`);
    expect({ status: read.status, text: read.text }).toEqual({ status: 200, text: "x" });
  });
});

describe("forks", () => {
  it("copy their source's records up to the fork offset, and keep a deleted source alive (410) until the last fork goes", async () => {
    const source = uniquePath("fork-src");
    const fork = uniquePath("fork");
    const created = await call("PUT", source, { headers: plain, body: "first" });
    const forkAt = created.headers.get("stream-next-offset")!;
    await call("POST", source, { headers: plain, body: "second" });
    const forked = await call("PUT", fork, { headers: { "stream-forked-from": `/${source}`, "stream-fork-offset": forkAt } });
    expect({ status: forked.status, type: forked.headers.get("content-type") }).toEqual({ status: 201, type: "text/plain" });
    await call("POST", fork, { headers: plain, body: "+fork" });
    expect((await call("GET", fork)).text).toBe("first+fork");
    expect((await call("GET", source)).text).toBe("firstsecond");
    const described = await api("GET", `/v1/topics/${streamTopicName(fork)}`);
    expect(described.body.configs).toMatchObject({ "ds.forked.from": streamTopicName(source), "ds.fork.offset": "1" });

    expect((await call("DELETE", source)).status).toBe(204);
    expect((await call("GET", source)).status).toBe(410);
    expect((await call("PUT", source, { headers: plain })).status).toBe(409);
    expect((await call("GET", fork)).text).toBe("first+fork");
    expect((await call("DELETE", fork)).status).toBe(204);
    expect((await call("HEAD", source)).status).toBe(404);
    expect((await api("GET", `/v1/topics/${streamTopicName(source)}`)).status).toBe(404);
  });

  it("refuse a sub-offset past the append, or without a fork offset, creating nothing", async () => {
    const source = uniquePath("fork-sub-src");
    await call("PUT", source, { headers: plain, body: "hello" });
    const zero = "0000000000000000_0000000000000000";
    const cases: Record<string, string>[] = [
      { "stream-forked-from": source, "stream-fork-offset": zero, "stream-fork-sub-offset": "6" },
      { "stream-forked-from": source, "stream-fork-sub-offset": "1" },
      { "stream-fork-sub-offset": "0" },
    ];
    for (const headers of cases) {
      const fork = uniquePath("fork-sub");
      expect({ headers, status: (await call("PUT", fork, { headers })).status }).toEqual({ headers, status: 400 });
      expect((await api("GET", `/v1/topics/${streamTopicName(fork)}`)).status).toBe(404);
    }
    const fork = uniquePath("fork-sub");
    await call("PUT", fork, { headers: { "stream-forked-from": source, "stream-fork-offset": zero, "stream-fork-sub-offset": "3" } });
    expect((await call("GET", fork)).text).toBe("hel");
    expect(Number((await api("GET", `/v1/topics/${streamTopicName(source)}`)).body.configs["ds.fork.refs"])).toBe(1);
  });
});

describe("the Worker's cache", () => {
  it("serves a repeated catch-up read of an immutable range without asking the partition", async () => {
    const path = uniquePath("cached");
    await call("PUT", path, { headers: plain, body: "a" });
    await call("POST", path, { headers: { ...plain, "stream-closed": "true" }, body: "b" });
    const leader = await leaderObject(path);
    const topic = (await api("GET", `/v1/topics/${streamTopicName(path)}`)).body;
    const address = { topicId: topic.topicId, partition: 0, region: topic.partitions[0].leader };
    const requests = async () => unwrap(await leader.state(address)).debug!.requests;
    const first = await call("GET", path);
    // The first answer is stored as its request ends (waitUntil): a later read finds it.
    let second = await call("GET", path);
    let asked = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 20 && asked > 1; attempt++) {
      const before = await requests();
      second = await call("GET", path);
      asked = (await requests()) - before;
    }
    expect(asked).toBe(1); // the state call itself: the read came from the cache
    expect([second.status, second.text, second.headers.get("etag"), second.headers.get("stream-closed")]).toEqual([200, "ab", first.headers.get("etag"), "true"]);
    const revalidated = await call("GET", path, { headers: { "if-none-match": first.headers.get("etag")! } });
    expect(revalidated.status).toBe(304);
    // An open stream's read up to its tail is not cached: the next append changes it.
    const open = uniquePath("uncached");
    await call("PUT", open, { headers: plain, body: "x" });
    await call("GET", open);
    await call("POST", open, { headers: plain, body: "y" });
    expect((await call("GET", open)).text).toBe("xy");
  });
});

describe("quotas", () => {
  it("a token's request quota throttles its protocol requests too (429 with Retry-After)", async () => {
    const path = uniquePath("quota");
    await call("PUT", path, { headers: plain, body: "x" });
    const token = (await createToken({ name: "ds-quota", rules: [allOn("topic", "*")], quotas: { requestsPerSecond: 1 } })).token;
    const statuses: number[] = [];
    let throttled: Awaited<ReturnType<typeof securedCall>> | undefined;
    for (let attempt = 0; attempt < 10 && !throttled; attempt++) {
      const response = await securedCall("GET", `/ds/${path}`, { token });
      statuses.push(response.status);
      if (response.status === 429) throttled = response;
    }
    expect(statuses[0]).toBe(200);
    expect({ status: throttled?.status, retryAfter: Number(throttled?.headers.get("retry-after")) > 0 }).toEqual({ status: 429, retryAfter: true });
  });
});
