/**
 * The gateway's consumer-group handlers (docs/gateway.md, Consumer groups): classic Kafka
 * members and KIP-848 ones translated onto Tributary's group coordinators, by Kafka API key.
 */
import type { GatewayHandlers } from "../handler-types.ts";
import { consumerGroupDescribe } from "./consumer-describe.ts";
import { consumerGroupHeartbeat } from "./consumer-heartbeat.ts";
import { deleteGroups, describeGroups, listGroups } from "./group-admin.ts";
import { heartbeat, joinGroup, leaveGroup, syncGroup } from "./membership.ts";
import { offsetDelete } from "./offset-delete.ts";
import { offsetCommit, offsetFetch } from "./offsets.ts";

export const groupApiKeys = {
  offsetCommit: 8,
  offsetFetch: 9,
  joinGroup: 11,
  heartbeat: 12,
  leaveGroup: 13,
  syncGroup: 14,
  describeGroups: 15,
  listGroups: 16,
  deleteGroups: 42,
  offsetDelete: 47,
  consumerGroupHeartbeat: 68,
  consumerGroupDescribe: 69,
} as const;

export const groupHandlers: GatewayHandlers = {
  [groupApiKeys.offsetCommit]: offsetCommit,
  [groupApiKeys.offsetFetch]: offsetFetch,
  [groupApiKeys.joinGroup]: joinGroup,
  [groupApiKeys.heartbeat]: heartbeat,
  [groupApiKeys.leaveGroup]: leaveGroup,
  [groupApiKeys.syncGroup]: syncGroup,
  [groupApiKeys.describeGroups]: describeGroups,
  [groupApiKeys.listGroups]: listGroups,
  [groupApiKeys.deleteGroups]: deleteGroups,
  [groupApiKeys.offsetDelete]: offsetDelete,
  [groupApiKeys.consumerGroupHeartbeat]: consumerGroupHeartbeat,
  [groupApiKeys.consumerGroupDescribe]: consumerGroupDescribe,
};
