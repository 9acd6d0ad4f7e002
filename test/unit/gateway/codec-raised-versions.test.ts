/**
 * Golden bytes of the versions raised to Kafka 4.4's newest on 2026-12-05: DeleteGroups v3,
 * DescribeLogDirs v5, FindCoordinator v6, TxnOffsetCommit v6, ListTransactions v2,
 * ListOffsets v9–11 and ApiVersions v5 — the bytes Kafka 4.4's own
 * message classes write (`MessageUtil.toByteBufferAccessor` in kafka-clients 4.4.0), and the
 * handlers' answers at those versions.
 */
import { describe, expect, it } from "vitest";
import { apiVersionsRefusal } from "../../../src/gateway/handlers/api-versions.ts";
import { findCoordinator } from "../../../src/gateway/handlers/find-coordinator.ts";
import { listOffsets } from "../../../src/gateway/handlers/list-offsets.ts";
import { apiKeys } from "../../../src/gateway/protocol/apis.ts";
import type { GatewayRequestContext } from "../../../src/gateway/handler-types.ts";
import { hex, readRequest, writeResponse } from "./support/golden-codec.ts";

const topicId = hex("0102030405060708090a0b0c0d0e0f10");

describe("ApiVersions v5", () => {
  it("reads the cluster and node the client expects (null and −1 when it names none), and writes a refusal as Kafka's: the error alone", () => {
    const named = "126170616368652d6b61666b612d6a61766106342e342e300a636c75737465722d310000000000";
    expect(readRequest(apiKeys.ApiVersions, 5, hex(named))).toEqual({ clientSoftwareName: "apache-kafka-java", clientSoftwareVersion: "4.4.0", clusterId: "cluster-1", nodeId: 0 });
    const none = "126170616368652d6b61666b612d6a61766106342e342e3000ffffffff00";
    expect(readRequest(apiKeys.ApiVersions, 5, hex(none))).toEqual({ clientSoftwareName: "apache-kafka-java", clientSoftwareVersion: "4.4.0", clusterId: null, nodeId: -1 });
    expect(writeResponse(apiKeys.ApiVersions, 5, apiVersionsRefusal(129))).toBe("0081010000000000");
  });
});

describe("DeleteGroups v3", () => {
  it("writes each group's error message after its error code (v2 has none)", () => {
    const body = { throttleTimeMs: 0, results: [{ groupId: "g", errorCode: 69, errorMessage: "Group g not found." }, { groupId: "h", errorCode: 0, errorMessage: null }] };
    expect(writeResponse(apiKeys.DeleteGroups, 2, body)).toBe("00000000030267004500026800000000");
    expect(writeResponse(apiKeys.DeleteGroups, 3, body)).toBe("0000000003026700451347726f75702067206e6f7420666f756e642e0002680000000000");
  });
});

describe("DescribeLogDirs v5", () => {
  it("writes whether the log dir is cordoned (false) after its usable bytes", () => {
    const body = {
      throttleTimeMs: 0,
      errorCode: 0,
      results: [{ errorCode: 0, logDir: "tributary", topics: [{ name: "t", partitions: [{ partitionIndex: 0, partitionSize: 10n, offsetLag: 0n, isFutureKey: false }] }], totalBytes: -1n, usableBytes: -1n, isCordoned: false }],
    };
    const v4 = "0000000000000200000a7472696275746172790202740200000000000000000000000a0000000000000000000000ffffffffffffffffffffffffffffffff0000";
    expect(writeResponse(apiKeys.DescribeLogDirs, 4, body)).toBe(v4);
    expect(writeResponse(apiKeys.DescribeLogDirs, 5, body)).toBe(`${v4.slice(0, -4)}000000`);
  });
});

