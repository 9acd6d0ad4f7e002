/**
 * Golden bytes against kafkajs 2.2.4's own encoders and decoders (node_modules/kafkajs/src/
 * protocol/requests): every request kafkajs writes, at every version both speak, decodes with
 * the gateway's codec and encodes back to exactly kafkajs's bytes; responses the gateway writes
 * decode with kafkajs's response decoders to what the gateway meant.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { messageCodec } from "../../../src/gateway/protocol/codec.ts";
import { apiKeys, messageSchemas } from "../../../src/gateway/protocol/apis.ts";
import { ByteReader, ByteWriter } from "../../../src/gateway/protocol/primitives.ts";

const require = createRequire(import.meta.url);
const Long = require("kafkajs/src/utils/long");

interface KafkajsRequest {
  apiKey: number;
  apiVersion: number;
  encode(): Promise<{ buffer: Buffer }>;
}

const metadataBytes = Buffer.from("member-metadata");
/** kafkajs request arguments per API (each version takes what it knows of them). */
const plainAuth = Buffer.from("\u0000user\u0000trb_token");
/** kafkajs writes SASL bytes as given: its mechanisms put the length in front themselves. */
const lengthPrefixed = Buffer.concat([Buffer.from([0, 0, 0, plainAuth.length]), plainAuth]);
const requestArguments: Record<string, Record<string, unknown> | unknown[]> = {
  apiVersions: {},
  metadata: { topics: ["orders", "payments"], allowAutoTopicCreation: false },
  fetch: {
    replicaId: -1,
    maxWaitTime: 500,
    minBytes: 1,
    maxBytes: 10_485_760,
    isolationLevel: 0,
    topics: [{ topic: "orders", partitions: [{ partition: 2, fetchOffset: "42", maxBytes: 1_048_576, currentLeaderEpoch: 0, logStartOffset: "0" }] }],
    rackId: "",
  },
  listOffsets: { replicaId: -1, isolationLevel: 1, topics: [{ topic: "orders", partitions: [{ partition: 0, timestamp: -2 }, { partition: 1, timestamp: 1_700_000_000_000 }] }] },
  findCoordinator: { groupId: "group-a", coordinatorKey: "group-a", coordinatorType: 0 },
  createTopics: {
    topics: [{ topic: "orders", numPartitions: 3, replicationFactor: 1, configEntries: [{ name: "retention.ms", value: "3600000" }] }],
    timeout: 5000,
    validateOnly: false,
  },
  deleteTopics: { topics: ["orders", "payments"], timeout: 5000 },
  createPartitions: { topicPartitions: [{ topic: "orders", count: 6 }], timeout: 5000, validateOnly: false },
  deleteRecords: { topics: [{ topic: "orders", partitions: [{ partition: 0, offset: "42" }, { partition: 1, offset: "-1" }] }], timeout: 5000 },
  describeConfigs: { resources: [{ type: 2, name: "orders", configNames: ["retention.ms"] }], includeSynonyms: false },
  alterConfigs: { resources: [{ type: 2, name: "orders", configEntries: [{ name: "cleanup.policy", value: "compact" }] }], validateOnly: false },
  initProducerId: { transactionalId: null, transactionTimeout: 60000 },
  saslHandshake: { mechanism: "PLAIN" },
  saslAuthenticate: { authBytes: lengthPrefixed },
  joinGroup: {
    groupId: "group-a",
    sessionTimeout: 30000,
    rebalanceTimeout: 60000,
    memberId: "",
    protocolType: "consumer",
    groupProtocols: [{ name: "RoundRobinAssigner", metadata: metadataBytes }],
  },
  syncGroup: { groupId: "group-a", generationId: 3, memberId: "m-1", groupAssignment: [{ memberId: "m-1", memberAssignment: metadataBytes }] },
  heartbeat: { groupId: "group-a", groupGenerationId: 3, memberId: "m-1" },
  leaveGroup: { groupId: "group-a", memberId: "m-1", members: [{ memberId: "m-1" }] },
  offsetCommit: {
    groupId: "group-a",
    groupGenerationId: 3,
    memberId: "m-1",
    retentionTime: -1,
    topics: [{ topic: "orders", partitions: [{ partition: 0, offset: "17" }] }],
  },
  offsetFetch: { groupId: "group-a", topics: [{ topic: "orders", partitions: [{ partition: 0 }, { partition: 1 }] }] },
  listGroups: {},
  describeGroups: { groupIds: ["group-a", "group-b"] },
  deleteGroups: ["group-a", "group-b"],
  addPartitionsToTxn: { transactionalId: "txn-a", producerId: "1234", producerEpoch: 3, topics: [{ topic: "orders", partitions: [0, 2] }] },
  addOffsetsToTxn: { transactionalId: "txn-a", producerId: "1234", producerEpoch: 3, groupId: "group-a" },
  txnOffsetCommit: {
    transactionalId: "txn-a",
    groupId: "group-a",
    producerId: "1234",
    producerEpoch: 3,
    topics: [{ topic: "orders", partitions: [{ partition: 0, offset: "17", metadata: null }] }],
  },
  endTxn: { transactionalId: "txn-a", producerId: "1234", producerEpoch: 3, transactionResult: true },
};

