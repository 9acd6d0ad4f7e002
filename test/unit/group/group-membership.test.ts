import { describe, expect, it } from "vitest";
import { ConsumerGroup } from "../../../src/group/group.ts";
import { clientHostLengthMax, clientIdLengthMax, groupTopicsMax, membersPerGroupMax, subscribedTopicsMax } from "../../../src/limits.ts";
import { emptyGroupState } from "../../../src/group/group-state.ts";
import { expectRefused, memberOf, meta, newGroup, t0, thrown } from "./group-fixtures.ts";

describe("join", () => {
  it("creates the group with its first member, which gets everything at epoch 1", () => {
    const group = newGroup();
    expect(group.isEmpty()).toBe(true);
    const joined = group.join({ topics: ["orders", "audit"] }, meta, t0);
    expect(joined).toEqual({
      memberId: "m1",
      memberEpoch: 1,
      assignment: [
        { topic: "audit", partitions: [0, 1] },
        { topic: "orders", partitions: [0, 1, 2, 3] },
      ],
      heartbeatIntervalMs: 5_000,
    });
    expect(group.isEmpty()).toBe(false);
    expect(group.describe()).toEqual({
      state: "Stable",
      assignor: "uniform",
      members: [
        { memberId: "m1", memberEpoch: 1, assignment: joined.assignment, clientId: null, host: null, lastHeartbeatAt: t0, sessionTimeoutMs: 45_000 },
      ],
    });
  });

  it("describes each member's client id, host, last heartbeat and session, as its join and heartbeats gave them", () => {
    const group = newGroup();
    group.join({ topics: ["orders"], clientId: "billing-1", host: "203.0.113.7", sessionTimeoutMs: 10_000 }, meta, t0);
    group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 2_000);
    expect(group.describe().members).toEqual([
      expect.objectContaining({ clientId: "billing-1", host: "203.0.113.7", lastHeartbeatAt: t0 + 2_000, sessionTimeoutMs: 10_000 }),
    ]);
    // A rejoin with new settings takes the new client id; an empty one counts as none.
    group.join({ memberId: "m1", topics: ["orders"], clientId: "" }, meta, t0 + 3_000);
    expect(group.describe().members[0]).toMatchObject({ clientId: null, host: null, lastHeartbeatAt: t0 + 3_000 });
  });

  it("drops a host the router could not use rather than refusing the member", () => {
    const group = newGroup();
    group.join({ topics: ["orders"], host: "x".repeat(clientHostLengthMax + 1) }, meta, t0);
    expect(group.describe().members[0]!.host).toBeNull();
  });

  it("applies Kafka's defaults: 45 s session, latest, uniform", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    const member = memberOf(group, "m1");
    expect([member.sessionTimeoutMs, member.autoOffsetReset, member.assignorPreference]).toEqual([45_000, "latest", null]);
  });

  it.each([
    [6_000, 2_000],
    [12_000, 4_000],
    [45_000, 5_000],
    [1_800_000, 5_000],
  ])("tells a member with a %i ms session to heartbeat every %i ms", (sessionTimeoutMs, heartbeatIntervalMs) => {
    expect(newGroup().join({ topics: ["orders"], sessionTimeoutMs }, meta, t0).heartbeatIntervalMs).toBe(heartbeatIntervalMs);
  });

  it.each([
    ["no topics", { topics: [] }],
    ["too many topics", { topics: Array.from({ length: subscribedTopicsMax + 1 }, (_, i) => `t${i}`) }],
    ["a topic that is not a string", { topics: [7] }],
    ["an empty topic name", { topics: [""] }],
    ["a session below 6 s", { topics: ["orders"], sessionTimeoutMs: 5_999 }],
    ["a session above 30 min", { topics: ["orders"], sessionTimeoutMs: 1_800_001 }],
    ["a fractional session", { topics: ["orders"], sessionTimeoutMs: 6_000.5 }],
    ["an unknown assignor", { topics: ["orders"], assignor: "sticky" }],
    ["an unknown reset policy", { topics: ["orders"], autoOffsetReset: "none" }],
    ["an empty member id", { topics: ["orders"], memberId: "" }],
    ["a client id that is not a string", { topics: ["orders"], clientId: 7 }],
    ["a client id too long", { topics: ["orders"], clientId: "c".repeat(clientIdLengthMax + 1) }],
  ])("refuses %s with INVALID_REQUEST and changes nothing", (_, request) => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    expectRefused(group, "INVALID_REQUEST", () => group.join(request as never, meta, t0 + 1));
  });

  it("refuses unknown topics with UNKNOWN_TOPIC_OR_PARTITION, naming them", () => {
    const group = newGroup();
    const error = expectRefused(group, "UNKNOWN_TOPIC_OR_PARTITION", () =>
      group.join({ topics: ["orders", "nope", "__proto__"] }, meta, t0),
    );
    expect(error.data).toEqual({ topics: ["__proto__", "nope"] });
    expect(error.status).toBe(404);
  });

  it("treats a subscription as a set: repeated topics count once", () => {
    const group = newGroup();
    group.join({ topics: ["orders", "orders", "audit"] }, meta, t0);
    expect(memberOf(group, "m1").subscribedTopics).toEqual(["audit", "orders"]);
  });

  it(`refuses member ${membersPerGroupMax + 1} with INVALID_REQUEST`, () => {
    const group = newGroup();
    for (let i = 0; i < membersPerGroupMax; i++) group.join({ topics: ["orders"] }, meta, t0);
    const error = expectRefused(group, "INVALID_REQUEST", () => group.join({ topics: ["orders"] }, meta, t0));
    expect(error.data).toEqual({ membersMax: membersPerGroupMax });
  });

  it(`refuses a subscription that takes the group past ${groupTopicsMax} topics`, () => {
    const many = Object.fromEntries(Array.from({ length: groupTopicsMax + 1 }, (_, i) => [`t${i}`, { partitions: 1 }]));
    const group = newGroup();
    for (let i = 0; i < groupTopicsMax; i += 32) group.join({ topics: Object.keys(many).slice(i, i + 32) }, many, t0);
    expectRefused(group, "INVALID_REQUEST", () => group.join({ topics: [`t${groupTopicsMax}`] }, many, t0));
    // A member may swap its own topics for others without growing the union.
    const swapped = group.join({ memberId: "m1", topics: [`t${groupTopicsMax}`] }, many, t0);
    expect(swapped.assignment).toEqual([{ topic: `t${groupTopicsMax}`, partitions: [0] }]);
  });

  it("asks the id generator again when it repeats an id, and gives up after a few tries", () => {
    const ids = ["a", "a", "a", "b"];
    const group = new ConsumerGroup({ generateMemberId: () => ids.shift() ?? "a" });
    expect(group.join({ topics: ["orders"] }, meta, t0).memberId).toBe("a");
    expect(group.join({ topics: ["orders"] }, meta, t0).memberId).toBe("b");
    expectRefused(group, "UNKNOWN_SERVER_ERROR", () => group.join({ topics: ["orders"] }, meta, t0));
  });

  it("rejoins a known member id with new settings, giving up what it held", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    const rejoined = group.join({ memberId: "m1", topics: ["audit"], sessionTimeoutMs: 6_000, autoOffsetReset: "earliest" }, meta, t0 + 1);
    expect(rejoined).toEqual({ memberId: "m1", memberEpoch: 2, assignment: [{ topic: "audit", partitions: [0, 1] }], heartbeatIntervalMs: 2_000 });
    expect(memberOf(group, "m1").autoOffsetReset).toBe("earliest");
    expect(group.subscribedTopics()).toEqual(["audit"]);
  });

  it("refuses to rejoin an unknown member id with UNKNOWN_MEMBER_ID", () => {
    const group = newGroup();
    const error = expectRefused(group, "UNKNOWN_MEMBER_ID", () => group.join({ memberId: "ghost", topics: ["orders"] }, meta, t0));
    expect(error.data).toEqual({ memberId: "ghost" });
  });
});

