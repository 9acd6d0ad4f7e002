/**
 * KIP-848's ConsumerGroupHeartbeat and ConsumerGroupDescribe as the codec decodes and encodes
 * them (src/gateway/protocol/messages-consumer-groups.ts; field names as in messages.ts).
 */

/** A topic's partitions, the topic named by its Kafka id (16 bytes). */
export interface TopicIdPartitions {
  topicId: Uint8Array;
  partitions: number[];
}

export interface ConsumerGroupHeartbeatRequest {
  groupId: string;
  /** v1: the client's own id, also when joining (KIP-1082); v0: "" to join. */
  memberId: string;
  /** 0 joins, -1 leaves, -2 leaves for now (a static member that will come back). */
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  /** Each of these is null when unchanged since the member's last heartbeat. */
  subscribedTopicNames: string[] | null;
  /** v1+. */
  subscribedTopicRegex?: string | null;
  serverAssignor: string | null;
  topicPartitions: TopicIdPartitions[] | null;
}

export interface ConsumerGroupHeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: TopicIdPartitions[] } | null;
}

export interface ConsumerGroupDescribeRequest {
  groupIds: string[];
  includeAuthorizedOperations: boolean;
}

export interface DescribedAssignment {
  topicPartitions: { topicId: Uint8Array; topicName: string; partitions: number[] }[];
}

export interface DescribedConsumerGroupMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  assignment: DescribedAssignment;
  targetAssignment: DescribedAssignment;
  /** v1+ (KIP-1099): 0 a classic member, 1 a consumer (KIP-848) one, -1 unknown. */
  memberType: number;
}

export interface DescribedConsumerGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: DescribedConsumerGroupMember[];
  authorizedOperations: number;
}

export interface ConsumerGroupDescribeResponse {
  throttleTimeMs: number;
  groups: DescribedConsumerGroup[];
}
