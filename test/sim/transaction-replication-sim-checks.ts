/**
 * The properties of the transactions-under-replication simulation (transaction-replication.sim
 * .test.ts), written against the bytes each replica stores and what readers were handed, not
 * against the transaction state under test:
 *
 * - a replica's log, scanned batch by batch (TxnScan): every marker carries out a durable
 *   decision of the coordinator, exactly (result, producer id and epoch), and is written once;
 *   no write lands in a later transaction (each record's value names the transaction it was
 *   meant for): none after its own transaction's marker, none in a transaction open with
 *   another's records, none closed by another transaction's marker;
 * - a replica's last stable offset never passes its high watermark nor the first offset of a
 *   transaction open in its log (by the scan), and never goes back on that replica unless its
 *   log was truncated (a truncation may take the high watermark back: replication-sim-checks.ts);
 * - a read_committed reader (PartitionReader), reading a replica from offset 0 to its last stable
 *   offset through the real read path (PartitionLog.read, recordsInWindow with the aborted
 *   index as the partition hands it): never sees a record of an aborted or undecided
 *   transaction (aborted read); past a COMMIT marker it has seen every record of that
 *   transaction the replica holds (torn transaction) and every write acknowledged to its
 *   producer (lost committed write); and what it read below a last stable offset is what any
 *   later read there hands out (what readers were given never changes, across leader changes,
 *   whatever a new leader's last stable offset is while its high watermark catches up).
 */

import { decodeControlBatch, isControlBatch, isTransactionalBatch } from "../../src/protocol/control-batch.ts";
import type { AbortedTransaction } from "../../src/protocol/aborted-transactions.ts";
import { readBatchHeader, type DecodedRecord } from "../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../src/protocol/record-batch-decode.ts";
import { recordsInWindow } from "../../src/log/fetched-records.ts";
import type { ObservedStore } from "./replication-sim-log-view.ts";
import type { TxnPartition } from "./transaction-replication-sim-partition.ts";

export interface ScannedMarker {
  serial: number;
  offset: number;
  producerId: number;
  producerEpoch: number;
  result: "commit" | "abort";
}

/** The ghost serial a transactional record's value names (`s<serial>-…`). */
export function serialOf(value: string): number | undefined {
  const match = /^s(\d+)-/.exec(value);
  return match ? Number(match[1]) : undefined;
}

function fail(message: string): never {
  throw new Error(message);
}

const text = new TextDecoder();
const valuesCache = new WeakMap<Uint8Array, string[]>();

function valuesOf(bytes: Uint8Array): string[] {
  let values = valuesCache.get(bytes);
  if (!values) {
    values = decodeRecordBatch(bytes, 0, { checkCrc: false }).records.map((record) => text.decode(record.value!));
    valuesCache.set(bytes, values);
  }
  return values;
}

/** One replica's log read as transactions, incrementally (a truncation restarts the scan). */
export class TxnScan {
  #truncations = -1;
  #end = 0;
  /** Per producer id: the open transaction's first offset and the serials its records name. */
  readonly open = new Map<number, { first: number; serials: Set<number> }>();
  readonly markers = new Map<number, ScannedMarker>();
  /** Per serial: the values of its records in this log. */
  readonly data = new Map<number, string[]>();
  readonly #where: string;
  readonly #checkMarker: (marker: ScannedMarker, where: string) => void;

  constructor(where: string, checkMarker: (marker: ScannedMarker, where: string) => void) {
    this.#where = where;
    this.#checkMarker = checkMarker;
  }

