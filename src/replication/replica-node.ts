import { TributaryError } from "../errors.ts";
import type { AppendResult, PartitionLog } from "../log/partition-log.ts";
import type { ReplicateReply, ReplicateRequest, TruncateReply, TruncateRequest } from "./messages.ts";
import type { PartitionState } from "./partition-state.ts";

/** What one replica believes about its partition: the state the controller gave, or what a leader's push taught it. */
export type ReplicaRole =
  | { kind: "leader"; state: PartitionState }
  | { kind: "follower"; leaderEpoch: number; leader: string | undefined };

/** The leader's view of one follower. */
interface FollowerProgress {
  /** The follower's log end as last confirmed (or the high watermark, assumed at election). */
  logEndOffset: number;
  /** When the follower last reached the leader's log end (Kafka's lastCaughtUpTimeMs). */
  lastCaughtUpMs: number;
}

/** Bounds one push: RPC messages stay far below the platform's 32 MiB. */
export interface PushLimits {
  maxBytes: number;
}

/**
 * One partition replica's replication logic, pure (ARCHITECTURE.md decisions 4 and 5): the
 * leader appends and pushes batches to its followers, fenced by its epoch; a follower
 * refuses an older epoch and reports where its log diverges, and truncates to the leader's
 * epoch boundary (KIP-101); the high watermark is the smallest log end in the ISR the
 * controller holds. The PartitionReplica object drives it over RPC and storage, and the
 * simulation (test/sim) over a fake network and clock.
 */
export class ReplicaNode {
  readonly region: string;
  readonly log: PartitionLog;
  #role: ReplicaRole;
  readonly #followers = new Map<string, FollowerProgress>();

  constructor(region: string, log: PartitionLog, role: ReplicaRole) {
    this.region = region;
    this.log = log;
    this.#role = role;
  }

  get role(): ReplicaRole {
    return this.#role;
  }

  get leaderEpoch(): number {
    return this.#role.kind === "leader" ? this.#role.state.leaderEpoch : this.#role.leaderEpoch;
  }

  get isLeader(): boolean {
    return this.#role.kind === "leader";
  }

