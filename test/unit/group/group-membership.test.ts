/**
 * One group, whatever its members speak (src/group/group-membership.ts): classic members alone
 * take Kafka's classic path; an HTTP member converts the group to server-side assignment (or is
 * refused, naming why); classic members bridged onto it get ConsumerProtocol assignments; when
 * the last HTTP member leaves, the classic members go back to the classic path.
 */
import { describe, expect, it } from "vitest";
import type { ClassicJoinAnswer, ClassicJoinOutcome, ClassicJoinRequest } from "../../../src/group/classic-group.ts";
import type { ClassicProtocol } from "../../../src/group/classic-group-state.ts";
import { GroupMembership } from "../../../src/group/group-membership.ts";
import { classicInitialRebalanceDelayMs } from "../../../src/limits.ts";
import { decodeAssignment, encodeAssignment, encodeSubscription } from "../../../src/protocol/consumer-protocol.ts";
import { meta, sequentialIds, thrown, t0 } from "./group-fixtures.ts";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const subscription = (name: string, userData: number[] = [], topics = ["orders"]): ClassicProtocol => ({
  name,
  metadata: b64(encodeSubscription({ topics, userData: new Uint8Array(userData) }, 1)),
});

function request(memberId: string, protocols: ClassicProtocol[], overrides: Partial<ClassicJoinRequest> = {}): ClassicJoinRequest {
  return {
    memberId, groupInstanceId: null, protocolType: "consumer", protocols, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000,
    clientId: "k", host: null, requireKnownMemberId: false, supportsSkipAssignment: true, ...overrides,
  };
}

function answer(outcome: ClassicJoinOutcome): ClassicJoinAnswer {
  if (outcome.kind !== "joined") throw new Error(`expected an answer: ${JSON.stringify(outcome)}`);
  return outcome.answer;
}

/** Two range consumers on the classic path, stable at generation 1; the leader gave each two of orders' four partitions. */
function classicPair(protocol = subscription("range")) {
  const group = new GroupMembership({ generateMemberId: sequentialIds("id") });
  const a = (group.classicJoin(request("", [protocol]), meta, t0) as { memberId: string }).memberId;
  const b = (group.classicJoin(request("", [protocol]), meta, t0 + 1) as { memberId: string }).memberId;
  // b came during the initial delay: it is extended once more.
  const now = t0 + 2 * classicInitialRebalanceDelayMs;
  group.expire(t0 + classicInitialRebalanceDelayMs);
  expect(group.classicJoinAnswer(a, null)).toBe("waiting");
  group.expire(now);
  const leader = group.classicJoinAnswer(a, null) as ClassicJoinAnswer;
  expect(leader.members.map(({ metadata }) => metadata)).toEqual([protocol.metadata, protocol.metadata]);
  const bytes = (partitions: number[]) => b64(encodeAssignment([{ topic: "orders", partitions }]));
  const sync = (memberId: string, assignments: { memberId: string; assignment: string }[]) =>
    group.classicSync({ memberId, groupInstanceId: null, generationId: leader.generationId, protocolType: "consumer", protocolName: protocol.name, assignments }, meta, now);
  expect(sync(b, [])).toEqual({ kind: "waiting" });
  sync(a, [{ memberId: a, assignment: bytes([0, 1]) }, { memberId: b, assignment: bytes([2, 3]) }]);
  expect(group.path).toBe("classic");
  return { group, a, b, now, generationId: leader.generationId };
}

