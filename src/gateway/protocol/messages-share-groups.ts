/**
 * Message layouts of KIP-932's share-group APIs (Kafka 4.2+'s ShareGroupHeartbeat,
 * ShareGroupDescribe, ShareFetch and ShareAcknowledge JSON definitions; see messages-core.ts
 * for how they are written down), for the handlers in src/gateway/share/. All are flexible
 * from v0; v0 was Kafka 4.0's early access, removed in 4.1, so the stable versions start at 1.
 * ShareFetch and ShareAcknowledge v2 add the acquire mode and renew acknowledgements
 * (KIP-1206, KIP-1222); franz-go enables its share consumer only when both reach v2.
 */
import type { FieldSpec, MessageSchema } from "./schema.ts";

const topicIdPartitions: readonly FieldSpec[] = [
  ["topicId", "uuid", "0+"],
  ["partitions", "[]int32", "0+"],
];

export const shareGroupHeartbeat: MessageSchema = {
  apiKey: 76,
  name: "ShareGroupHeartbeat",
  versions: [1, 1],
  flexibleFrom: 0,
  request: [
    ["groupId", "string", "0+"],
    ["memberId", "string", "0+"],
    ["memberEpoch", "int32", "0+"],
    ["rackId", "string", "0+", { nullable: "0+", default: "null" }],
    ["subscribedTopicNames", "[]string", "0+", { nullable: "0+", default: "null" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ["memberId", "string", "0+", { nullable: "0+", default: "null" }],
    ["memberEpoch", "int32", "0+"],
    ["heartbeatIntervalMs", "int32", "0+"],
    ["assignment", "struct", "0+", { nullable: "0+", default: "null", fields: [
      ["topicPartitions", "[]struct", "0+", { fields: topicIdPartitions }],
    ] }],
  ],
};

export const shareGroupDescribe: MessageSchema = {
  apiKey: 77,
  name: "ShareGroupDescribe",
  versions: [1, 1],
  flexibleFrom: 0,
  request: [
    ["groupIds", "[]string", "0+"],
    ["includeAuthorizedOperations", "bool", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["groups", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
      ["groupId", "string", "0+"],
      ["groupState", "string", "0+"],
      ["groupEpoch", "int32", "0+"],
      ["assignmentEpoch", "int32", "0+"],
      ["assignorName", "string", "0+"],
      ["members", "[]struct", "0+", { fields: [
        ["memberId", "string", "0+"],
        ["rackId", "string", "0+", { nullable: "0+", default: "null" }],
        ["memberEpoch", "int32", "0+"],
        ["clientId", "string", "0+"],
        ["clientHost", "string", "0+"],
        ["subscribedTopicNames", "[]string", "0+"],
        ["assignment", "struct", "0+", { fields: [
          ["topicPartitions", "[]struct", "0+", { fields: [
            ["topicId", "uuid", "0+"],
            ["topicName", "string", "0+"],
            ["partitions", "[]int32", "0+"],
          ] }],
        ] }],
      ] }],
      ["authorizedOperations", "int32", "0+", { default: "-2147483648" }],
    ] }],
  ],
};

const acknowledgementBatches: FieldSpec = ["acknowledgementBatches", "[]struct", "0+", { fields: [
  ["firstOffset", "int64", "0+"],
  ["lastOffset", "int64", "0+"],
  ["acknowledgeTypes", "[]int8", "0+"],
] }];

const leaderIdAndEpoch: FieldSpec = ["currentLeader", "struct", "0+", { fields: [
  ["leaderId", "int32", "0+"],
  ["leaderEpoch", "int32", "0+"],
] }];

const nodeEndpoints: FieldSpec = ["nodeEndpoints", "[]struct", "0+", { fields: [
  ["nodeId", "int32", "0+"],
  ["host", "string", "0+"],
  ["port", "int32", "0+"],
  ["rack", "string", "0+", { nullable: "0+", default: "null" }],
] }];

export const shareFetch: MessageSchema = {
  apiKey: 78,
  name: "ShareFetch",
  versions: [1, 2],
  flexibleFrom: 0,
  request: [
    ["groupId", "string", "0+", { nullable: "0+", default: "null" }],
    ["memberId", "string", "0+", { nullable: "0+" }],
    ["shareSessionEpoch", "int32", "0+"],
    ["maxWaitMs", "int32", "0+"],
    ["minBytes", "int32", "0+"],
    ["maxBytes", "int32", "0+", { default: "2147483647" }],
    ["maxRecords", "int32", "1+"],
    ["batchSize", "int32", "1+"],
    ["shareAcquireMode", "int8", "2+"],
    ["isRenewAck", "bool", "2+"],
    ["topics", "[]struct", "0+", { fields: [
      ["topicId", "uuid", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["partitionMaxBytes", "int32", "0"],
        acknowledgementBatches,
      ] }],
    ] }],
    ["forgottenTopicsData", "[]struct", "0+", { fields: topicIdPartitions }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ["acquisitionLockTimeoutMs", "int32", "1+"],
    ["responses", "[]struct", "0+", { fields: [
      ["topicId", "uuid", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["errorCode", "int16", "0+"],
        ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
        ["acknowledgeErrorCode", "int16", "0+"],
        ["acknowledgeErrorMessage", "string", "0+", { nullable: "0+", default: "null" }],
        leaderIdAndEpoch,
        // Kafka 4.4's definition has it non-nullable (its client refuses a null); kmsg's nullable.
        ["records", "records", "0+"],
        ["acquiredRecords", "[]struct", "0+", { fields: [
          ["firstOffset", "int64", "0+"],
          ["lastOffset", "int64", "0+"],
          ["deliveryCount", "int16", "0+"],
        ] }],
      ] }],
    ] }],
    nodeEndpoints,
  ],
};

export const shareAcknowledge: MessageSchema = {
  apiKey: 79,
  name: "ShareAcknowledge",
  versions: [1, 2],
  flexibleFrom: 0,
  request: [
    ["groupId", "string", "0+", { nullable: "0+", default: "null" }],
    ["memberId", "string", "0+", { nullable: "0+" }],
    ["shareSessionEpoch", "int32", "0+"],
    ["isRenewAck", "bool", "2+"],
    ["topics", "[]struct", "0+", { fields: [
      ["topicId", "uuid", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        acknowledgementBatches,
      ] }],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ["acquisitionLockTimeoutMs", "int32", "2+"],
    ["responses", "[]struct", "0+", { fields: [
      ["topicId", "uuid", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["errorCode", "int16", "0+"],
        ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
        leaderIdAndEpoch,
      ] }],
    ] }],
    nodeEndpoints,
  ],
};
