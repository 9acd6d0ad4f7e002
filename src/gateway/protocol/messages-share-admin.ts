/**
 * Message layouts of KIP-932's share-group offset admin calls (Kafka 4.x's
 * DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets JSON
 * definitions; see messages-core.ts for how they are written down), for
 * src/gateway/share/offsets-admin.ts. All are flexible from v0.
 */
import type { MessageSchema } from "./schema.ts";

export const describeShareGroupOffsets: MessageSchema = {
  apiKey: 90,
  name: "DescribeShareGroupOffsets",
  // v1 adds each partition's lag (KIP-1226).
  versions: [0, 1],
  flexibleFrom: 0,
  request: [
    ["groups", "[]struct", "0+", { fields: [
      ["groupId", "string", "0+"],
      ["topics", "[]struct", "0+", { nullable: "0+", fields: [
        ["topicName", "string", "0+"],
        ["partitions", "[]int32", "0+"],
      ] }],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["groups", "[]struct", "0+", { fields: [
      ["groupId", "string", "0+"],
      ["topics", "[]struct", "0+", { fields: [
        ["topicName", "string", "0+"],
        ["topicId", "uuid", "0+"],
        ["partitions", "[]struct", "0+", { fields: [
          ["partitionIndex", "int32", "0+"],
          ["startOffset", "int64", "0+"],
          ["leaderEpoch", "int32", "0+"],
          ["lag", "int64", "1+", { default: "-1" }],
          ["errorCode", "int16", "0+"],
          ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
        ] }],
      ] }],
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ] }],
  ],
};

export const alterShareGroupOffsets: MessageSchema = {
  apiKey: 91,
  name: "AlterShareGroupOffsets",
  versions: [0, 0],
  flexibleFrom: 0,
  request: [
    ["groupId", "string", "0+"],
    ["topics", "[]struct", "0+", { fields: [
      ["topicName", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["startOffset", "int64", "0+"],
      ] }],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ["responses", "[]struct", "0+", { fields: [
      ["topicName", "string", "0+"],
      ["topicId", "uuid", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["errorCode", "int16", "0+"],
        ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
      ] }],
    ] }],
  ],
};

export const deleteShareGroupOffsets: MessageSchema = {
  apiKey: 92,
  name: "DeleteShareGroupOffsets",
  versions: [0, 0],
  flexibleFrom: 0,
  request: [
    ["groupId", "string", "0+"],
    ["topics", "[]struct", "0+", { fields: [["topicName", "string", "0+"]] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ["responses", "[]struct", "0+", { fields: [
      ["topicName", "string", "0+"],
      ["topicId", "uuid", "0+"],
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ] }],
  ],
};
