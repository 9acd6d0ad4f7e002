/**
 * Kafka's classic group protocol, pure (src/group/classic-group.ts): a leader gets every
 * member's metadata byte for byte, each member gets exactly the leader's bytes for it,
 * newcomers are held until the others rejoin or the rebalance timeout passes, static members
 * keep their partitions across a restart and fence their old id.
 */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { ClassicGroup } from "../../../src/group/classic-group.ts";
import type { ClassicJoinAnswer, ClassicJoinOutcome, ClassicJoinRequest, ClassicSyncOutcome } from "../../../src/group/classic-group.ts";
import type { ClassicProtocol } from "../../../src/group/classic-group-state.ts";
import { classicGroupBytesMax, classicInitialRebalanceDelayMs } from "../../../src/limits.ts";
import { sequentialIds, thrown, t0 } from "./group-fixtures.ts";

const b64 = (...bytes: number[]) => Buffer.from(bytes).toString("base64");
const protocols = (...names: string[]): ClassicProtocol[] => names.map((name, index) => ({ name, metadata: b64(index, ...Buffer.from(name)) }));

function request(memberId: string, overrides: Partial<ClassicJoinRequest> = {}): ClassicJoinRequest {
  return {
    memberId,
    groupInstanceId: null,
    protocolType: "consumer",
    protocols: protocols("range"),
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 60_000,
    clientId: "client",
    host: null,
    requireKnownMemberId: false,
    supportsSkipAssignment: true,
    ...overrides,
  };
}

function newClassicGroup(): ClassicGroup {
  return new ClassicGroup({ generateId: sequentialIds("id") });
}

function joined(outcome: ClassicJoinOutcome): ClassicJoinAnswer {
  if (outcome.kind !== "joined") throw new Error(`expected an answer, got ${JSON.stringify(outcome)}`);
  return outcome.answer;
}

function synced(outcome: ClassicSyncOutcome): string {
  if (outcome.kind !== "synced") throw new Error("expected an assignment, the sync waits");
  return outcome.answer.assignment;
}

function expectRefused(group: ClassicGroup, code: string, action: () => unknown): TributaryError {
  const before = JSON.stringify(group.toState());
  const error = thrown(action);
  expect(error.code).toBe(code);
  expect(JSON.stringify(group.toState())).toBe(before);
  return error;
}

/** A group of one member that completed its first rebalance (Stable, generation 1). */
function stableWithOne(overrides: Partial<ClassicJoinRequest> = {}) {
  const group = newClassicGroup();
  const waiting = group.join(request("", overrides), t0);
  expect(waiting.kind).toBe("waiting");
  const memberId = (waiting as { memberId: string }).memberId;
  group.expire(t0 + classicInitialRebalanceDelayMs);
  const answer = group.joinAnswer(memberId, overrides.groupInstanceId ?? null) as ClassicJoinAnswer;
  const assignment = b64(1, 1, 1);
  expect(synced(group.sync({ memberId, groupInstanceId: overrides.groupInstanceId ?? null, generationId: answer.generationId, protocolType: "consumer", protocolName: "range", assignments: [{ memberId, assignment }] }, t0 + 3_001))).toBe(assignment);
  return { group, memberId, assignment, now: t0 + 3_001 };
}

