/**
 * Message layouts of the topic and config administration APIs (see messages-core.ts for where
 * they come from).
 */
import type { MessageSchema } from "./schema.ts";

export const createTopics: MessageSchema = {
  apiKey: 19,
  name: "CreateTopics",
  versions: [0, 7],
  flexibleFrom: 5,
  request: [
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["numPartitions", "int32", "0+"],
      ["replicationFactor", "int16", "0+"],
      ["assignments", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["brokerIds", "[]int32", "0+"],
      ] }],
      ["configs", "[]struct", "0+", { fields: [
        ["name", "string", "0+"],
        ["value", "string", "0+", { nullable: "0+" }],
      ] }],
    ] }],
    ["timeoutMs", "int32", "0+", { default: "60000" }],
    ["validateOnly", "bool", "1+", { default: "false" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "2+"],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["topicId", "uuid", "7+"],
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "1+", { nullable: "0+" }],
      ["topicConfigErrorCode", "int16", "5+", { tag: 0, tagged: "5+" }],
      ["numPartitions", "int32", "5+", { default: "-1" }],
      ["replicationFactor", "int16", "5+", { default: "-1" }],
      ["configs", "[]struct", "5+", { nullable: "5+", fields: [
        ["name", "string", "5+"],
        ["value", "string", "5+", { nullable: "5+" }],
        ["readOnly", "bool", "5+"],
        ["configSource", "int8", "5+", { default: "-1" }],
        ["isSensitive", "bool", "5+"],
      ] }],
    ] }],
  ],
};

export const deleteTopics: MessageSchema = {
  apiKey: 20,
  name: "DeleteTopics",
  versions: [0, 6],
  flexibleFrom: 4,
  request: [
    ["topics", "[]struct", "6+", { fields: [
      ["name", "string", "6+", { nullable: "6+", default: "null" }],
      ["topicId", "uuid", "6+"],
    ] }],
    ["topicNames", "[]string", "0-5"],
    ["timeoutMs", "int32", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "1+"],
    ["responses", "[]struct", "0+", { fields: [
      ["name", "string", "0+", { nullable: "6+" }],
      ["topicId", "uuid", "6+"],
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "5+", { nullable: "5+", default: "null" }],
    ] }],
  ],
};

/** Kafka's DeleteRecords (the Java Admin's `deleteRecords`, kafkajs's `deleteTopicRecords`): v2 is v1 made flexible. */
export const deleteRecords: MessageSchema = {
  apiKey: 21,
  name: "DeleteRecords",
  versions: [0, 2],
  flexibleFrom: 2,
  request: [
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["offset", "int64", "0+"],
      ] }],
    ] }],
    ["timeoutMs", "int32", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["partitions", "[]struct", "0+", { fields: [
        ["partitionIndex", "int32", "0+"],
        ["lowWatermark", "int64", "0+"],
        ["errorCode", "int16", "0+"],
      ] }],
    ] }],
  ],
};

/** Kafka's DescribeLogDirs (KIP-113; v3 adds the top-level error, v4 a directory's total and usable bytes, KIP-827, v5 whether it is cordoned, KIP-1066). */
export const describeLogDirs: MessageSchema = {
  apiKey: 35,
  name: "DescribeLogDirs",
  versions: [0, 5],
  flexibleFrom: 2,
  request: [
    ["topics", "[]struct", "0+", { nullable: "0+", fields: [
      ["topic", "string", "0+"],
      ["partitions", "[]int32", "0+"],
    ] }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "3+"],
    ["results", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["logDir", "string", "0+"],
      ["topics", "[]struct", "0+", { fields: [
        ["name", "string", "0+"],
        ["partitions", "[]struct", "0+", { fields: [
          ["partitionIndex", "int32", "0+"],
          ["partitionSize", "int64", "0+"],
          ["offsetLag", "int64", "0+"],
          ["isFutureKey", "bool", "0+"],
        ] }],
      ] }],
      ["totalBytes", "int64", "4+", { default: "-1" }],
      ["usableBytes", "int64", "4+", { default: "-1" }],
      ["isCordoned", "bool", "5+", { default: "false" }],
    ] }],
  ],
};

export const createPartitions: MessageSchema = {
  apiKey: 37,
  name: "CreatePartitions",
  versions: [0, 3],
  flexibleFrom: 2,
  request: [
    ["topics", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["count", "int32", "0+"],
      ["assignments", "[]struct", "0+", { nullable: "0+", fields: [
        ["brokerIds", "[]int32", "0+"],
      ] }],
    ] }],
    ["timeoutMs", "int32", "0+"],
    ["validateOnly", "bool", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["results", "[]struct", "0+", { fields: [
      ["name", "string", "0+"],
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ] }],
  ],
};

