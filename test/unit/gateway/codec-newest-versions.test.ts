/**
 * Golden bytes for the versions raised to what the Java client 4.4 negotiates with Kafka 4.4,
 * written out by hand from Kafka 4.4's message definitions
 * (clients/src/main/resources/common/message/*.json): Metadata v13 (KIP-1102's top-level error
 * code, after the topics) and DescribeCluster v2 (KIP-1073's IncludeFencedBrokers and each
 * broker's IsFenced).
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
