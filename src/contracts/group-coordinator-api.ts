/**
 * The GroupCoordinator's RPC shapes, for the router (src/router/routes/groups.ts,
 * src/router/group-poll.ts). Every method takes the group name first and returns a Result.
 */
import type { ErrorValue } from "../errors.ts";
import type { AutoOffsetReset, MemberResponse } from "../group/index.ts";
import type { ClassicJoinAnswer, ClassicJoinRequest, ClassicSyncAnswer, ClassicSyncRequest } from "../group/classic-group.ts";
import type { PartitionDeletion, PartitionRef } from "../group/offset-deletion.ts";
import type { CommittedPosition, Position } from "../protocol/schemas.ts";

export type { CommittedPosition, Position };

export interface PollStartRequest {
  memberEpoch: number;
  /** The positions the member sends back from its last poll; committed when `autoCommit`. */
  positions?: Position[];
  autoCommit: boolean;
}

/** Where the router starts reading one assigned partition when the member sent no position. */
export interface PartitionStart {
  topic: string;
  /** The topic's incarnation the coordinator means; the router reads only that one. */
  topicId: string;
  partition: number;
  committedOffset: number | null;
  /** Used when nothing is committed: earliest for partitions added after the group subscribed. */
  reset: AutoOffsetReset;
}

export interface PollStart extends MemberResponse {
  sessionTimeoutMs: number;
  starts: PartitionStart[];
}

export interface CommitRequest {
  memberId?: string;
  memberEpoch?: number;
  /** A classic member's commit: `memberEpoch` is its generation (on the server's path also: partitions it still owns). */
  classic?: boolean;
  /** A classic static member's instance id: a commit under a replaced member id is FENCED_INSTANCE_ID. */
  groupInstanceId?: string | null;
  /** Each with Kafka's metadata string ("" when omitted), at most offsetMetadataLengthMax long. */
  offsets: CommittedPosition[];
}

export interface ResetRequest {
  topic: string;
  /** The topicId the offsets were resolved for; the coordinator checks it is still the topic's. */
  topicId: string;
  offsets: { partition: number; offset: number }[];
}

export interface GroupOffset {
  topic: string;
  topicId: string;
  partition: number;
  offset: number | null;
  /** The commit's metadata string ("" when it carried none); null where nothing is committed. */
  metadata: string | null;
  /** The commit's leader epoch (KIP-320), where it carried one. */
  leaderEpoch?: number;
}

// ---- Classic members (Kafka's JoinGroup protocol, through the gateway; docs/api.md, Classic members) ----

export type { ClassicJoinAnswer, ClassicJoinRequest, ClassicSyncAnswer, ClassicSyncRequest };

/** A call that may wait (a held JoinGroup or SyncGroup) waits at most `waitMs` (≤ classicWaitMsMax), then answers "pending". */
export interface ClassicWait {
  waitMs: number;
}

/** A JoinGroup's answer: the generation joined; or, still held, "pending" (call again with `memberId`); or Kafka's MEMBER_ID_REQUIRED with the id to use. */
export type ClassicJoinReply =
  | ({ outcome: "joined" } & ClassicJoinAnswer)
  | { outcome: "pending"; memberId: string }
  | { outcome: "member-id-required"; memberId: string };

export type ClassicSyncReply = ({ outcome: "synced" } & ClassicSyncAnswer) | { outcome: "pending" };

export interface ClassicHeartbeatRequest {
  memberId: string;
  groupInstanceId: string | null;
  generationId: number;
}

export interface ClassicLeaveRequest {
  members: { memberId: string; groupInstanceId: string | null }[];
}

export interface ClassicLeaveReply {
  members: { memberId: string; groupInstanceId: string | null; error: ErrorValue | null }[];
}

/**
 * Offsets committed inside a transaction (Kafka's TxnOffsetCommit, issue 28): pending until the
 * transaction coordinator's marker. A member's commit is fenced as a plain one is (KIP-447:
 * `memberId` with `memberEpoch`, its generation for a classic member); without a member only
 * the producer's epoch fences it.
 */
export interface TransactionalCommitRequest extends CommitRequest {
  producerId: number;
  producerEpoch: number;
}

/** The transaction coordinator's marker to a group: a commit makes the producer's pending offsets committed, an abort drops them. */
export interface GroupTransactionMarker {
  producerId: number;
  producerEpoch: number;
  result: "commit" | "abort";
  coordinatorEpoch: number;
}

/** Kafka's OffsetDelete (`POST /v1/groups/{g}/offsets/delete`): the partitions whose committed offsets go. */
export interface OffsetDeleteRequest {
  partitions: PartitionRef[];
}

/** Each partition named, in request order: deleted (error null) or refused on its own. */
export interface OffsetDeleteReply {
  partitions: PartitionDeletion[];
}
