/**
 * A member's poll (API.md, Consumer groups): heartbeat, commit of the positions sent back,
 * reads of every assigned partition within the whole answer's limits, positions, pausing,
 * waiting, and the errors.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, produce, uniqueTopic } from "../support/http.ts";
import {
  coordinator,
  groupOffsets,
  join,
  partitionsOf,
  poll,
  pollRaw,
  PollingMember,
  uniqueGroup,
  type PolledRecord,
} from "./support/groups.ts";

/** A topic with `perPartition` records in each partition, values "p<partition>-<index>". */
async function filledTopic(partitions: number, perPartition: number): Promise<string> {
  const topic = uniqueTopic("poll");
  await createTopic(topic, { partitions });
  const records = [];
  for (let partition = 0; partition < partitions; partition++) {
    for (let index = 0; index < perPartition; index++) records.push({ value: `p${partition}-${index}`, partition });
  }
  if (records.length > 0) await produce(topic, records);
  return topic;
}

function offsetsByPartition(records: readonly PolledRecord[]): Record<number, number[]> {
  const byPartition: Record<number, number[]> = {};
  for (const record of records) (byPartition[record.partition] ??= []).push(record.offset);
  return byPartition;
}

describe("poll", () => {
  it("answers 200 {memberEpoch, assignment, records: [{topic, partition, offset, timestamp, key, value, headers}], positions}", async () => {
    const topic = uniqueTopic("poll-shape");
    await createTopic(topic, { partitions: 2 });
    await produce(topic, [
      { key: "k", value: "v0", headers: { h: "1" }, partition: 0, timestamp: 1764673200000 },
      { value: "v1", partition: 1, timestamp: 1764673200001 },
    ]);
    const group = uniqueGroup("shape");
    const joined = await join(group, [topic], { autoOffsetReset: "earliest" });
    const response = await pollRaw(group, joined.memberId, { memberEpoch: joined.memberEpoch });
    expect(response.status, response.text).toBe(200);
    const { records, ...rest } = response.body;
    expect(rest).toEqual({
      memberEpoch: joined.memberEpoch,
      assignment: [{ topic, partitions: [0, 1] }],
      heartbeatIntervalMs: 5000,
      positions: [
        { topic, partition: 0, offset: 1 },
        { topic, partition: 1, offset: 1 },
      ],
    });
    expect([...records].sort((a, b) => a.partition - b.partition)).toEqual([
      { topic, partition: 0, offset: 0, timestamp: 1764673200000, key: "k", value: "v0", headers: { h: "1" } },
      { topic, partition: 1, offset: 0, timestamp: 1764673200001, key: null, value: "v1", headers: {} },
    ]);
  });

  it("starts from the latest offset by default, and reads what is produced after", async () => {
    const topic = await filledTopic(1, 3);
    const group = uniqueGroup("latest");
    const member = await PollingMember.join(group, [topic]);
    const first = await member.poll();
    expect(first.records).toEqual([]);
    expect(first.positions).toEqual([{ topic, partition: 0, offset: 3 }]);
    await produce(topic, [{ value: "new", partition: 0 }]);
    const second = await member.poll();
    expect(second.records.map((record) => [record.offset, record.value])).toEqual([[3, "new"]]);
  });

  it("commits the positions a member sends back, and continues from them", async () => {
    const topic = await filledTopic(2, 5);
    const group = uniqueGroup("commit");
    const member = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    const first = await member.poll({ maxRecords: 4 });
    expect(first.records).toHaveLength(4);
    // Nothing is committed before the member sends its positions back.
    expect((await groupOffsets(group)).map((entry) => entry.offset)).toEqual([null, null]);
    const second = await member.poll({ maxRecords: 100 });
    const committed = await groupOffsets(group);
    expect(committed.map(({ partition, offset }) => [partition, offset])).toEqual(first.positions.map(({ partition, offset }) => [partition, offset]));
    const all = [...first.records, ...second.records];
    expect(offsetsByPartition(all)).toEqual({ 0: [0, 1, 2, 3, 4], 1: [0, 1, 2, 3, 4] });
  });

  it("does not commit with autoCommit false, but still continues from the positions sent", async () => {
    const topic = await filledTopic(1, 4);
    const group = uniqueGroup("no-commit");
    const member = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    await member.poll({ maxRecords: 2, autoCommit: false });
    const second = await member.poll({ maxRecords: 2, autoCommit: false });
    expect(second.records.map((record) => record.offset)).toEqual([2, 3]);
    expect((await groupOffsets(group))[0]).toMatchObject({ offset: null, lag: null });
  });

  it("seeks to a different offset sent as a position", async () => {
    const topic = await filledTopic(1, 10);
    const group = uniqueGroup("seek");
    const joined = await join(group, [topic], { autoOffsetReset: "earliest" });
    const answer = await poll(group, joined.memberId, {
      memberEpoch: joined.memberEpoch,
      positions: [{ topic, partition: 0, offset: 7 }],
    });
    expect(answer.records.map((record) => record.offset)).toEqual([7, 8, 9]);
    expect(answer.positions).toEqual([{ topic, partition: 0, offset: 10 }]);
  });

  it("continues from the group's committed offset when the member sends no position", async () => {
    const topic = await filledTopic(1, 6);
    const group = uniqueGroup("committed-start");
    const first = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    await first.poll({ maxRecords: 4 });
    await first.poll({ maxRecords: 1 }); // commits offset 4
    await api("DELETE", `/v1/groups/${group}/members/${first.memberId}`);
    const second = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    const answer = await second.poll();
    expect(answer.records.map((record) => record.offset)).toEqual([4, 5]);
  });

  it("keeps the whole answer within maxRecords and returns every record once over several polls", async () => {
    const topic = await filledTopic(3, 7);
    const group = uniqueGroup("max-records");
    const member = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    for (let round = 0; round < 20; round++) {
      const answer = await member.poll({ maxRecords: 5 });
      expect(answer.records.length).toBeLessThanOrEqual(5);
      if (member.received.length === 21) break;
      expect(answer.records.length).toBeGreaterThan(0);
    }
    const expected = [0, 1, 2, 3, 4, 5, 6];
    expect(offsetsByPartition(member.received)).toEqual({ 0: expected, 1: expected, 2: expected });
    expect(member.positions).toEqual([0, 1, 2].map((partition) => ({ topic, partition, offset: 7 })));
  });

  it("keeps the whole answer within maxBytes, but returns one record when it alone is larger", async () => {
    const topic = uniqueTopic("max-bytes");
    await createTopic(topic, { partitions: 2 });
    await produce(topic, [0, 1].flatMap((partition) => [0, 1, 2].map((index) => ({ value: `${partition}${index}`.repeat(50), partition }))));
    const group = uniqueGroup("max-bytes");
    const member = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    const bounded = await member.poll({ maxBytes: 250 });
    expect(bounded.records).toHaveLength(2);
    const one = await member.poll({ maxBytes: 1 });
    expect(one.records).toHaveLength(1);
    for (let round = 0; round < 10 && member.received.length < 6; round++) await member.poll({ maxBytes: 250 });
    expect(offsetsByPartition(member.received)).toEqual({ 0: [0, 1, 2], 1: [0, 1, 2] });
  });

  it("returns keys and values as base64 with encoding base64", async () => {
    const topic = await filledTopic(1, 1);
    const group = uniqueGroup("base64");
    const member = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    const answer = await member.poll({ encoding: "base64" });
    expect(answer.records.map((record) => record.value)).toEqual([btoa("p0-0")]);
  });

  it("does not read paused partitions but keeps their positions", async () => {
    const topic = await filledTopic(2, 3);
    const group = uniqueGroup("paused");
    const member = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    const answer = await member.poll({ paused: [{ topic, partitions: [1] }] });
    expect(answer.records.map((record) => record.partition)).toEqual([0, 0, 0]);
    expect(answer.positions).toEqual([
      { topic, partition: 0, offset: 3 },
      { topic, partition: 1, offset: 0 },
    ]);
    const resumed = await member.poll();
    expect(resumed.records.map((record) => [record.partition, record.offset])).toEqual([[1, 0], [1, 1], [1, 2]]);
  });

  it("resets a position past the log end by autoOffsetReset (Kafka's consumer does)", async () => {
    const topic = await filledTopic(2, 3);
    const group = uniqueGroup("out-of-range");
    const joined = await join(group, [topic], { autoOffsetReset: "earliest" });
    const answer = await poll(group, joined.memberId, {
      memberEpoch: joined.memberEpoch,
      autoCommit: false,
      positions: [
        { topic, partition: 0, offset: 1000 },
        { topic, partition: 1, offset: 3 },
      ],
    });
    expect(answer.records.map((record) => [record.partition, record.offset])).toEqual([[0, 0], [0, 1], [0, 2]]);
    expect(answer.positions).toEqual([
      { topic, partition: 0, offset: 3 },
      { topic, partition: 1, offset: 3 },
    ]);
    const latest = uniqueGroup("out-of-range-latest");
    const other = await join(latest, [topic]);
    const reset = await poll(latest, other.memberId, {
      memberEpoch: other.memberEpoch,
      positions: [{ topic, partition: 0, offset: 1000 }],
      autoCommit: false,
    });
    expect(reset.records).toEqual([]);
    expect(reset.positions).toEqual([
      { topic, partition: 0, offset: 3 },
      { topic, partition: 1, offset: 3 },
    ]);
  });

  it("rejoins with memberEpoch 0, ignoring the positions it sends and committing nothing", async () => {
    const topic = await filledTopic(1, 3);
    const group = uniqueGroup("poll-rejoin");
    const joined = await join(group, [topic], { autoOffsetReset: "earliest" });
    const answer = await poll(group, joined.memberId, { memberEpoch: 0, positions: [{ topic, partition: 0, offset: 2 }] });
    expect(answer.memberEpoch).toBeGreaterThan(joined.memberEpoch);
    expect(answer.records.map((record) => record.offset)).toEqual([0, 1, 2]);
    expect((await groupOffsets(group))[0]!.offset).toBeNull();
  });

  it("reads partitions added to a subscribed topic from their start", async () => {
    const topic = await filledTopic(2, 2);
    const group = uniqueGroup("grown");
    const member = await PollingMember.join(group, [topic]);
    expect((await member.poll()).records).toEqual([]);
    const grown = await api("POST", `/v1/topics/${topic}/partitions`, { count: 4 });
    expect(grown.status, grown.text).toBe(200);
    await produce(topic, [2, 2, 3].map((partition) => ({ value: `new-${partition}`, partition })));
    await produce(topic, [{ value: "after", partition: 0 }]);
    // The coordinator trusts its topic metadata for up to 5 s (API.md: metadata changes show
    // within 5 s); a restart makes it ask the controller at once instead of waiting that out.
    await evictDurableObject(coordinator(group));
    const answer = await member.poll();
    expect(partitionsOf(answer.assignment, topic)).toEqual([0, 1, 2, 3]);
    expect(answer.records.map((record) => [record.partition, record.offset, record.value]).sort()).toEqual([
      [0, 2, "after"],
      [2, 0, "new-2"],
      [2, 1, "new-2"],
      [3, 0, "new-3"],
    ]);
  });
});

