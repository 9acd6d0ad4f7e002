import type { EpochEnd } from "../log/partition-log.ts";

/** A leader's push of batches to a follower (ARCHITECTURE.md decision 5), fenced by its epoch. */
export interface ReplicateRequest {
  leader: string;
  leaderEpoch: number;
  /** The follower's log end the leader believes in: the first batch's base offset. */
  prevLogEndOffset: number;
  /** The epoch of the leader's record just before prevLogEndOffset (-1 when none): the follower's must match (Raft's log-matching check). */
  prevEpoch: number;
  /** Batches as the leader stores them (offsets and epochs set); may be empty (a sync: ReplicaNode.syncFor). */
  batches: Uint8Array[];
  leaderHighWatermark: number;
}

export type ReplicateReply =
  /**
   * Appended (or truncated to the common point): the follower's log now ends here and matches
   * the leader's up to it. `leaderEpoch` echoes the request's; `highWatermark` is the one the
   * follower now knows (what it serves nearby readers up to), so the leader can tell it a newer one.
   */
  | { kind: "ok"; logEndOffset: number; leaderEpoch: number; highWatermark: number }
  /** The follower knows a newer leader epoch: the sender is no longer the leader. */
  | { kind: "fenced"; leaderEpoch: number; leader: string | undefined }
  /** The follower's log does not end at prevLogEndOffset: the leader finds the divergence (KIP-101). */
  | {
      kind: "mismatch";
      logEndOffset: number;
      latestEpoch: number;
      /** The epoch the leader should say the end of (KIP-279's rounds: below latestEpoch when the follower lacks the one asked). */
      askEpoch: number;
      leaderEpoch: number;
    };

/** The leader's answer to a mismatch: where the follower's latest common epoch ends in the leader's log. */
export interface TruncateRequest {
  leader: string;
  leaderEpoch: number;
  epochEnd: EpochEnd;
  /** The follower's log end and latest epoch in the mismatch this answers: a follower whose log changed since ignores it. */
  followerLogEndOffset: number;
  followerLatestEpoch: number;
}

export type TruncateReply = ReplicateReply;
