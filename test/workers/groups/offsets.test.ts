/**
 * Committed offsets (API.md, Consumer groups): commits by a member and by admin tools, GET
 * offsets with high watermarks and lag, reset, and a deleted topic's offsets.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, produce, uniqueTopic } from "../support/http.ts";
import {
  commitRaw,
  coordinator,
  describeGroup,
  groupOffsets,
  groupPath,
  heartbeat,
  join,
  leave,
  PollingMember,
  uniqueGroup,
} from "./support/groups.ts";

async function filledTopic(partitions: number, perPartition: number): Promise<string> {
  const topic = uniqueTopic("offsets");
  await createTopic(topic, { partitions });
  const records = [];
  for (let partition = 0; partition < partitions; partition++) {
    for (let index = 0; index < perPartition; index++) records.push({ value: `p${partition}-${index}`, partition, timestamp: 1_000 * (index + 1) });
  }
  if (records.length > 0) await produce(topic, records);
  return topic;
}

/** A group that exists and is empty: one member joined and left. */
async function emptyGroup(topic: string): Promise<string> {
  const group = uniqueGroup("empty");
  const joined = await join(group, [topic]);
  await leave(group, joined.memberId);
  return group;
}

function resetRaw(group: string, body: unknown) {
  return api("POST", groupPath(group, "/offsets/reset"), body);
}

