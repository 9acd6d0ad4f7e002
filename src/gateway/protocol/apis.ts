/** Every message layout the codec knows, by API key. */
import * as admin from "./messages-admin.ts";
import * as core from "./messages-core.ts";
import * as consumerGroups from "./messages-consumer-groups.ts";
import * as groups from "./messages-groups.ts";
import * as shareAdmin from "./messages-share-admin.ts";
import * as shareGroups from "./messages-share-groups.ts";
import * as transactions from "./messages-transactions.ts";
import type { MessageSchema } from "./schema.ts";

export const messageSchemas: ReadonlyMap<number, MessageSchema> = new Map(
  [...Object.values(core), ...Object.values(admin), ...Object.values(groups), ...Object.values(consumerGroups), ...Object.values(transactions), ...Object.values(shareGroups), ...Object.values(shareAdmin)].map((schema) => [schema.apiKey, schema]),
);

/** API keys by name, for handler tables (`[apiKeys.Produce]: …`). */
export const apiKeys = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  ListGroups: 16,
  SaslHandshake: 17,
  ApiVersions: 18,
  CreateTopics: 19,
  DeleteTopics: 20,
  DeleteRecords: 21,
  InitProducerId: 22,
  OffsetForLeaderEpoch: 23,
  AddPartitionsToTxn: 24,
  AddOffsetsToTxn: 25,
  EndTxn: 26,
  TxnOffsetCommit: 28,
  DescribeConfigs: 32,
  AlterConfigs: 33,
  DescribeLogDirs: 35,
  SaslAuthenticate: 36,
  CreatePartitions: 37,
  DeleteGroups: 42,
  IncrementalAlterConfigs: 44,
  OffsetDelete: 47,
  DescribeCluster: 60,
  DescribeProducers: 61,
  DescribeTransactions: 65,
  ListTransactions: 66,
  ConsumerGroupHeartbeat: 68,
  ConsumerGroupDescribe: 69,
  ShareGroupHeartbeat: 76,
  ShareGroupDescribe: 77,
  ShareFetch: 78,
  ShareAcknowledge: 79,
  DescribeShareGroupOffsets: 90,
  AlterShareGroupOffsets: 91,
  DeleteShareGroupOffsets: 92,
} as const;