describe("FindCoordinator v6", () => {
  it("reads key type 2 (a share partition's key) and writes v5's answer", () => {
    expect(readRequest(apiKeys.FindCoordinator, 6, hex("02021b673a41514944424155474277674a4367734d4451345045413a3000"))).toEqual({ keyType: 2, coordinatorKeys: ["g:AQIDBAUGBwgJCgsMDQ4PEA:0"] });
    const body = { throttleTimeMs: 0, coordinators: [{ key: "k", nodeId: 0, host: "h", port: 9092, errorCode: 0, errorMessage: null }] };
    expect(writeResponse(apiKeys.FindCoordinator, 6, body)).toBe("0000000002026b000000000268000023840000000000");
  });

  it("answers the gateway for key types 0–2 at v6, and INVALID_REQUEST for key type 2 before v6 or an unknown one", async () => {
    const context = (apiVersion: number) => ({ apiVersion, broker: { nodeId: 0, host: "h", port: 9092 } }) as unknown as GatewayRequestContext;
    const ask = async (keyType: number, apiVersion: number) => ((await findCoordinator({ keyType, coordinatorKeys: ["k"] }, context(apiVersion))).coordinators as { nodeId: number; errorCode: number }[])[0];
    expect(await ask(2, 6)).toMatchObject({ nodeId: 0, errorCode: 0 });
    expect(await ask(1, 5)).toMatchObject({ nodeId: 0, errorCode: 0 });
    expect(await ask(2, 5)).toMatchObject({ nodeId: -1, errorCode: 42 });
    expect(await ask(3, 6)).toMatchObject({ nodeId: -1, errorCode: 42 });
  });
});

describe("TxnOffsetCommit v6", () => {
  it("reads and answers each topic by its id where v5 had its name", () => {
    const request = "0278026700000000000000050001ffffffff0100020102030405060708090a0b0c0d0e0f1002000000000000000000000007ffffffff01000000";
    expect(readRequest(apiKeys.TxnOffsetCommit, 6, hex(request))).toEqual({
      transactionalId: "x",
      groupId: "g",
      producerId: 5n,
      producerEpoch: 1,
      generationIdOrMemberEpoch: -1,
      memberId: "",
      groupInstanceId: null,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: "" }] }],
    });
    const body = { throttleTimeMs: 0, topics: [{ name: "", topicId, partitions: [{ partitionIndex: 0, errorCode: 0 }] }] };
    expect(writeResponse(apiKeys.TxnOffsetCommit, 6, body)).toBe("00000000020102030405060708090a0b0c0d0e0f1002000000000000000000");
  });
});

describe("ListTransactions v2", () => {
  it("reads the transactional id pattern after the duration filter (null: every id)", () => {
    expect(readRequest(apiKeys.ListTransactions, 2, hex("02084f6e676f696e6701ffffffffffffffff04612e2a00"))).toEqual({ stateFilters: ["Ongoing"], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: "a.*" });
    expect(readRequest(apiKeys.ListTransactions, 2, hex("0101ffffffffffffffff0000"))).toEqual({ stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: null });
  });
});

describe("ListOffsets v9–11", () => {
  it("reads v10's timeout after the topics (v9 and v11's bytes as v8's and v10's)", () => {
    const partition = { partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -6n };
    const v9 = readRequest(apiKeys.ListOffsets, 9, hex("ffffffff000202740200000000fffffffffffffffffffffffa000000"));
    expect(v9).toEqual({ replicaId: -1, isolationLevel: 0, topics: [{ name: "t", partitions: [partition] }] });
    for (const version of [10, 11]) {
      expect(readRequest(apiKeys.ListOffsets, version, hex("ffffffff000202740200000000fffffffffffffffffffffffa00000000753000"))).toEqual({ ...(v9 as object), timeoutMs: 30_000 });
    }
  });
});

describe("ListOffsets' special timestamps by version", () => {
  it("answers UNSUPPORTED_VERSION for one the request's version does not have (−3 before v7, −4 before v8, −5 before v9, −6 before v11), as Kafka's broker", async () => {
    const codeAt = async (timestamp: bigint, apiVersion: number) => {
      const answer = await listOffsets({ topics: [{ name: "t", partitions: [{ partitionIndex: 0, timestamp }] }] }, { apiVersion } as unknown as GatewayRequestContext);
      return ((answer.topics as { partitions: { errorCode: number }[] }[])[0]!.partitions[0]!).errorCode;
    };
    expect(await codeAt(-3n, 6)).toBe(35);
    expect(await codeAt(-4n, 7)).toBe(35);
    expect(await codeAt(-5n, 8)).toBe(35);
    expect(await codeAt(-6n, 10)).toBe(35);
    expect(await codeAt(-7n, 11)).toBe(42); // no such timestamp: INVALID_REQUEST
  });
});