describe("leave and expire", () => {
  it("frees a leaving member's partitions for the others at once", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0);
    group.leave("m1");
    expect(group.heartbeat("m2", { memberEpoch: 1 }, meta, t0 + 1)).toMatchObject({
      memberEpoch: 2,
      assignment: [{ topic: "orders", partitions: [0, 1, 2, 3] }],
    });
  });

  it("refuses to remove an unknown member with UNKNOWN_MEMBER_ID", () => {
    const group = newGroup();
    expectRefused(group, "UNKNOWN_MEMBER_ID", () => group.leave("m1"));
  });

  it("expires members at their deadline, not before, and reports the next deadline", () => {
    const group = newGroup();
    expect(group.nextDeadlineMs()).toBeNull();
    group.join({ topics: ["orders"], sessionTimeoutMs: 10_000 }, meta, t0);
    group.join({ topics: ["orders"], sessionTimeoutMs: 6_000 }, meta, t0 + 1_000);
    expect(group.nextDeadlineMs()).toBe(t0 + 7_000);
    expect(group.expire(t0 + 6_999)).toEqual([]);
    expect(group.expire(t0 + 7_000)).toEqual(["m2"]);
    expect(group.nextDeadlineMs()).toBe(t0 + 10_000);
    group.heartbeat("m1", { memberEpoch: memberOf(group, "m1").memberEpoch }, meta, t0 + 9_000);
    expect(group.nextDeadlineMs()).toBe(t0 + 19_000);
    expect(group.expire(t0 + 30_000)).toEqual(["m1"]);
    expect(group.isEmpty()).toBe(true);
    expect(group.describe()).toEqual({ state: "Empty", assignor: "uniform", members: [] });
  });

  it("does not extend the session of a fenced request", () => {
    const group = newGroup();
    group.join({ topics: ["orders"], sessionTimeoutMs: 6_000 }, meta, t0);
    thrown(() => group.heartbeat("m1", { memberEpoch: 9 }, meta, t0 + 5_000));
    expect(group.expire(t0 + 6_000)).toEqual(["m1"]);
  });

  it("forgets topics nobody subscribes to any more", () => {
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    group.join({ topics: ["audit"] }, meta, t0);
    group.leave("m1");
    expect(group.subscribedTopics()).toEqual(["audit"]);
  });
});