  /** The controller's state, when it names this replica the leader at a newer (or the same, fresher) epoch. */
  becomeLeader(state: PartitionState, nowMs: number): boolean {
    if (state.leader !== this.region || !this.#isNewer(state)) return false;
    const wasLeaderOfEpoch = this.#role.kind === "leader" && this.#role.state.leaderEpoch === state.leaderEpoch;
    this.#role = { kind: "leader", state: { ...state, replicas: [...state.replicas], isr: [...state.isr] } };
    if (!wasLeaderOfEpoch) {
      this.#followers.clear();
      for (const replica of state.replicas) {
        if (replica !== this.region) this.#followers.set(replica, { logEndOffset: this.log.highWatermark, lastCaughtUpMs: nowMs });
      }
    }
    this.#updateHighWatermark();
    return true;
  }

  /** Follows `leader` from `leaderEpoch` on, unless this replica already knows a newer epoch. */
  becomeFollower(leaderEpoch: number, leader: string | undefined): boolean {
    if (leaderEpoch < this.leaderEpoch) return false;
    if (leaderEpoch === this.leaderEpoch && this.#role.kind === "follower" && this.#role.leader !== undefined) return false;
    this.#role = { kind: "follower", leaderEpoch, leader };
    this.#followers.clear();
    return true;
  }

  // ---- leader ------------------------------------------------------------------------

  /** The ISR the controller holds, when leading. */
  get inSyncReplicas(): string[] {
    return this.#role.kind === "leader" ? [...this.#role.state.isr] : [];
  }

  /**
   * Appends as the leader of its epoch; a replica that is not the leader refuses. A leader
   * alone in its ISR commits at once: the high watermark moves in the same storage write.
   */
  appendAsLeader(batches: readonly Uint8Array[]): AppendResult {
    const role = this.#leaderRole();
    const alone = role.state.isr.length === 1 && role.state.isr[0] === this.region;
    const result = this.log.append(batches, role.state.leaderEpoch, { commit: alone });
    if (!alone) this.#updateHighWatermark();
    return result;
  }

  /** The next push to a follower: what it lacks, up to `limits`; undefined when it is caught up. */
  pushFor(follower: string, limits: PushLimits): ReplicateRequest | undefined {
    const role = this.#leaderRole();
    const progress = this.#followers.get(follower);
    if (!progress) return undefined;
    const from = Math.min(progress.logEndOffset, this.log.logEndOffset);
    // Below the leader's held batches, records live in sealed segments: the follower adopts those (the object's tier) first.
    if (from >= this.log.logEndOffset || from < this.log.localStartOffset) return undefined;
    const { batches } = this.log.read(from, { maxRecords: Number.MAX_SAFE_INTEGER, maxBytes: limits.maxBytes }, this.log.logEndOffset);
    return {
      leader: this.region,
      leaderEpoch: role.state.leaderEpoch,
      prevLogEndOffset: from,
      prevEpoch: from > this.log.logStartOffset ? this.log.epochAt(from - 1) : -1,
      batches: batches.map((batch) => batch.slice()),
      leaderHighWatermark: this.log.highWatermark,
    };
  }

  /**
   * A follower's answer to a push or truncation. Returns the truncation to send when the
   * follower's log diverges, and whether this replica was fenced (it is no longer the leader).
   */
  onReply(follower: string, reply: ReplicateReply, sentAtMs: number, leaderEndAtSend: number): { truncate?: TruncateRequest; fenced: boolean } {
    if (reply.kind === "fenced") {
      this.becomeFollower(reply.leaderEpoch, reply.leader);
      return { fenced: true };
    }
    const role = this.#role;
    const progress = this.#followers.get(follower);
    if (role.kind !== "leader" || !progress) return { fenced: false };
    if (reply.kind === "mismatch") {
      progress.logEndOffset = Math.min(reply.logEndOffset, this.log.logEndOffset);
      return {
        fenced: false,
        truncate: { leader: this.region, leaderEpoch: role.state.leaderEpoch, epochEnd: this.log.endOffsetForEpoch(reply.latestEpoch) },
      };
    }
    progress.logEndOffset = reply.logEndOffset;
    if (reply.logEndOffset >= leaderEndAtSend) progress.lastCaughtUpMs = Math.max(progress.lastCaughtUpMs, sentAtMs);
    this.#updateHighWatermark();
    return { fenced: false };
  }

  /**
   * The ISR this leader should ask the controller for, or undefined when the current one
   * stands: followers behind for longer than `lagMaxMs` leave; followers caught up to the
   * high watermark (and into this epoch) come back.
   */
  proposedIsr(nowMs: number, lagMaxMs: number): string[] | undefined {
    if (this.#role.kind !== "leader") return undefined;
    const { state } = this.#role;
    const isr = state.replicas.filter((replica) => {
      if (replica === this.region) return true;
      const progress = this.#followers.get(replica)!;
      const caughtUp = progress.logEndOffset >= this.log.logEndOffset;
      if (state.isr.includes(replica)) return caughtUp || nowMs - progress.lastCaughtUpMs <= lagMaxMs;
      return progress.logEndOffset >= this.log.highWatermark && progress.logEndOffset >= this.#epochStartOffset() && caughtUp;
    });
    const same = isr.length === state.isr.length && isr.every((replica) => state.isr.includes(replica));
    return same ? undefined : isr;
  }

  /** Whether a follower is so far behind that what it lacks has been sealed away: it must adopt the leader's tier. */
  needsTier(follower: string): boolean {
    const progress = this.#followers.get(follower);
    return progress !== undefined && progress.logEndOffset < this.log.localStartOffset;
  }

  /** Whether a follower is behind the leader's log end (a push is due). */
  isBehind(follower: string): boolean {
    const progress = this.#followers.get(follower);
    return progress !== undefined && progress.logEndOffset < this.log.logEndOffset;
  }

  followers(): string[] {
    return [...this.#followers.keys()];
  }

  // ---- follower ----------------------------------------------------------------------

  /** A push from a leader: fenced by epoch, appended when it continues this log exactly. */
  handleReplicate(request: ReplicateRequest): ReplicateReply {
    const fenced = this.#fence(request.leaderEpoch, request.leader);
    if (fenced) return fenced;
    if (request.prevLogEndOffset !== this.log.logEndOffset || request.prevEpoch !== this.#epochBeforeEnd()) {
      return { kind: "mismatch", logEndOffset: this.log.logEndOffset, latestEpoch: this.log.latestEpoch };
    }
    this.log.appendReplicated(request.batches);
    this.log.advanceHighWatermark(request.leaderHighWatermark);
    return { kind: "ok", logEndOffset: this.log.logEndOffset };
  }

  /** KIP-101: truncate to where this log and the leader's agree, then report the new end. */
  handleTruncate(request: TruncateRequest): TruncateReply {
    const fenced = this.#fence(request.leaderEpoch, request.leader);
    if (fenced) return fenced;
    const { epochEnd } = request;
    let offset = Math.min(epochEnd.endOffset, this.log.logEndOffset);
    if (epochEnd.epoch < 0) offset = Math.min(offset, this.log.logStartOffset);
    else if (epochEnd.epoch !== this.log.latestEpoch) offset = Math.min(offset, this.log.endOffsetForEpoch(epochEnd.epoch).endOffset);
    this.log.truncateFrom(Math.max(offset, this.log.logStartOffset));
    return { kind: "ok", logEndOffset: this.log.logEndOffset };
  }

  // ---- internals ---------------------------------------------------------------------

  #leaderRole(): Extract<ReplicaRole, { kind: "leader" }> {
    if (this.#role.kind !== "leader") {
      throw new TributaryError("NOT_LEADER_OR_FOLLOWER", `replica ${this.region} is not the leader`, { leaderEpoch: this.leaderEpoch });
    }
    return this.#role;
  }

  /** Refuses a message from an older epoch; a newer epoch makes this replica a follower of its sender. */
  #fence(leaderEpoch: number, leader: string): ReplicateReply | undefined {
    if (leaderEpoch < this.leaderEpoch || (leaderEpoch === this.leaderEpoch && this.#role.kind === "leader")) {
      const known = this.#role.kind === "leader" ? this.region : this.#role.leader;
      return { kind: "fenced", leaderEpoch: this.leaderEpoch, leader: known };
    }
    if (leaderEpoch > this.leaderEpoch || this.#role.kind !== "follower" || this.#role.leader !== leader) {
      this.#role = { kind: "follower", leaderEpoch, leader };
      this.#followers.clear();
    }
    return undefined;
  }

  /** The epoch of this log's last record; -1 when the log holds none (empty, or all below its start). */
  #epochBeforeEnd(): number {
    return this.log.logEndOffset > this.log.logStartOffset ? this.log.latestEpoch : -1;
  }

  /** Where this leader's epoch begins in its log: its first batch of the epoch, or its log end when none yet. */
  #epochStartOffset(): number {
    const starts = this.log.epochStarts();
    const current = starts.find((start) => start.epoch === this.leaderEpoch);
    return current ? current.startOffset : this.log.logEndOffset;
  }

  /** The smallest log end in the ISR, the leader's own included; it only moves forward. */
  #updateHighWatermark(): void {
    if (this.#role.kind !== "leader") return;
    let highWatermark = this.log.logEndOffset;
    for (const replica of this.#role.state.isr) {
      if (replica === this.region) continue;
      highWatermark = Math.min(highWatermark, this.#followers.get(replica)?.logEndOffset ?? 0);
    }
    this.log.advanceHighWatermark(highWatermark);
  }

  /** Whether a controller state is newer than what this replica holds (a higher epoch, or the same epoch changed since). */
  #isNewer(state: PartitionState): boolean {
    if (state.leaderEpoch !== this.leaderEpoch) return state.leaderEpoch > this.leaderEpoch;
    if (this.#role.kind !== "leader") return true;
    return state.partitionEpoch > this.#role.state.partitionEpoch;
  }
}
