/**
 * Static members of KIP-848 (Kafka's group.instance.id on the consumer protocol): a member
 * that joins with an instance id keeps it; leaving "for now" (Kafka's epoch -2, a consumer
 * closing to restart) keeps its place — its partitions stay its own, nobody else is assigned
 * them — until its session ends or a member joins under the same instance id, which then takes
 * its place: its assignment and epoch, under the newcomer's member id, without a rebalance. A
 * join under the instance id of a member that has not left is UNRELEASED_INSTANCE_ID, as on
 * Kafka (two processes with one instance id: the second is refused, the running one goes on).
 */
import { TributaryError } from "../errors.ts";
import type { MemberState } from "./group-state.ts";
import { copyMember } from "./group-state.ts";

/** The member holding `instanceId`, if any. */
export function staticHolder(members: Iterable<MemberState>, instanceId: string): MemberState | undefined {
  for (const member of members) if (member.instanceId === instanceId) return member;
  return undefined;
}

/** The holder's place under `memberId`, heard from now; refused while the holder has not left. */
export function takeStaticPlace(holder: MemberState, memberId: string, nowMs: number): MemberState {
  if (holder.away !== true) {
    throw new TributaryError("UNRELEASED_INSTANCE_ID", `instance id ${holder.instanceId ?? ""} is still used by member ${holder.memberId}: it must leave first`, {
      groupInstanceId: holder.instanceId ?? null,
    });
  }
  const member = copyMember(holder);
  member.memberId = memberId;
  member.away = false;
  member.lastContactMs = nowMs;
  return member;
}