describe("a waiting poll", () => {
  it("returns as soon as a record arrives", async () => {
    const topic = await filledTopic(2, 0);
    const group = uniqueGroup("wait-record");
    const member = await PollingMember.join(group, [topic]);
    await member.poll();
    const started = Date.now();
    const waiting = member.poll({ waitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await produce(topic, [{ value: "wake", partition: 1 }]);
    const answer = await waiting;
    expect(answer.records.map((record) => [record.partition, record.value])).toEqual([[1, "wake"]]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("returns early when the member's assignment changes (a second member joins)", async () => {
    const topic = await filledTopic(4, 0);
    const group = uniqueGroup("wait-rebalance");
    const first = await PollingMember.join(group, [topic]);
    await first.poll();
    const started = Date.now();
    const waiting = first.poll({ waitMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await PollingMember.join(group, [topic]);
    const answer = await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(answer.records).toEqual([]);
    // The next poll gives up partitions for the second member.
    const next = await first.poll();
    expect(partitionsOf(next.assignment, topic)).toHaveLength(2);
    await first.poll();
    const gained = await second.poll();
    expect(partitionsOf(gained.assignment, topic)).toHaveLength(2);
  });

  it("waits at most half the member's session timeout", async () => {
    const topic = await filledTopic(1, 0);
    const group = uniqueGroup("wait-cap");
    const member = await PollingMember.join(group, [topic], { sessionTimeoutMs: 6000 });
    await member.poll();
    const started = Date.now();
    const answer = await member.poll({ waitMs: 30_000 });
    const waited = Date.now() - started;
    expect(answer.records).toEqual([]);
    expect(waited).toBeGreaterThanOrEqual(2_900);
    expect(waited).toBeLessThan(6_000);
  });
});

describe("poll errors", () => {
  it("is 404 UNKNOWN_MEMBER_ID for an unknown member", async () => {
    const topic = await filledTopic(1, 0);
    const group = uniqueGroup("poll-unknown");
    await join(group, [topic]);
    expectError(await pollRaw(group, "nobody", { memberEpoch: 1 }), 404, "UNKNOWN_MEMBER_ID");
  });

  it("is 409 FENCED_MEMBER_EPOCH for positions of partitions the member does not own, committing nothing", async () => {
    const topic = await filledTopic(2, 3);
    const other = await filledTopic(1, 1);
    const group = uniqueGroup("poll-not-owned");
    const joined = await join(group, [topic], { autoOffsetReset: "earliest" });
    const response = await pollRaw(group, joined.memberId, {
      memberEpoch: joined.memberEpoch,
      positions: [
        { topic, partition: 0, offset: 1 },
        { topic: other, partition: 0, offset: 1 },
      ],
    });
    expectError(response, 409, "FENCED_MEMBER_EPOCH");
    expect((await groupOffsets(group)).map((entry) => entry.offset)).toEqual([null, null]);
  });

  it.each([
    ["malformed JSON", "{"],
    ["no memberEpoch", {}],
    ["a negative memberEpoch", { memberEpoch: -1 }],
    ["maxRecords 0", { memberEpoch: 1, maxRecords: 0 }],
    ["maxRecords above 10000", { memberEpoch: 1, maxRecords: 10_001 }],
    ["maxBytes 0", { memberEpoch: 1, maxBytes: 0 }],
    ["maxBytes above 8 MiB", { memberEpoch: 1, maxBytes: 8 * 1024 * 1024 + 1 }],
    ["waitMs above 30000", { memberEpoch: 1, waitMs: 30_001 }],
    ["a negative waitMs", { memberEpoch: 1, waitMs: -1 }],
    ["an unknown encoding", { memberEpoch: 1, encoding: "hex" }],
    ["autoCommit that is not a boolean", { memberEpoch: 1, autoCommit: "yes" }],
    ["a negative position offset", { memberEpoch: 1, positions: [{ topic: "t", partition: 0, offset: -1 }] }],
    ["a position without an offset", { memberEpoch: 1, positions: [{ topic: "t", partition: 0 }] }],
    ["two positions for one partition", { memberEpoch: 1, positions: [{ topic: "t", partition: 0, offset: 1 }, { topic: "t", partition: 0, offset: 2 }] }],
    ["paused that is not an Assignment", { memberEpoch: 1, paused: [{ topic: "t" }] }],
  ])("refuses %s with 400 INVALID_REQUEST, committing nothing", async (_what, body) => {
    const topic = await filledTopic(1, 0);
    const group = uniqueGroup("bad-poll");
    const joined = await join(group, [topic]);
    expectError(await pollRaw(group, joined.memberId, body), 400, "INVALID_REQUEST");
    expect((await groupOffsets(group))[0]!.offset).toBeNull();
  });
});
