/**
 * Isolation on the read paths beyond fetch and streams (issue 28; docs/transactions.md): a
 * share group's `share.isolation.level` (KIP-932's group config; read_committed by default in
 * Tributary) — acquisition stops at the last stable offset and an aborted transaction's records
 * are never delivered; read_uncommitted delivers every record up to the high watermark; a
 * marker is never a record. Push subscriptions take `isolation` (ordered: their reads; shared:
 * their share group's config), and one from latest at read_committed starts at the last stable
 * offset, so a transaction open at its creation is delivered at its commit. Durable Streams
 * reads take `isolation` too (a stream's topic may hold transactions written through /v1).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { subscriptionStub } from "../../../src/contracts/stubs.ts";
import { unwrap } from "../../../src/errors.ts";
import { createTopic, uniqueTopic } from "../support/http.ts";
import { acceptAll, describeShareGroup, setConfigs, shareFetch, uniqueShareGroup } from "../share-groups/support.ts";
import { createSubscription, describeSubscription, received, settledRequests, uniqueSubscription, until } from "../subscriptions/support/subscriptions.ts";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import { formatStreamOffset } from "../../../src/durable-streams/stream-offsets.ts";
import { ds, plain as plainText, uniquePath } from "../durable-streams/support/stream-calls.ts";
import { begin, finish, plain, send } from "./support.ts";

/**
 * A topic holding "a", an aborted transaction's "x" (offset 1, its marker 2), "b" (3) and an
 * open transaction's "y" (4): the high watermark 5, the last stable offset 4. Answers the open
 * transaction's producer.
 */
async function withTransactions(name: string) {
  const topic = uniqueTopic(name);
  await createTopic(topic);
  await plain(topic, ["a"]);
  const aborted = await begin(topic);
  await send(topic, aborted, ["x"]);
  await finish(aborted, false);
  await plain(topic, ["b"]);
  const open = await begin(topic);
  await send(topic, open, ["y"]);
  return { topic, open };
}

async function shareGroupAt(isolation?: string): Promise<string> {
  const group = uniqueShareGroup("isolation");
  const configs: Record<string, string> = { "auto.offset.reset": "earliest", ...(isolation ? { "share.isolation.level": isolation } : {}) };
  const answer = await setConfigs(group, configs);
  expect(answer.status, answer.text).toBe(200);
  return group;
}

async function fetchValues(group: string, topic: string): Promise<(string | null)[]> {
  const answer = await shareFetch(group, { topics: [topic], maxRecords: 20, waitMs: 0 });
  await acceptAll(group, answer);
  return answer.records.map((record) => record.value);
}

describe("share groups take share.isolation.level", () => {
  it("read_committed (the default) acquires up to the last stable offset, skips the aborted records, and delivers the rest at the commit", async () => {
    const { topic, open } = await withTransactions("share-committed");
    const group = await shareGroupAt();
    expect((await describeShareGroup(group)).configs["share.isolation.level"]).toBe("read_committed");
    expect(await fetchValues(group, topic)).toEqual(["a", "b"]);
    expect(await fetchValues(group, topic)).toEqual([]);
    const [partition] = (await describeShareGroup(group)).partitions;
    expect(partition!.endOffset).toBe(4); // the open transaction's record was never acquired
    await finish(open, true);
    expect(await fetchValues(group, topic)).toEqual(["y"]);
  });

  it("read_uncommitted delivers every record up to the high watermark, aborted and open ones too, never a marker", async () => {
    const { topic, open } = await withTransactions("share-uncommitted");
    const group = await shareGroupAt("read_uncommitted");
    expect(await fetchValues(group, topic)).toEqual(["a", "x", "b", "y"]);
    await finish(open, false);
    await plain(topic, ["c"]);
    expect(await fetchValues(group, topic)).toEqual(["c"]);
  });
});

async function receivedValues(subscription: string): Promise<string[]> {
  return (await received(subscription)).flatMap((batch) => batch.records.map((record) => record.value));
}

/** Waits until the subscription's target received `values` (in order, nothing else). */
async function receives(subscription: string, values: string[]): Promise<void> {
  await until(`${subscription} receives ${values.join(",")}`, async () => (await receivedValues(subscription)).length >= values.length);
  expect(await receivedValues(subscription)).toEqual(values);
}

describe("push subscriptions take isolation", () => {
  it("read_committed (the default) delivers committed records only, and from latest starts at the last stable offset", async () => {
    const { topic, open } = await withTransactions("subscription-committed");
    const [ordered, shared, latest] = [uniqueSubscription("committed"), uniqueSubscription("committed-shared"), uniqueSubscription("committed-latest")];
    expect((await createSubscription({ name: ordered, topic, from: "earliest" })).isolation).toBe("read_committed");
    await createSubscription({ name: shared, topic, from: "earliest", mode: "shared" });
    await createSubscription({ name: latest, topic, from: "latest" });
    await receives(ordered, ["a", "b"]);
    await receives(shared, ["a", "b"]);
    // Held at the open transaction: idle (watching), not reading again and again.
    await settledRequests(async () => unwrap(await subscriptionStub(env, ordered).debugStats()).requests);
    await finish(open, true);
    await receives(ordered, ["a", "b", "y"]);
    await receives(shared, ["a", "b", "y"]);
    await receives(latest, ["y"]); // created while "y" was open: not skipped
  });

  it("read_uncommitted delivers every record up to the high watermark, ordered and shared", async () => {
    const { topic } = await withTransactions("subscription-uncommitted");
    const [ordered, shared] = [uniqueSubscription("uncommitted"), uniqueSubscription("uncommitted-shared")];
    await createSubscription({ name: ordered, topic, from: "earliest", isolation: "read_uncommitted" });
    await createSubscription({ name: shared, topic, from: "earliest", mode: "shared", isolation: "read_uncommitted" });
    expect((await describeSubscription(shared)).isolation).toBe("read_uncommitted");
    await receives(ordered, ["a", "x", "b", "y"]);
    await receives(shared, ["a", "x", "b", "y"]);
  });
});

describe("Durable Streams reads take isolation", () => {
  it("read_committed (the default) reads and announces the tail at the last stable offset; read_uncommitted reads every record", async () => {
    const path = uniquePath("isolation");
    expect((await ds("PUT", path, { headers: plainText })).status).toBe(201);
    const topic = streamTopicName(path);
    await plain(topic, ["a"]);
    const aborted = await begin(topic);
    await send(topic, aborted, ["x"]);
    await finish(aborted, false);
    await plain(topic, ["b"]);
    const open = await begin(topic);
    await send(topic, open, ["y"]);
    const committed = await ds("GET", `${path}?offset=-1`);
    expect([committed.text, committed.headers.get("stream-next-offset"), committed.headers.get("stream-up-to-date")]).toEqual(["ab", formatStreamOffset(4), "true"]);
    expect((await ds("HEAD", path)).headers.get("stream-next-offset")).toBe(formatStreamOffset(4));
    const uncommitted = await ds("GET", `${path}?offset=-1&isolation=read_uncommitted`);
    expect([uncommitted.text, uncommitted.headers.get("stream-next-offset"), uncommitted.headers.get("stream-up-to-date")]).toEqual(["axby", formatStreamOffset(5), "true"]);
    expect((await ds("HEAD", `${path}?isolation=read_uncommitted`)).headers.get("stream-next-offset")).toBe(formatStreamOffset(5));
    expect((await ds("GET", `${path}?offset=-1&isolation=serializable`)).status).toBe(400);
    await finish(open, true);
    expect((await ds("GET", `${path}?offset=${formatStreamOffset(4)}`)).text).toBe("y");
  });
});
