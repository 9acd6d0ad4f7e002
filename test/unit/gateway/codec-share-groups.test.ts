/**
 * KIP-932's share-group messages (ShareGroupHeartbeat v1, ShareGroupDescribe v1, ShareFetch and
 * ShareAcknowledge v1–v2, and the offset admin calls 90–92) against franz-go's encoders: the bytes its kmsg writes for each
 * request decode with the gateway's layouts and encode back to the same bytes, and the gateway
 * writes each answer to exactly the bytes kmsg writes for it (support/kmsg-share-bytes.ts,
 * made by a small Go program over kmsg v1.15.1). ApiVersions advertises them at these versions:
 * franz-go uses its share consumer only when ShareFetch and ShareAcknowledge reach v2.
 */
import { describe, expect, it } from "vitest";
import { gatewayHandlers } from "../../../src/gateway/all-handlers.ts";
import { apiVersionsAnswer } from "../../../src/gateway/handlers/api-versions.ts";
import { messageCodec } from "../../../src/gateway/protocol/codec.ts";
import { apiKeys, messageSchemas } from "../../../src/gateway/protocol/apis.ts";
import { ByteReader, ByteWriter } from "../../../src/gateway/protocol/primitives.ts";
import { kmsgShareBytes } from "./support/kmsg-share-bytes.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const topicId = new Uint8Array(Array.from({ length: 16 }, (_, i) => i + 1));

function readsAndWritesBack(key: number, version: number, requestHex: string): Record<string, unknown> {
  const codec = messageCodec(messageSchemas.get(key)!, version);
  const decoded = codec.readRequest(new ByteReader(new Uint8Array(Buffer.from(requestHex, "hex"))));
  if (!decoded.ok) throw new Error(decoded.error);
  const writer = new ByteWriter();
  codec.writeRequest(writer, decoded.value);
  expect(hex(writer.finish())).toBe(requestHex);
  return decoded.value;
}

function written(key: number, version: number, body: Record<string, unknown>): string {
  const writer = new ByteWriter();
  messageCodec(messageSchemas.get(key)!, version).writeResponse(writer, body);
  return hex(writer.finish());
}

