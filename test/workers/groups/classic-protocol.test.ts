/**
 * Kafka's classic group protocol in the coordinator (issue 35; docs/api.md, Classic members),
 * through the routes the Kafka gateway calls: a group of classic members elects a leader, the
 * leader gets every member's metadata byte for byte and each member exactly the bytes the
 * leader sent for it; held JoinGroups and SyncGroups; static members; commits at the
 * generation; HTTP members refused from a group whose assignor carries user data, and a group
 * of plain consumers converted to server-side assignment when one joins.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { encodeAssignment, encodeSubscription, decodeAssignment } from "../../../src/protocol/consumer-protocol.ts";
import { api, expectError, type ApiResponse } from "../support/http.ts";
import { commitRaw, coordinator, describeGroup, groupOffsets, groupPath, joinRaw, topicWith, uniqueGroup } from "./support/groups.ts";

const b64 = (bytes: Uint8Array | number[]) => Buffer.from(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes)).toString("base64");
const subscription = (topic: string, userData: number[] = []) => b64(encodeSubscription({ topics: [topic], userData: Uint8Array.from(userData) }, 1));
const assignment = (topic: string, partitions: number[], userData: number[] = []) => b64(encodeAssignment([{ topic, partitions }], 0, Uint8Array.from(userData)));

interface JoinBody {
  memberId?: string;
  groupInstanceId?: string | null;
  protocolType?: string;
  protocols: { name: string; metadata: string }[];
  requireKnownMemberId?: boolean;
  supportsSkipAssignment?: boolean;
  waitMs?: number;
}

const classic = (group: string, call: string, body: unknown): Promise<ApiResponse> => api("POST", groupPath(group, `/classic/${call}`), body);

async function joinClassic(group: string, body: JoinBody) {
  const response = await classic(group, "join", { protocolType: "consumer", sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 20_000, clientId: "w", ...body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function syncClassic(group: string, body: Record<string, unknown>) {
  const response = await classic(group, "sync", { protocolType: "consumer", ...body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe("classic members over HTTP", () => {
  it("elect a leader that gets every member's metadata byte for byte; each member gets exactly the leader's bytes; the state outlives a restart", async () => {
    const topic = await topicWith(4, "classic-bytes");
    const group = uniqueGroup("classic-bytes");
    const required = await joinClassic(group, { protocols: [{ name: "custom", metadata: subscription(topic, [1]) }], requireKnownMemberId: true });
    expect(required).toMatchObject({ outcome: "member-id-required" });
    const a = required.memberId as string;
    // The group waits Kafka's initial delay for more members, then a leads alone.
    const alone = await joinClassic(group, { memberId: a, protocols: [{ name: "custom", metadata: subscription(topic, [1]) }], waitMs: 10_000 });
    expect(alone).toMatchObject({ outcome: "joined", generationId: 1, leader: a, protocolName: "custom", members: [{ memberId: a, metadata: subscription(topic, [1]) }] });
    expect(await syncClassic(group, { memberId: a, generationId: 1, protocolName: "custom", assignments: [{ memberId: a, assignment: assignment(topic, [0, 1, 2, 3], [42]) }] })).toEqual({
      outcome: "synced", protocolType: "consumer", protocolName: "custom", assignment: assignment(topic, [0, 1, 2, 3], [42]),
    });

    // A newcomer is held until a rejoins (told by its heartbeat); then the leader sees both subscriptions as sent.
    const newcomer = joinClassic(group, { protocols: [{ name: "custom", metadata: subscription(topic, [2, 2]) }], waitMs: 10_000 });
    let told = false;
    for (let attempt = 0; attempt < 50 && !told; attempt++) {
      const beat = await classic(group, "heartbeat", { memberId: a, generationId: 1 });
      told = beat.body.rebalance === true;
      if (!told) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(told).toBe(true);
    const leader = await joinClassic(group, { memberId: a, protocols: [{ name: "custom", metadata: subscription(topic, [1, 1]) }], waitMs: 10_000 });
    const follower = await newcomer;
    const b = follower.memberId as string;
    expect(leader).toMatchObject({ outcome: "joined", generationId: 2, leader: a });
    expect(leader.members).toEqual([
      { memberId: a, groupInstanceId: null, metadata: subscription(topic, [1, 1]) },
      { memberId: b, groupInstanceId: null, metadata: subscription(topic, [2, 2]) },
    ]);
    expect(follower).toMatchObject({ outcome: "joined", generationId: 2, leader: a, members: [] });

    const held = syncClassic(group, { memberId: b, generationId: 2, waitMs: 10_000 });
    const forA = assignment(topic, [0, 2], [7, 7, 7]);
    const forB = assignment(topic, [1, 3], [8]);
    expect((await syncClassic(group, { memberId: a, generationId: 2, assignments: [{ memberId: a, assignment: forA }, { memberId: b, assignment: forB }] })).assignment).toBe(forA);
    expect((await held).assignment).toBe(forB);

    await evictDurableObject(coordinator(group));
    expect((await classic(group, "heartbeat", { memberId: b, generationId: 2 })).body).toEqual({ rebalance: false });
    expect((await syncClassic(group, { memberId: b, generationId: 2 })).assignment).toBe(forB);
    const described = await describeGroup(group);
    expect(described).toMatchObject({ state: "Stable", classic: { state: "Stable", generationId: 2, protocolType: "consumer", protocolName: "custom", leader: a } });
    expect(described.members.map(({ memberId, assignment: held }) => [memberId, held])).toEqual(
      [[a, [{ topic, partitions: [0, 2] }]], [b, [{ topic, partitions: [1, 3] }]]].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1)),
    );
    expect(decodeAssignment(Buffer.from(forB, "base64")).userData).toEqual(Uint8Array.from([8]));
  });

  it("a static member's restart keeps its assignment without a rebalance; its old id is fenced (409 FENCED_INSTANCE_ID)", async () => {
    const topic = await topicWith(2, "classic-static");
    const group = uniqueGroup("classic-static");
    const protocols = [{ name: "range", metadata: subscription(topic) }];
    const first = await joinClassic(group, { groupInstanceId: "app-0", protocols, waitMs: 10_000, supportsSkipAssignment: true });
    const bytes = assignment(topic, [0, 1]);
    await syncClassic(group, { memberId: first.memberId, groupInstanceId: "app-0", generationId: first.generationId, assignments: [{ memberId: first.memberId, assignment: bytes }] });
    const restarted = await joinClassic(group, { groupInstanceId: "app-0", protocols, supportsSkipAssignment: true });
    expect(restarted).toMatchObject({ outcome: "joined", generationId: first.generationId, skipAssignment: true });
    expect(restarted.memberId).not.toBe(first.memberId);
    expect((await syncClassic(group, { memberId: restarted.memberId, groupInstanceId: "app-0", generationId: first.generationId })).assignment).toBe(bytes);
    expectError(await classic(group, "heartbeat", { memberId: first.memberId, groupInstanceId: "app-0", generationId: first.generationId }), 409, "FENCED_INSTANCE_ID");
    const offsets = [{ topic, partition: 0, offset: 5, metadata: "from the old process" }];
    expectError(await commitRaw(group, { memberId: first.memberId, memberEpoch: first.generationId, classic: true, groupInstanceId: "app-0", offsets }), 409, "FENCED_INSTANCE_ID");
    const committed = await commitRaw(group, { memberId: restarted.memberId, memberEpoch: first.generationId, classic: true, groupInstanceId: "app-0", offsets: [{ topic, partition: 0, offset: 5, metadata: "kept" }] });
    expect(committed.status, committed.text).toBe(204);
    expect((await groupOffsets(group))[0]).toMatchObject({ offset: 5, metadata: "kept" });
    expect((await describeGroup(group)).members).toEqual([expect.objectContaining({ memberId: restarted.memberId, groupInstanceId: "app-0" })]);
    const left = await classic(group, "leave", { members: [{ memberId: "", groupInstanceId: "app-0" }, { memberId: "nobody" }] });
    expect(left.body.members).toEqual([
      { memberId: "", groupInstanceId: "app-0", error: null },
      { memberId: "nobody", groupInstanceId: null, error: expect.objectContaining({ code: "UNKNOWN_MEMBER_ID" }) },
    ]);
  });

  it("refuses an HTTP member from a group whose assignor carries user data, naming why; converts a group of plain consumers", async () => {
    const topic = await topicWith(2, "classic-mixed");
    const streams = uniqueGroup("classic-streams");
    await joinClassic(streams, { protocols: [{ name: "stream", metadata: subscription(topic, [0, 0, 0, 11]) }] });
    const refused = expectError(await joinRaw(streams, { topics: [topic] }), 409, "INCONSISTENT_GROUP_PROTOCOL");
    expect(refused.message).toMatch(/assignor stream carries user data/);
    expect((await describeGroup(streams)).classic).toBeDefined();

    const plain = uniqueGroup("classic-plain");
    const member = await joinClassic(plain, { protocols: [{ name: "range", metadata: subscription(topic) }], waitMs: 10_000 });
    await syncClassic(plain, { memberId: member.memberId, generationId: member.generationId, assignments: [{ memberId: member.memberId, assignment: assignment(topic, [0, 1]) }] });
    const http = await joinRaw(plain, { topics: [topic] });
    expect(http.status, http.text).toBe(201);
    const described = await describeGroup(plain);
    expect(described.classic).toBeUndefined();
    expect(described.members.find(({ memberId }) => memberId === member.memberId)).toMatchObject({ assignment: [{ topic, partitions: [0, 1] }], groupInstanceId: null });
    // The classic member is told to rejoin; bridged, it gets server-assigned ConsumerProtocol bytes.
    expect((await classic(plain, "heartbeat", { memberId: member.memberId, generationId: member.generationId })).body).toEqual({ rebalance: true });
    const rejoined = await joinClassic(plain, { memberId: member.memberId, protocols: [{ name: "range", metadata: subscription(topic) }] });
    expect(rejoined).toMatchObject({ outcome: "joined", leader: "", members: [] });
    const synced = await syncClassic(plain, { memberId: member.memberId, generationId: rejoined.generationId });
    expect(decodeAssignment(Buffer.from(synced.assignment, "base64")).assignment.flatMap(({ partitions }) => partitions)).toHaveLength(1);
  });

  it("commits at the member's generation, not while the leader assigns (409 REBALANCE_IN_PROGRESS), nor at an old one", async () => {
    const topic = await topicWith(1, "classic-commit");
    const group = uniqueGroup("classic-commit");
    const protocols = [{ name: "range", metadata: subscription(topic) }];
    const member = await joinClassic(group, { protocols, waitMs: 10_000 });
    const offsets = [{ topic, partition: 0, offset: 3 }];
    expectError(await commitRaw(group, { memberId: member.memberId, memberEpoch: member.generationId, classic: true, offsets }), 409, "REBALANCE_IN_PROGRESS");
    await syncClassic(group, { memberId: member.memberId, generationId: member.generationId, assignments: [] });
    expect((await commitRaw(group, { memberId: member.memberId, memberEpoch: member.generationId, classic: true, offsets })).status).toBe(204);
    expectError(await commitRaw(group, { memberId: member.memberId, memberEpoch: member.generationId + 1, classic: true, offsets }), 409, "FENCED_MEMBER_EPOCH");
    expectError(await commitRaw(group, { offsets }), 409, "NON_EMPTY_GROUP");
  });
});