describe("an HTTP member joining a classic group", () => {
  it("converts it: the classic members keep the leader's partitions until they rejoin and give them up, then get ConsumerProtocol assignments", () => {
    const { group, a, b, now, generationId } = classicPair();
    const http = group.join({ topics: ["orders"] }, meta, now + 10);
    expect(group.path).toBe("server");
    expect(http.assignment).toEqual([]);
    const describedA = group.describe().members.find(({ memberId }) => memberId === a)!;
    expect(describedA).toMatchObject({ memberEpoch: generationId, assignment: [{ topic: "orders", partitions: [0, 1] }], groupInstanceId: null });
    // Each classic member is told to rejoin, rejoins eagerly through the bridge and gets its share as Assignment bytes.
    for (const memberId of [a, b]) {
      expect(group.classicHeartbeat(memberId, null, generationId, meta, now + 20)).toEqual({ rebalance: true });
      const rejoined = answer(group.classicJoin(request(memberId, [subscription("range")]), meta, now + 21));
      expect(rejoined).toMatchObject({ leader: "", members: [], protocolName: "range" });
      const synced = group.classicSync({ memberId, groupInstanceId: null, generationId: rejoined.generationId, protocolType: "consumer", protocolName: "range", assignments: [] }, meta, now + 22);
      if (synced.kind !== "synced") throw new Error("a bridged SyncGroup never waits");
      expect(decodeAssignment(Buffer.from(synced.answer.assignment, "base64")).assignment.flatMap(({ partitions }) => partitions).length).toBeLessThanOrEqual(2);
    }
    const all = [...group.describe().members.flatMap(({ assignment }) => assignment.flatMap(({ partitions }) => partitions)), ...group.server.heartbeat(http.memberId, { memberEpoch: http.memberEpoch }, meta, now + 30).assignment.flatMap(({ partitions }) => partitions)];
    expect(new Set(all).size).toBe(all.length);
  });

  it("answers a held classic JoinGroup REBALANCE_IN_PROGRESS once the group converted", () => {
    const { group, a, b, now, generationId } = classicPair();
    group.classicJoin(request(a, [subscription("range")]), meta, now);
    expect(group.classicJoinAnswer(a, null)).toBe("waiting");
    group.join({ topics: ["orders"] }, meta, now + 1);
    expect(thrown(() => group.classicJoinAnswer(a, null)).code).toBe("REBALANCE_IN_PROGRESS");
    expect(group.classicHeartbeat(b, null, generationId, meta, now + 2)).toEqual({ rebalance: true });
  });

  it("is refused, naming why, from a group whose assignor carries user data (Kafka Streams) or of another protocol type (Connect); nothing changes", () => {
    for (const [protocols, overrides, why] of [
      [[subscription("stream", [0, 0, 0, 11, 1, 2])], {}, /assignor stream carries user data/],
      [[{ name: "sessioned", metadata: b64(new Uint8Array([0, 1, 2])) }], { protocolType: "connect" }, /protocol type "connect"/],
    ] as const) {
      const group = new GroupMembership({ generateMemberId: sequentialIds("id") });
      group.classicJoin(request("", [...protocols], overrides), meta, t0);
      const before = JSON.stringify(group.toState());
      const refused = thrown(() => group.join({ topics: ["orders"] }, meta, t0 + 1));
      expect(refused.code).toBe("INCONSISTENT_GROUP_PROTOCOL");
      expect(refused.message).toMatch(why);
      expect(JSON.stringify(group.toState())).toBe(before);
    }
  });

  it("lets a sticky assignor's user data pass (the server knows its generation and partitions), and refuses a bridged member that has only a Streams protocol", () => {
    const { group, now } = classicPair(subscription("cooperative-sticky", [0, 0, 0, 1]));
    group.join({ topics: ["orders"] }, meta, now);
    expect(group.path).toBe("server");
    const refused = thrown(() => group.classicJoin(request("", [subscription("stream", [9, 9])]), meta, now + 1));
    expect(refused).toMatchObject({ code: "INCONSISTENT_GROUP_PROTOCOL" });
    expect(refused.message).toMatch(/the server assigns its partitions, and assignor stream carries user data/);
  });
});

describe("back to the classic path", () => {
  it("when the last HTTP member leaves, classic members sharing a protocol rebalance under the classic protocol, from their epochs", () => {
    const { group, a, now } = classicPair();
    const http = group.join({ topics: ["orders"] }, meta, now);
    const epochA = group.describe().members.find(({ memberId }) => memberId === a)!.memberEpoch;
    group.leave(http.memberId, now + 1);
    expect(group.path).toBe("classic");
    expect(group.describe().classic).toMatchObject({ state: "PreparingRebalance", protocolType: "consumer", protocolName: null });
    expect(group.classicHeartbeat(a, null, epochA, meta, now + 2)).toEqual({ rebalance: true });
  });

  it("stays with the server while the classic members share no protocol", () => {
    const group = new GroupMembership({ generateMemberId: sequentialIds("id") });
    const http = group.join({ topics: ["orders"] }, meta, t0);
    answer(group.classicJoin(request("", [subscription("range")]), meta, t0 + 1));
    answer(group.classicJoin(request("", [subscription("RoundRobinAssigner")]), meta, t0 + 2));
    group.leave(http.memberId, t0 + 3);
    expect(group.path).toBe("server");
  });
});
