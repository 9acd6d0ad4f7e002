/** Consumer groups, the pure core (ARCHITECTURE.md decision 7): what the GroupCoordinator object adapts. */

export type { Assignment, TopicAssignment, TopicPartition, TopicsMeta } from "./assignment";
export { normalizeAssignment } from "./assignment";
export type { Assignor, AssignorInput, AssignorMember, AssignorName } from "./assignor";
export { assignorNameDefault, assignorNames, assignors, isAssignorName } from "./assignor";
export { ConsumerGroup } from "./group";
export type { GroupDeps, GroupDescription, GroupStatus } from "./group";
export type { HeartbeatRequest, JoinRequest, JoinResponse, MemberResponse } from "./group-requests";
export { emptyGroupState, groupStateVersion, heartbeatIntervalMsFor } from "./group-state";
export type { AutoOffsetReset, GroupState, MemberState, TopicState } from "./group-state";
export { rangeAssignor } from "./range-assignor";
export { uniformAssignor } from "./uniform-assignor";
