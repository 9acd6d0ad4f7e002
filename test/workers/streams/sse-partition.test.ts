/**
 * SSE on a partition (docs/api.md, "SSE on a partition"): framing, where a stream starts,
 * resuming with Last-Event-ID, the error event, errors before the stream, streams per token.
 */
import { describe, expect, it } from "vitest";
import { streamsPerTokenMax } from "../../../src/limits.ts";
import { api, createTopic, expectError, produce, readResponse, uniqueTopic } from "../support/http.ts";
import { allOn, createToken, securedCall } from "../support/secured.ts";
import { openStream, readRecords, SseReader, stream } from "./support.ts";

const recordsPath = (topic: string, query = "") => `/v1/topics/${topic}/partitions/0/records${query}`;

describe("SSE on a partition", () => {
  it("opens with a keep-alive, then sends records events with the next offset as id and fetch's data", async () => {
    const topic = uniqueTopic("sse-frame");
    await createTopic(topic);
    await produce(topic, [{ key: "k", value: "a", headers: { h: "1" } }, { value: "b" }, { value: "c" }]);
    const reader = await stream(recordsPath(topic, "?offset=earliest"));
    expect(reader.response.headers.get("cache-control")).toBe("no-cache");
    expect(await reader.next()).toEqual({ kind: "comment", text: "keepalive" });
    const event = await reader.next();
    expect(event).toMatchObject({ kind: "event", event: "records", id: "3" });
    const data = (event as { data: any }).data;
    expect(Object.keys(data).sort()).toEqual(["highWatermark", "logStartOffset", "nextOffset", "records"]);
    expect(data).toMatchObject({ nextOffset: 3, highWatermark: 3, logStartOffset: 0 });
    expect(data.records.map((record: { offset: number; value: string }) => [record.offset, record.value])).toEqual([[0, "a"], [1, "b"], [2, "c"]]);
    expect(data.records[0]).toMatchObject({ key: "k", headers: { h: "1" } });
    await reader.close();
  });

  it("sends a keep-alive before anything else while idle, and another after an empty long poll", async () => {
    const topic = uniqueTopic("sse-idle");
    await createTopic(topic);
    const reader = await stream(recordsPath(topic));
    expect(await reader.next()).toEqual({ kind: "comment", text: "keepalive" });
    // The next long poll (streamPollWaitMs, under streamKeepaliveIntervalMs) finds nothing: a keep-alive again.
    expect(await reader.next()).toEqual({ kind: "comment", text: "keepalive" });
    await produce(topic, [{ value: "late" }]);
    const event = await reader.nextEvent();
    expect(event?.data.records.map((record: { value: string }) => record.value)).toEqual(["late"]);
    await reader.close();
  });

  it("starts at latest by default, at base64 when asked, and Last-Event-ID wins over offset", async () => {
    const topic = uniqueTopic("sse-start");
    await createTopic(topic);
    await produce(topic, [{ value: "a" }, { value: "b" }, { value: "c" }]);
    const latest = await stream(recordsPath(topic, "?encoding=base64"));
    await produce(topic, [{ value: "d" }]);
    const fromLatest = await readRecords(latest, 1);
    expect(fromLatest.records.map((record) => [record.offset, record.value])).toEqual([[3, btoa("d")]]);
    expect(fromLatest.lastId).toBe("4");
    await latest.close();
    const resumed = await stream(recordsPath(topic, "?offset=0"), { lastEventId: "2" });
    expect((await readRecords(resumed, 2)).records.map((record) => record.offset)).toEqual([2, 3]);
    await resumed.close();
  });

  it("resumes with Last-Event-ID across 10 forced disconnects while a producer writes: nothing lost, nothing repeated", async () => {
    const topic = uniqueTopic("sse-resume");
    await createTopic(topic);
    const total = 60;
    const producing = (async () => {
      for (let index = 0; index < total; index += 3) {
        await produce(topic, [0, 1, 2].map((step) => ({ value: `v${index + step}` })));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const seen: number[] = [];
    let lastId: string | undefined;
    for (let connection = 0; connection < 11 && seen.length < total; connection++) {
      const reader = await stream(recordsPath(topic, "?offset=earliest"), { lastEventId: lastId });
      // The first 10 connections take one event each, then go away; the last reads to the end.
      const wanted = connection < 10 ? Math.min(seen.length + 1, total) : total;
      while (seen.length < wanted) {
        const event = await reader.nextEvent();
        expect(event?.event).toBe("records");
        seen.push(...event!.data.records.map((record: { offset: number; value: string }) => {
          expect(record.value).toBe(`v${record.offset}`);
          return record.offset;
        }));
        lastId = event!.id;
      }
      await reader.close();
    }
    await producing;
    expect(seen).toEqual(Array.from({ length: total }, (_, index) => index));
  });

  it("ends with an error event when the topic is deleted", async () => {
    const topic = uniqueTopic("sse-deleted");
    await createTopic(topic);
    const reader = await stream(recordsPath(topic));
    expect(await reader.next()).toEqual({ kind: "comment", text: "keepalive" });
    expect((await api("DELETE", `/v1/topics/${topic}`)).status).toBe(204);
    const event = await reader.nextEvent();
    expect(event).toMatchObject({ kind: "event", event: "error", data: { error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } } });
    expect(await reader.next()).toBeUndefined();
  });

  it("refuses before the stream with JSON and a status", async () => {
    const topic = uniqueTopic("sse-refused");
    await createTopic(topic);
    await produce(topic, [{ value: "a" }]);
    const refused = async (path: string, status: number, code: string, lastEventId?: string) =>
      expectError(await readResponse(await openStream(path, { lastEventId })), status, code);
    await refused(recordsPath(uniqueTopic("absent")), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    await refused(`/v1/topics/${topic}/partitions/3/records`, 404, "UNKNOWN_TOPIC_OR_PARTITION");
    const outOfRange = await refused(recordsPath(topic, "?offset=5"), 416, "OFFSET_OUT_OF_RANGE");
    expect(outOfRange).toMatchObject({ logStartOffset: 0, highWatermark: 1 });
    await refused(recordsPath(topic, "?offset=first"), 400, "INVALID_REQUEST");
    await refused(recordsPath(topic, "?encoding=hex"), 400, "INVALID_REQUEST");
    expect((await refused(recordsPath(topic, "?waitMs=100"), 400, "INVALID_REQUEST")).parameter).toBe("waitMs");
    for (const id of ["x", "-1", "1.5", ""]) await refused(recordsPath(topic), 400, "INVALID_REQUEST", id);
  });

  it("counts the bytes it sends against the token's fetch quota", async () => {
    const topic = uniqueTopic("sse-quota");
    await createTopic(topic);
    await produce(topic, [{ value: "v".repeat(1_000) }, { value: "v".repeat(1_000) }]);
    const { token } = await createToken({ rules: [allOn("topic", topic)], quotas: { fetchBytesPerSecond: 1_000 } });
    const reader = await stream(recordsPath(topic, "?offset=earliest"), { token });
    expect((await readRecords(reader, 2)).records).toHaveLength(2); // ~2 KB: sent, and leaves ~1 s of debt
    await reader.close();
    // Fetches of nothing (at the high watermark) fetch no bytes themselves: only the stream's count.
    const fetch = () => securedCall("GET", recordsPath(topic, "?offset=2"), { token });
    let response = await fetch();
    for (let attempt = 0; attempt < 50 && response.status !== 429; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      response = await fetch();
    }
    expectError(response, 429, "THROTTLING_QUOTA_EXCEEDED");
  });

  it(`holds at most ${streamsPerTokenMax} streams per token, and frees a slot when a client goes away or a stream is refused`, async () => {
    const topic = uniqueTopic("sse-slots");
    await createTopic(topic);
    const { token } = await createToken({ rules: [allOn("topic", topic)] });
    const readers: SseReader[] = [];
    for (let index = 0; index < streamsPerTokenMax - 1; index++) readers.push(await stream(recordsPath(topic), { token }));
    // Streams refused before they start give their slot back.
    for (let attempt = 0; attempt < 3; attempt++) expectError(await readResponse(await openStream(recordsPath(topic, "?offset=9"), { token })), 416, "OFFSET_OUT_OF_RANGE");
    readers.push(await stream(recordsPath(topic), { token }));
    const refused = expectError(await readResponse(await openStream(recordsPath(topic), { token })), 429, "THROTTLING_QUOTA_EXCEEDED");
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    await readers.pop()!.close();
    const again = await stream(recordsPath(topic), { token });
    readers.push(again);
    await Promise.all(readers.map((reader) => reader.close()));
  });

  it("frees the slot of a client that went away through workerd's HTTP pipeline (the stream was cancelled, so it polls no more)", async () => {
    const topic = uniqueTopic("sse-gone");
    await createTopic(topic);
    // An open deployment counts as one credential: fill its slots through the Worker's own fetch handler.
    const readers: SseReader[] = [];
    for (let index = 0; index < streamsPerTokenMax; index++) readers.push(await stream(recordsPath(topic)));
    expectError(await readResponse(await openStream(recordsPath(topic))), 429, "THROTTLING_QUOTA_EXCEEDED");
    await readers.pop()!.close();
    let again = await openStream(recordsPath(topic));
    for (let attempt = 0; attempt < 100 && again.status === 429; attempt++) {
      await again.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await openStream(recordsPath(topic));
    }
    expect(again.status).toBe(200);
    readers.push(new SseReader(again));
    await Promise.all(readers.map((reader) => reader.close()));
  });
});
