/**
 * The transaction coordinator simulation's world around the coordinator (test/sim/
 * transaction-coordinator.sim.test.ts): partitions as the contract (/work TXN-CONTRACT,
 * docs/transactions.md) describes their side — the epoch rule, idempotent markers — reduced to
 * what the coordinator's properties need, and groups with the real pending-offsets rules
 * (src/group/transactional-offsets.ts). Writes and markers carry a ghost `serial` the real ones
 * do not: the number of the transaction (the coordinator's nth decision) they belong to, so the
 * checks can tell which transaction a write landed in.
 */
import {
  applyGroupMarker,
  emptyTransactionalOffsets,
  stageOffsets,
  type TransactionalOffsetsState,
} from "../../src/group/transactional-offsets.ts";
import { TributaryError } from "../../src/errors.ts";

export interface SimMarker {
  producerId: number;
  producerEpoch: number;
  result: "commit" | "abort";
  /** Ghost: the decision this marker carries out. */
  serial: number;
}

/** A write a partition accepted, with the transaction (ghost serial) its producer meant it for. */
export interface ClosedTransaction {
  marker: SimMarker;
  writeSerials: number[];
}

/** One partition's transactional state, as the contract's partition side keeps it. */
export class SimPartition {
  readonly highestEpoch = new Map<number, number>();
  /** Per producer id: the serials of the writes of its open transaction. */
  readonly open = new Map<number, number[]>();
  readonly lastMarker = new Map<number, { producerEpoch: number; result: string }>();
  readonly closed: ClosedTransaction[] = [];
  /** Ghost serials of every marker this partition acknowledged (written or found already written). */
  readonly acknowledged = new Set<number>();

  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  write(producerId: number, producerEpoch: number, serial: number): boolean {
    if (producerEpoch < (this.highestEpoch.get(producerId) ?? -1)) return false;
    this.highestEpoch.set(producerId, producerEpoch);
    const writes = this.open.get(producerId) ?? [];
    writes.push(serial);
    this.open.set(producerId, writes);
    return true;
  }

  /** The contract's writeTransactionMarker: idempotent for a retry; refused for an epoch below one the partition saw. */
  marker(marker: SimMarker): boolean {
    const last = this.lastMarker.get(marker.producerId);
    const writes = this.open.get(marker.producerId);
    if (writes === undefined && last?.producerEpoch === marker.producerEpoch && last.result === marker.result) {
      this.acknowledged.add(marker.serial);
      return true;
    }
    if (marker.producerEpoch < (this.highestEpoch.get(marker.producerId) ?? -1)) return false;
    this.highestEpoch.set(marker.producerId, marker.producerEpoch);
    this.closed.push({ marker, writeSerials: writes ?? [] });
    this.open.delete(marker.producerId);
    this.lastMarker.set(marker.producerId, { producerEpoch: marker.producerEpoch, result: marker.result });
    this.acknowledged.add(marker.serial);
    return true;
  }
}

/** A group's transactional offsets through the real rules; each staged offset's value is the ghost serial of its transaction. */
export class SimGroup {
  state: TransactionalOffsetsState = emptyTransactionalOffsets();
  /** Ghost serials whose offsets became the group's committed offsets. */
  readonly committedSerials: number[] = [];
  /** Each marker that ended pending offsets, with the serials of what it ended: all must be its own. */
  readonly landed: { marker: SimMarker; offsetSerials: number[] }[] = [];
  readonly acknowledged = new Set<number>();
  /** Ghost serials of every staged commit the group accepted. */
  readonly stagedSerials = new Set<number>();

  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  commit(producerId: number, producerEpoch: number, serial: number): boolean {
    try {
      this.state = stageOffsets(this.state, { producerId, producerEpoch, offsets: [{ topic: "in", partition: 0, offset: serial, metadata: "" }] });
    } catch (error) {
      if (error instanceof TributaryError && error.code === "INVALID_PRODUCER_EPOCH") return false;
      throw error;
    }
    this.stagedSerials.add(serial);
    return true;
  }

  marker(marker: SimMarker): void {
    const ending = this.state.pending.find((entry) => entry.producerId === marker.producerId && entry.producerEpoch < marker.producerEpoch);
    if (ending) this.landed.push({ marker, offsetSerials: ending.offsets.map((offset) => offset.offset) });
    const applied = applyGroupMarker(this.state, marker);
    this.state = applied.state;
    for (const offset of applied.commit) this.committedSerials.push(offset.offset);
    this.acknowledged.add(marker.serial);
  }
}