describe("assignor choice", () => {
  it("uses the assignor most members ask for, keeping the current one on a tie", () => {
    const group = newGroup();
    group.join({ topics: ["orders"], assignor: "range" }, meta, t0);
    expect(group.describe().assignor).toBe("range");
    group.join({ topics: ["orders"], assignor: "uniform" }, meta, t0);
    expect(group.describe().assignor).toBe("range");
    group.join({ topics: ["orders"], assignor: "uniform" }, meta, t0);
    expect(group.describe().assignor).toBe("uniform");
    group.join({ topics: ["orders"] }, meta, t0);
    expect(group.describe().assignor).toBe("uniform");
  });

  it("falls back to uniform when no member asks", () => {
    const group = newGroup();
    group.join({ topics: ["orders"], assignor: "range" }, meta, t0);
    group.join({ topics: ["orders"] }, meta, t0);
    group.leave("m1");
    expect(group.describe().assignor).toBe("uniform");
  });
});

describe("state", () => {
  it("survives a JSON round trip: a restored group answers exactly as the original", () => {
    const original = newGroup();
    original.join({ topics: ["orders", "__proto__"] }, { ...meta, ["__proto__"]: { partitions: 2 } }, t0);
    original.join({ topics: ["orders"] }, meta, t0);
    original.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 1);
    const restored = new ConsumerGroup({ generateMemberId: () => "m3" }, JSON.parse(JSON.stringify(original.toState())));
    expect(restored.toState()).toEqual(original.toState());
    const answers = [original, restored].map((group) => group.heartbeat("m1", { memberEpoch: 2 }, meta, t0 + 2));
    expect(answers[1]).toEqual(answers[0]);
    expect(restored.toState()).toEqual(original.toState());
  });

  it("moves the revision for real changes but not for a heartbeat that changes nothing", () => {
    const group = newGroup();
    expect(group.revision).toBe(0);
    group.join({ topics: ["orders"] }, meta, t0);
    const revision = group.revision;
    expect(revision).toBeGreaterThan(0);
    group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 1_000);
    expect(group.revision).toBe(revision);
    expect(memberOf(group, "m1").lastContactMs).toBe(t0 + 1_000);
    group.heartbeat("m1", { memberEpoch: 1 }, { orders: { partitions: 5 } }, t0 + 2_000);
    expect(group.revision).toBeGreaterThan(revision);
  });

  it("refuses state from another version, and state in which a partition has two owners", () => {
    expect(() => newGroup({ ...emptyGroupState(), version: 2 as never })).toThrow(/version/);
    const group = newGroup();
    group.join({ topics: ["orders"] }, meta, t0);
    const state = group.toState();
    state.members.push({ ...state.members[0]!, memberId: "m2" });
    expect(() => newGroup(state)).toThrow(/two owners/);
  });

  it("hands out copies: changing what it returns does not change the group", () => {
    const group = newGroup();
    const joined = group.join({ topics: ["orders"] }, meta, t0);
    joined.assignment[0]!.partitions.push(99);
    group.toState().members[0]!.assignment.length = 0;
    memberOf(group, "m1").assignment.length = 0;
    group.describe().members[0]!.assignment.length = 0;
    expect(group.describe().members[0]!.assignment).toEqual([{ topic: "orders", partitions: [0, 1, 2, 3] }]);
  });
});
