/**
 * The group APIs' requests and responses as the codec decodes and encodes them (Kafka's JSON
 * message definitions, first letter lower case; see src/gateway/handler-types.ts). Fields a
 * version lacks are optional here; the codec ignores what a version does not carry.
 */

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  /** v1+. */
  rebalanceTimeoutMs?: number;
  memberId: string;
  /** v5+: static membership (KIP-345). */
  groupInstanceId?: string | null;
  protocolType: string;
  protocols: { name: string; metadata: Uint8Array }[];
  /** v8+. */
  reason?: string | null;
}

export interface JoinGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  skipAssignment: boolean;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Uint8Array }[];
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId?: string | null;
  /** v5+. */
  protocolType?: string | null;
  protocolName?: string | null;
  /** The leader's assignments (a follower sends none). */
  assignments: { memberId: string; assignment: Uint8Array }[];
}

export interface SyncGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Uint8Array;
}

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId?: string | null;
}

export interface HeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export interface LeaveGroupRequest {
  groupId: string;
  /** v0–v2. */
  memberId?: string;
  /** v3+. */
  members?: { memberId: string; groupInstanceId: string | null; reason?: string | null }[];
}

export interface LeaveGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  members: { memberId: string; groupInstanceId: string | null; errorCode: number }[];
}

export interface OffsetCommitRequest {
  groupId: string;
  /** v1+; -1 for a commit from outside the group. */
  generationIdOrMemberEpoch?: number;
  memberId?: string;
  groupInstanceId?: string | null;
  retentionTimeMs?: bigint;
  topics: {
    /** "" from v10, which names topics by id. */
    name: string;
    /** v10+. */
    topicId?: Uint8Array;
    partitions: {
      partitionIndex: number;
      committedOffset: bigint;
      committedLeaderEpoch?: number;
      commitTimestamp?: bigint;
      committedMetadata: string | null;
    }[];
  }[];
}

export interface OffsetCommitResponse {
  throttleTimeMs: number;
  topics: { name: string; topicId?: Uint8Array; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

export interface OffsetFetchTopics {
  /** "" from v10, which names topics by id. */
  name: string;
  /** v10+. */
  topicId?: Uint8Array;
  partitionIndexes: number[];
}

export interface OffsetFetchRequest {
  /** v0–v7. */
  groupId?: string;
  /** v0–v7; null (v2+) asks for every committed offset. */
  topics?: OffsetFetchTopics[] | null;
  /** v8+. */
  groups?: { groupId: string; memberId?: string | null; memberEpoch?: number; topics: OffsetFetchTopics[] | null }[];
  requireStable?: boolean;
}

export interface OffsetFetchPartition {
  partitionIndex: number;
  committedOffset: bigint;
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchTopicAnswer {
  name: string;
  /** v10+. */
  topicId?: Uint8Array;
  partitions: OffsetFetchPartition[];
}

export interface OffsetFetchResponse {
  throttleTimeMs: number;
  /** v0–v7. */
  topics?: OffsetFetchTopicAnswer[];
  errorCode?: number;
  /** v8+. */
  groups?: { groupId: string; topics: OffsetFetchTopicAnswer[]; errorCode: number }[];
}

export interface ListGroupsRequest {
  statesFilter?: string[];
  typesFilter?: string[];
}

export interface ListGroupsResponse {
  throttleTimeMs: number;
  errorCode: number;
  groups: { groupId: string; protocolType: string; groupState: string; groupType: string }[];
}

export interface DescribeGroupsRequest {
  groups: string[];
  includeAuthorizedOperations?: boolean;
}

export interface DescribedGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  memberMetadata: Uint8Array;
  memberAssignment: Uint8Array;
}

export interface DescribedGroup {
  errorCode: number;
  /** v6+: why a group is not described (null when it is). */
  errorMessage?: string | null;
  groupId: string;
  groupState: string;
  protocolType: string;
  protocolData: string;
  members: DescribedGroupMember[];
  authorizedOperations: number;
}

export interface DescribeGroupsResponse {
  throttleTimeMs: number;
  groups: DescribedGroup[];
}

export interface DeleteGroupsRequest {
  groupsNames: string[];
}

export interface DeleteGroupsResponse {
  throttleTimeMs: number;
  /** errorMessage: v3+. */
  results: { groupId: string; errorCode: number; errorMessage: string | null }[];
}

export interface OffsetDeleteRequest {
  groupId: string;
  topics: { name: string; partitions: { partitionIndex: number }[] }[];
}

export interface OffsetDeleteResponse {
  errorCode: number;
  throttleTimeMs: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}
