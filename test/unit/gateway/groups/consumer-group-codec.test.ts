/**
 * ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69) on the wire: golden bytes written
 * by hand from Kafka 4.4's JSON message definitions (field order, compact strings and arrays as
 * length + 1, a nullable struct's marker byte, empty tagged-field sections), decoded and
 * encoded by the gateway's codec.
 */
import { describe, expect, it } from "vitest";
import { messageCodec } from "../../../../src/gateway/protocol/codec.ts";
import { consumerGroupDescribe, consumerGroupHeartbeat } from "../../../../src/gateway/protocol/messages-consumer-groups.ts";
import { ByteReader, ByteWriter } from "../../../../src/gateway/protocol/primitives.ts";

const topicId = Uint8Array.from({ length: 16 }, (_, i) => i + 1);
const text = (value: string) => [value.length + 1, ...Buffer.from(value)];
const int32 = (value: number) => [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];

function encoded(write: (writer: ByteWriter) => void): number[] {
  const writer = new ByteWriter();
  write(writer);
  return [...writer.finish()];
}

describe("ConsumerGroupHeartbeat", () => {
  // v1: group "g", member "m", epoch 3, no instance or rack, rebalance timeout 300000 (0x000493e0),
  // topics ["t"], regex null, assignor "range", owned partitions [{id, [0, 2]}], no tags.
  const requestV1 = [
    ...text("g"), ...text("m"), ...int32(3), 0, 0, ...int32(300_000),
    2, ...text("t"), 0, ...text("range"),
    2, ...topicId, 3, ...int32(0), ...int32(2), 0,
    0,
  ];

  it("reads a v1 request field by field", () => {
    const read = messageCodec(consumerGroupHeartbeat, 1).readRequest(new ByteReader(Uint8Array.from(requestV1)));
    expect(read).toEqual({
      ok: true,
      value: {
        groupId: "g", memberId: "m", memberEpoch: 3, instanceId: null, rackId: null, rebalanceTimeoutMs: 300_000,
        subscribedTopicNames: ["t"], subscribedTopicRegex: null, serverAssignor: "range",
        topicPartitions: [{ topicId, partitions: [0, 2] }],
      },
    });
  });

  it("v0 has no regex; a v1 regex is read", () => {
    const v0 = [...text("g"), ...text(""), ...int32(0), 0, 0, ...int32(-1 >>> 0), 0, 0, 0, 0];
    const read0 = messageCodec(consumerGroupHeartbeat, 0).readRequest(new ByteReader(Uint8Array.from(v0)));
    expect(read0).toMatchObject({ ok: true, value: { memberId: "", rebalanceTimeoutMs: -1, subscribedTopicNames: null, serverAssignor: null, topicPartitions: null } });
    expect((read0 as { value: object }).value).not.toHaveProperty("subscribedTopicRegex");
    const v1 = [...text("g"), ...text("m"), ...int32(0), 0, 0, ...int32(-1 >>> 0), 0, ...text("o.*"), 0, 0, 0];
    expect(messageCodec(consumerGroupHeartbeat, 1).readRequest(new ByteReader(Uint8Array.from(v1)))).toMatchObject({ ok: true, value: { subscribedTopicRegex: "o.*" } });
  });

  it("writes a response with an assignment (marker 1) and without one (marker -1)", () => {
    const codec = messageCodec(consumerGroupHeartbeat, 1);
    const base = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, memberId: "m", memberEpoch: 4, heartbeatIntervalMs: 5_000 };
    const head = [...int32(0), 0, 0, 0, ...text("m"), ...int32(4), ...int32(5_000)];
    expect(encoded((w) => codec.writeResponse(w, { ...base, assignment: { topicPartitions: [{ topicId, partitions: [1] }] } }))).toEqual([
      ...head, 1, 2, ...topicId, 2, ...int32(1), 0, 0, 0,
    ]);
    expect(encoded((w) => codec.writeResponse(w, { ...base, assignment: null }))).toEqual([...head, 0xff, 0]);
    // Fenced: error 110 with its message, no member id.
    expect(encoded((w) => codec.writeResponse(w, { ...base, errorCode: 110, errorMessage: "f", memberId: null, assignment: null }))).toEqual([
      ...int32(0), 0, 110, ...text("f"), 0, ...int32(4), ...int32(5_000), 0xff, 0,
    ]);
  });

  it("reads back what it writes, the nullable struct both ways", () => {
    const codec = messageCodec(consumerGroupHeartbeat, 1);
    for (const assignment of [null, { topicPartitions: [{ topicId, partitions: [0, 1] }] }]) {
      const response = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, memberId: "m", memberEpoch: 1, heartbeatIntervalMs: 5_000, assignment };
      const bytes = Uint8Array.from(encoded((w) => codec.writeResponse(w, response)));
      expect(codec.readResponse(new ByteReader(bytes))).toEqual({ ok: true, value: response });
    }
  });
});

describe("ConsumerGroupDescribe", () => {
  it("reads the request and writes one group with one member; v1 adds the member type", () => {
    const request = [2, ...text("g"), 1, 0];
    expect(messageCodec(consumerGroupDescribe, 1).readRequest(new ByteReader(Uint8Array.from(request)))).toEqual({ ok: true, value: { groupIds: ["g"], includeAuthorizedOperations: true } });
    const assignment = { topicPartitions: [{ topicId, topicName: "t", partitions: [0] }] };
    const member = {
      memberId: "m", instanceId: null, rackId: null, memberEpoch: 2, clientId: "c", clientHost: "/h",
      subscribedTopicNames: ["t"], subscribedTopicRegex: null, assignment, targetAssignment: assignment, memberType: 1,
    };
    const group = { errorCode: 0, errorMessage: null, groupId: "g", groupState: "Stable", groupEpoch: 2, assignmentEpoch: 2, assignorName: "uniform", members: [member], authorizedOperations: -2147483648 };
    const assigned = [2, ...topicId, ...text("t"), 2, ...int32(0), 0, 0];
    const memberBytes = [...text("m"), 0, 0, ...int32(2), ...text("c"), ...text("/h"), 2, ...text("t"), 0, ...assigned, ...assigned];
    const groupHead = [0, 0, 0, ...text("g"), ...text("Stable"), ...int32(2), ...int32(2), ...text("uniform"), 2];
    const tail = [...int32(-2147483648 >>> 0), 0, 0];
    expect(encoded((w) => messageCodec(consumerGroupDescribe, 0).writeResponse(w, { throttleTimeMs: 0, groups: [group] }))).toEqual([
      ...int32(0), 2, ...groupHead, ...memberBytes, 0, ...tail,
    ]);
    expect(encoded((w) => messageCodec(consumerGroupDescribe, 1).writeResponse(w, { throttleTimeMs: 0, groups: [group] }))).toEqual([
      ...int32(0), 2, ...groupHead, ...memberBytes, 1, 0, ...tail,
    ]);
  });
});
