/**
 * One partition of the transactions-under-replication simulation
 * (transaction-replication.sim.test.ts): the replication simulation's world as it is
 * (replication-sim-world.ts, its faults, controller, non-transactional and idempotent clients,
 * its checks after each of its steps, its settling phase) over the real ReplicaNode and
 * PartitionLog, plus the two appends a transaction makes: a transactional producer's batch and
 * the coordinator's marker, both at the leader the metadata names (or, stale, any replica) and
 * both answered as the object answers an acks=all append — once the leader's high watermark
 * covers them (replication-sim-clients.ts), which registers them as acknowledged writes the
 * replication checks then hold every replica to.
 *
 * Record values carry the transaction's ghost serial (`s<serial>-…`); a marker's coordinator
 * epoch is the serial of the decision it carries out: the checks can tell, from the bytes
 * alone, which transaction a write was meant for and which decision closed it.
 */

import { TributaryError } from "../../src/errors.ts";
import type { ReadResult } from "../../src/log/partition-log.ts";
import { encodeControlBatch, markerValue } from "../../src/protocol/control-batch.ts";
import { encodeRecordBatch } from "../../src/protocol/record-batch.ts";
import { ReplicationSim } from "./replication-sim-phases.ts";
import type { LogFactory, SimReplica } from "./replication-sim-replica.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();

export interface TransactionalWrite {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  values: string[];
}

export interface MarkerWrite {
  producerId: number;
  producerEpoch: number;
  result: "commit" | "abort";
  serial: number;
}

/** Told once: acknowledged (the high watermark covers it), or refused with a code. */
export type Answered = (outcome: { ok: true } | { ok: false; code: string }) => void;

/** What the stored marker record's value reads as in a LogView: how the replication checks know a marker. */
export function markerText(serial: number): string {
  return text.decode(markerValue(serial));
}

export class TxnPartition extends ReplicationSim {
  readonly name: string;

  constructor(name: string, seed: number, makeLog?: LogFactory) {
    super(seed, makeLog);
    this.name = name;
    // Three partitions, each as often down and as busy as the replication simulation's one, would leave few transactions whole.
    this.faultScale = 0.2;
    this.clientScale = 0.3;
  }

  get now(): number {
    return this.nowMs;
  }

  /** The world's clock moves every partition's: time never goes back for any of them. */
  set now(nowMs: number) {
    this.nowMs = Math.max(this.nowMs, nowMs);
  }

  get leaderRegion(): string {
    return this.controller.state.leader;
  }

  replicaAt(region: string): SimReplica {
    return this.replica(region);
  }

  /** A transactional producer's batch, appended at the leader as an acks=all produce. */
  appendTransactional(write: TransactionalWrite, answered: Answered): void {
    const batch = encodeRecordBatch(
      write.values.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: this.nowMs })),
      { producerId: write.producerId, producerEpoch: write.producerEpoch, baseSequence: write.baseSequence, transactional: true },
    );
    this.#append(`txn write p${write.producerId} e${write.producerEpoch} seq ${write.baseSequence} [${write.values.join(",")}]`, [batch], write.values, answered);
  }

  /** The coordinator's marker (coordinator epoch: the decision's serial), appended as the object's writeTransactionMarker does: acks=all. */
  appendMarker(marker: MarkerWrite, answered: Answered): void {
    const batch = encodeControlBatch({ producerId: marker.producerId, producerEpoch: marker.producerEpoch, result: marker.result, coordinatorEpoch: marker.serial }, this.nowMs);
    this.#append(`marker ${marker.result} p${marker.producerId} e${marker.producerEpoch} #${marker.serial}`, [batch], [markerText(marker.serial)], answered);
  }

  #append(request: string, batches: Uint8Array[], values: string[], answered: Answered): void {
    const replica = this.replica(this.random.chance(0.9) ? this.controller.state.leader : this.random.pick(this.replicas).region);
    if (!this.canAppend(replica, `${request} to ${replica.region}`, true)) return answered({ ok: false, code: "NOT_LEADER_OR_FOLLOWER" });
    try {
      const result = replica.node.appendAsLeader(batches, this.nowMs);
      const epoch = result.duplicate ? replica.node.log.epochAt(result.baseOffset) : replica.node.leaderEpoch;
      this.say(`${request}: ${result.duplicate ? "a retry of" : "appended at"} ${result.baseOffset}..${result.lastOffset} (e${epoch})`);
      this.clients.wait(replica, result.baseOffset, result.lastOffset, values, this.nowMs, {
        recordEpoch: epoch,
        answered: (acked) => answered(acked ? { ok: true } : { ok: false, code: "REQUEST_TIMED_OUT" }),
      });
      this.kick(replica);
    } catch (error) {
      if (!(error instanceof TributaryError)) throw error;
      this.say(`${request}: ${error.code} (${error.message})`);
      answered({ ok: false, code: error.code });
    }
    this.afterStep();
  }

  /** A read at `region` from offset 0 up to its last stable offset (or `upTo`: an injected bug), as PartitionReplica.read serves read_committed; undefined when unreachable. */
  readCommitted(region: string, upTo?: number): { result: ReadResult; lastStableOffset: number } | undefined {
    const replica = this.replica(region);
    if (replica.crashed || replica.isolated) return undefined;
    const { log } = replica.node;
    const lastStableOffset = Math.min(upTo ?? log.lastStableOffset, log.logEndOffset);
    const result = log.read(log.logStartOffset, { maxRecords: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER }, lastStableOffset);
    return { result, lastStableOffset };
  }

  /** A round of the healed protocol after settling: the controller's and leaders' timers, every message delivered. */
  pump(): void {
    this.controllerTimer(false);
    this.deliverAll();
    for (const replica of this.replicas.filter((candidate) => !candidate.crashed && candidate.node.isLeader)) this.leaderTimer(replica);
    this.deliverAll();
    this.nowMs += Math.ceil(this.lagMaxMs / 4);
    this.afterStep();
  }
}