function kafkajsVersions(api: string): number[] {
  const { readdirSync } = require("node:fs") as typeof import("node:fs");
  const dir = require.resolve("kafkajs/src/protocol/requests/index.js").replace(/index\.js$/, api);
  return readdirSync(dir)
    .filter((name: string) => /^v\d+$/.test(name))
    .map((name: string) => Number(name.slice(1)))
    .sort((a: number, b: number) => a - b);
}

const cases = Object.entries(requestArguments).flatMap(([api, args]) => {
  const key = apiKeys[(api[0]!.toUpperCase() + api.slice(1)) as keyof typeof apiKeys];
  const schema = messageSchemas.get(key)!;
  return kafkajsVersions(api)
    .filter((version) => version >= schema.versions[0] && version <= schema.versions[1])
    .map((version) => ({ api, version, args, key }));
});

describe("requests: kafkajs's bytes decode and encode back to the same bytes", () => {
  it("covers every API kafkajs and the gateway share", () => {
    expect(cases.length).toBeGreaterThan(68);
  });

  it.each(cases)("$api v$version", async ({ api, version, args, key }) => {
    const request = require(`kafkajs/src/protocol/requests/${api}/v${version}/request`)(args) as KafkajsRequest;
    expect(request.apiKey).toBe(key);
    const bytes = new Uint8Array((await request.encode()).buffer);
    const codec = messageCodec(messageSchemas.get(key)!, version);
    const decoded = codec.readRequest(new ByteReader(bytes));
    if (!decoded.ok) throw new Error(decoded.error);
    const writer = new ByteWriter();
    codec.writeRequest(writer, decoded.value);
    expect(Buffer.from(writer.finish()).toString("hex")).toBe(Buffer.from(bytes).toString("hex"));
  });

  it("fields come out under Kafka's names, int64 as bigint", async () => {
    const fetch = require("kafkajs/src/protocol/requests/fetch/v11/request")(requestArguments.fetch) as KafkajsRequest;
    const decoded = messageCodec(messageSchemas.get(apiKeys.Fetch)!, 11).readRequest(new ByteReader(new Uint8Array((await fetch.encode()).buffer)));
    expect(decoded).toMatchObject({
      ok: true,
      value: { maxWaitMs: 500, minBytes: 1, topics: [{ topic: "orders", partitions: [{ partition: 2, fetchOffset: 42n, partitionMaxBytes: 1_048_576 }] }] },
    });
  });
});

/** Encodes a response body with the gateway's codec. */
function responseBytes(key: number, version: number, body: Record<string, unknown>): Buffer {
  const writer = new ByteWriter();
  messageCodec(messageSchemas.get(key)!, version).writeResponse(writer, body);
  return Buffer.from(writer.finish());
}

async function kafkajsParse(api: string, version: number, bytes: Buffer): Promise<Record<string, unknown>> {
  const response = require(`kafkajs/src/protocol/requests/${api}/v${version}/response`) as { decode(raw: Buffer): Promise<unknown>; parse(decoded: unknown): Promise<Record<string, unknown>> };
  return response.parse(await response.decode(bytes));
}