  sync(store: ObservedStore): void {
    if (store.truncations !== this.#truncations) {
      this.#truncations = store.truncations;
      this.#end = 0;
      this.open.clear();
      this.markers.clear();
      this.data.clear();
    }
    for (const batch of store.batchesFrom(this.#end)) {
      if (batch.baseOffset < this.#end) continue;
      this.#scan(batch.bytes, batch.baseOffset);
      this.#end = batch.lastOffset + 1;
    }
  }

  /** The first offset of the oldest transaction open in this log. */
  get firstOpen(): number {
    let first = Infinity;
    for (const open of this.open.values()) first = Math.min(first, open.first);
    return first;
  }

  #scan(bytes: Uint8Array, baseOffset: number): void {
    const header = readBatchHeader(bytes, 0);
    if (!isTransactionalBatch(header.attributes)) return;
    const open = this.open.get(header.producerId);
    if (isControlBatch(header.attributes)) {
      const marker = decodeControlBatch(bytes)!;
      const scanned: ScannedMarker = { serial: marker.coordinatorEpoch, offset: baseOffset, producerId: marker.producerId, producerEpoch: marker.producerEpoch, result: marker.result };
      if (this.markers.has(scanned.serial)) fail(`${this.#where}: transaction #${scanned.serial}'s marker is written twice (at ${this.markers.get(scanned.serial)!.offset} and ${baseOffset})`);
      this.#checkMarker(scanned, this.#where);
      const foreign = [...(open?.serials ?? [])].filter((serial) => serial !== scanned.serial);
      if (foreign.length > 0) fail(`late write: ${this.#where}'s ${scanned.result} marker of transaction #${scanned.serial} at ${baseOffset} closed records of transaction(s) #${foreign.join(", #")}`);
      this.markers.set(scanned.serial, scanned);
      this.open.delete(header.producerId);
      return;
    }
    const entry = open ?? { first: baseOffset, serials: new Set<number>() };
    this.open.set(header.producerId, entry);
    for (const value of valuesOf(bytes)) {
      const serial = serialOf(value) ?? fail(`${this.#where}: transactional record ${value} names no transaction`);
      const ended = this.markers.get(serial);
      if (ended) fail(`late write: ${value} landed at ${baseOffset} in ${this.#where}, after its transaction #${serial}'s ${ended.result} marker at ${ended.offset}`);
      const other = [...entry.serials].find((candidate) => candidate !== serial);
      if (other !== undefined) fail(`late write: ${value} of transaction #${serial} landed at ${baseOffset} in ${this.#where}, in the open transaction of #${other}`);
      entry.serials.add(serial);
      const values = this.data.get(serial) ?? [];
      values.push(value);
      this.data.set(serial, values);
    }
  }
}

/** A replica's last stable offset against its high watermark, its log's open transactions, and its own past. */
export class LsoCheck {
  #last = -1;
  #truncations = -1;

  check(where: string, lso: number, highWatermark: number, scan: TxnScan, truncations: number): void {
    if (lso > highWatermark) fail(`LSO passes the high watermark: ${where}'s last stable offset ${lso} > high watermark ${highWatermark}`);
    const firstOpen = scan.firstOpen;
    if (lso > firstOpen) fail(`LSO passes an open transaction: ${where}'s last stable offset ${lso} > ${firstOpen}, where a transaction open in its log begins`);
    if (lso < this.#last && truncations === this.#truncations) fail(`LSO went back: ${where}'s last stable offset ${this.#last} → ${lso} without a truncation`);
    this.#last = lso;
    this.#truncations = truncations;
  }
}

/**
 * How a reader may be wrong (an injected bug): it ignores the aborted index, pages through the
 * log resuming one past where a page ended (a record skipped per page), or reads a follower up
 * to the leader's last stable offset (not the follower's own).
 */
export type ReaderBug = "reader-ignores-aborted" | "reader-pages-off-by-one" | "follower-read-to-leader-lso";

/** What a reader needs of the world: the decision of each transaction, the writes acknowledged to producers. */
export interface ReaderWorld {
  decision(serial: number): "commit" | "abort" | undefined;
  /** Values acknowledged to transactional producers on this partition, by serial. */
  acked(partition: string, serial: number): readonly string[];
}

/** A read_committed reader of one partition: reads a replica from 0 to its last stable offset and checks what it got. */
export class PartitionReader {
  /** Per offset: the record first handed out there below a last stable offset. */
  readonly #stable = new Map<number, string>();
  readonly #bug: ReaderBug | undefined;
  reads = 0;
  /** Reads past a COMMIT marker of a transaction with records on the partition: what the torn and lost checks bite on. */
  pastCommits = 0;