describe("commit", () => {
  it("commits a member's offsets for partitions it owns: 204, then GET offsets shows them with lag", async () => {
    const topic = await filledTopic(3, 5);
    const group = uniqueGroup("member-commit");
    const joined = await join(group, [topic]);
    const offsets = [
      { topic, partition: 0, offset: 2 },
      { topic, partition: 2, offset: 5 },
    ];
    const response = await commitRaw(group, { memberId: joined.memberId, memberEpoch: joined.memberEpoch, offsets });
    expect(response.status, response.text).toBe(204);
    expect(await groupOffsets(group)).toEqual([
      { topic, partition: 0, offset: 2, metadata: "", highWatermark: 5, lag: 3 },
      { topic, partition: 1, offset: null, metadata: null, highWatermark: 5, lag: null },
      { topic, partition: 2, offset: 5, metadata: "", highWatermark: 5, lag: 0 },
    ]);
    await produce(topic, [{ value: "more", partition: 2 }]);
    expect((await groupOffsets(group))[2]).toEqual({ topic, partition: 2, offset: 5, metadata: "", highWatermark: 6, lag: 1 });
  });

  it("keeps each commit's metadata string up to 4096 characters; a longer one is 400 OFFSET_METADATA_TOO_LARGE and nothing is written", async () => {
    const topic = await filledTopic(2, 3);
    const group = uniqueGroup("commit-metadata");
    const joined = await join(group, [topic]);
    const member = { memberId: joined.memberId, memberEpoch: joined.memberEpoch };
    const longest = "é".repeat(4_096);
    const committed = await commitRaw(group, { ...member, offsets: [{ topic, partition: 0, offset: 1, metadata: "checkpoint 1" }, { topic, partition: 1, offset: 2, metadata: longest }] });
    expect(committed.status, committed.text).toBe(204);
    expect((await groupOffsets(group)).map(({ offset, metadata }) => [offset, metadata])).toEqual([[1, "checkpoint 1"], [2, longest]]);

    const tooLarge = await commitRaw(group, { ...member, offsets: [{ topic, partition: 0, offset: 3, metadata: "fits" }, { topic, partition: 1, offset: 3, metadata: `${longest}x` }] });
    expectError(tooLarge, 400, "OFFSET_METADATA_TOO_LARGE");
    expect((await groupOffsets(group)).map(({ offset, metadata }) => [offset, metadata])).toEqual([[1, "checkpoint 1"], [2, longest]]);

    // The same offset with other metadata is a change; a commit without metadata (a poll's) keeps "".
    expect((await commitRaw(group, { ...member, offsets: [{ topic, partition: 0, offset: 1, metadata: "again" }] })).status).toBe(204);
    expect((await commitRaw(group, { ...member, offsets: [{ topic, partition: 1, offset: 2 }] })).status).toBe(204);
    expect((await groupOffsets(group)).map(({ offset, metadata }) => [offset, metadata])).toEqual([[1, "again"], [2, ""]]);
  });

  it("keeps each commit's leader epoch (KIP-320) and answers it where one was committed; a commit without one clears it; a negative one is 400", async () => {
    const topic = await filledTopic(2, 3);
    const group = uniqueGroup("commit-epoch");
    const committed = await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 2, leaderEpoch: 3 }, { topic, partition: 1, offset: 1 }] });
    expect(committed.status, committed.text).toBe(204);
    const epochs = async () => (await groupOffsets(group)).map((entry) => [entry.offset, entry.leaderEpoch]);
    expect(await epochs()).toEqual([[2, 3], [1, undefined]]);
    expect((await groupOffsets(group))[1]).not.toHaveProperty("leaderEpoch");

    // The same offset under another epoch is a change; one without an epoch has none.
    expect((await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 2, leaderEpoch: 4 }] })).status).toBe(204);
    expect(await epochs()).toEqual([[2, 4], [1, undefined]]);
    expect((await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 2 }] })).status).toBe(204);
    expect(await epochs()).toEqual([[2, undefined], [1, undefined]]);
    expectError(await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 2, leaderEpoch: -1 }] }), 400, "INVALID_REQUEST");
  });

  it("fences a member's commit for a partition it does not own or with a wrong epoch: 409, nothing written", async () => {
    const topic = await filledTopic(2, 1);
    const group = uniqueGroup("fenced-commit");
    const first = await join(group, [topic]);
    const second = await join(group, [topic]);
    const revoked = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch });
    await heartbeat(group, first.memberId, { memberEpoch: revoked.memberEpoch });
    const [lost] = [0, 1].filter((partition) => !revoked.assignment[0]!.partitions.includes(partition));
    const notOwned = await commitRaw(group, { memberId: first.memberId, memberEpoch: revoked.memberEpoch, offsets: [{ topic, partition: lost, offset: 1 }] });
    expectError(notOwned, 409, "FENCED_MEMBER_EPOCH");
    const wrongEpoch = await commitRaw(group, { memberId: second.memberId, memberEpoch: 99, offsets: [{ topic, partition: lost, offset: 1 }] });
    expectError(wrongEpoch, 409, "FENCED_MEMBER_EPOCH");
    expect((await groupOffsets(group)).map((entry) => entry.offset)).toEqual([null, null]);
  });

  it("is 404 UNKNOWN_MEMBER_ID for a member the group does not have", async () => {
    const topic = await filledTopic(1, 1);
    const group = uniqueGroup("commit-unknown-member");
    await join(group, [topic]);
    expectError(await commitRaw(group, { memberId: "nobody", memberEpoch: 1, offsets: [{ topic, partition: 0, offset: 1 }] }), 404, "UNKNOWN_MEMBER_ID");
  });

  it("accepts a commit without a member on an empty group, and refuses it with members: 409 NON_EMPTY_GROUP", async () => {
    const topic = await filledTopic(1, 4);
    const group = uniqueGroup("admin-commit");
    const joined = await join(group, [topic]);
    expectError(await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 1 }] }), 409, "NON_EMPTY_GROUP");
    expect((await groupOffsets(group))[0]!.offset).toBeNull();
    await leave(group, joined.memberId);
    expect((await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 3 }] })).status).toBe(204);
    expect(await groupOffsets(group)).toEqual([{ topic, partition: 0, offset: 3, metadata: "", highWatermark: 4, lag: 1 }]);
  });

  it("creates a group with a commit without a member; its offsets list the topics with commits", async () => {
    const topic = await filledTopic(2, 2);
    const group = uniqueGroup("created-by-commit");
    expect((await commitRaw(group, { offsets: [{ topic, partition: 1, offset: 1 }] })).status).toBe(204);
    expect(await describeGroup(group)).toEqual({ group, state: "Empty", assignor: "uniform", members: [] });
    expect(await groupOffsets(group)).toEqual([
      { topic, partition: 0, offset: null, metadata: null, highWatermark: 2, lag: null },
      { topic, partition: 1, offset: 1, metadata: "", highWatermark: 2, lag: 1 },
    ]);
    const listed = await api("GET", "/v1/groups");
    expect(listed.body.groups).toContainEqual({ group, state: "Empty", members: 0 });
    // A member joining the group starts where the commit says.
    const member = await PollingMember.join(group, [topic]);
    const answer = await member.poll();
    expect(answer.records.map((record) => [record.partition, record.offset])).toEqual([[1, 1]]);
  });

  it("refuses unknown topics and partitions with 404 UNKNOWN_TOPIC_OR_PARTITION, writing nothing", async () => {
    const topic = await filledTopic(2, 1);
    const group = await emptyGroup(topic);
    const unknownTopic = await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 1 }, { topic: "no-such-topic-y", partition: 0, offset: 1 }] });
    expectError(unknownTopic, 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expectError(await commitRaw(group, { offsets: [{ topic, partition: 0, offset: 1 }, { topic, partition: 2, offset: 1 }] }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    // An empty group lists the topics it has commits for: none.
    expect(await groupOffsets(group)).toEqual([]);
  });

  it.each([
    ["malformed JSON", "{"],
    ["no offsets", {}],
    ["an empty offsets list", { offsets: [] }],
    ["a negative offset", { offsets: [{ topic: "t", partition: 0, offset: -1 }] }],
    ["a negative partition", { offsets: [{ topic: "t", partition: -1, offset: 0 }] }],
    ["a fractional offset", { offsets: [{ topic: "t", partition: 0, offset: 1.5 }] }],
    ["two offsets for one partition", { offsets: [{ topic: "t", partition: 0, offset: 1 }, { topic: "t", partition: 0, offset: 2 }] }],
    ["a negative memberEpoch", { memberId: "m", memberEpoch: -1, offsets: [{ topic: "t", partition: 0, offset: 1 }] }],
  ])("refuses %s with 400 INVALID_REQUEST", async (_what, body) => {
    const topic = await filledTopic(1, 1);
    const group = await emptyGroup(topic);
    expectError(await commitRaw(group, body), 400, "INVALID_REQUEST");
  });

  it("refuses a memberId without memberEpoch and a memberEpoch without memberId with 400 INVALID_REQUEST", async () => {
    const topic = await filledTopic(1, 1);
    const group = uniqueGroup("half-member");
    const joined = await join(group, [topic]);
    const offsets = [{ topic, partition: 0, offset: 1 }];
    expectError(await commitRaw(group, { memberId: joined.memberId, offsets }), 400, "INVALID_REQUEST");
    expectError(await commitRaw(group, { memberEpoch: joined.memberEpoch, offsets }), 400, "INVALID_REQUEST");
    expect((await groupOffsets(group))[0]!.offset).toBeNull();
  });
});

