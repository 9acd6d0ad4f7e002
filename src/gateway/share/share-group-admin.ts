/**
 * Share groups in the group APIs every Kafka admin uses: ListGroups lists them with Kafka's type
 * "share" (`GET /v1/share-groups`; the state is Stable while this gateway has members of it,
 * else Empty), and DeleteGroups deletes a name that is no consumer group as a share group
 * (`DELETE /v1/share-groups/{g}`; refused with NON_EMPTY_GROUP while a record is acquired).
 */
import { path } from "../../client/transport.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode } from "../kafka-errors.ts";
import { forgetShareGroup, liveMembers } from "./members.ts";

export const shareGroupType = "share";

/** The share groups as ListGroups answers them (none when the token may not list them). */
export async function listedShareGroups(context: GatewayRequestContext): Promise<{ groupId: string; protocolType: string; groupState: string; groupType: string }[]> {
  try {
    const { groups } = await context.transport.json<{ groups: { group: string }[] }>({ method: "GET", path: path("share-groups") });
    return groups.map(({ group }) => ({ groupId: group, protocolType: shareGroupType, groupState: liveMembers(group) === undefined ? "Empty" : "Stable", groupType: shareGroupType }));
  } catch {
    return [];
  }
}

/** Deletes the share group `groupId`: its Kafka error code (GROUP_ID_NOT_FOUND when there is none). */
export async function deleteShareGroup(groupId: string, context: GatewayRequestContext): Promise<number> {
  try {
    await context.transport.empty({ method: "DELETE", path: path("share-groups", groupId) });
    forgetShareGroup(groupId);
    return 0;
  } catch (error) {
    return kafkaErrorCode(error);
  }
}
