/**
 * Golden bytes for the flexible (compact, tagged-field) versions against @platformatic/kafka's
 * own encoders and decoders, which speak only those: each request it writes decodes with the
 * gateway's codec and encodes back to its exact bytes; the gateway's responses parse with its
 * response parsers.
 */
import { describe, expect, it } from "vitest";
import { messageCodec } from "../../../src/gateway/protocol/codec.ts";
import { apiKeys, messageSchemas } from "../../../src/gateway/protocol/apis.ts";
import { ByteReader, ByteWriter } from "../../../src/gateway/protocol/primitives.ts";

const dist = "../../../node_modules/@platformatic/kafka/dist";
type Api = { createRequest(...args: unknown[]): { buffer: Buffer }; parseResponse(correlationId: number, apiKey: number, apiVersion: number, reader: unknown): unknown };
const load = async (path: string): Promise<Api> => (await import(`${dist}/apis/${path}.js`)) as Api;
const { Reader } = (await import(`${dist}/protocol/reader.js`)) as { Reader: { from(buffer: Buffer): unknown } };

const metadataBytes = Buffer.from("member-metadata");
const topicUuid = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
const topicIdBytes = new Uint8Array(Buffer.from(topicUuid.replace(/-/g, ""), "hex"));
const requestCases: { path: string; key: number; version: number; args: unknown[] }[] = [
  { path: "metadata/api-versions-v3", key: apiKeys.ApiVersions, version: 3, args: ["platformatic-kafka", "1.35.0"] },
  { path: "metadata/metadata-v12", key: apiKeys.Metadata, version: 12, args: [["orders", "payments"], true, false] },
  { path: "metadata/metadata-v10", key: apiKeys.Metadata, version: 10, args: [["orders"], false, false] },
  {
    path: "consumer/fetch-v12",
    key: apiKeys.Fetch,
    version: 12,
    args: [500, 1, 10_485_760, 0, 0, -1, [{ topicId: "orders", partitions: [{ partition: 1, currentLeaderEpoch: -1, fetchOffset: 42n, lastFetchedEpoch: -1, partitionMaxBytes: 1_048_576 }] }], [], ""],
  },
  // v13+ name topics by id (platformatic's consume() stream); v15 leaves the replica id out.
  ...[13, 14, 15].map((version) => ({
    path: `consumer/fetch-v${version}`,
    key: apiKeys.Fetch,
    version,
    args: [500, 1, 10_485_760, 0, 0, -1, [{ topicId: topicUuid, partitions: [{ partition: 1, currentLeaderEpoch: -1, fetchOffset: 42n, lastFetchedEpoch: -1, partitionMaxBytes: 1_048_576 }] }], [], ""],
  })),
  {
    path: "producer/produce-v9",
    key: apiKeys.Produce,
    version: 9,
    args: [-1, 30000, [{ topic: "orders", partition: 2, key: Buffer.from("k"), value: Buffer.from("v"), timestamp: 1_700_000_000_000n }], {}],
  },
  { path: "consumer/list-offsets-v6", key: apiKeys.ListOffsets, version: 6, args: [-1, 0, [{ name: "orders", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }]] },
  { path: "metadata/find-coordinator-v4", key: apiKeys.FindCoordinator, version: 4, args: [0, ["group-a", "group-b"]] },
  { path: "metadata/find-coordinator-v5", key: apiKeys.FindCoordinator, version: 5, args: [0, ["group-a"]] },
  { path: "producer/init-producer-id-v5", key: apiKeys.InitProducerId, version: 5, args: [null, 60000, -1n, -1] },
  { path: "producer/init-producer-id-v4", key: apiKeys.InitProducerId, version: 4, args: [null, 60000, -1n, -1] },
  { path: "security/sasl-authenticate-v2", key: apiKeys.SaslAuthenticate, version: 2, args: [Buffer.from("\u0000user\u0000trb_token")] },
  {
    path: "admin/create-topics-v7",
    key: apiKeys.CreateTopics,
    version: 7,
    args: [[{ name: "orders", numPartitions: 3, replicationFactor: 1, assignments: [], configs: [{ name: "retention.ms", value: "3600000" }] }], 30000, false],
  },
  { path: "admin/delete-topics-v6", key: apiKeys.DeleteTopics, version: 6, args: [[{ name: "orders", topicId: null }], 30000] },
  { path: "admin/create-partitions-v3", key: apiKeys.CreatePartitions, version: 3, args: [[{ name: "orders", count: 6, assignments: [] }], 30000, false] },
  { path: "admin/describe-configs-v4", key: apiKeys.DescribeConfigs, version: 4, args: [[{ resourceType: 2, resourceName: "orders", configurationKeys: ["retention.ms"] }], false, false] },
  { path: "admin/alter-configs-v2", key: apiKeys.AlterConfigs, version: 2, args: [[{ resourceType: 2, resourceName: "orders", configs: [{ name: "retention.ms", value: "1000" }] }], false] },
  {
    path: "admin/incremental-alter-configs-v1",
    key: apiKeys.IncrementalAlterConfigs,
    version: 1,
    args: [[{ resourceType: 2, resourceName: "orders", configs: [{ name: "retention.ms", configOperation: 0, value: "1000" }] }], false],
  },
  { path: "consumer/join-group-v9", key: apiKeys.JoinGroup, version: 9, args: ["group-a", 30000, 60000, "", null, "consumer", [{ name: "roundrobin", metadata: metadataBytes }], "joining"] },
  { path: "consumer/join-group-v6", key: apiKeys.JoinGroup, version: 6, args: ["group-a", 30000, 60000, "m-1", null, "consumer", [{ name: "roundrobin", metadata: metadataBytes }]] },
  { path: "consumer/sync-group-v5", key: apiKeys.SyncGroup, version: 5, args: ["group-a", 3, "m-1", null, "consumer", "roundrobin", [{ memberId: "m-1", assignment: metadataBytes }]] },
  { path: "consumer/heartbeat-v4", key: apiKeys.Heartbeat, version: 4, args: ["group-a", 3, "m-1", null] },
  { path: "consumer/leave-group-v5", key: apiKeys.LeaveGroup, version: 5, args: ["group-a", [{ memberId: "m-1", groupInstanceId: null, reason: "bye" }]] },
  {
    path: "consumer/offset-commit-v9",
    key: apiKeys.OffsetCommit,
    version: 9,
    args: ["group-a", 3, "m-1", null, [{ name: "orders", partitions: [{ partitionIndex: 0, committedOffset: 17n, committedLeaderEpoch: -1, committedMetadata: null }] }]],
  },
  { path: "consumer/offset-fetch-v9", key: apiKeys.OffsetFetch, version: 9, args: [[{ groupId: "group-a", memberId: null, memberEpoch: -1, topics: [{ name: "orders", partitionIndexes: [0, 1] }] }], false] },
  { path: "admin/list-groups-v5", key: apiKeys.ListGroups, version: 5, args: [["Stable"], ["classic"]] },
  { path: "admin/describe-groups-v5", key: apiKeys.DescribeGroups, version: 5, args: [["group-a"], true] },
  { path: "admin/delete-groups-v2", key: apiKeys.DeleteGroups, version: 2, args: [["group-a"]] },
];