describe("reset", () => {
  it.each([
    ["earliest", "earliest", [0, 0]],
    ["latest", "latest", [4, 2]],
    ["a timestamp", { timestamp: 2_000 }, [1, 1]],
    ["a timestamp after every record (the high watermark)", { timestamp: 9_000 }, [4, 2]],
    ["an offset", { offset: 1 }, [1, 1]],
    ["an offset past the end (clamped to the high watermark)", { offset: 3 }, [3, 2]],
  ])("resets every partition of the topic to %s: 200 {offsets: [Position]}", async (_what, to, expected) => {
    const topic = uniqueTopic("reset");
    await createTopic(topic, { partitions: 2 });
    await produce(topic, [0, 1, 2, 3].map((index) => ({ value: `a${index}`, partition: 0, timestamp: 1_000 * (index + 1) })));
    await produce(topic, [0, 1].map((index) => ({ value: `b${index}`, partition: 1, timestamp: 1_000 * (index + 1) })));
    const group = await emptyGroup(topic);
    const response = await resetRaw(group, { topic, to });
    expect(response.status, response.text).toBe(200);
    const positions = expected.map((offset, partition) => ({ topic, partition, offset }));
    expect(response.body).toEqual({ offsets: positions });
    expect((await groupOffsets(group)).map((entry) => entry.offset)).toEqual(expected);
  });

  it("refuses a reset of a group with members: 409 NON_EMPTY_GROUP, offsets unchanged", async () => {
    const topic = await filledTopic(1, 3);
    const group = uniqueGroup("reset-busy");
    await join(group, [topic]);
    expectError(await resetRaw(group, { topic, to: "earliest" }), 409, "NON_EMPTY_GROUP");
    expect((await groupOffsets(group))[0]!.offset).toBeNull();
  });

  it("is 404 UNKNOWN_TOPIC_OR_PARTITION for an unknown topic", async () => {
    const topic = await filledTopic(1, 1);
    const group = await emptyGroup(topic);
    expectError(await resetRaw(group, { topic: "no-such-topic-z", to: "earliest" }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
  });

  it.each([
    ["no to", { topic: "t" }],
    ["an unknown to", { topic: "t", to: "middle" }],
    ["a negative offset", { topic: "t", to: { offset: -1 } }],
    ["a negative timestamp", { topic: "t", to: { timestamp: -5 } }],
    ["both an offset and a timestamp", { topic: "t", to: { offset: 1, timestamp: 1 } }],
    ["no topic", { to: "earliest" }],
    ["an empty partitions list", { topic: "t", to: "earliest", partitions: [] }],
    ["a partition named twice", { topic: "t", to: "earliest", partitions: [0, 0] }],
    ["a negative partition", { topic: "t", to: "earliest", partitions: [-1] }],
    ["a dryRun that is not a boolean", { topic: "t", to: "earliest", dryRun: "yes" }],
  ])("refuses %s with 400 INVALID_REQUEST", async (_what, body) => {
    const topic = await filledTopic(1, 1);
    const group = await emptyGroup(topic);
    expectError(await resetRaw(group, body), 400, "INVALID_REQUEST");
  });
});

describe("reset of some partitions, and a dry run", () => {
  it("resets only the partitions named, in order, and leaves the others' commits as they were", async () => {
    const topic = await filledTopic(3, 4);
    const group = await emptyGroup(topic);
    expect((await resetRaw(group, { topic, to: { offset: 1 } })).status).toBe(200);
    const response = await resetRaw(group, { topic, to: "latest", partitions: [2, 0] });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ offsets: [{ topic, partition: 0, offset: 4 }, { topic, partition: 2, offset: 4 }] });
    expect((await groupOffsets(group)).map((entry) => entry.offset)).toEqual([4, 1, 4]);
  });

  it("is 404 UNKNOWN_TOPIC_OR_PARTITION for a partition the topic lacks, nothing written", async () => {
    const topic = await filledTopic(2, 2);
    const group = await emptyGroup(topic);
    expect(expectError(await resetRaw(group, { topic, to: "latest", partitions: [0, 2] }), 404, "UNKNOWN_TOPIC_OR_PARTITION")).toMatchObject({ partitions: [2] });
    expect(await groupOffsets(group)).toEqual([]); // nothing committed, and no subscription left
  });

  it("answers the plan of a dry run and writes nothing, even while the group has members (Kafka refuses that; a plan takes nothing from them)", async () => {
    const topic = await filledTopic(2, 3);
    const group = uniqueGroup("dry-run");
    await join(group, [topic]);
    const response = await resetRaw(group, { topic, to: "latest", partitions: [1], dryRun: true });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ offsets: [{ topic, partition: 1, offset: 3 }] });
    expect((await groupOffsets(group)).map((entry) => entry.offset)).toEqual([null, null]);
    // The same request without dryRun is refused while the member is there.
    expectError(await resetRaw(group, { topic, to: "latest", partitions: [1] }), 409, "NON_EMPTY_GROUP");
  });

  it("creates no group with a dry run", async () => {
    const topic = await filledTopic(1, 1);
    const group = uniqueGroup("dry-run-none");
    expect((await resetRaw(group, { topic, to: "earliest", dryRun: true })).body).toEqual({ offsets: [{ topic, partition: 0, offset: 0 }] });
    expectError(await api("GET", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
  });
});

