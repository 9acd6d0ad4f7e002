/**
 * Message layouts of Kafka's transaction APIs (issue 28; docs/gateway.md, Transactions),
 * transcribed from Kafka's JSON message definitions for the versions the gateway serves.
 * AddPartitionsToTxn stops at v3: v4+ is the brokers' batched form (KIP-890's verification).
 * EndTxn stops at v4 and TxnOffsetCommit at v4: v5 of each belongs to KIP-890 part 2's clients
 * (transaction version 2), which add partitions through Produce v12, not served here.
 */
import type { MessageSchema } from "./schema.ts";

const addPartitionsTopic = [
  ["name", "string", "0+"],
  ["partitions", "[]int32", "0+"],
] as const;

export const addPartitionsToTxn: MessageSchema = {
  apiKey: 24,
  name: "AddPartitionsToTxn",
  versions: [0, 3],
  flexibleFrom: 3,
  request: [
    ["v3AndBelowTransactionalId", "string", "0-3"],
    ["v3AndBelowProducerId", "int64", "0-3"],
    ["v3AndBelowProducerEpoch", "int16", "0-3"],
    ["v3AndBelowTopics", "[]struct", "0-3", { fields: addPartitionsTopic }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["resultsByTopicV3AndBelow", "[]struct", "0-3", { fields: [
      ["name", "string", "0+"],
      ["resultsByPartition", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["partitionErrorCode", "int16", "0+"],
      ] }],
    ] }],
  ],
};

export const addOffsetsToTxn: MessageSchema = {
  apiKey: 25,
  name: "AddOffsetsToTxn",
  versions: [0, 4],
  flexibleFrom: 3,
  request: [
    ["transactionalId", "string", "0+"],
    ["producerId", "int64", "0+"],
    ["producerEpoch", "int16", "0+"],
    ["groupId", "string", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
  ],
};

export const endTxn: MessageSchema = {
  apiKey: 26,
  name: "EndTxn",
  // v5: KIP-890 part 2 (transaction version 2): the answer carries the identity the end bumped to.
  versions: [0, 5],
  flexibleFrom: 3,
  request: [
    ["transactionalId", "string", "0+"],
    ["producerId", "int64", "0+"],
    ["producerEpoch", "int16", "0+"],
    ["committed", "bool", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["producerId", "int64", "5+", { default: "-1" }],
    ["producerEpoch", "int16", "5+", { default: "-1" }],
  ],
};

export const txnOffsetCommit: MessageSchema = {
  apiKey: 28,
  name: "TxnOffsetCommit",
  // v5 is v4 (KIP-890 part 2: a transaction version 2 client sends no AddOffsetsToTxn first; the commit adds the group, as every version's does here);
  // v6 names topics by id, as OffsetCommit v10 (src/gateway/groups/offsets-by-id.ts).
  versions: [0, 6],
  flexibleFrom: 3,
  request: [
    ["transactionalId", "string", "0+"],
    ["groupId", "string", "0+"],
    ["producerId", "int64", "0+"],
    ["producerEpoch", "int16", "0+"],
    ["generationIdOrMemberEpoch", "int32", "3+", { default: "-1" }],
    ["memberId", "string", "3+", { default: "" }],
    ["groupInstanceId", "string", "3+", { nullable: "3+", default: "null" }],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0-5", { default: "" }],
      ["topicId", "uuid", "6+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["committedOffset", "int64", "0+"],
        ["committedLeaderEpoch", "int32", "2+", { default: "-1" }],
        ["committedMetadata", "string", "0+", { nullable: "0+" }],
      ] }],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0-5", { default: "" }],
      ["topicId", "uuid", "6+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["errorCode", "int16", "0+"],
      ] }],
    ] }],
  ],
};

export const describeTransactions: MessageSchema = {
  apiKey: 65,
  name: "DescribeTransactions",
  versions: [0, 0],
  flexibleFrom: 0,
  request: [
    ["transactionalIds", "[]string", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["transactionStates", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["transactionalId", "string", "0+"],
      ["transactionState", "string", "0+"],
      ["transactionTimeoutMs", "int32", "0+"],
      ["transactionStartTimeMs", "int64", "0+"],
      ["producerId", "int64", "0+"],
      ["producerEpoch", "int16", "0+"],
      ["topics", "[]struct", "0+", { fields: [
        ["topic", "string", "0+"],
        ["partitions", "[]int32", "0+"],
      ] }],
    ] }],
  ],
};

export const listTransactions: MessageSchema = {
  apiKey: 66,
  name: "ListTransactions",
  versions: [0, 2],
  flexibleFrom: 0,
  request: [
    ["stateFilters", "[]string", "0+"],
    ["producerIdFilters", "[]int64", "0+"],
    ["durationFilter", "int64", "1+", { default: "-1" }],
    ["transactionalIdPattern", "string", "2+", { nullable: "2+", default: "null" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["unknownStateFilters", "[]string", "0+"],
    ["transactionStates", "[]struct", "0+", { fields: [
      ["transactionalId", "string", "0+"],
      ["producerId", "int64", "0+"],
      ["transactionState", "string", "0+"],
    ] }],
  ],
};

/** DescribeProducers (KIP-664): a partition's active producers, from its leader. */
export const describeProducers: MessageSchema = {
  apiKey: 61,
  name: "DescribeProducers",
  versions: [0, 0],
  flexibleFrom: 0,
  request: [
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["partitionIndexes", "[]int32", "0+"],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["errorCode", "int16", "0+"],
        ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
        ["activeProducers", "[]struct", "0+", { fields: [
          ["producerId", "int64", "0+"],
          ["producerEpoch", "int32", "0+"],
          ["lastSequence", "int32", "0+", { default: "-1" }],
          ["lastTimestamp", "int64", "0+", { default: "-1" }],
          ["coordinatorEpoch", "int32", "0+"],
          ["currentTxnStartOffset", "int64", "0+", { default: "-1" }],
        ] }],
      ] }],
    ] }],
  ],
};