describe("share-group messages against franz-go's kmsg", () => {
  it("ApiVersions advertises ShareGroupHeartbeat 76 v1, ShareGroupDescribe 77 v1, ShareFetch 78 v1–2, ShareAcknowledge 79 v1–2", () => {
    const advertised = (apiVersionsAnswer(gatewayHandlers, 0, 4).apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[]).filter(({ apiKey }) => apiKey >= 76 && apiKey <= 79);
    expect(advertised).toEqual([
      { apiKey: 76, minVersion: 1, maxVersion: 1 },
      { apiKey: 77, minVersion: 1, maxVersion: 1 },
      { apiKey: 78, minVersion: 1, maxVersion: 2 },
      { apiKey: 79, minVersion: 1, maxVersion: 2 },
    ]);
  });

  it("ShareGroupHeartbeat v1: a join's request, and an answer with an assignment by topic id", () => {
    expect(readsAndWritesBack(apiKeys.ShareGroupHeartbeat, 1, kmsgShareBytes.hbreq)).toEqual({ groupId: "group-a", memberId: "member-1", memberEpoch: 0, rackId: null, subscribedTopicNames: ["orders", "payments"] });
    const answer = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, memberId: "member-1", memberEpoch: 3, heartbeatIntervalMs: 5000, assignment: { topicPartitions: [{ topicId, partitions: [0, 1, 2] }] } };
    expect(written(apiKeys.ShareGroupHeartbeat, 1, answer)).toBe(kmsgShareBytes.hbresp);
  });

  it("ShareGroupDescribe v1", () => {
    expect(readsAndWritesBack(apiKeys.ShareGroupDescribe, 1, kmsgShareBytes.descreq)).toEqual({ groupIds: ["group-a"], includeAuthorizedOperations: false });
    const member = { memberId: "member-1", rackId: null, memberEpoch: 2, clientId: "kgo", clientHost: "/127.0.0.1", subscribedTopicNames: ["orders"], assignment: { topicPartitions: [{ topicId, topicName: "orders", partitions: [0, 1] }] } };
    const group = { errorCode: 0, errorMessage: null, groupId: "group-a", groupState: "Stable", groupEpoch: 2, assignmentEpoch: 2, assignorName: "simple", members: [member], authorizedOperations: -2147483648 };
    expect(written(apiKeys.ShareGroupDescribe, 1, { throttleTimeMs: 0, groups: [group] })).toBe(kmsgShareBytes.descresp);
  });

  it.each([1, 2] as const)("ShareFetch v%i: piggybacked acknowledgements and forgotten partitions; acquired records with their delivery counts", (version) => {
    const request = readsAndWritesBack(apiKeys.ShareFetch, version, kmsgShareBytes[`fetchreq${version}`]);
    expect(request).toMatchObject({
      groupId: "group-a",
      memberId: "member-1",
      shareSessionEpoch: 2,
      maxWaitMs: 500,
      maxRecords: 500,
      topics: [{ topicId, partitions: [{ partitionIndex: 2, acknowledgementBatches: [{ firstOffset: 10n, lastOffset: 12n, acknowledgeTypes: [1, 0, 3] }] }] }],
      forgottenTopicsData: [{ topicId, partitions: [5] }],
    });
    if (version === 2) expect(request).toMatchObject({ shareAcquireMode: 1, isRenewAck: false });
    const partition = {
      partitionIndex: 2,
      errorCode: 0,
      errorMessage: null,
      acknowledgeErrorCode: 121,
      acknowledgeErrorMessage: null,
      currentLeader: { leaderId: -1, leaderEpoch: -1 },
      records: [new Uint8Array([0xde, 0xad])],
      acquiredRecords: [{ firstOffset: 13n, lastOffset: 14n, deliveryCount: 2 }],
    };
    const answer = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: 15000, responses: [{ topicId, partitions: [partition] }], nodeEndpoints: [] };
    expect(written(apiKeys.ShareFetch, version, answer)).toBe(kmsgShareBytes[`fetchresp${version}`]);
  });

  it("ShareFetch: a partition with no records has zero bytes of them, never null (Kafka 4.4's client refuses a null)", () => {
    const partition = (records: unknown) => ({ partitionIndex: 0, errorCode: 0, errorMessage: null, acknowledgeErrorCode: 0, acknowledgeErrorMessage: null, currentLeader: { leaderId: -1, leaderEpoch: -1 }, records, acquiredRecords: [] });
    const answer = (records: unknown) => ({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: 15000, responses: [{ topicId, partitions: [partition(records)] }], nodeEndpoints: [] });
    const empty = written(apiKeys.ShareFetch, 2, answer([]));
    expect(written(apiKeys.ShareFetch, 2, answer(null))).toBe(empty);
    // After the leader (-1, -1) and its tags: the records' compact length 0 + 1, not 0 (null).
    expect(empty).toContain("ffffffffffffffff0001");
  });

  it.each([1, 2] as const)("ShareAcknowledge v%i: a closing request's release of a range; the answer (v2 with the lock timeout)", (version) => {
    expect(readsAndWritesBack(apiKeys.ShareAcknowledge, version, kmsgShareBytes[`ackreq${version}`])).toMatchObject({
      groupId: "group-a",
      memberId: "member-1",
      shareSessionEpoch: -1,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 4n, acknowledgeTypes: [2] }] }] }],
    });
    const partition = { partitionIndex: 0, errorCode: 0, errorMessage: null, currentLeader: { leaderId: -1, leaderEpoch: -1 } };
    const answer = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: 15000, responses: [{ topicId, partitions: [partition] }], nodeEndpoints: [] };
    expect(written(apiKeys.ShareAcknowledge, version, answer)).toBe(kmsgShareBytes[`ackresp${version}`]);
  });

  it("DescribeShareGroupOffsets v1 (a group's named partitions, another's all), AlterShareGroupOffsets v0, DeleteShareGroupOffsets v0", () => {
    expect(readsAndWritesBack(apiKeys.DescribeShareGroupOffsets, 1, kmsgShareBytes.dsoreq)).toEqual({
      groups: [
        { groupId: "group-a", topics: [{ topicName: "orders", partitions: [0] }] },
        { groupId: "group-b", topics: null },
      ],
    });
    const described = { groupId: "group-a", topics: [{ topicName: "orders", topicId, partitions: [{ partitionIndex: 0, startOffset: 8n, leaderEpoch: -1, lag: 12n, errorCode: 0, errorMessage: null }] }], errorCode: 0, errorMessage: null };
    expect(written(apiKeys.DescribeShareGroupOffsets, 1, { throttleTimeMs: 0, groups: [described] })).toBe(kmsgShareBytes.dsoresp);
    expect(readsAndWritesBack(apiKeys.AlterShareGroupOffsets, 0, kmsgShareBytes.asoreq)).toEqual({ groupId: "group-a", topics: [{ topicName: "orders", partitions: [{ partitionIndex: 0, startOffset: 8n }] }] });
    const altered = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses: [{ topicName: "orders", topicId, partitions: [{ partitionIndex: 0, errorCode: 68, errorMessage: null }] }] };
    expect(written(apiKeys.AlterShareGroupOffsets, 0, altered)).toBe(kmsgShareBytes.asoresp);
    expect(readsAndWritesBack(apiKeys.DeleteShareGroupOffsets, 0, kmsgShareBytes.dlsoreq)).toEqual({ groupId: "group-a", topics: [{ topicName: "orders" }] });
    const deleted = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses: [{ topicName: "orders", topicId, errorCode: 0, errorMessage: null }] };
    expect(written(apiKeys.DeleteShareGroupOffsets, 0, deleted)).toBe(kmsgShareBytes.dlsoresp);
  });
});