describe("a deleted topic", () => {
  it("takes its committed offsets out of every group; a topic recreated under the name starts clean", async () => {
    const topic = await filledTopic(2, 3);
    const kept = await filledTopic(1, 3);
    const group = uniqueGroup("topic-deleted");
    const member = await PollingMember.join(group, [topic, kept], { autoOffsetReset: "earliest" });
    await member.poll();
    await member.poll(); // commits every position
    expect((await groupOffsets(group)).map((entry) => [entry.topic, entry.offset])).toEqual(
      [[kept, 3], [topic, 3], [topic, 3]].sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
    );
    const oldTopicId = (await api("GET", `/v1/topics/${topic}`)).body.topicId as string;
    expect((await api("DELETE", `/v1/topics/${topic}`)).status).toBe(204);
    const rows = await runInDurableObject(coordinator(group), (_instance, state) =>
      state.storage.sql.exec<{ count: number }>("SELECT count(*) AS count FROM offsets WHERE topic_id = ?", oldTopicId).one().count,
    );
    expect(rows).toBe(0);
    expect((await groupOffsets(group)).map((entry) => [entry.topic, entry.offset])).toEqual([[kept, 3]]);
    // Its partitions left the member's assignment.
    const after = await member.poll();
    expect(after.assignment).toEqual([{ topic: kept, partitions: [0] }]);
    // Recreated: the member (still subscribed) reads it from its start, nothing committed.
    await createTopic(topic, { partitions: 1 });
    await produce(topic, [{ value: "fresh" }]);
    const offsets = await groupOffsets(group);
    expect(offsets.find((entry) => entry.topic === topic)).toEqual({ topic, partition: 0, offset: null, metadata: null, highWatermark: 1, lag: null });
  });
});
