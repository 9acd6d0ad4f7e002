/**
 * Message layouts of the consumer-group APIs (see messages-core.ts for where they come from),
 * for the handlers in src/gateway/groups/.
 */
import type { MessageSchema } from "./schema.ts";

export const joinGroup: MessageSchema = {
  apiKey: 11,
  name: "JoinGroup",
  versions: [0, 9],
  flexibleFrom: 6,
  request: [
    ["groupId", "string", "0+"],
    ["sessionTimeoutMs", "int32", "0+"],
    ["rebalanceTimeoutMs", "int32", "1+", { default: "-1" }],
    ["memberId", "string", "0+"],
    ["groupInstanceId", "string", "5+", { nullable: "5+", default: "null" }],
    ["protocolType", "string", "0+"],
    ["protocols", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["metadata", "bytes", "0+"],
    ] }],
    ["reason", "string", "8+", { nullable: "8+", default: "null" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "2+"],
    ["errorCode", "int16", "0+"],
    ["generationId", "int32", "0+", { default: "-1" }],
    ["protocolType", "string", "7+", { nullable: "7+", default: "null" }],
    ["protocolName", "string", "0+", { nullable: "7+" }],
    ["leader", "string", "0+"],
    ["skipAssignment", "bool", "9+", { default: "false" }],
    ["memberId", "string", "0+"],
    ["members", "[]struct", "0+", { fields: [
      ["memberId", "string", "0+"],
      ["groupInstanceId", "string", "5+", { nullable: "5+", default: "null" }],
      ["metadata", "bytes", "0+"],
    ] }],
  ],
};

export const syncGroup: MessageSchema = {
  apiKey: 14,
  name: "SyncGroup",
  versions: [0, 5],
  flexibleFrom: 4,
  request: [
    ["groupId", "string", "0+"],
    ["generationId", "int32", "0+"],
    ["memberId", "string", "0+"],
    ["groupInstanceId", "string", "3+", { nullable: "3+", default: "null" }],
    ["protocolType", "string", "5+", { nullable: "5+", default: "null" }],
    ["protocolName", "string", "5+", { nullable: "5+", default: "null" }],
    ["assignments", "[]struct", "0+", { fields: [
      ["memberId", "string", "0+"],
      ["assignment", "bytes", "0+"],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "1+"],
    ["errorCode", "int16", "0+"],
    ["protocolType", "string", "5+", { nullable: "5+", default: "null" }],
    ["protocolName", "string", "5+", { nullable: "5+", default: "null" }],
    ["assignment", "bytes", "0+"],
  ],
};

export const heartbeat: MessageSchema = {
  apiKey: 12,
  name: "Heartbeat",
  versions: [0, 4],
  flexibleFrom: 4,
  request: [
    ["groupId", "string", "0+"],
    ["generationId", "int32", "0+"],
    ["memberId", "string", "0+"],
    ["groupInstanceId", "string", "3+", { nullable: "3+", default: "null" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "1+"],
    ["errorCode", "int16", "0+"],
  ],
};

export const leaveGroup: MessageSchema = {
  apiKey: 13,
  name: "LeaveGroup",
  versions: [0, 5],
  flexibleFrom: 4,
  request: [
    ["groupId", "string", "0+"],
    ["memberId", "string", "0-2"],
    ["members", "[]struct", "3+", { fields: [
      ["memberId", "string", "3+"],
      ["groupInstanceId", "string", "3+", { nullable: "3+", default: "null" }],
      ["reason", "string", "5+", { nullable: "5+", default: "null" }],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "1+"],
    ["errorCode", "int16", "0+"],
    ["members", "[]struct", "3+", { fields: [
      ["memberId", "string", "3+"],
      ["groupInstanceId", "string", "3+", { nullable: "3+" }],
      ["errorCode", "int16", "3+"],
    ] }],
  ],
};

export const offsetCommit: MessageSchema = {
  apiKey: 8,
  name: "OffsetCommit",
  // v10 names topics by id (KIP-848's topic ids): the handler resolves them (groups/offsets.ts).
  versions: [0, 10],
  flexibleFrom: 8,
  request: [
    ["groupId", "string", "0+"],
    ["generationIdOrMemberEpoch", "int32", "1+", { default: "-1" }],
    ["memberId", "string", "1+"],
    ["groupInstanceId", "string", "7+", { nullable: "7+", default: "null" }],
    ["retentionTimeMs", "int64", "2-4", { default: "-1" }],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0-9", { default: "" }],
      ["topicId", "uuid", "10+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["committedOffset", "int64", "0+"],
        ["committedLeaderEpoch", "int32", "6+", { default: "-1" }],
        ["commitTimestamp", "int64", "1", { default: "-1" }],
        ["committedMetadata", "string", "0+", { nullable: "0+" }],
      ] }],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "3+"],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0-9", { default: "" }],
      ["topicId", "uuid", "10+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["errorCode", "int16", "0+"],
      ] }],
    ] }],
  ],
};