describe("requests: @platformatic/kafka's bytes decode and encode back to the same bytes", () => {
  it.each(requestCases)("$path", async ({ path, key, version, args }) => {
    const bytes = new Uint8Array((await load(path)).createRequest(...args).buffer);
    const codec = messageCodec(messageSchemas.get(key)!, version);
    expect(codec.flexible).toBe(true);
    const decoded = codec.readRequest(new ByteReader(bytes));
    if (!decoded.ok) throw new Error(decoded.error);
    const writer = new ByteWriter();
    codec.writeRequest(writer, decoded.value);
    expect(Buffer.from(writer.finish()).toString("hex")).toBe(Buffer.from(bytes).toString("hex"));
  });

  it("compact strings, nullable names and tagged fields read as Kafka's names say", async () => {
    const bytes = new Uint8Array((await load("metadata/metadata-v12")).createRequest(["orders"], true, false).buffer);
    const decoded = messageCodec(messageSchemas.get(apiKeys.Metadata)!, 12).readRequest(new ByteReader(bytes));
    expect(decoded).toMatchObject({ ok: true, value: { topics: [{ name: "orders", topicId: new Uint8Array(16) }], allowAutoTopicCreation: true } });
  });
});

function parse(path: string, key: number, version: number, body: Record<string, unknown>) {
  const writer = new ByteWriter();
  messageCodec(messageSchemas.get(key)!, version).writeResponse(writer, body);
  return load(path).then((api) => api.parseResponse(1, key, version, Reader.from(Buffer.from(writer.finish()))) as Record<string, unknown>);
}

