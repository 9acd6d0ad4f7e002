/**
 * read_committed beyond the fetch (issue 28; docs/transactions.md): a long poll waits for an
 * open transaction's end instead of answering at once with nothing (a reader would spin); SSE
 * and WebSocket subscribers take `isolation`, read_committed by default — no record of an open
 * or aborted transaction, no marker, and a subscriber held at the last stable offset is not
 * counted as stalled.
 */
import { describe, expect, it } from "vitest";
import { splitBatches } from "../../../src/protocol/record-batch.ts";
import { isControlBatch } from "../../../src/protocol/control-batch.ts";
import { api, createTopic, uniqueTopic } from "../support/http.ts";
import { readRecords, stream } from "../streams/support.ts";
import { open, recordBatchSubprotocol } from "../streams/websocket-support.ts";
import { begin, finish, plain, send } from "./support.ts";

/** A topic holding: plain "p0", an aborted transaction's "a1", "a2" with its marker, plain "p1". */
async function withAbortedTransaction(name: string): Promise<string> {
  const topic = uniqueTopic(name);
  await createTopic(topic);
  await plain(topic, ["p0"]);
  const aborted = await begin(topic);
  await send(topic, aborted, ["a1", "a2"]);
  await finish(aborted, false);
  await plain(topic, ["p1"]);
  return topic;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("read_committed long polls", () => {
  it("a fetch at an open transaction waits for its end and answers the committed records; read_uncommitted answers at once", async () => {
    const topic = uniqueTopic("txn-long-poll");
    await createTopic(topic);
    await plain(topic, ["p0"]);
    const producer = await begin(topic);
    await send(topic, producer, ["t1", "t2"]);

    const uncommitted = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=1&waitMs=5000&isolation=read_uncommitted`);
    expect(uncommitted.body.records.map((record: { value: string }) => record.value)).toEqual(["t1", "t2"]);

    let settled = false;
    const waiting = api("GET", `/v1/topics/${topic}/partitions/0/records?offset=1&waitMs=10000`).finally(() => (settled = true));
    await sleep(500);
    expect(settled).toBe(false); // before: answered at once with no record, and a reader polled again and again
    await finish(producer, true);
    const answer = await waiting;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.records.map((record: { value: string }) => record.value)).toEqual(["t1", "t2"]);
    expect(answer.body.lastStableOffset).toBe(4);
  });
});

describe("list offsets takes isolation", () => {
  it("latest at read_committed is the last stable offset; without isolation it stays the high watermark", async () => {
    const topic = uniqueTopic("txn-list-offsets");
    await createTopic(topic);
    await plain(topic, ["p0"]);
    const producer = await begin(topic);
    await send(topic, producer, ["t1"]);
    const latest = async (query: string) => (await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=latest${query}`)).body.offset;
    expect([await latest(""), await latest("&isolation=read_uncommitted"), await latest("&isolation=read_committed")]).toEqual([2, 2, 1]);
    expect((await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=latest&isolation=dirty`)).status).toBe(400);
    await finish(producer, true);
    expect(await latest("&isolation=read_committed")).toBe(3);
  });
});

describe("SSE takes isolation", () => {
  it("read_committed (the default) leaves out an aborted transaction's records; read_uncommitted shows them", async () => {
    const topic = await withAbortedTransaction("txn-sse");
    const committed = await stream(`/v1/topics/${topic}/partitions/0/records?offset=earliest`);
    expect((await readRecords(committed, 2)).records.map((record) => record.value)).toEqual(["p0", "p1"]);
    await committed.close();
    const all = await stream(`/v1/topics/${topic}/partitions/0/records?offset=earliest&isolation=read_uncommitted`);
    expect((await readRecords(all, 4)).records.map((record) => record.value)).toEqual(["p0", "a1", "a2", "p1"]);
    await all.close();
    const topicWide = await stream(`/v1/topics/${topic}/records?offset=earliest`);
    expect((await readRecords(topicWide, 2)).records.map((record) => record.value)).toEqual(["p0", "p1"]);
    await topicWide.close();
    expect((await api("GET", `/v1/topics/${topic}/partitions/0/records?isolation=dirty`, undefined, { accept: "text/event-stream" })).status).toBe(400);
  });
});

describe("WebSocket subscribers take isolation", () => {
  it("JSON frames: read_committed waits at an open transaction and never shows an aborted one; read_uncommitted shows every record", async () => {
    const topic = await withAbortedTransaction("txn-socket");
    const open1 = await begin(topic);
    await send(topic, open1, ["o1"]);
    const committed = await open(topic, 0, "?offset=earliest");
    const uncommitted = await open(topic, 0, "?offset=earliest&isolation=read_uncommitted");
    await uncommitted.until(() => uncommitted.values().length === 5);
    expect(uncommitted.values()).toEqual(["p0", "a1", "a2", "p1", "o1"]);
    await committed.until(() => committed.values().length === 2);
    expect(committed.values()).toEqual(["p0", "p1"]);
    await plain(topic, ["p2"]); // past the open transaction: held back for read_committed
    await uncommitted.until(() => uncommitted.values().length === 6);
    expect(committed.values()).toEqual(["p0", "p1"]);
    await finish(open1, true);
    await committed.until(() => committed.values().length === 4);
    expect(committed.values()).toEqual(["p0", "p1", "o1", "p2"]);
    expect(committed.closed).toBeUndefined();
    committed.socket.close(1000);
    uncommitted.socket.close(1000);
  });

  it("binary frames: read_committed sends neither markers nor aborted batches, and moves past them", async () => {
    const topic = await withAbortedTransaction("txn-socket-binary");
    const committed = await open(topic, 0, "?offset=earliest", { "Sec-WebSocket-Protocol": recordBatchSubprotocol });
    const uncommitted = await open(topic, 0, "?offset=earliest&isolation=read_uncommitted", { "Sec-WebSocket-Protocol": recordBatchSubprotocol });
    const batchesOf = (bytes: Uint8Array) => [...splitBatches(bytes)].map(({ header }) => header);
    await uncommitted.until(() => batchesOf(uncommitted.binaryBytes()).length === 4); // p0, a1+a2, the marker, p1
    expect(batchesOf(uncommitted.binaryBytes()).some((header) => isControlBatch(header.attributes))).toBe(true);
    await committed.until(() => batchesOf(committed.binaryBytes()).length === 2);
    expect(batchesOf(committed.binaryBytes()).map((header) => header.baseOffset)).toEqual([0, 4]);
    await plain(topic, ["p2"]);
    await committed.until(() => batchesOf(committed.binaryBytes()).length === 3);
    expect(batchesOf(committed.binaryBytes()).map((header) => header.baseOffset)).toEqual([0, 4, 5]);
    committed.socket.close(1000);
    uncommitted.socket.close(1000);
  });
});
