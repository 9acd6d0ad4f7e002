/**
 * Leader epochs over HTTP (issue 29; docs/api.md): a partition's `leaderEpoch` in the topic's
 * description, and `GET …/offsets?at=epoch-end&leaderEpoch=N`, Kafka's OffsetForLeaderEpoch
 * answered by the leader from its epoch history — what the gateway's Metadata and
 * OffsetForLeaderEpoch answer Kafka's clients with, so that the Java consumer's position check
 * after a leader change (KIP-320) runs on Tributary's own epochs.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Tributary } from "../../../src/client/index.ts";
import { api, createTopic, describeTopic, expectError, produce, uniqueTopic } from "../support/http.ts";

const client = new Tributary({ binding: exports.default as unknown as Fetcher, logLevel: "nothing" });

const offsets = (topic: string, query: string) => api("GET", `/v1/topics/${topic}/partitions/0/offsets?${query}`);

describe("leader epochs over HTTP", () => {
  it("describes each partition's leader epoch and answers where each epoch ended, across an election", async () => {
    const topic = uniqueTopic("epoch-end");
    const created = await createTopic(topic, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const before = created.partitions[0]!;
    expect(before.leaderEpoch).toBe(0);
    await produce(topic, [0, 1, 2, 3, 4].map((index) => ({ partition: 0, value: `a${index}` })));
    // The only epoch so far ends at the high watermark.
    expect((await offsets(topic, "at=epoch-end&leaderEpoch=0")).body).toEqual({ leaderEpoch: 0, offset: 5 });

    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "down" })).status).toBe(204);
    expectError(await api("POST", `/v1/topics/${topic}/records`, { records: [{ partition: 0, value: "lost?" }] }), 503, "LEADER_NOT_AVAILABLE"); // the election
    const elected = (await describeTopic(topic)).partitions[0]!;
    expect(elected.leader).not.toBe(before.leader);
    expect(elected.leaderEpoch).toBeGreaterThan(0);
    // The new leader's epoch counts from its log's end even before it wrote anything in it.
    expect((await offsets(topic, `at=epoch-end&leaderEpoch=${elected.leaderEpoch}`)).body).toEqual({ leaderEpoch: elected.leaderEpoch, offset: 5 });
    await produce(topic, [0, 1, 2].map((index) => ({ partition: 0, value: `b${index}` })));
    const end = (await describeTopic(topic)).partitions[0]!.highWatermark;

    expect((await offsets(topic, "at=epoch-end&leaderEpoch=0")).body).toEqual({ leaderEpoch: 0, offset: 5 });
    expect((await offsets(topic, `at=epoch-end&leaderEpoch=${elected.leaderEpoch}`)).body).toEqual({ leaderEpoch: elected.leaderEpoch, offset: end });
    // An epoch after the latest is unknown here: Kafka's undefined answer.
    expect((await offsets(topic, `at=epoch-end&leaderEpoch=${elected.leaderEpoch + 1}`)).body).toEqual({ leaderEpoch: -1, offset: -1 });
    // The client's call answers the same.
    expect(await client.topic(topic).epochEnd(0, 0)).toEqual({ leaderEpoch: 0, offset: 5 });
    expect(await client.topic(topic).epochEnd(0, elected.leaderEpoch + 1)).toEqual({ leaderEpoch: -1, offset: -1 });
    expect((await api("POST", "/v1/faults", { topic, partition: 0, replica: before.leader, fault: "none" })).status).toBe(204);
  });

  it("refuses an epoch-end query without its epoch, and an epoch with any other query", async () => {
    const topic = uniqueTopic("epoch-end-bad");
    await createTopic(topic);
    expectError(await offsets(topic, "at=epoch-end"), 400, "INVALID_REQUEST");
    expectError(await offsets(topic, "at=epoch-end&leaderEpoch=-1"), 400, "INVALID_REQUEST");
    expectError(await offsets(topic, "at=latest&leaderEpoch=0"), 400, "INVALID_REQUEST");
  });
});
