/**
 * Group membership over HTTP (API.md, Consumer groups): join, heartbeat, leave, rejoin with
 * epoch 0, fencing, describe, list and delete, and the errors of each.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, expectError } from "../support/http.ts";
import {
  coordinator,
  describeGroup,
  groupPath,
  heartbeat,
  heartbeatRaw,
  join,
  joinRaw,
  leave,
  partitionsOf,
  pollRaw,
  topicWith,
  uniqueGroup,
} from "./support/groups.ts";

describe("join", () => {
  it("answers 201 {memberId, memberEpoch, assignment, heartbeatIntervalMs}; the first member gets every partition", async () => {
    const topic = await topicWith(3);
    const group = uniqueGroup("join");
    const response = await joinRaw(group, { topics: [topic] });
    expect(response.status, response.text).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["assignment", "heartbeatIntervalMs", "memberEpoch", "memberId"]);
    expect(response.body.memberId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.memberEpoch).toBeGreaterThan(0);
    expect(response.body.assignment).toEqual([{ topic, partitions: [0, 1, 2] }]);
    expect(response.body.heartbeatIntervalMs).toBe(5000);
  });

  it("tells a member to heartbeat a third of its session apart when that is under 5 s", async () => {
    const topic = await topicWith(1);
    const joined = await join(uniqueGroup("interval"), [topic], { sessionTimeoutMs: 6000 });
    expect(joined.heartbeatIntervalMs).toBe(2000);
  });

  it("creates the group, lists it and describes it", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("describe");
    const joined = await join(group, [topic], { assignor: "range" });
    expect(await describeGroup(group)).toEqual({
      group,
      state: "Stable",
      assignor: "range",
      members: [
        {
          memberId: joined.memberId,
          memberEpoch: joined.memberEpoch,
          assignment: [{ topic, partitions: [0, 1] }],
          clientId: null,
          host: null,
          lastHeartbeatAt: expect.any(Number),
          sessionTimeoutMs: 45_000,
        },
      ],
    });
    const listed = await api("GET", "/v1/groups");
    expect(listed.status).toBe(200);
    expect(listed.body.groups).toContainEqual({ group, state: "Stable", members: 1 });
    const names = listed.body.groups.map((entry: { group: string }) => entry.group);
    expect(names).toEqual([...names].sort());
  });

  it("splits partitions between two members, handing over only what the first gave up", async () => {
    const topic = await topicWith(4);
    const group = uniqueGroup("split");
    const first = await join(group, [topic]);
    const second = await join(group, [topic]);
    // The second member gets nothing yet: every partition is still the first's.
    expect(second.assignment).toEqual([]);
    expect((await describeGroup(group)).state).toBe("Reconciling");
    const revoked = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch });
    expect(revoked.memberEpoch).toBe(first.memberEpoch + 1);
    const kept = partitionsOf(revoked.assignment, topic);
    expect(kept).toHaveLength(2);
    // Still pending: the first member has not shown it let go, so the second gets nothing.
    const waiting = await heartbeat(group, second.memberId, { memberEpoch: second.memberEpoch });
    expect(waiting.assignment).toEqual([]);
    // The first member heartbeats at its new epoch: it let go of the rest.
    await heartbeat(group, first.memberId, { memberEpoch: revoked.memberEpoch });
    const gained = await heartbeat(group, second.memberId, { memberEpoch: waiting.memberEpoch });
    const theirs = partitionsOf(gained.assignment, topic);
    expect([...kept, ...theirs].sort()).toEqual([0, 1, 2, 3]);
    expect((await describeGroup(group)).state).toBe("Stable");
    const listed = await api("GET", "/v1/groups");
    expect(listed.body.groups).toContainEqual({ group, state: "Stable", members: 2 });
    // Kafka's ListGroups filters (KIP-518 states, KIP-848 types): any case, comma-separated.
    const named = async (query: string) => ((await api("GET", `/v1/groups${query}`)).body.groups as { group: string }[]).some((entry) => entry.group === group);
    expect(await named("?states=stable")).toBe(true);
    expect(await named("?states=Empty,Reconciling")).toBe(false);
    expect(await named("?states=Empty,STABLE&types=classic,consumer")).toBe(true);
    expect(await named("?types=share")).toBe(false);
    expect(await named("?states=")).toBe(true);
    expectError(await api("GET", "/v1/groups?state=Stable"), 400, "INVALID_REQUEST");
  });

  it("refuses unknown topics with 404 UNKNOWN_TOPIC_OR_PARTITION and creates nothing", async () => {
    const group = uniqueGroup("unknown-topic");
    const known = await topicWith(1);
    const error = expectError(await joinRaw(group, { topics: [known, "no-such-topic-x"] }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    expect(error.topics).toEqual(["no-such-topic-x"]);
    expectError(await api("GET", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
    const listed = await api("GET", "/v1/groups");
    expect(listed.body.groups.map((entry: { group: string }) => entry.group)).not.toContain(group);
  });

  it.each([
    ["malformed JSON", "{"],
    ["no topics", {}],
    ["an empty topic list", { topics: [] }],
    ["33 topics", { topics: Array.from({ length: 33 }, (_, index) => `t${index}`) }],
    ["an empty topic name", { topics: [""] }],
    ["a topic that is not a string", { topics: [1] }],
    ["sessionTimeoutMs below 6000", { topics: ["t"], sessionTimeoutMs: 5999 }],
    ["sessionTimeoutMs above 1800000", { topics: ["t"], sessionTimeoutMs: 1_800_001 }],
    ["a fractional sessionTimeoutMs", { topics: ["t"], sessionTimeoutMs: 6000.5 }],
    ["an unknown assignor", { topics: ["t"], assignor: "sticky" }],
    ["an unknown autoOffsetReset", { topics: ["t"], autoOffsetReset: "none" }],
  ])("refuses %s with 400 INVALID_REQUEST", async (_what, body) => {
    const group = uniqueGroup("bad-join");
    expectError(await joinRaw(group, body), 400, "INVALID_REQUEST");
    expectError(await api("GET", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
  });

  it("refuses a group name longer than 255 characters with 400 INVALID_REQUEST", async () => {
    const topic = await topicWith(1);
    expectError(await joinRaw("g".repeat(256), { topics: [topic] }), 400, "INVALID_REQUEST");
    expect((await joinRaw("g".repeat(255), { topics: [topic] })).status).toBe(201);
  });

  it("takes any other string as a group name", async () => {
    const topic = await topicWith(1);
    const group = `${uniqueGroup("odd")} ünï/cödé?#`;
    await join(group, [topic]);
    expect((await describeGroup(group)).group).toBe(group);
  });
});

describe("heartbeat", () => {
  it("answers 200 {memberEpoch, assignment, heartbeatIntervalMs}, same epoch while nothing changes", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("heartbeat");
    const joined = await join(group, [topic]);
    const response = await heartbeatRaw(group, joined.memberId, { memberEpoch: joined.memberEpoch });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ memberEpoch: joined.memberEpoch, assignment: joined.assignment, heartbeatIntervalMs: 5000 });
  });

  it("is 404 UNKNOWN_MEMBER_ID for a member the group does not have, and on a group that does not exist", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("unknown-member");
    await join(group, [topic]);
    expectError(await heartbeatRaw(group, "no-such-member", { memberEpoch: 1 }), 404, "UNKNOWN_MEMBER_ID");
    expectError(await heartbeatRaw(uniqueGroup("nothing"), "no-such-member", { memberEpoch: 1 }), 404, "UNKNOWN_MEMBER_ID");
  });

  it.each([
    ["malformed JSON", "{"],
    ["no memberEpoch", {}],
    ["a negative memberEpoch", { memberEpoch: -1 }],
    ["a fractional memberEpoch", { memberEpoch: 1.5 }],
    ["a memberEpoch that is a string", { memberEpoch: "1" }],
    ["ownedPartitions that are not an Assignment", { memberEpoch: 1, ownedPartitions: [{ topic: "t", partitions: [-1] }] }],
  ])("refuses %s with 400 INVALID_REQUEST, changing nothing", async (_what, body) => {
    const topic = await topicWith(1);
    const group = uniqueGroup("bad-heartbeat");
    const joined = await join(group, [topic]);
    const before = await describeGroup(group);
    expectError(await heartbeatRaw(group, joined.memberId, body), 400, "INVALID_REQUEST");
    expect(await describeGroup(group)).toEqual(before);
  });
});

describe("epochs", () => {
  it("fences an old epoch with 409 FENCED_MEMBER_EPOCH and changes nothing", async () => {
    const topic = await topicWith(4);
    const group = uniqueGroup("fenced");
    const first = await join(group, [topic]);
    await join(group, [topic]);
    const revoked = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch });
    const before = await describeGroup(group);
    // An epoch the member never had, and one two steps back, are fenced.
    expectError(await heartbeatRaw(group, first.memberId, { memberEpoch: revoked.memberEpoch + 5 }), 409, "FENCED_MEMBER_EPOCH");
    // The previous epoch with partitions the latest response took away is fenced too.
    const owned = [{ topic, partitions: [0, 1, 2, 3] }];
    const fenced = await heartbeatRaw(group, first.memberId, { memberEpoch: first.memberEpoch, ownedPartitions: owned });
    expectError(fenced, 409, "FENCED_MEMBER_EPOCH");
    expectError(await pollRaw(group, first.memberId, { memberEpoch: revoked.memberEpoch + 1 }), 409, "FENCED_MEMBER_EPOCH");
    expect(await describeGroup(group)).toEqual(before);
  });

  it("accepts the previous epoch when the member owns a subset of its assignment (it missed a response)", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("previous");
    const first = await join(group, [topic]);
    expect(partitionsOf(first.assignment, topic)).toEqual([0, 1]);
    await join(group, [topic]);
    const revoked = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch });
    const [kept] = partitionsOf(revoked.assignment, topic);
    const again = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch, ownedPartitions: [{ topic, partitions: [kept] }] });
    expect(again.memberEpoch).toBe(revoked.memberEpoch);
    expect(partitionsOf(again.assignment, topic)).toEqual([kept]);
  });

  it("rejoins with memberEpoch 0: the member gives up everything and gets a fresh assignment", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("rejoin");
    const joined = await join(group, [topic]);
    const rejoined = await heartbeat(group, joined.memberId, { memberEpoch: 0 });
    expect(rejoined.memberEpoch).toBeGreaterThan(joined.memberEpoch);
    expect(rejoined.assignment).toEqual([{ topic, partitions: [0, 1] }]);
    const next = await heartbeat(group, joined.memberId, { memberEpoch: rejoined.memberEpoch });
    expect(next.memberEpoch).toBe(rejoined.memberEpoch);
  });

  it("lets a fenced member rejoin with epoch 0 and go on", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("fenced-rejoin");
    const joined = await join(group, [topic]);
    expectError(await heartbeatRaw(group, joined.memberId, { memberEpoch: joined.memberEpoch + 3 }), 409, "FENCED_MEMBER_EPOCH");
    const rejoined = await heartbeat(group, joined.memberId, { memberEpoch: 0 });
    expect(rejoined.assignment).toEqual([{ topic, partitions: [0, 1] }]);
  });
});

describe("leave", () => {
  it("answers 204 and reassigns the member's partitions at once", async () => {
    const topic = await topicWith(4);
    const group = uniqueGroup("leave");
    const first = await join(group, [topic]);
    const second = await join(group, [topic]);
    expect(second.assignment).toEqual([]);
    await leave(group, first.memberId);
    const taken = await heartbeat(group, second.memberId, { memberEpoch: second.memberEpoch });
    expect(taken.assignment).toEqual([{ topic, partitions: [0, 1, 2, 3] }]);
    const described = await describeGroup(group);
    expect(described.members.map((member) => member.memberId)).toEqual([second.memberId]);
  });

  it("is 404 UNKNOWN_MEMBER_ID for an unknown member, and afterwards for the member that left", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("leave-unknown");
    const joined = await join(group, [topic]);
    expectError(await api("DELETE", groupPath(group, "/members/nobody")), 404, "UNKNOWN_MEMBER_ID");
    await leave(group, joined.memberId);
    expectError(await api("DELETE", groupPath(group, `/members/${joined.memberId}`)), 404, "UNKNOWN_MEMBER_ID");
    expectError(await heartbeatRaw(group, joined.memberId, { memberEpoch: joined.memberEpoch }), 404, "UNKNOWN_MEMBER_ID");
  });

  it("leaves an Empty group that still exists and is listed", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("empty");
    const joined = await join(group, [topic]);
    await leave(group, joined.memberId);
    expect(await describeGroup(group)).toEqual({ group, state: "Empty", assignor: "uniform", members: [] });
    const listed = await api("GET", "/v1/groups");
    expect(listed.body.groups).toContainEqual({ group, state: "Empty", members: 0 });
  });
});

describe("delete a group", () => {
  it("deletes an empty group: 204, then 404 GROUP_ID_NOT_FOUND and gone from the list", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("delete");
    const joined = await join(group, [topic]);
    await leave(group, joined.memberId);
    const deleted = await api("DELETE", groupPath(group));
    expect(deleted.status, deleted.text).toBe(204);
    expect(deleted.text).toBe("");
    expectError(await api("GET", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
    expectError(await api("GET", groupPath(group, "/offsets")), 404, "GROUP_ID_NOT_FOUND");
    expectError(await api("DELETE", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
    const listed = await api("GET", "/v1/groups");
    expect(listed.body.groups.map((entry: { group: string }) => entry.group)).not.toContain(group);
  });

  it("refuses to delete a group with members: 409 NON_EMPTY_GROUP, nothing changed", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("delete-busy");
    await join(group, [topic]);
    const before = await describeGroup(group);
    expectError(await api("DELETE", groupPath(group)), 409, "NON_EMPTY_GROUP");
    expect(await describeGroup(group)).toEqual(before);
  });

  it("is 404 GROUP_ID_NOT_FOUND for a group that never existed", async () => {
    const group = uniqueGroup("never");
    expectError(await api("GET", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
    expectError(await api("DELETE", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
    expectError(await api("GET", groupPath(group, "/offsets")), 404, "GROUP_ID_NOT_FOUND");
  });

  it("lets a deleted group's name start over as a new group", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("again");
    const joined = await join(group, [topic]);
    await leave(group, joined.memberId);
    expect((await api("DELETE", groupPath(group))).status).toBe(204);
    const fresh = await join(group, [topic]);
    expect(fresh.memberId).not.toBe(joined.memberId);
    expect((await describeGroup(group)).members).toHaveLength(1);
  });
});

describe("a coordinator restart", () => {
  it("keeps members, epochs, assignments and committed offsets; members go on at the same epoch", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("restart");
    const first = await join(group, [topic]);
    const second = await join(group, [topic]);
    const revoked = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch });
    const commit = await api("POST", groupPath(group, "/offsets"), {
      memberId: first.memberId,
      memberEpoch: revoked.memberEpoch,
      offsets: revoked.assignment.flatMap(({ partitions }) => partitions.map((partition) => ({ topic, partition, offset: 0 }))),
    });
    expect(commit.status, commit.text).toBe(204);
    const before = await describeGroup(group);
    const offsetsBefore = await api("GET", groupPath(group, "/offsets"));
    await evictDurableObject(coordinator(group));
    expect(await describeGroup(group)).toEqual(before);
    expect((await api("GET", groupPath(group, "/offsets"))).body).toEqual(offsetsBefore.body);
    const again = await heartbeat(group, first.memberId, { memberEpoch: revoked.memberEpoch });
    expect(again.memberEpoch).toBe(revoked.memberEpoch);
    const gained = await heartbeat(group, second.memberId, { memberEpoch: second.memberEpoch });
    expect(partitionsOf(gained.assignment, topic)).toHaveLength(1);
  });
});
