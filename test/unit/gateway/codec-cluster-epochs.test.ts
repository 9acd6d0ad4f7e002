/**
 * Golden bytes for DescribeCluster (60) and OffsetForLeaderEpoch (23), written out by hand from
 * Kafka's message definitions (clients/src/main/resources/common/message/*.json): kafkajs speaks
 * neither; and DeleteRecords v2 (21, the Java client's), the flexible version kafkajs lacks. And the cluster's authorized operations DescribeCluster answers per token.
 */
import { describe, expect, it } from "vitest";
import { authorizedOperations } from "../../../src/gateway/handlers/describe-cluster.ts";
import { apiKeys, messageSchemas } from "../../../src/gateway/protocol/apis.ts";
import { hex, readRequest, writeResponse } from "./support/golden-codec.ts";

const int32 = (value: number) => Buffer.from(Uint32Array.of(value >>> 0).buffer).reverse().toString("hex");

describe("DescribeCluster", () => {
  it("reads v0 (flexible from 0) and v1 (the endpoint type) requests", () => {
    expect(readRequest(apiKeys.DescribeCluster, 0, hex("01 00"))).toEqual({ includeClusterAuthorizedOperations: true });
    expect(readRequest(apiKeys.DescribeCluster, 1, hex("00 02 00"))).toEqual({ includeClusterAuthorizedOperations: false, endpointType: 2 });
  });

  it("writes a v1 answer: one broker, a null rack and error message, the operations field", () => {
    const body = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      endpointType: 1,
      clusterId: "c1",
      controllerId: 0,
      brokers: [{ brokerId: 0, host: "h", port: 9092, rack: null }],
      clusterAuthorizedOperations: 8096,
    };
    const expected = ["00000000", "0000", "00", "01", "03 6331", "00000000", "02", "00000000", "02 68", int32(9092), "00", "00", int32(8096), "00"].join("");
    expect(writeResponse(apiKeys.DescribeCluster, 1, body)).toBe(expected.replace(/\s+/g, ""));
    // v0 has no endpoint type.
    expect(writeResponse(apiKeys.DescribeCluster, 0, body)).toBe(expected.replace(/\s+/g, "").replace("000001036331", "0000036331"));
  });

  it("answers every cluster operation Kafka has to an unrestricted token, and a scoped token's cluster rules only", () => {
    // CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12.
    const all = [5, 7, 8, 9, 10, 11, 12].reduce((bits, code) => bits | (1 << code), 0);
    expect(authorizedOperations({ kind: "open" })).toBe(all);
    expect(authorizedOperations({ kind: "admin" })).toBe(all);
    expect(authorizedOperations({ kind: "scoped", rules: [{ resource: "topic", name: "*", patternType: "literal", operations: ["alter", "create"] }] })).toBe(0);
    const creator = authorizedOperations({ kind: "scoped", rules: [{ resource: "cluster", name: "tributary", patternType: "literal", operations: ["create"] }] });
    expect(creator).toBe(1 << 5);
    const describer = authorizedOperations({ kind: "scoped", rules: [{ resource: "cluster", name: "*", patternType: "literal", operations: ["describe"] }] });
    expect(describer).toBe((1 << 8) | (1 << 10));
  });
});

describe("OffsetForLeaderEpoch", () => {
  it("reads v2 (no replica id), v3 and v4 (flexible) requests", () => {
    const partition = `${int32(2)}${int32(0)}${int32(5)}`;
    const asked = { topics: [{ topic: "t", partitions: [{ partition: 2, currentLeaderEpoch: 0, leaderEpoch: 5 }] }] };
    expect(readRequest(apiKeys.OffsetForLeaderEpoch, 2, hex(`00000001 0001 74 00000001 ${partition}`))).toEqual(asked);
    expect(readRequest(apiKeys.OffsetForLeaderEpoch, 3, hex(`ffffffff 00000001 0001 74 00000001 ${partition}`))).toEqual({ replicaId: -1, ...asked });
    expect(readRequest(apiKeys.OffsetForLeaderEpoch, 4, hex(`ffffffff 02 02 74 02 ${partition} 00 00 00`))).toEqual({ replicaId: -1, ...asked });
  });

  it("writes v3 and v4 answers with the epoch and its end offset", () => {
    const body = { throttleTimeMs: 0, topics: [{ topic: "t", partitions: [{ errorCode: 0, partition: 2, leaderEpoch: 5, endOffset: 42n }] }] };
    const partition = `0000 ${int32(2)} ${int32(5)} 000000000000002a`;
    expect(writeResponse(apiKeys.OffsetForLeaderEpoch, 3, body)).toBe(`00000000 00000001 0001 74 00000001 ${partition}`.replace(/\s+/g, ""));
    expect(writeResponse(apiKeys.OffsetForLeaderEpoch, 4, body)).toBe(`00000000 02 02 74 02 ${partition} 00 00 00`.replace(/\s+/g, ""));
  });

  it("advertises only Kafka 4's versions (2–4)", () => {
    expect(messageSchemas.get(apiKeys.OffsetForLeaderEpoch)!.versions).toEqual([2, 4]);
  });
});

describe("DeleteRecords v2 (flexible)", () => {
  it("reads a request: compact arrays and strings, tagged fields after each struct", () => {
    // topics [1], "orders", partitions [1], partition 3, offset 42, tags; tags; timeout 30000; tags.
    const bytes = hex(`02 07 6f7264657273 02 00000003 000000000000002a 00 00 ${int32(30_000)} 00`);
    expect(readRequest(apiKeys.DeleteRecords, 2, bytes)).toEqual({ topics: [{ name: "orders", partitions: [{ partitionIndex: 3, offset: 42n }] }], timeoutMs: 30_000 });
  });

  it("writes an answer: the low watermark and error code per partition", () => {
    const body = { throttleTimeMs: 0, topics: [{ name: "orders", partitions: [{ partitionIndex: 3, lowWatermark: 42n, errorCode: 0 }] }] };
    expect(writeResponse(apiKeys.DeleteRecords, 2, body)).toBe("00000000 02 07 6f7264657273 02 00000003 000000000000002a 0000 00 00 00".replace(/\s+/g, ""));
  });
});
