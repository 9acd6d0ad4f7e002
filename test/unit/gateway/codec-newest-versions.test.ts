/**
 * Golden bytes for the versions raised to what the Java client 4.4 negotiates with Kafka 4.4,
 * written out by hand from Kafka 4.4's message definitions
 * (clients/src/main/resources/common/message/*.json): Metadata v13 (KIP-1102's top-level error
 * code, after the topics) and DescribeCluster v2 (KIP-1073's IncludeFencedBrokers and each
 * broker's IsFenced). Those of KIP-890 part 2 (transaction version 2: ApiVersions v3's features,
 * Produce v12, EndTxn v5, TxnOffsetCommit v5), DescribeGroups v6, Fetch v16–18, Produce v13 and OffsetCommit and OffsetFetch v10 are the bytes Kafka 4.4's own message classes
 * write (`MessageUtil.toByteBufferAccessor` in kafka-clients 4.4.0).
 */
import { describe, expect, it } from "vitest";
import { apiKeys } from "../../../src/gateway/protocol/apis.ts";
import { hex, readRequest, writeResponse } from "./support/golden-codec.ts";

const spaced = (text: string) => text.replace(/\s+/g, "");

describe("Metadata v13", () => {
  it("reads the request as v12's (all topics: a null array; auto-create; no authorized operations)", () => {
    expect(readRequest(apiKeys.Metadata, 13, hex("00 01 00 00"))).toEqual({ topics: null, allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
  });

  it("writes the answer with the top-level error code (0) last, before the tagged fields", () => {
    const body = { throttleTimeMs: 0, brokers: [{ nodeId: 0, host: "h", port: 9092, rack: null }], clusterId: "c", controllerId: 0, topics: [] };
    const v12 = spaced("00000000 02 00000000 0268 00002384 00 00 0263 00000000 01 00");
    const v13 = spaced("00000000 02 00000000 0268 00002384 00 00 0263 00000000 01 0000 00");
    expect(writeResponse(apiKeys.Metadata, 12, body)).toBe(v12);
    expect(writeResponse(apiKeys.Metadata, 13, body)).toBe(v13);
  });
});

describe("DescribeCluster v2", () => {
  it("reads IncludeFencedBrokers after the endpoint type", () => {
    expect(readRequest(apiKeys.DescribeCluster, 2, hex("00 01 01 00"))).toEqual({ includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: true });
  });

  it("writes each broker's IsFenced (false: the gateway is never fenced) after its rack", () => {
    const body = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, endpointType: 1, clusterId: "c", controllerId: 0, brokers: [{ brokerId: 0, host: "h", port: 9092, rack: null }], clusterAuthorizedOperations: 0 };
    const v1 = spaced("00000000 0000 00 01 0263 00000000 02 00000000 0268 00002384 00 00 00000000 00");
    const v2 = spaced("00000000 0000 00 01 0263 00000000 02 00000000 0268 00002384 00 00 00 00000000 00");
    expect(writeResponse(apiKeys.DescribeCluster, 1, body)).toBe(v1);
    expect(writeResponse(apiKeys.DescribeCluster, 2, body)).toBe(v2);
  });
});

describe("transaction version 2 (KIP-890 part 2)", () => {
  it("ApiVersions v3 names transaction.version 0–2 supported and 2 finalized, in its tagged fields", () => {
    const body = { errorCode: 0, apiKeys: [], throttleTimeMs: 0, supportedFeatures: [{ name: "transaction.version", minVersion: 0, maxVersion: 2 }], finalizedFeaturesEpoch: 1n, finalizedFeatures: [{ name: "transaction.version", maxVersionLevel: 2, minVersionLevel: 2 }] };
    const kafka = spaced(`0000 01 00000000 03
      00 1a 02 14 7472616e73616374696f6e2e76657273696f6e 0000 0002 00
      01 08 0000000000000001
      02 1a 02 14 7472616e73616374696f6e2e76657273696f6e 0002 0002 00`);
    expect(writeResponse(apiKeys.ApiVersions, 3, body)).toBe(kafka);
  });

  it("Produce v12 is v9 on the wire, request and answer", () => {
    const request = "0274ffff0000753002026f020000000000000000";
    expect(readRequest(apiKeys.Produce, 12, hex(request))).toEqual(readRequest(apiKeys.Produce, 9, hex(request)));
    const body = { responses: [{ name: "o", partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 5n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null }] }], throttleTimeMs: 0 };
    const kafka = "02026f020000000000000000000000000005ffffffffffffffff0000000000000000010000000000000000";
    expect(writeResponse(apiKeys.Produce, 9, body)).toBe(kafka);
    expect(writeResponse(apiKeys.Produce, 12, body)).toBe(kafka);
  });

  it("EndTxn v5 answers the producer id and epoch the end bumped to, after the error code", () => {
    expect(readRequest(apiKeys.EndTxn, 5, hex("0274000000000000000700020100"))).toEqual({ transactionalId: "t", producerId: 7n, producerEpoch: 2, committed: true });
    const body = { throttleTimeMs: 0, errorCode: 0, producerId: 7n, producerEpoch: 3 };
    expect(writeResponse(apiKeys.EndTxn, 4, body)).toBe("00000000000000");
    expect(writeResponse(apiKeys.EndTxn, 5, body)).toBe("0000000000000000000000000007000300");
  });

  it("TxnOffsetCommit v5 is v4 on the wire", () => {
    const request = "027402670000000000000007000200000001026d0002026f02000000000000000000000005ffffffff01000000";
    expect(readRequest(apiKeys.TxnOffsetCommit, 5, hex(request))).toEqual(readRequest(apiKeys.TxnOffsetCommit, 4, hex(request)));
  });
});

