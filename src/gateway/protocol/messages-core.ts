/**
 * Message layouts of the APIs the gateway itself answers, transcribed from Kafka's JSON message
 * definitions (clients/src/main/resources/common/message/*.json) for the versions the gateway
 * serves: field names with a lowercase first letter, each field's versions, nullable and tagged
 * versions and default. Layouts only; the codec that reads them is ./codec.ts.
 */
import type { MessageSchema } from "./schema.ts";

export const apiVersions: MessageSchema = {
  apiKey: 18,
  name: "ApiVersions",
  // v4 (KAFKA-17011): the supported features with a minimum version of 0 are named too (v3 leaves
  // them out: older clients refuse a range from 0); v5 (KIP-1242): the cluster and node the client
  // expects to reach, checked (handlers/api-versions.ts).
  versions: [0, 5],
  flexibleFrom: 3,
  request: [
    ["clientSoftwareName", "string", "3+"],
    ["clientSoftwareVersion", "string", "3+"],
    ["clusterId", "string", "5+", { nullable: "5+", default: "null" }],
    ["nodeId", "int32", "5+", { default: "-1" }],
  ],
  response: [
    ["errorCode", "int16", "0+"],
    ["apiKeys", "[]struct", "0+", { fields: [
      ["apiKey", "int16", "0+"],
      ["minVersion", "int16", "0+"],
      ["maxVersion", "int16", "0+"],
    ] }],
    ["throttleTimeMs", "int32", "1+"],
    ["supportedFeatures", "[]struct", "3+", { tag: 0, tagged: "3+", fields: [
      ["name", "string", "3+"],
      ["minVersion", "int16", "3+"],
      ["maxVersion", "int16", "3+"],
    ] }],
    ["finalizedFeaturesEpoch", "int64", "3+", { tag: 1, tagged: "3+", default: "-1" }],
    ["finalizedFeatures", "[]struct", "3+", { tag: 2, tagged: "3+", fields: [
      ["name", "string", "3+"],
      ["maxVersionLevel", "int16", "3+"],
      ["minVersionLevel", "int16", "3+"],
    ] }],
    ["zkMigrationReady", "bool", "3+", { tag: 3, tagged: "3+", default: "false" }],
  ],
};

export const metadata: MessageSchema = {
  apiKey: 3,
  name: "Metadata",
  versions: [0, 13],
  flexibleFrom: 9,
  request: [
    ["topics", "[]struct", "0+", { nullable: "1+", fields: [
      ["topicId", "uuid", "10+"],
      ["name", "string", "0+", { nullable: "10+" }],
    ] }],
    ["allowAutoTopicCreation", "bool", "4+", { default: "true" }],
    ["includeClusterAuthorizedOperations", "bool", "8-10"],
    ["includeTopicAuthorizedOperations", "bool", "8+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "3+"],
    ["brokers", "[]struct", "0+", { fields: [
      ["nodeId", "int32", "0+"],
      ["host", "string", "0+"],
      ["port", "int32", "0+"],
      ["rack", "string", "1+", { nullable: "1+", default: "null" }],
    ] }],
    ["clusterId", "string", "2+", { nullable: "2+", default: "null" }],
    ["controllerId", "int32", "1+", { default: "-1" }],
    ["topics", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["name", "string", "0+", { nullable: "12+" }],
      ["topicId", "uuid", "10+"],
      ["isInternal", "bool", "1+", { default: "false" }],
      ["partitions", "[]struct", "0+", { fields: [
        ["errorCode", "int16", "0+"],
        ["partitionIndex", "int32", "0+"],
        ["leaderId", "int32", "0+"],
        ["leaderEpoch", "int32", "7+", { default: "-1" }],
        ["replicaNodes", "[]int32", "0+"],
        ["isrNodes", "[]int32", "0+"],
        ["offlineReplicas", "[]int32", "5+"],
      ] }],
      ["topicAuthorizedOperations", "int32", "8+", { default: "-2147483648" }],
    ] }],
    ["clusterAuthorizedOperations", "int32", "8-10", { default: "-2147483648" }],
    // v13 (KIP-1102): a top-level error for a rebootstrapping client; the gateway answers 0.
    ["errorCode", "int16", "13+"],
  ],
};

