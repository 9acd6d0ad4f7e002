import { TributaryError } from "../errors.ts";
import type { AppendResult, PartitionLog } from "../log/partition-log.ts";
import type { ReplicateReply, ReplicateRequest, TruncateReply, TruncateRequest } from "./messages.ts";
import type { PartitionState } from "./partition-state.ts";

/** What one replica believes about its partition: the state the controller gave, or what a leader's push taught it. */
export type ReplicaRole =
  /** `pendingIsr`: an ISR change sent to the controller whose outcome is not known yet (KIP-841's maximal ISR). */
  | { kind: "leader"; state: PartitionState; pendingIsr?: string[] }
  | { kind: "follower"; leaderEpoch: number; leader: string | undefined };

/** The leader's view of one follower, in this leadership. */
interface FollowerProgress {
  /** Where the follower's log is known to match this leader's log: only an "ok" in this leadership moves it. */
  matchedEndOffset: number;
  /** Where the next push starts: the follower's log end as last reported (a guess, the high watermark, at first). */
  nextOffset: number;
  /** Whether the follower has answered in this leadership: only such a follower may rejoin the ISR. */
  heard: boolean;
  /** When the leader first saw it behind its log end, since it was last caught up. */
  behindSinceMs: number | undefined;
  /** The high watermark the follower said it knows in its last "ok" (0 until it answers). */
  highWatermark: number;
}

/**
 * Why a follower is due a sync (an empty push at the leader's log end, carrying the high
 * watermark; `syncFor`):
 * - "probe": this leadership has not heard from it while records wait below the log end — a
 *   restarted or newly elected leader learns where its followers are, and so re-establishes
 *   its high watermark, without waiting for a new write (a Kafka leader learns it from its
 *   followers' fetches); or it is believed at the log end (nothing left to push) without a
 *   confirmed match there. Urgent: sent at once, retried.
 * - "announce": it holds the leader's log (or has not answered this leadership) but knows an
 *   older high watermark than the leader's, which only the next push would carry: a nearby
 *   reader (KIP-392) would be told less than was acknowledged. Sent once pushes have stopped
 *   for a while (the object's alarm), best effort.
 */