describe("DescribeGroups v6 (KIP-1043)", () => {
  it("reads the request as v5's, and writes each group's error message after its error code", () => {
    expect(readRequest(apiKeys.DescribeGroups, 6, hex("0202670000"))).toEqual({ groups: ["g"], includeAuthorizedOperations: false });
    const body = { throttleTimeMs: 0, groups: [{ errorCode: 69, errorMessage: "Group g not found.", groupId: "g", groupState: "Dead", protocolType: "", protocolData: "", members: [], authorizedOperations: -2147483648 }] };
    expect(writeResponse(apiKeys.DescribeGroups, 6, body)).toBe("000000000200451347726f75702067206e6f7420666f756e642e02670544656164010101800000000000");
  });
});

describe("Fetch v16–18", () => {
  it("are v15 on the wire for a consumer, request and answer (their additions are tagged fields a consumer neither sends nor needs)", () => {
    const request = "000001f400000001000004000100000000ffffffff02000000000000000700000000000000090200000000000000020000000000000005ffffffffffffffffffffffff000002000000010100";
    const answer = "0000000000000000000002000000000000000700000000000000090200000000000000000000000000090000000000000009000000000000000001ffffffff00000000";
    const body = {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [{ topicId: Uint8Array.from(Buffer.from("00000000000000070000000000000009", "hex")), partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 9n, lastStableOffset: 9n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records: null }] }],
    };
    for (const version of [16, 17, 18]) {
      expect(readRequest(apiKeys.Fetch, version, hex(request)), `v${version}`).toEqual(readRequest(apiKeys.Fetch, 15, hex(request)));
      expect(writeResponse(apiKeys.Fetch, version, body), `v${version}`).toBe(answer);
    }
    expect(writeResponse(apiKeys.Fetch, 15, body)).toBe(answer);
  });
});

describe("OffsetCommit and OffsetFetch v10: topics by id", () => {
  const id = Uint8Array.from(Buffer.from("00000000000000070000000000000009", "hex"));

  it("OffsetCommit v10 reads and answers each topic by its id where v9 had its name", () => {
    const v9 = readRequest(apiKeys.OffsetCommit, 9, hex("026700000001026d0002026f020000000000000000000000050000000201000000")) as { topics: { name: string }[] };
    const v10 = readRequest(apiKeys.OffsetCommit, 10, hex("026700000001026d000200000000000000070000000000000009020000000000000000000000050000000201000000")) as { topics: { topicId: Uint8Array }[] };
    expect(v9.topics[0]!.name).toBe("o");
    expect(v10.topics[0]!.topicId).toEqual(id);
    expect({ ...v10, topics: v10.topics.map(({ topicId: _, ...topic }) => ({ ...topic, name: "o" })) }).toEqual(v9);
    const answer = (topic: Record<string, unknown>) => ({ throttleTimeMs: 0, topics: [{ ...topic, partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    expect(writeResponse(apiKeys.OffsetCommit, 9, answer({ name: "o" }))).toBe("0000000002026f02000000000000000000");
    expect(writeResponse(apiKeys.OffsetCommit, 10, answer({ name: "", topicId: id }))).toBe("00000000020000000000000007000000000000000902000000000000000000");
  });

  it("OffsetFetch v10 reads and answers each group's topics by id", () => {
    const v10 = readRequest(apiKeys.OffsetFetch, 10, hex("020267026d000000030200000000000000070000000000000009020000000000000100")) as { groups: { topics: { topicId: Uint8Array; partitionIndexes: number[] }[] }[] };
    expect(v10.groups[0]!.topics[0]).toMatchObject({ topicId: id, partitionIndexes: [0] });
    const answer = (topic: Record<string, unknown>) => ({
      throttleTimeMs: 0,
      groups: [{ groupId: "g", errorCode: 0, topics: [{ ...topic, partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: 2, metadata: "", errorCode: 0 }] }] }],
    });
    expect(writeResponse(apiKeys.OffsetFetch, 9, answer({ name: "o" }))).toBe("0000000002026702026f0200000000000000000000000500000002010000000000000000");
    expect(writeResponse(apiKeys.OffsetFetch, 10, answer({ name: "", topicId: id }))).toBe("0000000002026702000000000000000700000000000000090200000000000000000000000500000002010000000000000000");
  });
});

describe("Produce v13: topics by id", () => {
  it("reads each topic's id where v12 had its name, and answers by id", () => {
    const id = Uint8Array.from(Buffer.from("00000000000000070000000000000009", "hex"));
    const v12 = readRequest(apiKeys.Produce, 12, hex("00ffff0000753002026f020000000000000000")) as { topicData: { name: string }[] };
    const v13 = readRequest(apiKeys.Produce, 13, hex("00ffff000075300200000000000000070000000000000009020000000000000000")) as { topicData: { topicId: Uint8Array }[] };
    expect(v12.topicData[0]!.name).toBe("o");
    expect(v13.topicData[0]!.topicId).toEqual(id);
    const answer = (topic: Record<string, unknown>) => ({ responses: [{ ...topic, partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 5n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null }] }], throttleTimeMs: 0 });
    expect(writeResponse(apiKeys.Produce, 12, answer({ name: "o" }))).toBe("02026f020000000000000000000000000005ffffffffffffffff0000000000000000010000000000000000");
    expect(writeResponse(apiKeys.Produce, 13, answer({ name: "", topicId: id }))).toBe("0200000000000000070000000000000009020000000000000000000000000005ffffffffffffffff0000000000000000010000000000000000");
  });
});
