/**
 * The invariants the replication simulation checks after every step, written against what
 * the replicas hold (their stores, decoded) and what clients were told, independently of the
 * code under test:
 *
 * - high watermark: a replica's never decreases — except by a truncation, which must never
 *   take it below a record that was acknowledged;
 * - acknowledged records (acks "all"): every replica that believes it leads an epoch at or
 *   after the acknowledgement holds each of them at its offset, same epoch and bytes (value);
 *   every replica in the controller's ISR holds them (the ISR is what elections choose from);
 *   every replica whose high watermark covers one holds it (a fetch there would serve it);
 * - agreement: any two replicas hold the same records (offset, epoch, value) below the
 *   smaller of their high watermarks;
 * - committed records: a record once below some replica's high watermark (a fetch there
 *   could serve it) is never replaced — every replica's records below its high watermark are
 *   the first ever seen there — and every replica in the controller's ISR holds them all;
 * - epochs: a replica's leader epoch never goes back (across restarts too) nor passes the
 *   controller's; the controller's epochs never go back;
 * - leadership: at most one replica believes it leads a given epoch, and it is the one the
 *   controller elected for it.
 * Each violation throws a plain Error that says what was found.
 */

import type { PartitionState } from "../../src/replication/partition-state.ts";
import type { ReplicaNode } from "../../src/replication/replica-node.ts";
import { RecordSequence } from "./replication-sim-log-view.ts";
import type { LogView } from "./replication-sim-log-view.ts";

/** One acknowledged acks-"all" produce: records baseOffset..lastOffset with these values. */
export interface AckedWrite {
  values: string[];
  baseOffset: number;
  lastOffset: number;
  /** The epoch the records were written in. */
  epoch: number;
  /** The leader epoch that acknowledged them: later than `epoch` for a retry answered with its original offsets. */
  ackedInEpoch: number;
  leader: string;
}

export interface CheckedReplica {
  region: string;
  node: ReplicaNode;
  view: LogView;
  crashed: boolean;
}

export interface CheckedWorld {
  replicas: readonly CheckedReplica[];
  controller: PartitionState;
  /** The leader the controller elected for each epoch. */
  electedLeaders: ReadonlyMap<number, string>;
  acked: readonly AckedWrite[];
}

function fail(message: string): never {
  throw new Error(message);
}

/** How far into the acked list a replica is known to hold every write, at which store state. */
interface HeldPrefix {
  truncations: number;
  count: number;
}

export class ReplicationChecks {
  readonly #highWatermarks = new Map<string, number>();
  readonly #truncations = new Map<string, number>();
  readonly #epochs = new Map<string, number>();
  readonly #held = new Map<string, HeldPrefix>();
  /** Every offset ever below some replica's high watermark, with the record first seen there. */
  readonly #committed = new RecordSequence();
  #controllerEpoch = -1;
  #partitionEpoch = -1;
  /** High watermarks lowered by a truncation that cut no acknowledged record (allowed, but counted). */
  highWatermarkDrops = 0;

  check(world: CheckedWorld): void {
    for (const replica of world.replicas) replica.view.sync();
    this.#checkController(world);
    for (const replica of world.replicas) {
      this.#checkBounds(replica);
      this.#checkHighWatermark(replica, world.acked);
      this.#checkEpoch(replica, world);
    }
    this.#checkLeaders(world);
    this.#checkAgreement(world.replicas);
    this.#checkAcked(world);
    this.#checkCommitted(world);
  }

