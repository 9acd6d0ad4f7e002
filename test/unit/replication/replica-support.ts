/** Builders shared by the ReplicaNode unit tests: batches, states, nodes, and a sync loop as the object runs it. */
import { expect } from "vitest";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import type { PartitionState } from "../../../src/replication/partition-state.ts";
import { ReplicaNode } from "../../../src/replication/replica-node.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();
export const unlimited = { maxBytes: 1 << 30 };
export const lagMs = 1_000;

export function batch(...values: string[]): Uint8Array {
  return encodeRecordBatch(values.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: 1_000 })));
}

export function state(leader: string, isr: string[], leaderEpoch = 0, partitionEpoch = 0): PartitionState {
  return { leader, replicas: ["wnam", "enam", "weur"], isr, leaderEpoch, partitionEpoch };
}

export function follower(region: string, leaderEpoch = 0, leader: string | undefined = "wnam"): ReplicaNode {
  return new ReplicaNode(region, new PartitionLog(new MemoryLogStore()), { kind: "follower", leaderEpoch, leader });
}

export function leaderOf(partition: PartitionState, nowMs = 0, node = follower(partition.leader, partition.leaderEpoch, undefined)): ReplicaNode {
  expect(node.becomeLeader(partition)).toBe(true);
  return node;
}

/** Every record of the log, as value@epoch. */
export function records(node: ReplicaNode): string[] {
  const { log } = node;
  if (log.logEndOffset === log.logStartOffset) return [];
  const { batches } = log.read(log.logStartOffset, { maxRecords: Number.MAX_SAFE_INTEGER, maxBytes: 1 << 30 }, log.logEndOffset);
  return batches.flatMap((bytes) => {
    const { header, records: decoded } = decodeRecordBatch(bytes);
    return decoded.map((record) => `${text.decode(record.value!)}@e${header.partitionLeaderEpoch}`);
  });
}

/** Pushes until the follower has the leader's log, as the object does: truncations answered in between. */
export function sync(leader: ReplicaNode, to: ReplicaNode, nowMs: number): void {
  for (let round = 0; round < 20; round++) {
    const endAtSend = leader.log.logEndOffset;
    const push = leader.pushFor(to.region, unlimited);
    if (!push) return;
    let result = leader.onReply(to.region, to.handleReplicate(push), endAtSend);
    while (result.truncate) result = leader.onReply(to.region, to.handleTruncate(result.truncate), endAtSend);
    if (result.fenced) return;
  }
  throw new Error("did not catch up in 20 rounds");
}
