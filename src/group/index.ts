/** Consumer groups, the pure core (ARCHITECTURE.md decisions 7 and 19): what the GroupCoordinator object adapts. */

export type { Assignment, TopicAssignment, TopicPartition, TopicsMeta } from "./assignment.ts";
export { normalizeAssignment } from "./assignment.ts";
export type { Assignor, AssignorInput, AssignorMember, AssignorName } from "./assignor.ts";
export { assignorNameDefault, assignorNames, isAssignorName } from "./assignor.ts";
export { assignors } from "./assignors.ts";
export { ConsumerGroup } from "./group.ts";
export type { GroupDeps } from "./group.ts";
export type { GroupDescription, GroupStatus, MemberDescription } from "./group-description.ts";
export type { ClassicHeartbeatResponse, HeartbeatRequest, JoinRequest, JoinResponse, MemberResponse } from "./group-requests.ts";
export { emptyGroupState, groupStateVersion, heartbeatIntervalMsFor } from "./group-state.ts";
export type { AutoOffsetReset, GroupState, MemberState, TopicState } from "./group-state.ts";
export { contactPersistLagMsFor, PersistedContacts } from "./member-contacts.ts";
export type { MemberContact } from "./member-contacts.ts";
export { rangeAssignor } from "./range-assignor.ts";
export { uniformAssignor } from "./uniform-assignor.ts";
export { ClassicGroup } from "./classic-group.ts";
export type { ClassicJoinAnswer, ClassicJoinOutcome, ClassicJoinRequest, ClassicLeaveResult, ClassicSyncAnswer, ClassicSyncOutcome, ClassicSyncRequest } from "./classic-group.ts";
export type { ClassicGroupState, ClassicMemberState, ClassicProtocol } from "./classic-group-state.ts";
export { GroupMembership } from "./group-membership.ts";
export type { GroupPath, MembershipDescription, MembershipState } from "./group-membership.ts";
