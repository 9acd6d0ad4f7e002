/**
 * The gateway's group handlers called with decoded requests, against a real `wrangler dev`:
 * the classic protocol's steps one at a time, where a client library would hide them —
 * MEMBER_ID_REQUIRED, REBALANCE_IN_PROGRESS on the heartbeat, eager and cooperative rejoins,
 * commits of given-up partitions, ILLEGAL_GENERATION after a rejoin, and the admin APIs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { Secret } from "../../src/client/secret.ts";
import { Transport } from "../../src/client/transport.ts";
import { decodeAssignment, encodeSubscription } from "../../src/protocol/consumer-protocol.ts";
import { groupHandlers } from "../../src/gateway/groups/index.ts";
import type { GatewayRequestContext } from "../../src/gateway/handler-types.ts";
import { writeResponse } from "../../src/gateway/protocol/messages.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

type Handler = (request: unknown, context: GatewayRequestContext) => Promise<any>;

const adminToken = "gateway-groups-handlers-admin-token";

describe("gateway group handlers against wrangler dev", () => {
  let server: DevServer;
  let tributary: Tributary;
  let transport: Transport;

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    [tributary, transport] = credentials(adminToken);
    await tributary.admin().topics.create({ name: "classic", partitions: 6 });
  }, 120_000);

  /** The client and transport of a connection whose SASL password is `token`. */
  function credentials(token: string): [Tributary, Transport] {
    return [
      new Tributary({ url: server.url, token }),
      new Transport({ baseUrl: server.url, server: server.url, token: new Secret(token), fetch: (request) => fetch(request), requestTimeoutMs: 30_000 }),
    ];
  }

  afterAll(async () => {
    await server?.stop();
  });

  /** Calls the handler of `apiKey` as the connection loop would, at `apiVersion`. */
  async function call(apiKey: number, apiVersion: number, request: unknown, as: [Tributary, Transport] = [tributary, transport]): Promise<any> {
    // The group handlers use neither the SASL state nor the Metadata session.
    const context = {
      tributary: as[0],
      transport: as[1],
      apiVersion,
      clientId: "handlers-test",
      clientHost: "/127.0.0.1",
      connectionId: 1,
      onClose: () => {},
      broker: { nodeId: 0, host: "127.0.0.1", port: 9092, clusterId: "handlers-test", autoCreateTopics: false },
    } satisfies Omit<GatewayRequestContext, "session" | "sasl">;
    const answer = await (groupHandlers[apiKey] as Handler)(request, context as unknown as GatewayRequestContext);
    // Every answer must encode at its version, as the connection loop writes it.
    expect(writeResponse({ apiKey, apiVersion, correlationId: 1 }, answer).length).toBeGreaterThan(0);
    return answer;
  }

  const protocols = (name: string, owned: { topic: string; partitions: number[] }[] | null) => [
    { name, metadata: encodeSubscription({ topics: ["classic"], ownedPartitions: owned ?? [] }, owned === null ? 0 : 1) },
  ];
  const join = (groupId: string, memberId: string, name = "range", owned: { topic: string; partitions: number[] }[] | null = null, version = 5) =>
    call(11, version, { groupId, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 60_000, memberId, groupInstanceId: null, protocolType: "consumer", protocols: protocols(name, owned) });
  const sync = async (groupId: string, memberId: string, generationId: number) => {
    const answer = await call(14, 5, { groupId, generationId, memberId, groupInstanceId: null, protocolType: "consumer", protocolName: "range", assignments: [] });
    expect(answer.errorCode).toBe(0);
    return decodeAssignment(answer.assignment).assignment.flatMap(({ partitions }) => partitions);
  };
  const beat = async (groupId: string, memberId: string, generationId: number) =>
    (await call(12, 4, { groupId, generationId, memberId, groupInstanceId: null })).errorCode as number;
  const commit = async (groupId: string, memberId: string, generation: number, partitions: number[], offset: bigint) => {
    const answer = await call(8, 8, {
      groupId, generationIdOrMemberEpoch: generation, memberId, groupInstanceId: null,
      topics: [{ name: "classic", partitions: partitions.map((partitionIndex) => ({ partitionIndex, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null })) }],
    });
    return answer.topics[0].partitions.map((entry: { errorCode: number }) => entry.errorCode) as number[];
  };

  it("eager members: MEMBER_ID_REQUIRED, a newcomer waits while the holder is told to rebalance, commits until the rejoin", async () => {
    const group = "eager";
    const required = await join(group, "");
    expect(required).toMatchObject({ errorCode: 79, generationId: -1 });
    const a = required.memberId as string;
    const joinedA = await join(group, a);
    expect(joinedA).toMatchObject({ errorCode: 0, protocolType: "consumer", protocolName: "range", memberId: a, leader: "", members: [] });
    expect(await sync(group, a, joinedA.generationId)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await beat(group, a, joinedA.generationId)).toBe(0);

    // JoinGroup v3 has no MEMBER_ID_REQUIRED: the member joins at once, with nothing yet.
    const joinedB = await join(group, "", "range", null, 3);
    expect(joinedB.errorCode).toBe(0);
    const b = joinedB.memberId as string;
    expect(await sync(group, b, joinedB.generationId)).toEqual([]);
    expect(await beat(group, b, joinedB.generationId)).toBe(0);

    expect(await beat(group, a, joinedA.generationId)).toBe(27);
    expect(await commit(group, a, joinedA.generationId, [0, 1, 2, 3, 4, 5], 10n)).toEqual([0, 0, 0, 0, 0, 0]);
    const rejoinedA = await join(group, a);
    expect(rejoinedA.generationId).toBeGreaterThan(joinedA.generationId);
    const keptByA = await sync(group, a, rejoinedA.generationId);
    expect(keptByA).toHaveLength(3);
    expect(await commit(group, a, joinedA.generationId, [keptByA[0]!], 11n)).toEqual([22]);
    expect(await sync(group, a, joinedA.generationId).catch(() => "refused")).toBe("refused");

    expect(await beat(group, b, joinedB.generationId)).toBe(27);
    const rejoinedB = await join(group, b);
    const gotByB = await sync(group, b, rejoinedB.generationId);
    expect([...keptByA, ...gotByB].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await beat(group, a, rejoinedA.generationId)).toBe(0);
    expect(await beat(group, b, rejoinedB.generationId)).toBe(0);

    const fetched = await call(9, 5, { groupId: group, topics: [{ name: "classic", partitionIndexes: [0, 5] }], requireStable: false });
    expect(fetched).toMatchObject({ errorCode: 0, topics: [{ name: "classic", partitions: [{ partitionIndex: 0, committedOffset: 10n }, { partitionIndex: 5, committedOffset: 10n }] }] });
    const all = await call(9, 8, { groups: [{ groupId: group, topics: null }, { groupId: "nobody", topics: [{ name: "classic", partitionIndexes: [0] }] }], requireStable: true });
    expect(all.groups[0].topics[0].partitions).toHaveLength(6);
    expect(all.groups[1]).toMatchObject({ groupId: "nobody", errorCode: 0, topics: [{ partitions: [{ committedOffset: -1n }] }] });
    expect((await tributary.admin().groups.offsets(group)).map(({ offset }) => offset)).toEqual([10, 10, 10, 10, 10, 10]);

    expect(await beat(group, "nobody", 1)).toBe(25);
    const described = await call(15, 5, { groups: [group, "nobody"], includeAuthorizedOperations: false });
    expect(described.groups[0]).toMatchObject({ errorCode: 0, groupState: "Stable", protocolType: "consumer", protocolData: "range" });
    expect(described.groups[0].members.map((member: { clientId: string }) => member.clientId)).toEqual(["handlers-test", "handlers-test"]);
    expect(described.groups[1]).toMatchObject({ errorCode: 0, groupState: "Dead", members: [] });
    expect((await call(42, 2, { groupsNames: [group] })).results).toEqual([{ groupId: group, errorCode: 68 }]);
    const left = await call(13, 5, { groupId: group, members: [{ memberId: a, groupInstanceId: null, reason: null }, { memberId: "nobody", groupInstanceId: null, reason: null }] });
    expect(left).toMatchObject({ errorCode: 0, members: [{ memberId: a, errorCode: 0 }, { memberId: "nobody", errorCode: 25 }] });
    expect(await call(13, 1, { groupId: group, memberId: b })).toMatchObject({ errorCode: 0 });
    const listed = await call(16, 4, { statesFilter: ["empty"] });
    expect(listed.groups).toContainEqual({ groupId: group, protocolType: "consumer", groupState: "Empty", groupType: "consumer" });
    expect((await call(42, 2, { groupsNames: [group, "nobody"] })).results).toEqual([
      { groupId: group, errorCode: 0 },
      { groupId: "nobody", errorCode: 69 },
    ]);
  });

  it("cooperative members keep what stays theirs, commit what they give up, and the newcomer gets it after", async () => {
    const group = "cooperative";
    const first = await join(group, "", "cooperative-sticky", [], 2);
    const c1 = first.memberId as string;
    expect(await sync(group, c1, first.generationId)).toEqual([0, 1, 2, 3, 4, 5]);
    const second = await join(group, "", "cooperative-sticky", [], 2);
    const c2 = second.memberId as string;
    expect(await sync(group, c2, second.generationId)).toEqual([]);

    expect(await beat(group, c1, first.generationId)).toBe(27);
    const all = [{ topic: "classic", partitions: [0, 1, 2, 3, 4, 5] }];
    const rejoined = await join(group, c1, "cooperative-sticky", all);
    const kept = await sync(group, c1, rejoined.generationId);
    expect(kept).toHaveLength(3);
    const givenUp = [0, 1, 2, 3, 4, 5].filter((partition) => !kept.includes(partition));
    // librdkafka commits on revoke, at the generation of the SyncGroup that revoked.
    expect(await commit(group, c1, rejoined.generationId, givenUp, 7n)).toEqual([0, 0, 0]);
    expect(await beat(group, c1, rejoined.generationId)).toBe(27);
    expect(await beat(group, c2, second.generationId)).toBe(0);

    const settled = await join(group, c1, "cooperative-sticky", [{ topic: "classic", partitions: kept }]);
    expect(settled.generationId).toBe(rejoined.generationId);
    expect(await sync(group, c1, settled.generationId)).toEqual(kept);
    expect(await beat(group, c1, settled.generationId)).toBe(0);
    expect(await beat(group, c2, second.generationId)).toBe(27);
    const rejoined2 = await join(group, c2, "cooperative-sticky", []);
    expect(await sync(group, c2, rejoined2.generationId)).toEqual(givenUp);
  });

  it("refuses what it cannot bridge with Kafka's codes", async () => {
    const base = { groupId: "refused", sessionTimeoutMs: 30_000, memberId: "", groupInstanceId: null };
    expect((await call(11, 5, { ...base, protocolType: "connect", protocols: protocols("range", null) })).errorCode).toBe(23);
    expect((await call(11, 5, { ...base, protocolType: "consumer", protocols: [{ name: "range", metadata: new Uint8Array([9]) }] })).errorCode).toBe(23);
    expect((await call(11, 5, { ...base, sessionTimeoutMs: 1_000, protocolType: "consumer", protocols: protocols("range", null) })).errorCode).toBe(26);
    const missing = [{ name: "range", metadata: encodeSubscription({ topics: ["no-such-topic"] }) }];
    expect((await call(11, 3, { ...base, protocolType: "consumer", protocols: missing })).errorCode).toBe(3);
    // A topic Tributary does not have is left out of the subscription, as Kafka assigns nothing of it.
    const some = [{ name: "range", metadata: encodeSubscription({ topics: ["no-such-topic", "classic"] }) }];
    const joined = await call(11, 3, { ...base, protocolType: "consumer", protocols: some });
    expect(joined.errorCode).toBe(0);
    expect(await sync("refused", joined.memberId, joined.generationId)).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await join("refused", "no-such-member")).errorCode).toBe(25);
    expect(await beat("refused", "", 1)).toBe(25);
    expect(await beat("", "no-such-member", 1)).toBe(24);
    expect((await call(13, 3, { groupId: "refused", members: [{ memberId: "", groupInstanceId: "static-1" }] })).members).toEqual([
      { memberId: "", groupInstanceId: "static-1", errorCode: 25 },
    ]);
    expect((await join("refused", "no-such-member", "cooperative-sticky", [])).errorCode).toBe(25);
  });

  it("answers what the connection's token may not do with GROUP_ and TOPIC_AUTHORIZATION_FAILED", async () => {
    const admin = tributary.admin().tokens;
    const rule = (resource: "topic" | "group", name: string) => ({ resource, name, patternType: "literal" as const, operations: ["read" as const] });
    const topicOnly = credentials((await admin.create({ rules: [rule("topic", "classic")] })).token.reveal());
    const groupOnly = credentials((await admin.create({ rules: [rule("group", "guarded")] })).token.reveal());
    const joining = { groupId: "guarded", sessionTimeoutMs: 30_000, memberId: "", groupInstanceId: null, protocolType: "consumer", protocols: protocols("range", null) };
    expect((await call(11, 3, joining, topicOnly)).errorCode).toBe(30);
    expect((await call(11, 3, joining, groupOnly)).errorCode).toBe(29);
    expect((await call(12, 4, { groupId: "guarded", generationId: 1, memberId: "m", groupInstanceId: null }, topicOnly)).errorCode).toBe(30);
    expect((await call(9, 5, { groupId: "guarded", topics: null, requireStable: false }, topicOnly)).errorCode).toBe(30);
    expect((await call(15, 5, { groups: ["guarded"], includeAuthorizedOperations: false }, topicOnly)).groups[0].errorCode).toBe(30);
    expect((await call(42, 2, { groupsNames: ["guarded"] }, groupOnly)).results[0].errorCode).toBe(30);
  });
});
