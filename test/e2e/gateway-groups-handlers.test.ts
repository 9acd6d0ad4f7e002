/**
 * The gateway's group handlers called with decoded requests, against a real `wrangler dev`:
 * the classic protocol's steps one at a time, where a client library would hide them. A group
 * of classic members alone is Kafka's classic protocol (issue 35): MEMBER_ID_REQUIRED, a leader
 * that gets every member's metadata byte for byte, held JoinGroups and SyncGroups, each member
 * getting exactly the leader's bytes, REBALANCE_IN_PROGRESS on the heartbeat, commits with their
 * metadata, ILLEGAL_GENERATION after the rebalance, the admin APIs. A group with an HTTP member
 * is assigned by the server, classic members bridged onto it: eager and cooperative rejoins,
 * commits of given-up partitions. And two transaction handlers on the same server (issue 28):
 * AddPartitionsToTxn's per-partition codes and DescribeProducers, each token's refusals included,
 * and InitProducerId's KIP-360 re-initialization (a retry, and after a timeout's abort).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { Secret } from "../../src/client/secret.ts";
import { Transport } from "../../src/client/transport.ts";
import { decodeAssignment, encodeAssignment, encodeSubscription } from "../../src/protocol/consumer-protocol.ts";
import { gatewayHandlers } from "../../src/gateway/all-handlers.ts";
import type { GatewayRequestContext } from "../../src/gateway/handler-types.ts";
import { writeResponse } from "../../src/gateway/protocol/messages.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

type Handler = (request: unknown, context: GatewayRequestContext) => Promise<any>;
type Owned = { topic: string; partitions: number[] }[];

const adminToken = "gateway-groups-handlers-admin-token";

describe("gateway group handlers against wrangler dev", () => {
  let server: DevServer;
  let tributary: Tributary;
  let transport: Transport;

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    [tributary, transport] = credentials(adminToken);
    await tributary.admin().topics.create({ name: "classic", partitions: 6 });
    await tributary.admin().topics.create({ name: "other", partitions: 1 });
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
    // The handlers called here use neither the SASL state nor the Metadata session.
    const context = {
      tributary: as[0],
      transport: as[1],
      apiVersion,
      readOrder: 0,
      clientId: "handlers-test",
      clientHost: "/127.0.0.1",
      connectionId: 1,
      onClose: () => {},
      broker: { nodeId: 0, host: "127.0.0.1", port: 9092, clusterId: "handlers-test", autoCreateTopics: false },
    } satisfies Omit<GatewayRequestContext, "session" | "sasl">;
    const answer = await (gatewayHandlers[apiKey] as Handler)(request, context as unknown as GatewayRequestContext);
    // Every answer must encode at its version, as the connection loop writes it.
    expect(writeResponse({ apiKey, apiVersion, correlationId: 1 }, answer).length).toBeGreaterThan(0);
    return answer;
  }

  const subscription = (owned: Owned | null, userData: number[] = []) =>
    encodeSubscription({ topics: ["classic"], ownedPartitions: owned ?? [], userData: Uint8Array.from(userData) }, owned === null ? 0 : 1);
  const protocols = (name: string, owned: Owned | null, userData: number[] = []) => [{ name, metadata: subscription(owned, userData) }];
  const join = (groupId: string, memberId: string, name = "range", owned: Owned | null = null, version = 5, userData: number[] = []) =>
    call(11, version, { groupId, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 20_000, memberId, groupInstanceId: null, protocolType: "consumer", protocols: protocols(name, owned, userData) });
  const syncRaw = (groupId: string, memberId: string, generationId: number, assignments: { memberId: string; assignment: Uint8Array }[] = [], protocolName = "range") =>
    call(14, 5, { groupId, generationId, memberId, groupInstanceId: null, protocolType: "consumer", protocolName, assignments });
  const sync = async (groupId: string, memberId: string, generationId: number, protocolName = "range") => {
    const answer = await syncRaw(groupId, memberId, generationId, [], protocolName);
    expect(answer.errorCode).toBe(0);
    return decodeAssignment(answer.assignment).assignment.flatMap(({ partitions }) => partitions);
  };
  const beat = async (groupId: string, memberId: string, generationId: number) =>
    (await call(12, 4, { groupId, generationId, memberId, groupInstanceId: null })).errorCode as number;
  const commit = async (groupId: string, memberId: string, generation: number, partitions: number[], offset: bigint, metadata: string | null = null) => {
    const answer = await call(8, 8, {
      groupId, generationIdOrMemberEpoch: generation, memberId, groupInstanceId: null,
      topics: [{ name: "classic", partitions: partitions.map((partitionIndex) => ({ partitionIndex, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: metadata })) }],
    });
    return answer.topics[0].partitions.map((entry: { errorCode: number }) => entry.errorCode) as number[];
  };
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

  it("classic members alone: a leader gets every member's metadata byte for byte, each member exactly the leader's bytes", async () => {
    const group = "classic-leader";
    const required = await join(group, "");
    expect(required).toMatchObject({ errorCode: 79, generationId: -1 });
    const a = required.memberId as string;
    // Held through Kafka's initial rebalance delay, then a leads a group of one.
    const joinedA = await join(group, a, "range", null, 5, [1]);
    expect(joinedA).toMatchObject({ errorCode: 0, protocolType: "consumer", protocolName: "range", memberId: a, leader: a });
    expect(joinedA.members.map(({ memberId, metadata }: { memberId: string; metadata: Uint8Array }) => [memberId, hex(metadata)])).toEqual([[a, hex(subscription(null, [1]))]]);
    const alone = encodeAssignment([{ topic: "classic", partitions: [0, 1, 2, 3, 4, 5] }], 0, Uint8Array.from([42]));
    expect(hex((await syncRaw(group, a, joinedA.generationId, [{ memberId: a, assignment: alone }])).assignment)).toBe(hex(alone));
    expect(await beat(group, a, joinedA.generationId)).toBe(0);

    // JoinGroup v3 has no MEMBER_ID_REQUIRED: the newcomer is held until a rejoins.
    const joiningB = join(group, "", "range", null, 3, [2, 2]);
    let told = 0;
    for (let attempt = 0; attempt < 100 && told !== 27; attempt++) told = await beat(group, a, joinedA.generationId);
    expect(told).toBe(27);
    // An eager member commits what it processed before it rejoins: its generation still counts.
    expect(await commit(group, a, joinedA.generationId, [0, 1, 2, 3, 4, 5], 10n, "before the rebalance")).toEqual([0, 0, 0, 0, 0, 0]);
    const leader = await join(group, a, "range", null, 5, [1, 1]);
    const joinedB = await joiningB;
    const b = joinedB.memberId as string;
    expect(leader).toMatchObject({ errorCode: 0, leader: a, generationId: joinedA.generationId + 1 });
    expect(leader.members.map(({ memberId, metadata }: { memberId: string; metadata: Uint8Array }) => [memberId, hex(metadata)])).toEqual([
      [a, hex(subscription(null, [1, 1]))],
      [b, hex(subscription(null, [2, 2]))],
    ]);
    expect(joinedB).toMatchObject({ errorCode: 0, leader: a, members: [], generationId: leader.generationId });

    const syncingB = syncRaw(group, b, joinedB.generationId);
    const forA = encodeAssignment([{ topic: "classic", partitions: [0, 1, 2] }], 0, Uint8Array.from([7]));
    const forB = encodeAssignment([{ topic: "classic", partitions: [3, 4, 5] }], 0, Uint8Array.from([8, 8]));
    expect(hex((await syncRaw(group, a, leader.generationId, [{ memberId: a, assignment: forA }, { memberId: b, assignment: forB }])).assignment)).toBe(hex(forA));
    expect(hex((await syncingB).assignment)).toBe(hex(forB));
    expect(await commit(group, a, joinedA.generationId, [0], 11n)).toEqual([22]);
    expect(await commit(group, b, leader.generationId, [3], 12n, "x".repeat(4097))).toEqual([12]);
    expect(await commit(group, b, leader.generationId, [4], 13n, "b's note")).toEqual([0]);
    expect(await beat(group, a, leader.generationId)).toBe(0);
    expect(await beat(group, b, leader.generationId)).toBe(0);

    const fetched = await call(9, 5, { groupId: group, topics: [{ name: "classic", partitionIndexes: [0, 3, 4] }], requireStable: false });
    expect(fetched.topics[0].partitions.map(({ committedOffset, metadata }: { committedOffset: bigint; metadata: string }) => [committedOffset, metadata])).toEqual([
      [10n, "before the rebalance"],
      [10n, "before the rebalance"],
      [13n, "b's note"],
    ]);
    const described = await call(15, 5, { groups: [group, "nobody"], includeAuthorizedOperations: false });
    expect(described.groups[0]).toMatchObject({ errorCode: 0, groupState: "Stable", protocolType: "consumer", protocolData: "range" });
    expect(described.groups[0].members.map((member: { clientId: string }) => member.clientId)).toEqual(["handlers-test", "handlers-test"]);
    expect(described.groups[1]).toMatchObject({ errorCode: 0, groupState: "Dead", members: [] });
    // v6 (KIP-1043): as Kafka 4.4 answers it, an unknown group is GROUP_ID_NOT_FOUND with a message.
    const describedV6 = await call(15, 6, { groups: [group, "nobody"], includeAuthorizedOperations: false });
    expect(describedV6.groups[0]).toMatchObject({ errorCode: 0, groupState: "Stable" });
    expect(describedV6.groups[1]).toMatchObject({ errorCode: 69, errorMessage: "Group nobody not found.", groupState: "Dead", members: [] });
    expect((await call(42, 2, { groupsNames: [group] })).results).toEqual([{ groupId: group, errorCode: 68, errorMessage: expect.any(String) }]);
    const left = await call(13, 5, { groupId: group, members: [{ memberId: a, groupInstanceId: null, reason: null }, { memberId: "nobody", groupInstanceId: null, reason: null }] });
    expect(left).toMatchObject({ errorCode: 0, members: [{ memberId: a, errorCode: 0 }, { memberId: "nobody", errorCode: 25 }] });
    // a left: b is told to rejoin, and then leads alone.
    expect(await beat(group, b, leader.generationId)).toBe(27);
    expect(await call(13, 1, { groupId: group, memberId: b })).toMatchObject({ errorCode: 0 });
    const listed = await call(16, 4, { statesFilter: ["empty"] });
    expect(listed.groups).toContainEqual({ groupId: group, protocolType: "consumer", groupState: "Empty", groupType: "consumer" });
    // v3's message per group (the codec leaves it out before v3): none when deleted, Kafka's "Group g not found." for a group that is not there.
    expect((await call(42, 3, { groupsNames: [group, "nobody"] })).results).toEqual([
      { groupId: group, errorCode: 0, errorMessage: null },
      { groupId: "nobody", errorCode: 69, errorMessage: "Group nobody not found." },
    ]);
  }, 60_000);

  /** A group with an HTTP member (of another topic): the server assigns, classic members are bridged. */
  async function serverAssigned(group: string): Promise<void> {
    await transport.json({ method: "POST", path: `/v1/groups/${group}/members`, json: { topics: ["other"], sessionTimeoutMs: 1_800_000 } });
  }

  it("with an HTTP member the server assigns: eager members give up all, a newcomer waits while the holder is told to rebalance", async () => {
    const group = "bridged-eager";
    await serverAssigned(group);
    const a = (await join(group, "")).memberId as string;
    const joinedA = await join(group, a);
    expect(joinedA).toMatchObject({ errorCode: 0, protocolType: "consumer", protocolName: "range", memberId: a, leader: "", members: [] });
    expect(await sync(group, a, joinedA.generationId)).toEqual([0, 1, 2, 3, 4, 5]);
    const joinedB = await join(group, "", "range", null, 3);
    const b = joinedB.memberId as string;
    expect(await sync(group, b, joinedB.generationId)).toEqual([]);
    expect(await beat(group, a, joinedA.generationId)).toBe(27);
    expect(await commit(group, a, joinedA.generationId, [0, 1, 2, 3, 4, 5], 10n)).toEqual([0, 0, 0, 0, 0, 0]);
    const rejoinedA = await join(group, a);
    const keptByA = await sync(group, a, rejoinedA.generationId);
    expect(keptByA).toHaveLength(3);
    expect(await commit(group, a, joinedA.generationId, [keptByA[0]!], 11n)).toEqual([22]);
    expect(await beat(group, b, joinedB.generationId)).toBe(27);
    const rejoinedB = await join(group, b);
    const gotByB = await sync(group, b, rejoinedB.generationId);
    expect([...keptByA, ...gotByB].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const described = await call(15, 5, { groups: [group], includeAuthorizedOperations: false });
    expect(described.groups[0]).toMatchObject({ errorCode: 0, protocolType: "consumer", protocolData: "range" });
  });

  it("with an HTTP member the server assigns: cooperative members keep what stays theirs and commit what they give up", async () => {
    const group = "bridged-cooperative";
    await serverAssigned(group);
    const first = await join(group, "", "cooperative-sticky", [], 2);
    const c1 = first.memberId as string;
    expect(await sync(group, c1, first.generationId, "cooperative-sticky")).toEqual([0, 1, 2, 3, 4, 5]);
    const second = await join(group, "", "cooperative-sticky", [], 2);
    const c2 = second.memberId as string;
    expect(await sync(group, c2, second.generationId, "cooperative-sticky")).toEqual([]);
    expect(await beat(group, c1, first.generationId)).toBe(27);
    const rejoined = await join(group, c1, "cooperative-sticky", [{ topic: "classic", partitions: [0, 1, 2, 3, 4, 5] }]);
    const kept = await sync(group, c1, rejoined.generationId, "cooperative-sticky");
    expect(kept).toHaveLength(3);
    const givenUp = [0, 1, 2, 3, 4, 5].filter((partition) => !kept.includes(partition));
    // librdkafka commits on revoke, at the generation of the SyncGroup that revoked.
    expect(await commit(group, c1, rejoined.generationId, givenUp, 7n)).toEqual([0, 0, 0]);
    expect(await beat(group, c1, rejoined.generationId)).toBe(27);
    const settled = await join(group, c1, "cooperative-sticky", [{ topic: "classic", partitions: kept }]);
    expect(await sync(group, c1, settled.generationId, "cooperative-sticky")).toEqual(kept);
    expect(await beat(group, c2, second.generationId)).toBe(27);
    const rejoined2 = await join(group, c2, "cooperative-sticky", []);
    expect(await sync(group, c2, rejoined2.generationId, "cooperative-sticky")).toEqual(givenUp);
  });

  it("refuses what it cannot take with Kafka's codes", async () => {
    const base = { groupId: "refused", sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 20_000, memberId: "", groupInstanceId: null };
    expect((await call(11, 5, { ...base, protocolType: "", protocols: protocols("range", null) })).errorCode).toBe(23);
    expect((await call(11, 5, { ...base, sessionTimeoutMs: 1_000, protocolType: "consumer", protocols: protocols("range", null) })).errorCode).toBe(26);
    expect((await join("refused", "no-such-member")).errorCode).toBe(25);
    expect(await beat("refused", "", 1)).toBe(25);
    expect(await beat("", "no-such-member", 1)).toBe(24);
    expect((await call(13, 3, { groupId: "refused", members: [{ memberId: "", groupInstanceId: "static-1" }] })).members).toEqual([
      { memberId: "", groupInstanceId: "static-1", errorCode: 25 },
    ]);
    // On the server's path: Kafka Connect, an assignor with user data, only topics Tributary lacks.
    await serverAssigned("refused");
    expect((await call(11, 3, { ...base, protocolType: "connect", protocols: protocols("range", null) })).errorCode).toBe(23);
    expect((await call(11, 3, { ...base, protocolType: "consumer", protocols: protocols("stream", null, [0, 1]) })).errorCode).toBe(23);
    const missing = [{ name: "range", metadata: encodeSubscription({ topics: ["no-such-topic"] }) }];
    expect((await call(11, 3, { ...base, protocolType: "consumer", protocols: missing })).errorCode).toBe(3);
    const some = [{ name: "range", metadata: encodeSubscription({ topics: ["no-such-topic", "classic"] }) }];
    const joined = await call(11, 3, { ...base, protocolType: "consumer", protocols: some });
    expect(joined.errorCode).toBe(0);
    expect(await sync("refused", joined.memberId, joined.generationId)).toEqual([0, 1, 2, 3, 4, 5]);
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
  it("AddPartitionsToTxn answers per partition: refused topics and missing partitions, the others OPERATION_NOT_ATTEMPTED", async () => {
    const id = "handlers-txn-codes";
    const writer = (resource: "topic" | "transactionalId", name: string) => ({ resource, name, patternType: "literal" as const, operations: ["write" as const] });
    const scoped = credentials((await tributary.admin().tokens.create({ rules: [writer("transactionalId", id), writer("topic", "classic")] })).token.reveal());
    const { producerId, producerEpoch } = await transport.json<{ producerId: number; producerEpoch: number }>({ method: "POST", path: `/v1/transactions/${id}/init`, json: {} });
    const add = (topics: { name: string; partitions: number[] }[], as = scoped) =>
      call(24, 3, { v3AndBelowTransactionalId: id, v3AndBelowProducerId: BigInt(producerId), v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: topics }, as);
    const codes = (answer: any) => answer.resultsByTopicV3AndBelow.map(({ name, resultsByPartition }: any) => [name, resultsByPartition.map(({ partitionErrorCode }: any) => partitionErrorCode)]);
    const mixed = [{ name: "classic", partitions: [0, 99] }, { name: "other", partitions: [0] }, { name: "no-such-topic", partitions: [0] }];
    expect(codes(await add(mixed))).toEqual([["classic", [55, 3]], ["other", [29]], ["no-such-topic", [29]]]);
    expect(codes(await add(mixed, [tributary, transport]))).toEqual([["classic", [55, 3]], ["other", [55]], ["no-such-topic", [3]]]);
    // Nothing was added; the coordinator's one answer is every partition's.
    expect((await tributary.admin().transactions.describe(id)).state).toBe("Empty");
    expect(codes(await add([{ name: "classic", partitions: [0, 1] }]))).toEqual([["classic", [0, 0]]]);
    const stale = await call(24, 3, { v3AndBelowTransactionalId: id, v3AndBelowProducerId: BigInt(producerId), v3AndBelowProducerEpoch: producerEpoch + 1, v3AndBelowTopics: [{ name: "classic", partitions: [2, 3] }] });
    expect(codes(stale)).toEqual([["classic", [47, 47]]]);
  });

  it("DescribeProducers answers a partition's producers with its open transaction's first offset; a refused topic and a missing partition by their codes", async () => {
    const producer = tributary.producer({ transactionalId: "handlers-producers", lingerMs: 0 });
    const transaction = await producer.transaction();
    const [written] = await transaction.send({ topic: "other", messages: [{ value: "open", partition: 0 }] });
    const answer = await call(61, 0, { topics: [{ name: "other", partitionIndexes: [0, 5] }] });
    const [open, missing] = answer.topics[0].partitions;
    expect(open).toMatchObject({ partitionIndex: 0, errorCode: 0, errorMessage: null });
    expect(open.activeProducers).toEqual([expect.objectContaining({ lastSequence: 0, coordinatorEpoch: -1, currentTxnStartOffset: BigInt(written!.offset) })]);
    expect(missing).toMatchObject({ partitionIndex: 5, errorCode: 3, activeProducers: [] });
    const rule = { resource: "topic" as const, name: "classic", patternType: "literal" as const, operations: ["read" as const] };
    const scoped = credentials((await tributary.admin().tokens.create({ rules: [rule] })).token.reveal());
    expect((await call(61, 0, { topics: [{ name: "other", partitionIndexes: [0] }] }, scoped)).topics[0].partitions[0].errorCode).toBe(29);
    await transaction.abort();
    const ended = (await call(61, 0, { topics: [{ name: "other", partitionIndexes: [0] }] })).topics[0].partitions[0];
    expect(ended.activeProducers).toEqual([expect.objectContaining({ currentTxnStartOffset: -1n })]);
    await producer.close();
  });
  it("InitProducerId naming the identity held (KIP-360): a retry answers the same epoch; after a timeout's abort the producer gets the bumped epoch, not PRODUCER_FENCED", async () => {
    const id = "handlers-kip360";
    const init = (held: { producerId: bigint; producerEpoch: number } | null, transactionTimeoutMs = 1_000) =>
      call(22, 5, { transactionalId: id, transactionTimeoutMs, producerId: held?.producerId ?? -1n, producerEpoch: held?.producerEpoch ?? -1 });
    const first = await init(null);
    expect(first.errorCode).toBe(0);
    const bumped = await init(first);
    expect([bumped.errorCode, bumped.producerEpoch]).toEqual([0, first.producerEpoch + 1]);
    const retried = await init(first); // the bump's answer was lost: the same again
    expect([retried.errorCode, retried.producerId, retried.producerEpoch]).toEqual([0, bumped.producerId, bumped.producerEpoch]);
    const added = await call(24, 3, { v3AndBelowTransactionalId: id, v3AndBelowProducerId: bumped.producerId, v3AndBelowProducerEpoch: bumped.producerEpoch, v3AndBelowTopics: [{ name: "other", partitions: [0] }] });
    expect(added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).toBe(0);
    await expect.poll(async () => (await tributary.admin().transactions.describe(id)).state, { timeout: 10_000, interval: 200 }).toBe("CompleteAbort");
    const reinit = await init(bumped);
    expect([reinit.errorCode, reinit.producerEpoch]).toEqual([0, bumped.producerEpoch + 1]);
    expect((await init(first)).errorCode).toBe(90); // PRODUCER_FENCED
    expect((await call(22, 3, { transactionalId: id, transactionTimeoutMs: 1_000, producerId: first.producerId, producerEpoch: first.producerEpoch })).errorCode).toBe(47); // before v4
  });
});