export const offsetFetch: MessageSchema = {
  apiKey: 9,
  name: "OffsetFetch",
  // v10 names topics by id, as OffsetCommit v10.
  versions: [0, 10],
  flexibleFrom: 6,
  request: [
    ["groupId", "string", "0-7"],
    ["topics", "[]struct", "0-7", { nullable: "2-7", fields: [
      ["name", "string", "0-7"],
      ["partitionIndexes", "[]int32", "0-7"],
    ] }],
    ["groups", "[]struct", "8+", { fields: [
      ["groupId", "string", "8+"],
      ["memberId", "string", "9+", { nullable: "9+", default: "null" }],
      ["memberEpoch", "int32", "9+", { default: "-1" }],
      ["topics", "[]struct", "8+", { nullable: "8+", fields: [
        ["name", "string", "8-9", { default: "" }],
        ["topicId", "uuid", "10+"],
        ["partitionIndexes", "[]int32", "8+"],
      ] }],
    ] }],
    ["requireStable", "bool", "7+", { default: "false" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "3+"],
    ["topics", "[]struct", "0-7", { fields: [
      ["name", "string", "0-7"],
      ["partitions", "[]struct", "0-7", { fields: [
        ["partitionIndex", "int32", "0-7"],
        ["committedOffset", "int64", "0-7"],
        ["committedLeaderEpoch", "int32", "5-7", { default: "-1" }],
        ["metadata", "string", "0-7", { nullable: "0-7" }],
        ["errorCode", "int16", "0-7"],
      ] }],
    ] }],
    ["errorCode", "int16", "2-7", { default: "0" }],
    ["groups", "[]struct", "8+", { fields: [
      ["groupId", "string", "8+"],
      ["topics", "[]struct", "8+", { fields: [
        ["name", "string", "8-9", { default: "" }],
        ["topicId", "uuid", "10+"],
        ["partitions", "[]struct", "8+", { fields: [
          ["partitionIndex", "int32", "8+"],
          ["committedOffset", "int64", "8+"],
          ["committedLeaderEpoch", "int32", "8+", { default: "-1" }],
          ["metadata", "string", "8+", { nullable: "8+" }],
          ["errorCode", "int16", "8+"],
        ] }],
      ] }],
      ["errorCode", "int16", "8+", { default: "0" }],
    ] }],
  ],
};

export const listGroups: MessageSchema = {
  apiKey: 16,
  name: "ListGroups",
  versions: [0, 5],
  flexibleFrom: 3,
  request: [
    ["statesFilter", "[]string", "4+"],
    ["typesFilter", "[]string", "5+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "1+"],
    ["errorCode", "int16", "0+"],
    ["groups", "[]struct", "0+", { fields: [
      ["groupId", "string", "0+"],
      ["protocolType", "string", "0+"],
      ["groupState", "string", "4+"],
      ["groupType", "string", "5+"],
    ] }],
  ],
};

export const describeGroups: MessageSchema = {
  apiKey: 15,
  name: "DescribeGroups",
  // v6 (KIP-1043): an unknown group is GROUP_ID_NOT_FOUND with a message, no longer a bare Dead.
  versions: [0, 6],
  flexibleFrom: 5,
  request: [
    ["groups", "[]string", "0+"],
    ["includeAuthorizedOperations", "bool", "3+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "1+"],
    ["groups", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "6+", { nullable: "6+", default: "null" }],
      ["groupId", "string", "0+"],
      ["groupState", "string", "0+"],
      ["protocolType", "string", "0+"],
      ["protocolData", "string", "0+"],
      ["members", "[]struct", "0+", { fields: [
        ["memberId", "string", "0+"],
        ["groupInstanceId", "string", "4+", { nullable: "4+", default: "null" }],
        ["clientId", "string", "0+"],
        ["clientHost", "string", "0+"],
        ["memberMetadata", "bytes", "0+"],
        ["memberAssignment", "bytes", "0+"],
      ] }],
      ["authorizedOperations", "int32", "3+", { default: "-2147483648" }],
    ] }],
  ],
};

export const deleteGroups: MessageSchema = {
  apiKey: 42,
  name: "DeleteGroups",
  versions: [0, 3],
  flexibleFrom: 2,
  request: [
    ["groupsNames", "[]string", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["results", "[]struct", "0+", { fields: [
      ["groupId", "string", "0+"],
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "3+", { nullable: "3+", default: "null" }],
    ] }],
  ],
};

/** Kafka's OffsetDelete (KIP-496): v0 only, never flexible (v1, KIP-1313, only moves it to the v3 header). */
export const offsetDelete: MessageSchema = {
  apiKey: 47,
  name: "OffsetDelete",
  versions: [0, 0],
  flexibleFrom: null,
  request: [
    ["groupId", "string", "0+"],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
      ] }],
    ] }],
  ],
  response: [
    ["errorCode", "int16", "0+"],
    ["throttleTimeMs", "int32", "0+"],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["errorCode", "int16", "0+"],
      ] }],
    ] }],
  ],
};