export type SyncReason = "probe" | "announce";

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
    if (role.kind === "leader") this.#startLeadership(role.state);
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
  becomeLeader(state: PartitionState): boolean {
    if (state.leader !== this.region || !this.#isNewer(state)) return false;
    const wasLeaderOfEpoch = this.#role.kind === "leader" && this.#role.state.leaderEpoch === state.leaderEpoch;
    // A newer state settles any ISR change in flight: applied, or superseded.
    this.#role = { kind: "leader", state: { ...state, replicas: [...state.replicas], isr: [...state.isr] } };
    if (!wasLeaderOfEpoch) this.#startLeadership(state);
    this.#updateHighWatermark();
    return true;
  }

  /** A new leadership knows nothing of its followers yet: no match confirmed, pushes start at the high watermark. */
  #startLeadership(state: PartitionState): void {
    this.#followers.clear();
    for (const replica of state.replicas) {
      if (replica === this.region) continue;
      this.#followers.set(replica, { matchedEndOffset: 0, nextOffset: this.log.highWatermark, heard: false, behindSinceMs: undefined, highWatermark: 0 });
    }
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
   * An idempotent producer's retry is answered with its original offsets (`duplicate`),
   * nothing written; `nowMs` is the producer's last activity.
   */
  appendAsLeader(batches: readonly Uint8Array[], nowMs?: number): AppendResult {
    const role = this.#leaderRole();
    // Alone in the ISR the controller holds, and in any it may be about to hold.
    const alone = [...role.state.isr, ...(role.pendingIsr ?? [])].every((replica) => replica === this.region);
    const result = this.log.append(batches, role.state.leaderEpoch, { commit: alone, nowMs });
    if (!alone && !result.duplicate) this.#updateHighWatermark();
    return result;
  }

  /** The next push to a follower: what it lacks, up to `limits`; undefined when it is caught up. */
  pushFor(follower: string, limits: PushLimits): ReplicateRequest | undefined {
    const role = this.#leaderRole();
    const progress = this.#followers.get(follower);
    if (!progress) return undefined;
    const from = Math.min(progress.nextOffset, this.log.logEndOffset);
    // Below the leader's held batches, records live in sealed segments: the follower adopts those (the object's tier) first.
    if (from >= this.log.logEndOffset || from < this.log.localStartOffset) return undefined;
    // A log start inside the first held batch (DeleteRecords) is read from there: the same batch, which begins at `from`.
    const { batches } = this.log.read(Math.max(from, this.log.logStartOffset), { maxRecords: Number.MAX_SAFE_INTEGER, maxBytes: limits.maxBytes }, this.log.logEndOffset);
    return {
      leader: this.region,
      leaderEpoch: role.state.leaderEpoch,
      prevLogEndOffset: from,
      prevEpoch: from > this.log.logStartOffset ? this.log.epochAt(from - 1) : -1,
      batches: batches.map((batch) => batch.slice()),
      leaderHighWatermark: this.log.highWatermark,
    };
  }

  /** Whether (and why) a follower is due a sync; undefined when it is not, or this replica does not lead. */
  syncDue(follower: string): SyncReason | undefined {
    const progress = this.#followers.get(follower);
    if (this.#role.kind !== "leader" || !progress) return undefined;
    const { highWatermark, logEndOffset } = this.log;
    if (!progress.heard) {
      if (highWatermark < logEndOffset) return "probe";
      return highWatermark > 0 ? "announce" : undefined;
    }
    // Placed at the log end with nothing to push, but not confirmed there (a truncation or tier answer to check).
    if (progress.nextOffset >= logEndOffset && progress.matchedEndOffset < logEndOffset) return "probe";
    return progress.matchedEndOffset >= logEndOffset && progress.highWatermark < highWatermark ? "announce" : undefined;
  }

  /**
   * A sync for a follower that is due one: no batches, at the leader's log end (as if the
   * follower held all of it), with the high watermark. A follower whose log ends there with
   * the same epoch answers "ok" — its log matches the leader's up to the end, as a push's
   * check proves — and learns the high watermark; any other answers a mismatch, and the
   * usual truncation and pushes follow.
   */
  syncFor(follower: string): ReplicateRequest | undefined {
    if (this.syncDue(follower) === undefined) return undefined;
    const end = this.log.logEndOffset;
    return {
      leader: this.region,
      leaderEpoch: this.leaderEpoch,
      prevLogEndOffset: end,
      prevEpoch: end > this.log.logStartOffset ? this.log.epochAt(end - 1) : -1,
      batches: [],
      leaderHighWatermark: this.log.highWatermark,
    };
  }

  /**
   * What to send a follower next, as the object's push loop sends it: a probe when due, else
   * what it lacks, else — with `announce` (the alarm's turn) — the high watermark when due.
   */
  nextFor(follower: string, limits: PushLimits, announce: boolean): { kind: "push" | SyncReason; request: ReplicateRequest } | undefined {
    const due = this.syncDue(follower);
    if (due === "probe") return { kind: due, request: this.syncFor(follower)! };
    const push = this.pushFor(follower, limits);
    if (push) return { kind: "push", request: push };
    if (due === "announce" && announce) return { kind: due, request: this.syncFor(follower)! };
    return undefined;
  }

  /**
   * A follower's answer to a push or truncation. Returns the truncation to send when the
   * follower's log diverges, and whether this replica was fenced (it is no longer the leader).
   * An answer to another leadership's request counts for nothing; a mismatch moves where the
   * next push starts but never the confirmed match (a diverging tail is not progress).
   */
  onReply(follower: string, reply: ReplicateReply, leaderEndAtSend: number): { truncate?: TruncateRequest; fenced: boolean } {
    if (reply.kind === "fenced") {
      this.becomeFollower(reply.leaderEpoch, reply.leader);
      return { fenced: true };
    }
    const role = this.#role;
    const progress = this.#followers.get(follower);
    if (role.kind !== "leader" || !progress || reply.leaderEpoch !== role.state.leaderEpoch) return { fenced: false };
    progress.heard = true;
    if (reply.kind === "mismatch") {
      progress.nextOffset = Math.min(reply.logEndOffset, this.log.logEndOffset);
      progress.matchedEndOffset = Math.min(progress.matchedEndOffset, reply.logEndOffset);
      return {
        fenced: false,
        truncate: {
          leader: this.region,
          leaderEpoch: role.state.leaderEpoch,
          epochEnd: this.log.endOffsetForEpoch(reply.askEpoch),
          followerLogEndOffset: reply.logEndOffset,
          followerLatestEpoch: reply.latestEpoch,
        },
      };
    }
    progress.nextOffset = reply.logEndOffset;
    progress.matchedEndOffset = Math.max(progress.matchedEndOffset, reply.logEndOffset);
    progress.highWatermark = reply.highWatermark ?? 0; // absent from a follower still running the previous version (a deploy under way)
    if (progress.matchedEndOffset >= this.log.logEndOffset || reply.logEndOffset >= leaderEndAtSend) progress.behindSinceMs = undefined;
    this.#updateHighWatermark();
    return { fenced: false };
  }

  /**
   * A follower's answer to adopting this leader's tier (its sealed segments). It says where
   * its log ends, but adopting the tier checks nothing past the segments: beyond its own high
   * watermark its log may diverge from this one (a tail from an older epoch). So the answer
   * counts as a match only up to the follower's high watermark (records below a replica's high
   * watermark are committed, the same on every replica) or what this leadership has already
   * confirmed. Pushes go on from there, but not below this leader's held batches (the follower
   * has adopted what lies below, and a push cannot start there: it would only be sent the tier
   * again); a diverging tail is found as usual, by the push's check.
   */
  onTierInstalled(follower: string, reply: ReplicateReply, leaderEndAtSend: number): { truncate?: TruncateRequest; fenced: boolean } {
    const progress = this.#followers.get(follower);
    if (reply.kind !== "ok" || !progress) return this.onReply(follower, reply, leaderEndAtSend);
    const proven = Math.min(reply.logEndOffset, Math.max(progress.matchedEndOffset, reply.highWatermark ?? 0)); // absent: see onReply
    const outcome = this.onReply(follower, { ...reply, logEndOffset: proven }, leaderEndAtSend);
    progress.nextOffset = Math.max(progress.nextOffset, Math.min(reply.logEndOffset, this.log.localStartOffset));
    return outcome;
  }

  /**
   * The ISR this leader should ask the controller for, or undefined when the current one
   * stands: a follower behind the log end for longer than `lagMaxMs` (counted from when the
   * leader first saw it behind) leaves; a follower that answered in this leadership and whose
   * confirmed log reaches the log end (and so the high watermark and this epoch's start)
   * comes back. Until the controller's answer is known, the high watermark counts every
   * member of every ISR proposed at this partition epoch (one of them may have been accepted).
   */
  proposedIsr(nowMs: number, lagMaxMs: number): string[] | undefined {
    if (this.#role.kind !== "leader") return undefined;
    const { state, pendingIsr } = this.#role;
    const isr = state.replicas.filter((replica) => {
      if (replica === this.region) return true;
      const progress = this.#followers.get(replica)!;
      const caughtUp = progress.matchedEndOffset >= this.log.logEndOffset;
      if (caughtUp) progress.behindSinceMs = undefined;
      else progress.behindSinceMs ??= nowMs;
      if (state.isr.includes(replica)) return caughtUp || nowMs - progress.behindSinceMs! <= lagMaxMs;
      return progress.heard && caughtUp && progress.matchedEndOffset >= this.log.highWatermark && progress.matchedEndOffset >= this.#epochStartOffset();
    });
    const same = isr.length === state.isr.length && isr.every((replica) => state.isr.includes(replica));
    if (same) return undefined;
    // Any proposal sent at this partition epoch may be the one the controller accepts: count them all.
    const union = [...new Set([...(pendingIsr ?? []), ...isr])];
    this.#role = { ...this.#role, pendingIsr: union };
    return isr;
  }

  /** The controller refused an ISR change without saying its state: propose afresh later. */
  clearIsrProposal(): void {
    if (this.#role.kind === "leader" && this.#role.pendingIsr) this.#role = { kind: "leader", state: this.#role.state };
  }

  /** Whether a follower is so far behind that what it lacks has been sealed away: it must adopt the leader's tier. */
  needsTier(follower: string): boolean {
    const progress = this.#followers.get(follower);
    return progress !== undefined && progress.nextOffset < this.log.localStartOffset;
  }

  /** Whether a follower is behind the leader's log end (a push is due). */
  isBehind(follower: string): boolean {
    const progress = this.#followers.get(follower);
    return progress !== undefined && progress.nextOffset < this.log.logEndOffset;
  }

  followers(): string[] {
    return [...this.#followers.keys()];
  }

  // ---- follower ----------------------------------------------------------------------

  /**
   * A push from a leader: fenced by epoch, appended when it continues this log exactly. The
   * batches' idempotent producers are remembered as the leader remembers them (`nowMs`: their
   * last activity), so this replica deduplicates retries once it leads.
   */
  handleReplicate(request: ReplicateRequest, nowMs?: number): ReplicateReply {
    const fenced = this.#fence(request.leaderEpoch, request.leader);
    if (fenced) return fenced;
    if (request.prevLogEndOffset !== this.log.logEndOffset || request.prevEpoch !== this.#epochBeforeEnd()) {
      return this.#mismatch(request.leaderEpoch, this.log.latestEpoch);
    }
    this.log.appendReplicated(request.batches, nowMs);
    this.log.advanceHighWatermark(request.leaderHighWatermark);
    return { kind: "ok", logEndOffset: this.log.logEndOffset, leaderEpoch: request.leaderEpoch, highWatermark: this.log.highWatermark };
  }

  /**
   * KIP-101/KIP-279: truncate to where this log and the leader's agree, then report the new
   * end. A truncation answering a mismatch this log no longer shows (it took records since:
   * a late or repeated message) is ignored with a fresh mismatch. When this log lacks the
   * epoch the leader answered about, it asks again about the largest epoch it has below it
   * (another round) rather than cutting on a guess.
   */
  handleTruncate(request: TruncateRequest): TruncateReply {
    const fenced = this.#fence(request.leaderEpoch, request.leader);
    if (fenced) return fenced;
    const log = this.log;
    if (request.followerLogEndOffset !== log.logEndOffset || request.followerLatestEpoch !== log.latestEpoch) {
      return this.#mismatch(request.leaderEpoch, log.latestEpoch);
    }
    const { epoch, endOffset } = request.epochEnd;
    let offset = Math.min(endOffset, log.logEndOffset);
    if (epoch >= 0) {
      const starts = log.epochStarts();
      if (!starts.some((start) => start.epoch === epoch)) {
        const below = starts.filter((start) => start.epoch < epoch).at(-1);
        if (below) return this.#mismatch(request.leaderEpoch, below.epoch);
        offset = Math.min(offset, starts[0]?.startOffset ?? offset);
      } else {
        offset = Math.min(offset, log.endOffsetForEpoch(epoch).endOffset);
      }
    }
    log.truncateFrom(log.batchBoundaryAtOrBefore(Math.max(offset, log.localStartOffset)));
    return { kind: "ok", logEndOffset: log.logEndOffset, leaderEpoch: request.leaderEpoch, highWatermark: log.highWatermark };
  }

  #mismatch(leaderEpoch: number, askEpoch: number): ReplicateReply {
    return { kind: "mismatch", logEndOffset: this.log.logEndOffset, latestEpoch: this.log.latestEpoch, askEpoch, leaderEpoch };
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

  /**
   * The smallest confirmed log end in the ISR the controller holds — and in a proposed one
   * while the controller decides (it may already hold it) — the leader's own included; it
   * only moves forward.
   */
  #updateHighWatermark(): void {
    if (this.#role.kind !== "leader") return;
    const { state, pendingIsr } = this.#role;
    let highWatermark = this.log.logEndOffset;
    for (const replica of new Set([...state.isr, ...(pendingIsr ?? [])])) {
      if (replica === this.region) continue;
      highWatermark = Math.min(highWatermark, this.#followers.get(replica)?.matchedEndOffset ?? 0);
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
