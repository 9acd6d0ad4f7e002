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
  /** The epoch the records were written in: the leader's, but an older one for a retry answered with its original offsets. */
  recordEpoch: number;
  /** Told once whether the write was acknowledged. */
  answered?: (acked: boolean) => void;
  baseOffset: number;
  lastOffset: number;
  values: string[];
  deadlineMs: number;
}

const utf8 = new TextEncoder();
const text = new TextDecoder();
const answerTimeoutMs = 10_000;

export interface WaitOptions {
  recordEpoch?: number;
  answered?: (acked: boolean) => void;
}

export class SimClients {
  readonly acked: AckedWrite[] = [];
  /** Values a client counts as written without offsets (an idempotent producer's DUPLICATE_SEQUENCE_NUMBER). */
  readonly #ackedWithoutOffsets: string[] = [];
  readonly #pending: PendingWrite[] = [];
  #nextValue = 1;

  /** A value no record has had. */
  value(prefix = "v"): string {
    return `${prefix}${this.#nextValue++}`;
  }

  batches(values: string[][], timestamp: number): Uint8Array[] {
    return values.map((batch) => encodeRecordBatch(batch.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp }))));
  }

  /** An acks-"all" write appended at `replica` (or a retry answered with the offsets of an earlier one), waiting for its answer. */
  wait(replica: SimReplica, baseOffset: number, lastOffset: number, values: string[], nowMs: number, options: WaitOptions = {}): void {
    const { region, incarnation, node } = replica;
    const recordEpoch = options.recordEpoch ?? node.leaderEpoch;
    this.#pending.push({ region, incarnation, epoch: node.leaderEpoch, recordEpoch, answered: options.answered, baseOffset, lastOffset, values, deadlineMs: nowMs + answerTimeoutMs });
  }

  /** Values a client counts as written though the answer carried no offsets: at the end each must be in the log once. */
  ackWithoutOffsets(values: readonly string[]): void {
    this.#ackedWithoutOffsets.push(...values);
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
        const write: AckedWrite = { values: pending.values, baseOffset: pending.baseOffset, lastOffset: pending.lastOffset, epoch: pending.recordEpoch, ackedInEpoch: pending.epoch, leader: pending.region };
        this.acked.push(write);
        acked.push(write);
        pending.answered?.(true);
      } else if (nowMs > pending.deadlineMs) {
        // As the object: an ISR below the minimum waits for followers to rejoin, until the deadline.
        outcome = node.inSyncReplicas.length < minInsync ? "NOT_ENOUGH_REPLICAS after append" : "REQUEST_TIMED_OUT";
      } else continue;
      if (outcome !== undefined) {
        refused.push(`produce ${pending.values.join(",")} at ${pending.baseOffset}..${pending.lastOffset} answered ${outcome}`);
        pending.answered?.(false);
      }
      this.#pending.splice(index, 1);
    }
    return { acked, refused };
  }

  /** Every acknowledged write, read back below the high watermark: each where it was acknowledged, no value twice; values acknowledged without offsets anywhere, once. */
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
    const missing = this.#ackedWithoutOffsets.filter((value) => !seen.has(value));
    if (missing.length > 0) throw new Error(`settle: ${missing.join(",")} answered DUPLICATE_SEQUENCE_NUMBER (counted as written) but not in the log`);
  }
}