  constructor(bug?: ReaderBug) {
    this.#bug = bug;
  }

  read(partition: TxnPartition, region: string, scan: TxnScan, world: ReaderWorld): void {
    const leader = partition.replicaAt(partition.leaderRegion);
    const upTo = this.#bug === "follower-read-to-leader-lso" && region !== leader.region && !leader.crashed ? leader.node.log.lastStableOffset : undefined;
    const read = partition.readCommitted(region, upTo);
    if (!read) return;
    this.reads += 1;
    const { result, lastStableOffset } = read;
    const where = `${partition.name} at ${region}`;
    const records = this.#bug === "reader-pages-off-by-one" ? this.#pages(partition, region, result.logStartOffset, lastStableOffset) : recordsInWindow(result.batches, {
      fromOffset: result.logStartOffset,
      untilOffset: lastStableOffset,
      abortedTransactions: this.#aborted(result.abortedTransactions),
      maxRecords: Number.MAX_SAFE_INTEGER,
      maxBytes: Number.MAX_SAFE_INTEGER,
    }).records;
    const seen = new Set<string>();
    for (const record of records) {
      const value = text.decode(record.value!);
      const before = this.#stable.get(record.offset);
      if (before !== undefined && before !== value) fail(`LSO went back: a reader of ${where} got ${value} at ${record.offset}, where ${before} was read below an earlier last stable offset`);
      this.#stable.set(record.offset, value);
      seen.add(value);
      const serial = serialOf(value);
      if (serial === undefined) continue;
      const decision = world.decision(serial);
      if (decision !== "commit") fail(`aborted read: a read_committed reader of ${where} (LSO ${lastStableOffset}) got ${value} at ${record.offset}, of transaction #${serial} (${decision ?? "undecided"})`);
    }
    for (const marker of scan.markers.values()) {
      if (marker.offset >= lastStableOffset || marker.result !== "commit") continue;
      const held = scan.data.get(marker.serial) ?? [];
      if (held.length > 0) this.pastCommits += 1;
      const unseen = held.filter((value) => !seen.has(value));
      if (unseen.length > 0) fail(`torn transaction: a reader of ${where} read past transaction #${marker.serial}'s COMMIT at ${marker.offset} without its ${unseen.join(",")} (saw ${held.length - unseen.length} of its ${held.length})`);
      const lost = world.acked(partition.name, marker.serial).filter((value) => !seen.has(value));
      if (lost.length > 0) fail(`lost committed write: a reader of ${where} read past transaction #${marker.serial}'s COMMIT at ${marker.offset}, without acknowledged ${lost.join(",")}`);
    }
  }

  #aborted(aborted: AbortedTransaction[] | undefined): AbortedTransaction[] | undefined {
    return this.#bug === "reader-ignores-aborted" ? undefined : aborted;
  }

  /** The bug's reader: pages of two records, each next page from one past where the last ended. */
  #pages(partition: TxnPartition, region: string, from: number, until: number): DecodedRecord[] {
    const { log } = partition.replicaAt(region).node;
    const records: DecodedRecord[] = [];
    for (let offset = from; offset < until;) {
      const page = log.read(offset, { maxRecords: 2, maxBytes: Number.MAX_SAFE_INTEGER }, until);
      const window = recordsInWindow(page.batches, { fromOffset: offset, untilOffset: until, abortedTransactions: page.abortedTransactions, maxRecords: 2, maxBytes: Number.MAX_SAFE_INTEGER });
      records.push(...window.records);
      if (window.nextOffset <= offset) break;
      offset = window.nextOffset + 1;
    }
    return records;
  }
}
