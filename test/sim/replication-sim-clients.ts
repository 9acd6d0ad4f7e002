/**
 * The clients of the replication simulation: unique record values (so a record is known by
 * its bytes wherever it is), acks-"all" produces waiting for their answer, the writes
 * acknowledged, and the final read-back. A produce is answered as the object answers it:
 * acknowledged once the replica that appended is still the leader of that epoch, in the same
 * incarnation (a crash loses the waiting request), its high watermark covers the write and
 * its ISR has min.insync.replicas members.
 */

import type { PartitionLog } from "../../src/log/partition-log.ts";
import { encodeRecordBatch } from "../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../src/protocol/record-batch-decode.ts";
import { describeWrite } from "./replication-sim-checks.ts";
import type { AckedWrite } from "./replication-sim-checks.ts";
import type { SimReplica } from "./replication-sim-replica.ts";

interface PendingWrite {
  region: string;
  incarnation: number;
  epoch: number;
  baseOffset: number;
  lastOffset: number;
  values: string[];
  deadlineMs: number;
}

const utf8 = new TextEncoder();
const text = new TextDecoder();
const answerTimeoutMs = 10_000;

export class SimClients {
  readonly acked: AckedWrite[] = [];
  readonly #pending: PendingWrite[] = [];
  #nextValue = 1;

  /** A value no record has had. */
  value(prefix = "v"): string {
    return `${prefix}${this.#nextValue++}`;
  }

  batches(values: string[][], timestamp: number): Uint8Array[] {
    return values.map((batch) => encodeRecordBatch(batch.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp }))));
  }

  /** An acks-"all" write appended at `replica`, waiting for its answer. */
  wait(replica: SimReplica, baseOffset: number, lastOffset: number, values: string[], nowMs: number): void {
    const { region, incarnation, node } = replica;
    this.#pending.push({ region, incarnation, epoch: node.leaderEpoch, baseOffset, lastOffset, values, deadlineMs: nowMs + answerTimeoutMs });
  }

  isPending(value: string): boolean {
    return this.#pending.some((pending) => pending.values.includes(value));
  }

  isAcked(value: string): boolean {
    return this.acked.some((write) => write.values.includes(value));
  }

  /** Answers every waiting write whose outcome is known; returns one line per answer. */
  answer(replicaOf: (region: string) => SimReplica, minInsync: number, nowMs: number): { acked: AckedWrite[]; refused: string[] } {
    const acked: AckedWrite[] = [];
    const refused: string[] = [];
    for (let index = this.#pending.length - 1; index >= 0; index--) {
      const pending = this.#pending[index]!;
      const replica = replicaOf(pending.region);
      const { node } = replica;
      let outcome: string | undefined;
      if (replica.crashed || replica.incarnation !== pending.incarnation) outcome = "lost with its leader's restart";
      else if (!node.isLeader || node.leaderEpoch !== pending.epoch) outcome = "NOT_LEADER_OR_FOLLOWER";
      else if (node.log.highWatermark > pending.lastOffset && node.inSyncReplicas.length >= minInsync) {
        const write: AckedWrite = { values: pending.values, baseOffset: pending.baseOffset, lastOffset: pending.lastOffset, epoch: pending.epoch, leader: pending.region };
        this.acked.push(write);
        acked.push(write);
      } else if (nowMs > pending.deadlineMs) {
        // As the object: an ISR below the minimum waits for followers to rejoin, until the deadline.
        outcome = node.inSyncReplicas.length < minInsync ? "NOT_ENOUGH_REPLICAS after append" : "REQUEST_TIMED_OUT";
      } else continue;
      if (outcome !== undefined) refused.push(`produce ${pending.values.join(",")} at ${pending.baseOffset}..${pending.lastOffset} answered ${outcome}`);
      this.#pending.splice(index, 1);
    }
    return { acked, refused };
  }

  /** Every acknowledged write, read back below the high watermark: each where it was acknowledged, no value twice. */
  readBack(log: PartitionLog): void {
    const { batches } = log.read(log.logStartOffset, { maxRecords: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER });
    const readable = new Map<number, string>();
    for (const batch of batches) for (const record of decodeRecordBatch(batch).records) readable.set(record.offset, text.decode(record.value!));
    const seen = new Set<string>();
    for (const value of readable.values()) {
      if (seen.has(value)) throw new Error(`settle: ${value} is readable twice`);
      seen.add(value);
    }
    for (const write of this.acked) {
      write.values.forEach((value, index) => {
        const found = readable.get(write.baseOffset + index);
        if (found !== value) throw new Error(`settle: acknowledged ${describeWrite(write)} reads back ${found ?? "nothing"} at ${write.baseOffset + index}`);
      });
    }
  }
}