export const produce: MessageSchema = {
  apiKey: 0,
  name: "Produce",
  // v10–11 are v9 with tagged fields for a moved leader (none here: one gateway leads every partition); v12 is v11 (KIP-890 part 2: a transactional write adds its partition, as every version's does here); v13 names topics by id.
  versions: [3, 13],
  flexibleFrom: 9,
  request: [
    ["transactionalId", "string", "3+", { nullable: "3+", default: "null" }],
    ["acks", "int16", "3+"],
    ["timeoutMs", "int32", "3+"],
    ["topicData", "[]struct", "3+", { fields: [
      ["name", "string", "3-12", { default: "" }],
      ["topicId", "uuid", "13+"],
      ["partitionData", "[]struct", "3+", { fields: [
        ["index", "int32", "3+"],
        ["records", "records", "3+", { nullable: "3+" }],
      ] }],
    ] }],
  ],
  response: [
    ["responses", "[]struct", "3+", { fields: [
      ["name", "string", "3-12", { default: "" }],
      ["topicId", "uuid", "13+"],
      ["partitionResponses", "[]struct", "3+", { fields: [
        ["index", "int32", "3+"],
        ["errorCode", "int16", "3+"],
        ["baseOffset", "int64", "3+"],
        ["logAppendTimeMs", "int64", "3+", { default: "-1" }],
        ["logStartOffset", "int64", "5+", { default: "-1" }],
        ["recordErrors", "[]struct", "8+", { fields: [
          ["batchIndex", "int32", "8+"],
          ["batchIndexErrorMessage", "string", "8+", { nullable: "8+", default: "null" }],
        ] }],
        ["errorMessage", "string", "8+", { nullable: "8+", default: "null" }],
      ] }],
    ] }],
    ["throttleTimeMs", "int32", "3+", { default: "0" }],
  ],
};

