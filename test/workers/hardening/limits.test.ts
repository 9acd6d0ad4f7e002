/**
 * Every bound of src/limits.ts that a request can reach (issue 8, "limits everywhere"): one
 * past the bound is refused with its error from API.md's table and nothing is written; at
 * the bound it is taken. The bounds come from limits.ts itself, so changing one keeps this
 * test honest.
 */
import { describe, expect, it } from "vitest";
import {
  adminRequestBytesMax,
  configEntriesMax,
  fetchMaxBytesMax,
  fetchMaxRecordsMax,
  fetchWaitMsMax,
  groupIdLengthMax,
  partitionsPerTopicMax,
  produceRecordsMax,
  produceRequestBytesMax,
  recordBytesMax,
  replicationFactorMax,
  subscribedTopicsMax,
  topicNameLengthMax,
} from "../../../src/limits.ts";
import { groupPath } from "../groups/support/groups.ts";
import { api, createTopic, expectError, fetchRecords, highWatermarks, uniqueTopic } from "../support/http.ts";

async function expectNothingWritten(topic: string, send: () => Promise<unknown>) {
  const before = await highWatermarks(topic);
  await send();
  expect(await highWatermarks(topic)).toEqual(before);
}

describe("limits on produce", () => {
  it("refuses more than produceRecordsMax records in one request", async () => {
    const topic = uniqueTopic("limit-records");
    await createTopic(topic);
    const records = Array.from({ length: produceRecordsMax + 1 }, () => ({ value: "" }));
    await expectNothingWritten(topic, async () => expectError(await api("POST", `/v1/topics/${topic}/records`, { records }), 413, "RECORD_LIST_TOO_LARGE"));
  });

  it("refuses a body over produceRequestBytesMax", async () => {
    const topic = uniqueTopic("limit-body");
    await createTopic(topic);
    const body = JSON.stringify({ records: [{ value: "v".repeat(produceRequestBytesMax) }] });
    await expectNothingWritten(topic, async () => expectError(await api("POST", `/v1/topics/${topic}/records`, body), 413, "RECORD_LIST_TOO_LARGE"));
  });

  it("refuses a record over recordBytesMax; takes any number of headers within it (Kafka has no bound)", async () => {
    const topic = uniqueTopic("limit-record");
    await createTopic(topic);
    const tooBig = { records: [{ value: "v".repeat(recordBytesMax + 1) }] };
    await expectNothingWritten(topic, async () => expectError(await api("POST", `/v1/topics/${topic}/records`, tooBig), 413, "MESSAGE_TOO_LARGE"));
    const headers = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`h${index}`, "v"]));
    expect((await api("POST", `/v1/topics/${topic}/records`, { records: [{ value: "v", headers: headers(1_000) }] })).status).toBe(200);
  });
});

describe("limits on topics", () => {
  it("refuses a name over topicNameLengthMax and takes one at it", async () => {
    const long = "t".repeat(topicNameLengthMax - 37) + crypto.randomUUID().slice(0, 36) + "x";
    expect(long.length).toBe(topicNameLengthMax);
    expectError(await api("POST", "/v1/topics", { name: `${long}y` }), 400, "INVALID_TOPIC_EXCEPTION");
    expect((await api("POST", "/v1/topics", { name: long })).status).toBe(201);
  });

  it("refuses more than partitionsPerTopicMax partitions or replicationFactorMax replicas", async () => {
    expectError(await api("POST", "/v1/topics", { name: uniqueTopic("p"), partitions: partitionsPerTopicMax + 1 }), 400, "INVALID_PARTITIONS");
    expectError(await api("POST", "/v1/topics", { name: uniqueTopic("rf"), replicationFactor: replicationFactorMax + 1 }), 400, "INVALID_REPLICATION_FACTOR");
  });

  it("refuses more than configEntriesMax configs in one request, and an admin body over adminRequestBytesMax", async () => {
    const topic = uniqueTopic("limit-configs");
    const created = await createTopic(topic);
    const configs = Object.fromEntries(Array.from({ length: configEntriesMax + 1 }, (_, index) => [`x.${index}`, "1"]));
    expectError(await api("PATCH", `/v1/topics/${topic}/configs`, { configs }), 400, "INVALID_CONFIG");
    const huge = JSON.stringify({ configs: { "retention.ms": "1".padEnd(adminRequestBytesMax, " ") } });
    expectError(await api("PATCH", `/v1/topics/${topic}/configs`, huge), 400, "INVALID_REQUEST");
    expect((await api("GET", `/v1/topics/${topic}`)).body.configs).toEqual(created.configs);
  });
});

describe("limits on fetch", () => {
  it.each([
    ["maxRecords", fetchMaxRecordsMax],
    ["maxBytes", fetchMaxBytesMax],
    ["waitMs", fetchWaitMsMax],
  ])("refuses %s over its bound", async (name, bound) => {
    const topic = uniqueTopic("limit-fetch");
    await createTopic(topic);
    expectError(await fetchRecords(topic, 0, { offset: 0, [name]: bound + 1 }), 400, "INVALID_REQUEST");
    expect((await fetchRecords(topic, 0, { offset: 0, [name]: name === "waitMs" ? 0 : bound })).status).toBe(200);
  });
});

describe("limits on groups", () => {
  it("refuses a group name over groupIdLengthMax and a subscription over subscribedTopicsMax", async () => {
    const topic = uniqueTopic("limit-group");
    await createTopic(topic);
    expectError(await api("POST", groupPath("g".repeat(groupIdLengthMax + 1), "/members"), { topics: [topic] }), 400, "INVALID_REQUEST");
    const topics = Array.from({ length: subscribedTopicsMax + 1 }, (_, index) => `${topic}-${index}`);
    expectError(await api("POST", groupPath(`limit-${crypto.randomUUID()}`, "/members"), { topics }), 400, "INVALID_REQUEST");
  });
});
