/**
 * SSE on a whole topic (docs/api.md, "SSE on a whole topic"): every partition merged, an
 * opaque id that resumes each partition exactly, partitions added while streaming, the error
 * event, and the refusals before the stream.
 */
import { describe, expect, it } from "vitest";
import { streamTopicPollsMax } from "../../../src/limits.ts";
import { api, createTopic, expectError, produce, readResponse, uniqueTopic } from "../support/http.ts";
import { openStream, readRecords, stream } from "./support.ts";

const topicPath = (topic: string, query = "") => `/v1/topics/${topic}/records${query}`;
const key = (record: { partition: number; offset: number }) => `${record.partition}:${record.offset}`;

describe("SSE on a whole topic", () => {
  it("merges every partition, with positions and an id that resumes each exactly across disconnects while a producer writes", async () => {
    const topic = uniqueTopic("sse-topic");
    await createTopic(topic, { partitions: 4 });
    const perPartition = 12;
    const producing = (async () => {
      for (let round = 0; round < perPartition; round += 2) {
        for (let partition = 0; partition < 4; partition++) {
          await produce(topic, [0, 1].map((step) => ({ value: `p${partition}-${round + step}`, partition })));
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const seen: string[] = [];
    let lastId: string | undefined;
    for (let connection = 0; seen.length < 4 * perPartition; connection++) {
      expect(connection).toBeLessThan(200);
      const reader = await stream(topicPath(topic, "?offset=earliest"), { lastEventId: lastId });
      const event = await reader.nextEvent();
      expect(event?.event).toBe("records");
      expect(Object.keys(event!.data).sort()).toEqual(["positions", "records"]);
      for (const record of event!.data.records) {
        expect(record.value).toBe(`p${record.partition}-${record.offset}`);
        seen.push(key(record));
      }
      expect(Object.keys(event!.data.positions).sort()).toEqual(["0", "1", "2", "3"]);
      lastId = event!.id;
      await reader.close();
    }
    await producing;
    const expected = [0, 1, 2, 3].flatMap((partition) => Array.from({ length: perPartition }, (_, offset) => `${partition}:${offset}`));
    expect([...seen].sort()).toEqual([...expected].sort());
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("reads a topic with more partitions than it polls at once (streamTopicPollsMax), each in turn", async () => {
    const topic = uniqueTopic("sse-topic-wide");
    const partitions = streamTopicPollsMax * 2 + 1;
    await createTopic(topic, { partitions });
    const reader = await stream(topicPath(topic, "?offset=earliest"));
    for (let partition = partitions - 1; partition >= 0; partition--) await produce(topic, [{ value: `only-${partition}`, partition }]);
    const { records } = await readRecords(reader, partitions);
    expect(records.map((record) => record.value).sort()).toEqual(Array.from({ length: partitions }, (_, partition) => `only-${partition}`).sort());
    await reader.close();
  });

  it("starts at latest by default, and reads partitions added while streaming from their offset 0", async () => {
    const topic = uniqueTopic("sse-topic-grow");
    await createTopic(topic);
    await produce(topic, [{ value: "old" }]);
    const reader = await stream(topicPath(topic));
    expect(await reader.next()).toEqual({ kind: "comment", text: "keepalive" });
    expect((await api("POST", `/v1/topics/${topic}/partitions`, { count: 3 })).status).toBe(200);
    await produce(topic, [{ value: "new-2", partition: 2 }, { value: "new-0", partition: 0 }]);
    const { records } = await readRecords(reader, 2);
    expect(records.map((record) => [record.partition, record.offset, record.value]).sort()).toEqual([[0, 1, "new-0"], [2, 0, "new-2"]]);
    await reader.close();
  });

  it("ends with an error event when the topic is deleted", async () => {
    const topic = uniqueTopic("sse-topic-deleted");
    await createTopic(topic, { partitions: 2 });
    const reader = await stream(topicPath(topic));
    expect(await reader.next()).toEqual({ kind: "comment", text: "keepalive" });
    expect((await api("DELETE", `/v1/topics/${topic}`)).status).toBe(204);
    expect(await reader.nextEvent()).toMatchObject({ event: "error", data: { error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } } });
    expect(await reader.next()).toBeUndefined();
  });

  it("refuses before the stream: without Accept: text/event-stream, a malformed Last-Event-ID, an offset that is not earliest or latest", async () => {
    const topic = uniqueTopic("sse-topic-refused");
    await createTopic(topic, { partitions: 2 });
    const plain = expectError(await api("GET", topicPath(topic)), 400, "INVALID_REQUEST");
    expect(plain.message).toContain("text/event-stream");
    expectError(await readResponse(await openStream(topicPath(uniqueTopic("absent")))), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await readResponse(await openStream(topicPath(topic, "?offset=3"))), 400, "INVALID_REQUEST");
    const reader = await stream(topicPath(topic, "?offset=earliest"));
    await produce(topic, [{ value: "a", partition: 1 }]);
    const id = (await reader.nextEvent())!.id!;
    await reader.close();
    const [tag] = id.split(".");
    const malformed = ["garbage", "", `${tag}`, `${tag}.0.1.0`, `${tag}.0.-1`, `${tag}.0.01`, `${tag}.0.1.`, `${tag}.0.zzzzzzzzzzzz`, `00000000.0.1`, `${tag}.0.A`];
    for (const lastEventId of malformed) {
      const response = await readResponse(await openStream(topicPath(topic), { lastEventId }));
      expect({ lastEventId, status: response.status, code: response.body?.error?.code }).toEqual({ lastEventId, status: 400, code: "INVALID_REQUEST" });
    }
    // The well-formed id resumes after the record it covered.
    const resumed = await stream(topicPath(topic), { lastEventId: id });
    await produce(topic, [{ value: "b", partition: 0 }]);
    expect((await readRecords(resumed, 1)).records.map((record) => [record.partition, record.offset])).toEqual([[0, 0]]);
    await resumed.close();
  });
});