  #checkCommitted({ replicas, controller }: CheckedWorld): void {
    const committed = this.#committed;
    for (const { region, node, view } of replicas) {
      const highWatermark = node.log.highWatermark;
      const below = Math.min(highWatermark, committed.length);
      if (!view.agreesBelow(committed, below)) {
        const at = view.firstDifference(committed, below);
        fail(`${region} (hw ${highWatermark}) serves ${view.describe(at)} at ${at}, where ${committed.describe(at)} was committed before`);
      }
      for (let offset = committed.length; offset < highWatermark; offset++) committed.push(view.values[offset]!, view.epochs[offset]!);
    }
    for (const { region, view } of replicas) {
      if (!controller.isr.includes(region)) continue;
      if (view.length >= committed.length && view.agreesBelow(committed, committed.length)) continue;
      const differs = view.firstDifference(committed, Math.min(view.length, committed.length));
      const first = differs >= 0 ? differs : view.length;
      fail(`${region} is in the controller's ISR [${controller.isr.join(",")}] without committed ${committed.describe(first)} at ${first}: it holds ${view.describe(first)}`);
    }
  }

  #checkController({ controller }: CheckedWorld): void {
    if (controller.leaderEpoch < this.#controllerEpoch) fail(`controller leader epoch went back: ${this.#controllerEpoch} → ${controller.leaderEpoch}`);
    if (controller.partitionEpoch < this.#partitionEpoch) fail(`controller partition epoch went back: ${this.#partitionEpoch} → ${controller.partitionEpoch}`);
    this.#controllerEpoch = controller.leaderEpoch;
    this.#partitionEpoch = controller.partitionEpoch;
  }

  #checkBounds({ region, node, view }: CheckedReplica): void {
    const { log } = node;
    if (view.length !== log.logEndOffset) fail(`${region}: log end ${log.logEndOffset} but ${view.length} records stored`);
    if (log.highWatermark > log.logEndOffset || log.highWatermark < log.logStartOffset) {
      fail(`${region}: high watermark ${log.highWatermark} outside [${log.logStartOffset}, ${log.logEndOffset}]`);
    }
  }

  #checkHighWatermark({ region, node, view }: CheckedReplica, acked: readonly AckedWrite[]): void {
    const highWatermark = node.log.highWatermark;
    const before = this.#highWatermarks.get(region) ?? 0;
    const truncations = view.store.truncations;
    const truncated = truncations !== (this.#truncations.get(region) ?? 0);
    this.#highWatermarks.set(region, highWatermark);
    this.#truncations.set(region, truncations);
    if (highWatermark >= before) return;
    if (!truncated) fail(`${region}: high watermark went back from ${before} to ${highWatermark} without a truncation`);
    const cut = acked.find((write) => write.lastOffset >= highWatermark && write.baseOffset < before);
    if (cut) {
      fail(`${region}: a truncation took the high watermark from ${before} to ${highWatermark}, below acknowledged ${describeWrite(cut)}`);
    }
    this.highWatermarkDrops += 1;
  }

  #checkEpoch({ region, node }: CheckedReplica, { controller }: CheckedWorld): void {
    const epoch = node.leaderEpoch;
    const before = this.#epochs.get(region) ?? -Infinity;
    if (epoch < before) fail(`${region}: leader epoch went back from ${before} to ${epoch}`);
    if (epoch > controller.leaderEpoch) fail(`${region}: leader epoch ${epoch} is past the controller's ${controller.leaderEpoch}`);
    this.#epochs.set(region, epoch);
  }

  #checkLeaders({ replicas, electedLeaders }: CheckedWorld): void {
    const leaders = new Map<number, string>();
    for (const { region, node, crashed } of replicas) {
      if (crashed || !node.isLeader) continue;
      const epoch = node.leaderEpoch;
      const other = leaders.get(epoch);
      if (other !== undefined) fail(`both ${other} and ${region} believe they lead epoch ${epoch}`);
      leaders.set(epoch, region);
      const elected = electedLeaders.get(epoch);
      if (elected !== region) fail(`${region} believes it leads epoch ${epoch}, which the controller gave to ${elected ?? "nobody"}`);
    }
  }

  #checkAgreement(replicas: readonly CheckedReplica[]): void {
    for (let i = 0; i < replicas.length; i++) {
      for (let j = i + 1; j < replicas.length; j++) {
        const a = replicas[i]!;
        const b = replicas[j]!;
        const below = Math.min(a.node.log.highWatermark, b.node.log.highWatermark);
        if (a.view.agreesBelow(b.view, below)) continue;
        const at = a.view.firstDifference(b.view, below);
        fail(
          `${a.region} (hw ${a.node.log.highWatermark}) and ${b.region} (hw ${b.node.log.highWatermark}) disagree below ${below}: ` +
            `offset ${at} is ${a.view.describe(at)} on ${a.region}, ${b.view.describe(at)} on ${b.region}`,
        );
      }
    }
  }

  #checkAcked(world: CheckedWorld): void {
    const { acked, controller } = world;
    for (const replica of world.replicas) {
      const held = this.#heldPrefix(replica, acked);
      if (held === acked.length) continue;
      const { region, node, view, crashed } = replica;
      const leads = !crashed && node.isLeader;
      const inIsr = controller.isr.includes(region);
      for (let index = held; index < acked.length; index++) {
        const write = acked[index]!;
        const missing = firstMissing(view, write);
        if (missing === undefined) continue;
        const found = `offset ${missing} holds ${view.describe(missing)}`;
        if (leads && node.leaderEpoch >= write.ackedInEpoch) fail(`${region} leads epoch ${node.leaderEpoch} without acknowledged ${describeWrite(write)}: ${found}`);
        if (inIsr) fail(`${region} is in the controller's ISR [${controller.isr.join(",")}] without acknowledged ${describeWrite(write)}: ${found}`);
        if (node.log.highWatermark > missing) {
          fail(`${region}'s high watermark ${node.log.highWatermark} covers acknowledged ${describeWrite(write)}, but ${found}`);
        }
      }
    }
  }

  /** How many acked writes, from the first, the replica holds; appends keep it, a truncation restarts it. */
  #heldPrefix({ region, view }: CheckedReplica, acked: readonly AckedWrite[]): number {
    let held = this.#held.get(region);
    if (!held || held.truncations !== view.store.truncations) held = { truncations: view.store.truncations, count: 0 };
    while (held.count < acked.length && firstMissing(view, acked[held.count]!) === undefined) held.count += 1;
    this.#held.set(region, held);
    return held.count;
  }
}

/** The first offset of `write` this log does not hold as acknowledged (value and epoch), if any. */
function firstMissing(view: LogView, write: AckedWrite): number | undefined {
  for (let offset = write.baseOffset; offset <= write.lastOffset; offset++) {
    if (view.values[offset] !== write.values[offset - write.baseOffset] || view.epochs[offset] !== write.epoch) return offset;
  }
  return undefined;
}

export function describeWrite(write: AckedWrite): string {
  return `${write.values.join(",")} at ${write.baseOffset}..${write.lastOffset} (e${write.epoch}, by ${write.leader})`;
}