describe("responses: the gateway's bytes decode with kafkajs's decoders", () => {
  const metadataAnswer = {
    throttleTimeMs: 0,
    brokers: [{ nodeId: 0, host: "127.0.0.1", port: 9092, rack: null }],
    clusterId: "abcdefghijklmnopqrstuv",
    controllerId: 0,
    topics: [
      {
        errorCode: 0,
        name: "orders",
        isInternal: false,
        partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] }],
      },
    ],
  };

  it.each([0, 1, 2, 3, 4, 5, 6])("Metadata v%i", async (version) => {
    const parsed = await kafkajsParse("metadata", version, responseBytes(apiKeys.Metadata, version, metadataAnswer));
    expect(parsed.brokers).toEqual([expect.objectContaining({ nodeId: 0, host: "127.0.0.1", port: 9092 })]);
    expect(parsed.topicMetadata).toEqual([expect.objectContaining({ topic: "orders", partitionMetadata: [expect.objectContaining({ partitionId: 0, leader: 0, replicas: [0], isr: [0] })] })]);
    if (version >= 2) expect(parsed.clusterId).toBe("abcdefghijklmnopqrstuv");
  });

  it.each([3, 4, 5, 6, 7])("Produce v%i", async (version) => {
    const bytes = responseBytes(apiKeys.Produce, version, {
      responses: [{ name: "orders", partitionResponses: [{ index: 1, errorCode: 0, baseOffset: 41n, logAppendTimeMs: -1n, logStartOffset: 0n }] }],
      throttleTimeMs: 0,
    });
    const parsed = await kafkajsParse("produce", version, bytes);
    expect(parsed.topics).toEqual([{ topicName: "orders", partitions: [expect.objectContaining({ partition: 1, errorCode: 0, baseOffset: "41" })] }]);
  });

  it.each([4, 5, 6, 7, 8, 9, 10, 11])("Fetch v%i, with a stored batch passed through", async (version) => {
    const batchRequest = require("kafkajs/src/protocol/recordBatch/v0") as { RecordBatch(args: unknown): Promise<{ buffer: Buffer }> };
    const Record = require("kafkajs/src/protocol/recordBatch/record/v0");
    const batch = await batchRequest.RecordBatch({ firstOffset: Long.fromInt(5), records: [Record({ offsetDelta: 0, key: Buffer.from("k"), value: Buffer.from("v") })] });
    const Encoder = require("kafkajs/src/protocol/encoder");
    const framed = new Encoder().writeEncoder(batch).buffer as Buffer;
    const bytes = responseBytes(apiKeys.Fetch, version, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: "orders",
          partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 6n, lastStableOffset: 6n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records: new Uint8Array(framed) }],
        },
      ],
    });
    const parsed = await kafkajsParse("fetch", version, bytes);
    const [topic] = parsed.responses as { topicName: string; partitions: { highWatermark: string; messages: { key: Buffer; value: Buffer; offset: string }[] }[] }[];
    expect(topic!.topicName).toBe("orders");
    expect(topic!.partitions[0]!.highWatermark).toBe("6");
    expect(topic!.partitions[0]!.messages.map((m) => [m.offset, m.key.toString(), m.value.toString()])).toEqual([["5", "k", "v"]]);
  });

  it.each([0, 1])("DeleteRecords v%i", async (version) => {
    const bytes = responseBytes(apiKeys.DeleteRecords, version, {
      throttleTimeMs: 0,
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, lowWatermark: 42n, errorCode: 0 }, { partitionIndex: 1, lowWatermark: -1n, errorCode: 1 }] }],
    });
    // kafkajs's response module takes the request's topics (its errors name their offsets).
    type Decoded = { topics: { topic: string; partitions: { partition: number; lowWatermark: { toString(): string }; errorCode: number }[] }[] };
    const response = require(`kafkajs/src/protocol/requests/deleteRecords/v${version}/response`)({ topics: [] }) as { decode(raw: Buffer): Promise<Decoded> };
    const { topics } = await response.decode(bytes);
    expect(topics.map(({ topic, partitions }) => [topic, partitions.map((p) => [p.partition, p.lowWatermark.toString(), p.errorCode])])).toEqual([
      ["orders", [[0, "42", 0], [1, "-1", 1]]],
    ]);
  });

  it.each([0, 1, 2])("ApiVersions v%i", async (version) => {
    const bytes = responseBytes(apiKeys.ApiVersions, version, { errorCode: 0, apiKeys: [{ apiKey: 0, minVersion: 3, maxVersion: 9 }], throttleTimeMs: 0 });
    const parsed = await kafkajsParse("apiVersions", version, bytes);
    expect(parsed.apiVersions).toEqual([{ apiKey: 0, minVersion: 3, maxVersion: 9 }]);
  });

  it.each([1, 2, 3])("ListOffsets v%i", async (version) => {
    const bytes = responseBytes(apiKeys.ListOffsets, version, {
      throttleTimeMs: 0,
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 12n }] }],
    });
    const parsed = await kafkajsParse("listOffsets", version, bytes);
    expect(parsed.responses).toEqual([{ topic: "orders", partitions: [expect.objectContaining({ partition: 0, errorCode: 0, offset: "12" })] }]);
  });

  it.each([0, 1, 2])("FindCoordinator v%i", async (version) => {
    const bytes = responseBytes(apiKeys.FindCoordinator, version, { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 0, host: "gw.example", port: 9092 });
    const parsed = await kafkajsParse("findCoordinator", version, bytes);
    expect(parsed.coordinator).toEqual({ nodeId: 0, host: "gw.example", port: 9092 });
  });

  it.each([0, 1])("InitProducerId v%i", async (version) => {
    const bytes = responseBytes(apiKeys.InitProducerId, version, { throttleTimeMs: 0, errorCode: 0, producerId: 1234n, producerEpoch: 0 });
    expect(await kafkajsParse("initProducerId", version, bytes)).toMatchObject({ producerId: "1234", producerEpoch: 0 });
  });

  it.each([0, 1])("EndTxn, AddOffsetsToTxn, AddPartitionsToTxn and TxnOffsetCommit v%i", async (version) => {
    const endTxn = await kafkajsParse("endTxn", version, responseBytes(apiKeys.EndTxn, version, { throttleTimeMs: 0, errorCode: 0 }));
    expect(endTxn).toMatchObject({ errorCode: 0 });
    const addOffsets = await kafkajsParse("addOffsetsToTxn", version, responseBytes(apiKeys.AddOffsetsToTxn, version, { throttleTimeMs: 0, errorCode: 0 }));
    expect(addOffsets).toMatchObject({ errorCode: 0 });
    const addPartitions = await kafkajsParse(
      "addPartitionsToTxn",
      version,
      responseBytes(apiKeys.AddPartitionsToTxn, version, { throttleTimeMs: 0, resultsByTopicV3AndBelow: [{ name: "orders", resultsByPartition: [{ partitionIndex: 2, partitionErrorCode: 0 }] }] }),
    );
    expect(addPartitions.errors).toEqual([{ topic: "orders", partitionErrors: [{ errorCode: 0, partition: 2 }] }]);
    const txnOffsets = await kafkajsParse(
      "txnOffsetCommit",
      version,
      responseBytes(apiKeys.TxnOffsetCommit, version, { throttleTimeMs: 0, topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0 }] }] }),
    );
    expect(txnOffsets.topics).toEqual([{ topic: "orders", partitions: [{ errorCode: 0, partition: 0 }] }]);
  });

  it.each([0, 1, 2])("DescribeConfigs v%i", async (version) => {
    const bytes = responseBytes(apiKeys.DescribeConfigs, version, {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: "orders",
          configs: [{ name: "retention.ms", value: "3600000", readOnly: false, isDefault: false, configSource: 1, isSensitive: false, synonyms: [] }],
        },
      ],
    });
    const parsed = await kafkajsParse("describeConfigs", version, bytes);
    expect(parsed.resources).toEqual([expect.objectContaining({ resourceName: "orders", configEntries: [expect.objectContaining({ configName: "retention.ms", configValue: "3600000" })] })]);
  });
});
