/**
 * The gateway's own handlers by API key (everything but consumer groups, which
 * src/gateway/groups/ adds). ApiVersions is answered by the connection itself.
 */
import type { GatewayHandler, GatewayHandlers, GatewayRunHandler } from "../handler-types.ts";
import { apiKeys } from "../protocol/apis.ts";
import { alterConfigs, describeConfigs, incrementalAlterConfigs } from "./configs.ts";
import { deleteRecords } from "./delete-records.ts";
import { describeCluster } from "./describe-cluster.ts";
import { describeLogDirs } from "./describe-log-dirs.ts";
import { describeProducers } from "./describe-producers.ts";
import { fetch } from "./fetch.ts";
import { findCoordinator } from "./find-coordinator.ts";
import { initProducerId } from "./init-producer-id.ts";
import { listOffsets } from "./list-offsets.ts";
import { metadata } from "./metadata.ts";
import { offsetForLeaderEpoch } from "./offset-for-leader-epoch.ts";
import { produce } from "./produce.ts";
import { saslAuthenticate, saslHandshake } from "./sasl.ts";
import { createPartitions, createTopics, deleteTopics } from "./topics-admin.ts";
import { addOffsetsToTxn, addPartitionsToTxn, endTxn, txnOffsetCommit } from "./transactions.ts";
import { describeTransactions, listTransactions } from "./transactions-admin.ts";

const handler = <Request>(answer: GatewayHandler<Request, unknown>) => answer as GatewayHandler<never, unknown>;
const runHandler = <Request>(answer: GatewayRunHandler<Request, unknown>) => answer as GatewayRunHandler<never, unknown>;

export const coreHandlers: GatewayHandlers = {
  [apiKeys.Produce]: runHandler(produce),
  [apiKeys.Fetch]: handler(fetch),
  [apiKeys.ListOffsets]: handler(listOffsets),
  [apiKeys.Metadata]: handler(metadata),
  [apiKeys.FindCoordinator]: handler(findCoordinator),
  [apiKeys.SaslHandshake]: handler(saslHandshake),
  [apiKeys.SaslAuthenticate]: handler(saslAuthenticate),
  [apiKeys.CreateTopics]: handler(createTopics),
  [apiKeys.DeleteTopics]: handler(deleteTopics),
  [apiKeys.InitProducerId]: handler(initProducerId),
  [apiKeys.DescribeConfigs]: handler(describeConfigs),
  [apiKeys.AlterConfigs]: handler(alterConfigs),
  [apiKeys.CreatePartitions]: handler(createPartitions),
  [apiKeys.IncrementalAlterConfigs]: handler(incrementalAlterConfigs),
  [apiKeys.OffsetForLeaderEpoch]: handler(offsetForLeaderEpoch),
  [apiKeys.DescribeCluster]: handler(describeCluster),
  [apiKeys.DescribeLogDirs]: handler(describeLogDirs),
  [apiKeys.AddPartitionsToTxn]: handler(addPartitionsToTxn),
  [apiKeys.AddOffsetsToTxn]: handler(addOffsetsToTxn),
  [apiKeys.EndTxn]: handler(endTxn),
  [apiKeys.TxnOffsetCommit]: handler(txnOffsetCommit),
  [apiKeys.DescribeTransactions]: handler(describeTransactions),
  [apiKeys.ListTransactions]: handler(listTransactions),
  [apiKeys.DescribeProducers]: handler(describeProducers),
  [apiKeys.DeleteRecords]: handler(deleteRecords),
};
