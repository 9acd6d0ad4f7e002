/**
 * ListGroups, DescribeGroups and DeleteGroups on the coordinator's groups. Every Tributary
 * group is a Kafka "consumer" group (KIP-848's type) whatever its members speak. ListGroups
 * shows the consumer-group state names (Empty, Reconciling, Stable). DescribeGroups, a classic
 * API, shows a group on Kafka's classic path as Kafka would (its own state, protocol type and
 * protocol, each member's instance id), and a server-assigned one with the classic state names
 * (Reconciling is PreparingRebalance) and the server's assignor as the protocol; each member's
 * subscription as the topics of its assignment. Share groups are listed (type "share") and
 * deleted too (../share/share-group-admin.ts).
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { encodeAssignment, encodeSubscription } from "../../protocol/consumer-protocol.ts";
import { deleteShareGroup, listedShareGroups, shareGroupType } from "../share/share-group-admin.ts";
import { kafkaCodes, orKafkaCode } from "./kafka-codes.ts";
import type {
  DeleteGroupsRequest,
  DeleteGroupsResponse,
  DescribedGroup,
  DescribeGroupsRequest,
  DescribeGroupsResponse,
  ListGroupsRequest,
  ListGroupsResponse,
} from "./messages.ts";

/** Kafka's answer when authorized operations were not asked for. */
const authorizedOperationsOmitted = -2147483648;
const groupType = "consumer";
const consumerProtocolType = "consumer";

export async function listGroups(request: ListGroupsRequest, context: GatewayRequestContext): Promise<ListGroupsResponse> {
  const listed = await orKafkaCode(() => context.tributary.admin().groups.list());
  const states = new Set((request.statesFilter ?? []).map((state) => state.toLowerCase()));
  const types = new Set((request.typesFilter ?? []).map((type) => type.toLowerCase()));
  const groups = (listed.value ?? [])
    .filter(({ state }) => states.size === 0 || states.has(state.toLowerCase()))
    .filter(() => types.size === 0 || types.has(groupType))
    .map(({ group, state }) => ({ groupId: group, protocolType: consumerProtocolType, groupState: state, groupType }));
  if (types.size === 0 || types.has(shareGroupType)) groups.push(...(await listedShareGroups(context)).filter(({ groupState }) => states.size === 0 || states.has(groupState.toLowerCase())));
  return { throttleTimeMs: 0, errorCode: listed.errorCode, groups };
}

export async function describeGroups(request: DescribeGroupsRequest, context: GatewayRequestContext): Promise<DescribeGroupsResponse> {
  const groups = await Promise.all(request.groups.map((groupId) => describeOne(groupId, context)));
  return { throttleTimeMs: 0, groups };
}

async function describeOne(groupId: string, context: GatewayRequestContext): Promise<DescribedGroup> {
  const described = await orKafkaCode(() => context.tributary.admin().groups.describe(groupId));
  const base = { groupId, protocolType: "", protocolData: "", members: [], authorizedOperations: authorizedOperationsOmitted };
  // Kafka 4.4 describes a group it does not know as Dead: without an error before v6, with GROUP_ID_NOT_FOUND and a message from v6 (KIP-1043).
  if (described.errorCode === kafkaCodes.GROUP_ID_NOT_FOUND) {
    return context.apiVersion >= 6 ? { ...base, errorCode: kafkaCodes.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.`, groupState: "Dead" } : { ...base, errorCode: 0, groupState: "Dead" };
  }
  if (described.value === undefined) return { ...base, errorCode: described.errorCode, groupState: "" };
  const { state, assignor, members, classic } = described.value;
  return {
    ...base,
    errorCode: 0,
    groupState: classic?.state ?? (state === "Reconciling" ? "PreparingRebalance" : state),
    protocolType: classic?.protocolType ?? consumerProtocolType,
    protocolData: classic === undefined ? assignor : (classic.protocolName ?? ""),
    members: members.map((member) => ({
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId ?? null,
      clientId: member.clientId ?? "",
      clientHost: member.host ?? "",
      memberMetadata: encodeSubscription({ topics: member.assignment.map(({ topic }) => topic) }),
      memberAssignment: encodeAssignment(member.assignment),
    })),
  };
}

/** v3 adds each group's error message: null when deleted, "Group g not found." as DescribeGroups v6 says it, else the error's. */
export async function deleteGroups(request: DeleteGroupsRequest, context: GatewayRequestContext): Promise<DeleteGroupsResponse> {
  const results = await Promise.all(request.groupsNames.map(async (groupId) => ({ groupId, ...(await deleteGroup(groupId, context)) })));
  return { throttleTimeMs: 0, results };
}

/** A consumer group, else a share group of that name (../share/share-group-admin.ts). */
async function deleteGroup(groupId: string, context: GatewayRequestContext): Promise<{ errorCode: number; errorMessage: string | null }> {
  let message: string | null = null;
  const { errorCode } = await orKafkaCode(() =>
    context.tributary.admin().groups.delete(groupId).catch((error: unknown) => {
      message = error instanceof Error ? error.message : null;
      throw error;
    }),
  );
  const code = errorCode === kafkaCodes.GROUP_ID_NOT_FOUND ? await deleteShareGroup(groupId, context) : errorCode;
  if (code === kafkaCodes.NONE) return { errorCode: code, errorMessage: null };
  return { errorCode: code, errorMessage: code === kafkaCodes.GROUP_ID_NOT_FOUND ? `Group ${groupId} not found.` : message };
}
