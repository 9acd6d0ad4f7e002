/**
 * The versions the gateway advertises, pinned: raising or lowering one is a deliberate change
 * made here and in docs/gateway.md's table (with Kafka 4.4's maximum beside it), not a side
 * effect of editing a layout in ./protocol/messages-*.ts.
 */
import { describe, expect, it } from "vitest";
import { gatewayHandlers } from "../../../src/gateway/all-handlers.ts";
import { apiVersionsAnswer } from "../../../src/gateway/handlers/api-versions.ts";
import { apiKeys } from "../../../src/gateway/protocol/apis.ts";

const names = new Map<number, string>(Object.entries(apiKeys).map(([name, key]): [number, string] => [key, name]));

/** name: [min, max] as advertised. */
const pinned: Record<string, [number, number]> = {
  Produce: [3, 13],
  Fetch: [4, 18],
  ListOffsets: [1, 11],
  Metadata: [0, 13],
  OffsetCommit: [0, 10],
  OffsetFetch: [0, 10],
  FindCoordinator: [0, 6],
  JoinGroup: [0, 9],
  Heartbeat: [0, 4],
  LeaveGroup: [0, 5],
  SyncGroup: [0, 5],
  DescribeGroups: [0, 6],
  ListGroups: [0, 5],
  SaslHandshake: [0, 1],
  ApiVersions: [0, 5],
  CreateTopics: [0, 7],
  DeleteTopics: [0, 6],
  DeleteRecords: [0, 2],
  InitProducerId: [0, 5],
  OffsetForLeaderEpoch: [2, 4],
  AddPartitionsToTxn: [0, 3],
  AddOffsetsToTxn: [0, 4],
  EndTxn: [0, 5],
  TxnOffsetCommit: [0, 6],
  DescribeConfigs: [0, 4],
  AlterConfigs: [0, 2],
  DescribeLogDirs: [0, 5],
  SaslAuthenticate: [0, 2],
  CreatePartitions: [0, 3],
  DeleteGroups: [0, 3],
  IncrementalAlterConfigs: [0, 1],
  OffsetDelete: [0, 0],
  DescribeCluster: [0, 2],
  DescribeProducers: [0, 0],
  DescribeTransactions: [0, 0],
  ListTransactions: [0, 2],
  ConsumerGroupHeartbeat: [0, 1],
  ConsumerGroupDescribe: [0, 1],
  ShareGroupHeartbeat: [1, 1],
  ShareGroupDescribe: [1, 1],
  ShareFetch: [1, 2],
  ShareAcknowledge: [1, 2],
  DescribeShareGroupOffsets: [0, 1],
  AlterShareGroupOffsets: [0, 0],
  DeleteShareGroupOffsets: [0, 0],
};

describe("the gateway's ApiVersions answer", () => {
  it("advertises exactly the pinned APIs at the pinned versions", () => {
    const advertised = Object.fromEntries(
      (apiVersionsAnswer(gatewayHandlers, 0, 4).apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[]).map(({ apiKey, minVersion, maxVersion }) => [names.get(apiKey) ?? String(apiKey), [minVersion, maxVersion]]),
    );
    expect(advertised).toEqual(pinned);
  });

  it("names transaction version 2 as supported and finalized (KIP-890 part 2), the one feature a client acts on here", () => {
    const answer = apiVersionsAnswer(gatewayHandlers, 0, 4);
    expect(answer.supportedFeatures).toEqual([{ name: "transaction.version", minVersion: 0, maxVersion: 2 }]);
    expect(answer.finalizedFeatures).toEqual([{ name: "transaction.version", maxVersionLevel: 2, minVersionLevel: 2 }]);
    expect(answer.finalizedFeaturesEpoch).toBeGreaterThanOrEqual(0n);
  });

  it("leaves a supported feature from 0 out before v4 (finalized still), as Kafka 4.4's broker answers v3", () => {
    // Checked with a raw ApiVersions v3 and v4 against kafka.sh's broker: v3's supported features lack transaction.version (minimum 0), its finalized ones have it.
    const answer = apiVersionsAnswer(gatewayHandlers, 0, 3);
    expect(answer.supportedFeatures).toEqual([]);
    expect(answer.finalizedFeatures).toEqual([{ name: "transaction.version", maxVersionLevel: 2, minVersionLevel: 2 }]);
  });
});