describe("JoinGroup and SyncGroup", () => {
  it("asks a new dynamic member (v4+) for its id first; that id then joins, waits the initial delay and leads", () => {
    const group = newClassicGroup();
    const required = group.join(request("", { requireKnownMemberId: true, clientId: "c" }), t0);
    expect(required).toEqual({ kind: "member-id-required", memberId: "c-id1" });
    expect(group.status).toBe("Empty");
    const mine = protocols("cooperative-sticky", "range");
    expect(group.join(request("c-id1", { protocols: mine }), t0 + 10)).toEqual({ kind: "waiting", memberId: "c-id1" });
    expect(group.joinAnswer("c-id1", null)).toBe("waiting");
    expect(group.nextDeadlineMs()).toBe(t0 + 10 + classicInitialRebalanceDelayMs);
    group.expire(t0 + 10 + classicInitialRebalanceDelayMs);
    expect(group.joinAnswer("c-id1", null)).toEqual({
      memberId: "c-id1",
      generationId: 1,
      protocolType: "consumer",
      protocolName: "cooperative-sticky",
      leader: "c-id1",
      skipAssignment: false,
      members: [{ memberId: "c-id1", groupInstanceId: null, metadata: mine[0]!.metadata }],
    });
    expect(group.status).toBe("CompletingRebalance");
  });

  it("holds a newcomer until the members rejoin; the leader gets every member's metadata byte for byte, each member exactly its bytes", () => {
    const { group, memberId: first, now } = stableWithOne({ protocols: protocols("range", "roundrobin") });
    const second = group.join(request("", { protocols: protocols("roundrobin", "range") }), now + 1);
    expect(second.kind).toBe("waiting");
    const secondId = (second as { memberId: string }).memberId;
    expect(group.heartbeat(first, null, 1, now + 2)).toEqual({ rebalance: true });
    expect(group.joinAnswer(secondId, null)).toBe("waiting");
    // The first member rejoins with new user data; the rebalance completes at once.
    const firstMetadata: ClassicProtocol[] = [{ name: "range", metadata: b64(7, 7) }, { name: "roundrobin", metadata: b64(8) }];
    const leaderAnswer = joined(group.join(request(first, { protocols: firstMetadata }), now + 3));
    expect(leaderAnswer).toMatchObject({ generationId: 2, leader: first, protocolName: "range" });
    expect(leaderAnswer.members).toEqual([
      { memberId: first, groupInstanceId: null, metadata: b64(7, 7) },
      { memberId: secondId, groupInstanceId: null, metadata: protocols("roundrobin", "range")[1]!.metadata },
    ]);
    expect(group.joinAnswer(secondId, null)).toMatchObject({ generationId: 2, leader: first, members: [] });

    // The follower's SyncGroup waits for the leader's; then each gets exactly its bytes.
    const sync = (memberId: string, assignments: { memberId: string; assignment: string }[] = []) =>
      group.sync({ memberId, groupInstanceId: null, generationId: 2, protocolType: "consumer", protocolName: "range", assignments }, now + 4);
    expect(sync(secondId)).toEqual({ kind: "waiting" });
    expect(group.syncAnswer(secondId, null, 2)).toBe("waiting");
    const forFirst = b64(0, 1, 2, 250);
    const forSecond = b64(255, 0, 9);
    expect(synced(sync(first, [{ memberId: first, assignment: forFirst }, { memberId: secondId, assignment: forSecond }, { memberId: "stranger", assignment: b64(1) }]))).toBe(forFirst);
    expect(group.syncAnswer(secondId, null, 2)).toEqual({ protocolType: "consumer", protocolName: "range", assignment: forSecond });
    expect(group.status).toBe("Stable");
    expect(group.heartbeat(secondId, null, 2, now + 5)).toEqual({ rebalance: false });
  });

  it("removes a dynamic member that does not rejoin within the rebalance timeout; the newcomer then gets its generation", () => {
    const { group, memberId: first, now } = stableWithOne();
    const second = group.join(request("", { rebalanceTimeoutMs: 20_000 }), now);
    const secondId = (second as { memberId: string }).memberId;
    // It keeps heartbeating (told to rebalance) but never rejoins: gone at the rebalance timeout (the members' largest, 60 s).
    for (let at = now + 5_000; at < now + 60_000; at += 5_000) expect(group.heartbeat(first, null, 1, at)).toEqual({ rebalance: true });
    expect(group.joinAnswer(secondId, null)).toBe("waiting");
    group.expire(now + 60_000);
    expect(group.member(first)).toBeUndefined();
    expect(group.joinAnswer(secondId, null)).toMatchObject({ generationId: 2, leader: secondId, members: [{ memberId: secondId }] });
  });

  it("chooses a protocol every member supports, and refuses members that share none or speak another protocol type", () => {
    const { group, now } = stableWithOne({ protocols: protocols("range", "roundrobin") });
    expectRefused(group, "INCONSISTENT_GROUP_PROTOCOL", () => group.join(request("", { protocols: protocols("cooperative-sticky") }), now));
    expectRefused(group, "INCONSISTENT_GROUP_PROTOCOL", () => group.join(request("", { protocolType: "connect" }), now));
    expectRefused(group, "INCONSISTENT_GROUP_PROTOCOL", () => group.join(request("", { protocols: [] }), now));
  });

  it("answers a member that lost its JoinGroup answer with the current generation, and fences other generations", () => {
    const { group, memberId, now } = stableWithOne();
    expect(joined(group.join(request(memberId), now))).toMatchObject({ generationId: 2 });
    expect(group.status).toBe("CompletingRebalance");
    expect(joined(group.join(request(memberId), now + 1))).toMatchObject({ generationId: 2, leader: memberId });
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.heartbeat(memberId, null, 1, now + 2));
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.sync({ memberId, groupInstanceId: null, generationId: 1, protocolType: null, protocolName: null, assignments: [] }, now + 2));
    expectRefused(group, "INCONSISTENT_GROUP_PROTOCOL", () => group.sync({ memberId, groupInstanceId: null, generationId: 2, protocolType: "consumer", protocolName: "roundrobin", assignments: [] }, now + 2));
    expectRefused(group, "UNKNOWN_MEMBER_ID", () => group.join(request("nobody"), now));
  });

  it("refuses metadata past classicGroupBytesMax with MESSAGE_TOO_LARGE, the group unchanged", () => {
    const { group, memberId, now } = stableWithOne();
    const huge = Buffer.alloc(classicGroupBytesMax).toString("base64");
    expectRefused(group, "MESSAGE_TOO_LARGE", () => group.join(request("", { protocols: [{ name: "range", metadata: huge }] }), now));
    expectRefused(group, "MESSAGE_TOO_LARGE", () => group.join(request(memberId, { protocols: [{ name: "range", metadata: huge }] }), now));
  });
});