export const fetch: MessageSchema = {
  apiKey: 1,
  name: "Fetch",
  // v13+ name topics by id; v15 moves the replica id into a tagged ReplicaState (consumers send none).
  // v16–18 add only tagged fields: a moved leader's endpoint in the answer (KIP-951: none here, one
  // gateway leads every partition) and a follower's directory id and high watermark (KIP-853,
  // KIP-1166: consumers send neither; unknown tags are skipped): a consumer's bytes are v15's.
  versions: [4, 18],
  flexibleFrom: 12,
  request: [
    ["clusterId", "string", "12+", { nullable: "12+", tag: 0, tagged: "12+", default: "null" }],
    ["replicaId", "int32", "4-14", { default: "-1" }],
    ["replicaState", "struct", "15+", { tag: 1, tagged: "15+", fields: [
      ["replicaId", "int32", "15+", { default: "-1" }],
      ["replicaEpoch", "int64", "15+", { default: "-1" }],
    ] }],
    ["maxWaitMs", "int32", "4+"],
    ["minBytes", "int32", "4+"],
    ["maxBytes", "int32", "4+", { default: "0x7fffffff" }],
    ["isolationLevel", "int8", "4+", { default: "0" }],
    ["sessionId", "int32", "7+", { default: "0" }],
    ["sessionEpoch", "int32", "7+", { default: "-1" }],
    ["topics", "[]struct", "4+", { fields: [
      ["topic", "string", "4-12"],
      ["topicId", "uuid", "13+"],
      ["partitions", "[]struct", "4+", { fields: [
        ["partition", "int32", "4+"],
        ["currentLeaderEpoch", "int32", "9+", { default: "-1" }],
        ["fetchOffset", "int64", "4+"],
        ["lastFetchedEpoch", "int32", "12+", { default: "-1" }],
        ["logStartOffset", "int64", "5+", { default: "-1" }],
        ["partitionMaxBytes", "int32", "4+"],
      ] }],
    ] }],
    ["forgottenTopicsData", "[]struct", "7+", { fields: [
      ["topic", "string", "7-12"],
      ["topicId", "uuid", "13+"],
      ["partitions", "[]int32", "7+"],
    ] }],
    ["rackId", "string", "11+", { default: "" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "4+"],
    ["errorCode", "int16", "7+"],
    ["sessionId", "int32", "7+", { default: "0" }],
    ["responses", "[]struct", "4+", { fields: [
      ["topic", "string", "4-12"],
      ["topicId", "uuid", "13+"],
      ["partitions", "[]struct", "4+", { fields: [
        ["partitionIndex", "int32", "4+"],
        ["errorCode", "int16", "4+"],
        ["highWatermark", "int64", "4+"],
        ["lastStableOffset", "int64", "4+", { default: "-1" }],
        ["logStartOffset", "int64", "5+", { default: "-1" }],
        ["divergingEpoch", "struct", "12+", { tag: 0, tagged: "12+", fields: [
          ["epoch", "int32", "12+", { default: "-1" }],
          ["endOffset", "int64", "12+", { default: "-1" }],
        ] }],
        ["currentLeader", "struct", "12+", { tag: 1, tagged: "12+", fields: [
          ["leaderId", "int32", "12+", { default: "-1" }],
          ["leaderEpoch", "int32", "12+", { default: "-1" }],
        ] }],
        ["snapshotId", "struct", "12+", { tag: 2, tagged: "12+", fields: [
          ["endOffset", "int64", "4+", { default: "-1" }],
          ["epoch", "int32", "4+", { default: "-1" }],
        ] }],
        ["abortedTransactions", "[]struct", "4+", { nullable: "4+", fields: [
          ["producerId", "int64", "4+"],
          ["firstOffset", "int64", "4+"],
        ] }],
        ["preferredReadReplica", "int32", "11+", { default: "-1" }],
        ["records", "records", "4+", { nullable: "4+" }],
      ] }],
    ] }],
  ],
};

export const listOffsets: MessageSchema = {
  apiKey: 2,
  name: "ListOffsets",
  // v7 adds MAX_TIMESTAMP (−3, KIP-734), v8 EARLIEST_LOCAL (−4, KIP-405), v9 LATEST_TIERED (−5,
  // KIP-1005) and v11 EARLIEST_PENDING_UPLOAD (−6, KIP-1023), with no new field; v10 TimeoutMs
  // (KIP-1075: how long a broker may wait on its remote storage; read and not needed here).
  versions: [1, 11],
  flexibleFrom: 6,
  request: [
    ["replicaId", "int32", "1+"],
    ["isolationLevel", "int8", "2+"],
    ["topics", "[]struct", "1+", { fields: [
      ["name", "string", "1+"],
      ["partitions", "[]struct", "1+", { fields: [
        ["partitionIndex", "int32", "1+"],
        ["currentLeaderEpoch", "int32", "4+", { default: "-1" }],
        ["timestamp", "int64", "1+"],
      ] }],
    ] }],
    ["timeoutMs", "int32", "10+", { default: "0" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "2+"],
    ["topics", "[]struct", "1+", { fields: [
      ["name", "string", "1+"],
      ["partitions", "[]struct", "1+", { fields: [
        ["partitionIndex", "int32", "1+"],
        ["errorCode", "int16", "1+"],
        ["timestamp", "int64", "1+", { default: "-1" }],
        ["offset", "int64", "1+", { default: "-1" }],
        ["leaderEpoch", "int32", "4+", { default: "-1" }],
      ] }],
    ] }],
  ],
};

export const findCoordinator: MessageSchema = {
  apiKey: 10,
  name: "FindCoordinator",
  // v6 is v5's bytes: it adds key type 2 (KIP-932, a share partition's coordinator, which brokers ask for).
  versions: [0, 6],
  flexibleFrom: 3,
  request: [
    ["key", "string", "0-3"],
    ["keyType", "int8", "1+", { default: "0" }],
    ["coordinatorKeys", "[]string", "4+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "1+"],
    ["errorCode", "int16", "0-3"],
    ["errorMessage", "string", "1-3", { nullable: "1-3" }],
    ["nodeId", "int32", "0-3"],
    ["host", "string", "0-3"],
    ["port", "int32", "0-3"],
    ["coordinators", "[]struct", "4+", { fields: [
      ["key", "string", "4+"],
      ["nodeId", "int32", "4+"],
      ["host", "string", "4+"],
      ["port", "int32", "4+"],
      ["errorCode", "int16", "4+"],
      ["errorMessage", "string", "4+", { nullable: "4+" }],
    ] }],
  ],
};

export const initProducerId: MessageSchema = {
  apiKey: 22,
  name: "InitProducerId",
  versions: [0, 5],
  flexibleFrom: 2,
  request: [
    ["transactionalId", "string", "0+", { nullable: "0+" }],
    ["transactionTimeoutMs", "int32", "0+"],
    ["producerId", "int64", "3+", { default: "-1" }],
    ["producerEpoch", "int16", "3+", { default: "-1" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["producerId", "int64", "0+", { default: "-1" }],
    ["producerEpoch", "int16", "0+"],
  ],
};

export const saslHandshake: MessageSchema = {
  apiKey: 17,
  name: "SaslHandshake",
  // v0 is followed by raw SASL bytes outside Kafka's framing, v1 by SaslAuthenticate, the only
  // way served. v0 is advertised all the same: librdkafka offers SASL only to a broker whose
  // range includes it (then sends v1); a v0 handshake is answered UNSUPPORTED_VERSION (handlers/sasl.ts).
  versions: [0, 1],
  flexibleFrom: null,
  request: [
    ["mechanism", "string", "0+"],
  ],
  response: [
    ["errorCode", "int16", "0+"],
    ["mechanisms", "[]string", "0+"],
  ],
};

export const saslAuthenticate: MessageSchema = {
  apiKey: 36,
  name: "SaslAuthenticate",
  versions: [0, 2],
  flexibleFrom: 2,
  request: [
    ["authBytes", "bytes", "0+"],
  ],
  response: [
    ["errorCode", "int16", "0+"],
    ["errorMessage", "string", "0+", { nullable: "0+" }],
    ["authBytes", "bytes", "0+"],
    ["sessionLifetimeMs", "int64", "1+", { default: "0" }],
  ],
};


/** Versions 0–1 left Kafka in 4.0; v2 is its baseline (and v2 adds the fencing epoch). */
export const offsetForLeaderEpoch: MessageSchema = {
  apiKey: 23,
  name: "OffsetForLeaderEpoch",
  versions: [2, 4],
  flexibleFrom: 4,
  request: [
    ["replicaId", "int32", "3+", { default: "-2" }],
    ["topics", "[]struct", "0+", { fields: [
      ["topic", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partition", "int32", "0+"],
        ["currentLeaderEpoch", "int32", "2+", { default: "-1" }],
        ["leaderEpoch", "int32", "0+"],
      ] }],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "2+"],
    ["topics", "[]struct", "0+", { fields: [
      ["topic", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["errorCode", "int16", "0+"],
        ["partition", "int32", "0+"],
        ["leaderEpoch", "int32", "1+", { default: "-1" }],
        ["endOffset", "int64", "0+"],
      ] }],
    ] }],
  ],
};
