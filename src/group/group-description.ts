import type { Assignment } from "./assignment.ts";
import type { AssignorName } from "./assignor.ts";

/*
 * What a group's description says (ConsumerGroup.describe in group.ts): shapes of their own, since
 * member-contacts.ts, which group.ts uses, rewrites them with the persisted contact times.
 */

/**
 * Kafka's consumer group states: Empty (no members), Reconciling (some member's assignment
 * is not yet its target, or it has partitions still to let go), Stable (every member holds
 * exactly its target). Dead is the coordinator's, once the group is deleted.
 */
export type GroupStatus = "Empty" | "Reconciling" | "Stable" | "Dead";

export interface GroupDescription {
  state: Exclude<GroupStatus, "Dead">;
  assignor: AssignorName;
  members: MemberDescription[];
}

export interface MemberDescription {
  memberId: string;
  memberEpoch: number;
  assignment: Assignment;
  clientId: string | null;
  host: string | null;
  /** The member's last accepted request (ms since the epoch); the object shows the persisted one after a restart (member-contacts.ts). */
  lastHeartbeatAt: number;
  sessionTimeoutMs: number;
  /** A classic member's static id (null when dynamic); a static member's (static-members.ts); absent for the others. */
  groupInstanceId?: string | null;
}