describe("rebalances by leaving, expiring and aborting", () => {
  it("answers a parked SyncGroup REBALANCE_IN_PROGRESS when the leader leaves before assigning; the others rebalance", () => {
    const { group, memberId: first, now } = stableWithOne();
    const secondId = (group.join(request(""), now) as { memberId: string }).memberId;
    joined(group.join(request(first), now + 1));
    const generationId = (group.joinAnswer(secondId, null) as ClassicJoinAnswer).generationId;
    expect(group.sync({ memberId: secondId, groupInstanceId: null, generationId, protocolType: null, protocolName: null, assignments: [] }, now + 2)).toEqual({ kind: "waiting" });
    expect(group.leave([{ memberId: first, groupInstanceId: null }], now + 3)).toEqual([{ memberId: first, groupInstanceId: null, error: null }]);
    expect(() => group.syncAnswer(secondId, null, generationId)).toThrow(expect.objectContaining({ code: "REBALANCE_IN_PROGRESS" }));
    // Every remaining member had rejoined? No: the second must rejoin, and then leads.
    expect(group.heartbeat(secondId, null, generationId, now + 4)).toEqual({ rebalance: true });
    expect(joined(group.join(request(secondId), now + 5))).toMatchObject({ generationId: generationId + 1, leader: secondId });
  });

  it("expires a silent member after its session, but never one whose JoinGroup is held; unsynced members go at the sync deadline", () => {
    const { group, memberId: first, now } = stableWithOne();
    const secondId = (group.join(request(""), now) as { memberId: string }).memberId;
    // The newcomer's JoinGroup is held past its session: it stays; the first one, silent, expires.
    expect(group.expire(now + 10_000)).toEqual([first]);
    expect(group.joinAnswer(secondId, null)).toMatchObject({ leader: secondId, generationId: 2 });
    // It heartbeats but never syncs: removed at the sync deadline (its rebalance timeout), the group is empty.
    for (let at = now + 15_000; at < now + 70_000; at += 5_000) expect(group.heartbeat(secondId, null, 2, at)).toEqual({ rebalance: false });
    group.expire(now + 10_000 + 60_000);
    expect(group.isEmpty()).toBe(true);
    expect(group.status).toBe("Empty");
  });

  it("restarts the session of a member whose held SyncGroup is answered, as Kafka does, so it may rejoin after a long wait", () => {
    const { group, memberId: first, now } = stableWithOne();
    const second = (group.join(request(""), now) as { memberId: string }).memberId;
    const generationId = joined(group.join(request(first), now + 1)).generationId;
    expect(group.sync({ memberId: second, groupInstanceId: null, generationId, protocolType: null, protocolName: null, assignments: [] }, now + 2)).toEqual({ kind: "waiting" });
    // The leader never syncs and goes silent; the follower's SyncGroup is held all along (it does not expire).
    expect(group.expire(now + 1 + 10_000)).toEqual([first]);
    expect(() => group.syncAnswer(second, null, generationId)).toThrow(expect.objectContaining({ code: "REBALANCE_IN_PROGRESS" }));
    // Its own last request was at now + 2: without a fresh session it would be gone by now + 2 + its 10 s.
    expect(joined(group.join(request(second), now + 2 + 10_000))).toMatchObject({ leader: second, generationId: generationId + 1 });
  });

  it("leaves by member id, by instance id alone (admin), and answers each unknown one UNKNOWN_MEMBER_ID", () => {
    const { group, memberId, now } = stableWithOne({ groupInstanceId: "i-1" });
    const results = group.leave([{ memberId: "", groupInstanceId: "i-1" }, { memberId: "nobody", groupInstanceId: null }, { memberId: "", groupInstanceId: "i-9" }], now);
    expect(results.map(({ memberId: id, error }) => [id, error?.code ?? null])).toEqual([["", null], ["nobody", "UNKNOWN_MEMBER_ID"], ["", "UNKNOWN_MEMBER_ID"]]);
    expect(group.member(memberId)).toBeUndefined();
  });
});