describe("responses: the gateway's flexible answers parse with @platformatic/kafka's parsers", () => {
  it("ApiVersions v3 (tagged fields left out)", async () => {
    const parsed = await parse("metadata/api-versions-v3", apiKeys.ApiVersions, 3, { errorCode: 0, apiKeys: [{ apiKey: 1, minVersion: 4, maxVersion: 12 }], throttleTimeMs: 0 });
    expect(parsed).toMatchObject({ errorCode: 0, apiKeys: [{ apiKey: 1, minVersion: 4, maxVersion: 12 }] });
  });

  it("Metadata v12", async () => {
    const parsed = await parse("metadata/metadata-v12", apiKeys.Metadata, 12, {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 0, host: "127.0.0.1", port: 9092, rack: null }],
      clusterId: "abcdefghijklmnopqrstuv",
      controllerId: 0,
      topics: [{ errorCode: 0, name: "orders", topicId: new Uint8Array(16), isInternal: false, partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] }] }],
    });
    expect(parsed).toMatchObject({ brokers: [{ nodeId: 0, host: "127.0.0.1", port: 9092 }], clusterId: "abcdefghijklmnopqrstuv", topics: [{ name: "orders", partitions: [{ partitionIndex: 0, leaderId: 0 }] }] });
  });

  it("Produce v9", async () => {
    const parsed = await parse("producer/produce-v9", apiKeys.Produce, 9, {
      responses: [{ name: "orders", partitionResponses: [{ index: 2, errorCode: 0, baseOffset: 7n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: null }] }],
      throttleTimeMs: 0,
    });
    expect(parsed).toMatchObject({ responses: [{ name: "orders", partitionResponses: [{ index: 2, errorCode: 0, baseOffset: 7n }] }] });
  });

  it("Fetch v12 with records passed through", async () => {
    const { createRecordsBatch } = (await import(`${dist}/protocol/records.js`)) as { createRecordsBatch(messages: unknown[], options: unknown): { buffer: Buffer } };
    const batch = createRecordsBatch([{ key: Buffer.from("k"), value: Buffer.from("v"), timestamp: 1n, topic: "orders", partition: 0 }], {}).buffer;
    const parsed = await parse("consumer/fetch-v12", apiKeys.Fetch, 12, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [{ topic: "orders", partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 1n, lastStableOffset: 1n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records: new Uint8Array(batch) }] }],
    });
    const partition = (parsed.responses as { partitions: { highWatermark: bigint; records: { records: { key: Buffer; value: Buffer }[] }[] }[] }[])[0]!.partitions[0]!;
    expect(partition.highWatermark).toBe(1n);
    expect(partition.records[0]!.records.map((record) => [record.key.toString(), record.value.toString()])).toEqual([["k", "v"]]);
  });

  it("Fetch v13 and v15 name the topic by its id", async () => {
    for (const version of [13, 15]) {
      const parsed = await parse(`consumer/fetch-v${version}`, apiKeys.Fetch, version, {
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 0,
        responses: [{ topicId: topicIdBytes, partitions: [{ partitionIndex: 3, errorCode: 100, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, abortedTransactions: [], preferredReadReplica: -1, records: new Uint8Array(0) }] }],
      }).catch((error: { response?: Record<string, unknown> }) => error.response!);
      expect(parsed).toMatchObject({ sessionId: 0, responses: [{ topicId: topicUuid, partitions: [{ partitionIndex: 3, errorCode: 100 }] }] });
    }
  });

  it("Metadata v12 with a topic id", async () => {
    const parsed = await parse("metadata/metadata-v12", apiKeys.Metadata, 12, {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 0, host: "127.0.0.1", port: 9092, rack: null }],
      clusterId: "abcdefghijklmnopqrstuv",
      controllerId: 0,
      topics: [{ errorCode: 0, name: "orders", topicId: topicIdBytes, isInternal: false, partitions: [] }],
    });
    expect(parsed).toMatchObject({ topics: [{ name: "orders", topicId: topicUuid }] });
  });

  it("FindCoordinator v5, InitProducerId v5, SaslAuthenticate v2, CreateTopics v7, ListOffsets v6", async () => {
    expect(
      await parse("metadata/find-coordinator-v5", apiKeys.FindCoordinator, 5, {
        throttleTimeMs: 0,
        coordinators: [{ key: "group-a", nodeId: 0, host: "gw", port: 9092, errorCode: 0, errorMessage: null }],
      }),
    ).toMatchObject({ coordinators: [{ key: "group-a", nodeId: 0, host: "gw", port: 9092 }] });
    expect(await parse("producer/init-producer-id-v5", apiKeys.InitProducerId, 5, { throttleTimeMs: 0, errorCode: 0, producerId: 9n, producerEpoch: 0 })).toMatchObject({ producerId: 9n, producerEpoch: 0 });
    expect(await parse("security/sasl-authenticate-v2", apiKeys.SaslAuthenticate, 2, { errorCode: 0, errorMessage: null, authBytes: new Uint8Array(0), sessionLifetimeMs: 0n })).toMatchObject({ errorCode: 0 });
    expect(
      await parse("admin/create-topics-v7", apiKeys.CreateTopics, 7, {
        throttleTimeMs: 0,
        topics: [{ name: "orders", topicId: new Uint8Array(16), errorCode: 0, errorMessage: null, numPartitions: 3, replicationFactor: 1, configs: [] }],
      }),
    ).toMatchObject({ topics: [{ name: "orders", numPartitions: 3, replicationFactor: 1 }] });
    expect(
      await parse("consumer/list-offsets-v6", apiKeys.ListOffsets, 6, { throttleTimeMs: 0, topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 12n, leaderEpoch: 0 }] }] }),
    ).toMatchObject({ topics: [{ name: "orders", partitions: [{ partitionIndex: 0, offset: 12n }] }] });
  });
});