export const describeConfigs: MessageSchema = {
  apiKey: 32,
  name: "DescribeConfigs",
  versions: [0, 4],
  flexibleFrom: 4,
  request: [
    ["resources", "[]struct", "0+", { fields: [
      ["resourceType", "int8", "0+"],
      ["resourceName", "string", "0+"],
      ["configurationKeys", "[]string", "0+", { nullable: "0+" }],
    ] }],
    ["includeSynonyms", "bool", "1+", { default: "false" }],
    ["includeDocumentation", "bool", "3+", { default: "false" }],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["results", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "0+", { nullable: "0+" }],
      ["resourceType", "int8", "0+"],
      ["resourceName", "string", "0+"],
      ["configs", "[]struct", "0+", { fields: [
        ["name", "string", "0+"],
        ["value", "string", "0+", { nullable: "0+" }],
        ["readOnly", "bool", "0+"],
        ["isDefault", "bool", "0"],
        ["configSource", "int8", "1+", { default: "-1" }],
        ["isSensitive", "bool", "0+"],
        ["synonyms", "[]struct", "1+", { fields: [
          ["name", "string", "1+"],
          ["value", "string", "1+", { nullable: "0+" }],
          ["source", "int8", "1+"],
        ] }],
        ["configType", "int8", "3+", { default: "0" }],
        ["documentation", "string", "3+", { nullable: "0+" }],
      ] }],
    ] }],
  ],
};

export const alterConfigs: MessageSchema = {
  apiKey: 33,
  name: "AlterConfigs",
  versions: [0, 2],
  flexibleFrom: 2,
  request: [
    ["resources", "[]struct", "0+", { fields: [
      ["resourceType", "int8", "0+"],
      ["resourceName", "string", "0+"],
      ["configs", "[]struct", "0+", { fields: [
        ["name", "string", "0+"],
        ["value", "string", "0+", { nullable: "0+" }],
      ] }],
    ] }],
    ["validateOnly", "bool", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["responses", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "0+", { nullable: "0+" }],
      ["resourceType", "int8", "0+"],
      ["resourceName", "string", "0+"],
    ] }],
  ],
};

export const incrementalAlterConfigs: MessageSchema = {
  apiKey: 44,
  name: "IncrementalAlterConfigs",
  versions: [0, 1],
  flexibleFrom: 1,
  request: [
    ["resources", "[]struct", "0+", { fields: [
      ["resourceType", "int8", "0+"],
      ["resourceName", "string", "0+"],
      ["configs", "[]struct", "0+", { fields: [
        ["name", "string", "0+"],
        ["configOperation", "int8", "0+"],
        ["value", "string", "0+", { nullable: "0+" }],
      ] }],
    ] }],
    ["validateOnly", "bool", "0+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["responses", "[]struct", "0+", { fields: [
      ["errorCode", "int16", "0+"],
      ["errorMessage", "string", "0+", { nullable: "0+" }],
      ["resourceType", "int8", "0+"],
      ["resourceName", "string", "0+"],
    ] }],
  ],
};


/** Request v1 names the endpoint type described (1 brokers, 2 controllers); v2 (fenced brokers) is not served. */
export const describeCluster: MessageSchema = {
  apiKey: 60,
  name: "DescribeCluster",
  versions: [0, 2],
  flexibleFrom: 0,
  request: [
    ["includeClusterAuthorizedOperations", "bool", "0+"],
    ["endpointType", "int8", "1+", { default: "1" }],
    // v2 (KIP-1073): the gateway is the cluster's one broker and never fenced, so there is none to include.
    ["includeFencedBrokers", "bool", "2+"],
  ],
  response: [
    ["throttleTimeMs", "int32", "0+"],
    ["errorCode", "int16", "0+"],
    ["errorMessage", "string", "0+", { nullable: "0+", default: "null" }],
    ["endpointType", "int8", "1+", { default: "1" }],
    ["clusterId", "string", "0+"],
    ["controllerId", "int32", "0+", { default: "-1" }],
    ["brokers", "[]struct", "0+", { fields: [
      ["brokerId", "int32", "0+"],
      ["host", "string", "0+"],
      ["port", "int32", "0+"],
      ["rack", "string", "0+", { nullable: "0+", default: "null" }],
      ["isFenced", "bool", "2+"],
    ] }],
    ["clusterAuthorizedOperations", "int32", "0+", { default: "-2147483648" }],
  ],
};