describe("static members (group.instance.id)", () => {
  it("a restart within the session keeps the partitions without a rebalance; the old id is fenced", () => {
    const { group, memberId: old, assignment, now } = stableWithOne({ groupInstanceId: "app-0" });
    const outcome = joined(group.join(request("", { groupInstanceId: "app-0" }), now + 100));
    expect(outcome).toMatchObject({ generationId: 1, leader: outcome.memberId, skipAssignment: true });
    expect(outcome.memberId).not.toBe(old);
    expect(group.status).toBe("Stable");
    expect(synced(group.sync({ memberId: outcome.memberId, groupInstanceId: "app-0", generationId: 1, protocolType: "consumer", protocolName: "range", assignments: [] }, now + 101))).toBe(assignment);
    for (const action of [
      () => group.heartbeat(old, "app-0", 1, now + 102),
      () => group.checkCommit(old, "app-0", 1),
      () => group.joinAnswer(old, "app-0"),
      () => group.join(request(old, { groupInstanceId: "app-0" }), now + 102),
    ]) {
      expectRefused(group, "FENCED_INSTANCE_ID", action);
    }
  });

  it("tells an older client (JoinGroup < v9) that replaced the leader the former leader id, so it follows and keeps its bytes", () => {
    const { group, memberId: old, now } = stableWithOne({ groupInstanceId: "app-0" });
    const outcome = joined(group.join(request("", { groupInstanceId: "app-0", supportsSkipAssignment: false }), now));
    expect(outcome).toMatchObject({ leader: old, skipAssignment: false, members: [] });
  });

  it("a static member that changed its protocols rebalances the group; a member id under another instance's id is fenced", () => {
    const { group, memberId, now } = stableWithOne({ groupInstanceId: "app-0", protocols: protocols("range", "roundrobin") });
    expectRefused(group, "UNKNOWN_MEMBER_ID", () => group.join(request(memberId, { groupInstanceId: "app-1" }), now));
    expectRefused(group, "FENCED_INSTANCE_ID", () => group.join(request("client-id9", { groupInstanceId: "app-0" }), now));
    // Alone in the group, its rejoin completes the rebalance at once, with the protocol it now prefers.
    const outcome = joined(group.join(request("", { groupInstanceId: "app-0", protocols: protocols("roundrobin", "range") }), now));
    expect(outcome).toMatchObject({ generationId: 2, protocolName: "roundrobin", skipAssignment: false });
    expect(outcome.members).toHaveLength(1);
  });
});

describe("commits", () => {
  it("accepts the member's generation while the group prepares a rebalance, refuses it while the leader assigns, fences old generations", () => {
    const { group, memberId, now } = stableWithOne();
    const other = (group.join(request(""), now) as { memberId: string }).memberId;
    group.checkCommit(memberId, null, 1);
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit(other, null, 1));
    joined(group.join(request(memberId), now + 1));
    expectRefused(group, "REBALANCE_IN_PROGRESS", () => group.checkCommit(memberId, null, 2));
    expectRefused(group, "FENCED_MEMBER_EPOCH", () => group.checkCommit(memberId, null, 1));
  });
});
